#include "systolic/schedule/fold_schedule.h"

namespace tcsim::systolic {

FoldSchedule make_schedule(const Layer& layer, std::int64_t rows, std::int64_t cols, Dataflow dataflow) {
  FoldSchedule s;
  s.dataflow = dataflow;
  s.R = rows;
  s.C = cols;
  switch (dataflow) {
    case Dataflow::os: s.Sr = layer.m(); s.Sc = layer.n(); s.T = layer.k(); break;
    case Dataflow::ws: s.Sr = layer.k(); s.Sc = layer.n(); s.T = layer.m(); break;
    case Dataflow::is: s.Sr = layer.k(); s.Sc = layer.m(); s.T = layer.n(); break;
  }
  s.Fr = (s.Sr + rows - 1) / rows;
  s.Fc = (s.Sc + cols - 1) / cols;
  s.fold_rows = dataflow == Dataflow::os ? s.T + rows + cols - 2 : 2 * rows + cols + s.T - 2;
  return s;
}

ClosedFormCounts closed_form_counts(const Layer& layer, const FoldSchedule& s) {
  ClosedFormCounts c;
  const std::int64_t M = layer.m(), N = layer.n(), K = layer.k();
  switch (s.dataflow) {
    case Dataflow::os:
      c.ifmap_sram_reads = s.Fc * M * K;
      c.filter_sram_reads = s.Fr * K * N;
      c.ofmap_real_writes = M * N;
      c.ofmap_sram_writes = M * N + s.folds() * (s.R + s.C);  // SCALE-Sim adds the tile shape again
      break;
    case Dataflow::ws:
      c.ifmap_sram_reads = s.Fc * M * K;
      c.filter_sram_reads = K * N;
      c.ofmap_real_writes = c.ofmap_sram_writes = s.Fr * M * N;
      break;
    case Dataflow::is:
      c.ifmap_sram_reads = K * M;
      c.filter_sram_reads = s.Fc * K * N;
      c.ofmap_real_writes = c.ofmap_sram_writes = s.Fr * M * N;
      break;
  }
  // SCALE-Sim sums one float per fold, column folds outer, then divides by the fold count; summing
  // in the same order gives the same last digit. Only two distinct values per axis exist, but the
  // rounding of a running sum depends on the order, so we add them one by one (O(folds)).
  const double RC = static_cast<double>(s.R * s.C);
  // SCALE-Sim's per-fold "cycles" for compute util is rows + columns - 1 of one demand matrix: the
  // ofmap one for os (= fold_rows), the unskewed preloaded operand for ws/is (fold_rows + C - 1).
  const double cycles_fold = static_cast<double>(s.dataflow == Dataflow::os ? s.fold_rows : s.fold_rows + s.C - 1);
  double map_sum = 0, util_sum = 0;
  for (std::int64_t fc = 0; fc < s.Fc; ++fc) {
    const std::int64_t cu = s.cols_used(fc);
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const std::int64_t used = s.rows_used(fr) * cu;
      map_sum += static_cast<double>(used) / RC;
      util_sum += static_cast<double>(used * s.T) / (RC * cycles_fold);
    }
  }
  c.mapping_efficiency = map_sum / static_cast<double>(s.folds());
  c.compute_utilization = util_sum / static_cast<double>(s.folds());
  return c;
}

RowSpan ifmap_row_span(const FoldSchedule& s) {
  const std::int64_t last_base = (s.folds() - 1) * s.fold_rows;
  const std::int64_t ru = s.rows_used(s.Fr - 1);
  switch (s.dataflow) {
    case Dataflow::os: return {0, last_base + s.T - 1 + ru - 1};
    case Dataflow::ws: return {s.R, last_base + s.R + ru - 1 + s.T - 1};
    case Dataflow::is: return {s.R - s.rows_used(0), last_base + s.R - 1};  // preloaded
  }
  return {};
}

RowSpan filter_row_span(const FoldSchedule& s) {
  const std::int64_t last_base = (s.folds() - 1) * s.fold_rows;
  const std::int64_t ru = s.rows_used(s.Fr - 1), cu = s.cols_used(s.Fc - 1);
  switch (s.dataflow) {
    case Dataflow::os: return {0, last_base + s.T - 1 + cu - 1};
    case Dataflow::ws: return {s.R - s.rows_used(0), last_base + s.R - 1};  // preloaded
    case Dataflow::is: return {s.R, last_base + s.R + ru - 1 + s.T - 1};
  }
  return {};
}

RowSpan ofmap_row_span(const FoldSchedule& s) {
  const std::int64_t last_base = (s.folds() - 1) * s.fold_rows;
  const std::int64_t cu = s.cols_used(s.Fc - 1);
  switch (s.dataflow) {
    case Dataflow::os: return {s.T - 1 + s.R - s.rows_used(0), last_base + s.T - 1 + s.R - 1 + cu - 1};
    case Dataflow::ws:
    case Dataflow::is: return {2 * s.R - 1, last_base + 2 * s.R - 1 + s.T - 1 + cu - 1};
  }
  return {};
}

}  // namespace tcsim::systolic
