#pragma once
// How SCALE-Sim v2 maps a layer onto the array: which GEMM dimensions are spatial (S_r along the
// rows, S_c along the columns) and which one streams in time (T), the folds (column folds outer,
// row folds inside) and the length of one fold in cycles (spec/systolic.md sections 3-5).
#include <cstdint>

#include "systolic/schedule/layer.h"
#include "systolic/config/systolic_config.h"

namespace tcsim::systolic {

struct FoldSchedule {
  Dataflow dataflow = Dataflow::os;
  std::int64_t R = 1, C = 1;      // array rows, columns
  std::int64_t Sr = 0, Sc = 0, T = 0;
  std::int64_t Fr = 0, Fc = 0;    // ceil(Sr / R), ceil(Sc / C)
  std::int64_t fold_rows = 0;     // cycles (demand-matrix rows) per fold

  std::int64_t folds() const { return Fr * Fc; }
  std::int64_t rows_used(std::int64_t fr) const { return fr + 1 < Fr ? R : Sr - (Fr - 1) * R; }
  std::int64_t cols_used(std::int64_t fc) const { return fc + 1 < Fc ? C : Sc - (Fc - 1) * C; }
  // Demand rows of the whole layer (Total Cycles without stalls is this minus one).
  std::int64_t total_rows() const { return folds() * fold_rows; }
};

//   os: S_r = M, S_c = N, T = K, fold = T + R + C - 2
//   ws: S_r = K, S_c = N, T = M, fold = 2R + C + T - 2
//   is: S_r = K, S_c = M, T = N, fold = 2R + C + T - 2
FoldSchedule make_schedule(const Layer& layer, std::int64_t rows, std::int64_t cols, Dataflow dataflow);

// Closed-form counters of spec sections 3-5 (words; SCALE-Sim semantics).
struct ClosedFormCounts {
  std::int64_t ifmap_sram_reads = 0;
  std::int64_t filter_sram_reads = 0;
  std::int64_t ofmap_sram_writes = 0;   // including the OS (R + C)-per-fold artefact
  std::int64_t ofmap_real_writes = 0;   // the words actually written (no artefact)
  double mapping_efficiency = 0;        // fraction, averaged per fold in SCALE-Sim's order
  double compute_utilization = 0;       // fraction, averaged per fold in SCALE-Sim's order
};
ClosedFormCounts closed_form_counts(const Layer& layer, const FoldSchedule& s);

// First and last demand row (0-based, within the layer) with an entry, per operand, ignoring
// overhanging windows (-1 addresses); the model refines the ifmap span against the addresses.
struct RowSpan {
  std::int64_t first = 0, last = 0;
};
RowSpan ifmap_row_span(const FoldSchedule& s);
RowSpan filter_row_span(const FoldSchedule& s);
RowSpan ofmap_row_span(const FoldSchedule& s);

}  // namespace tcsim::systolic
