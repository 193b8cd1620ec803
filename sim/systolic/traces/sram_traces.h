#pragma once
// The three per-cycle SRAM traces of a scalesim_v2 layer (--traces): IFMAP_SRAM_TRACE.csv,
// FILTER_SRAM_TRACE.csv, OFMAP_SRAM_TRACE.csv. One row per demand row, SCALE-Sim's layout: the
// cycle the row is served, then the word address (plus the operand's offset) at each array port in
// port order, -1 for an idle port. The caller says when each row is served: CALC mode reads at
// row + 1 (hit latency) and writes at row; USER mode at the replay's stalled cycles.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"
#include "systolic/config/systolic_config.h"
#include "systolic/traces/trace_file.h"

namespace tcsim::systolic {

class SramTraceWriter {
 public:
  SramTraceWriter(const std::filesystem::path& dir, const Layer& layer, const FoldSchedule& s, const Im2col& A,
                  const SystolicConfig& c);
  // Demand row i of the layer (fold-major), its reads served at ifmap_cycle / filter_cycle and its
  // writes at ofmap_cycle. Rows come in order.
  void row(std::int64_t i, std::int64_t ifmap_cycle, std::int64_t filter_cycle, std::int64_t ofmap_cycle);
  void commit();

 private:
  void ifmap(std::int64_t fr, std::int64_t fc, std::int64_t t);
  void filter(std::int64_t fr, std::int64_t fc, std::int64_t t);
  void ofmap(std::int64_t fr, std::int64_t fc, std::int64_t t);
  template <class Addr>
  void skewed(std::int64_t t, std::int64_t delay, std::int64_t ports, std::int64_t used, Addr&& addr);
  template <class Addr>
  void preload(std::int64_t t, std::int64_t ru, std::int64_t cu, Addr&& addr);
  std::int64_t a(std::int64_t m, std::int64_t k) const {
    const std::int64_t x = A_(m, k);
    return x < 0 ? -1 : x + c_.ifmap_offset;
  }
  std::int64_t b(std::int64_t k, std::int64_t n) const { return c_.filter_offset + n * K_ + k; }
  std::int64_t o(std::int64_t m, std::int64_t n) const { return c_.ofmap_offset + n + N_ * m; }

  const FoldSchedule& s_;
  const Im2col& A_;
  const SystolicConfig& c_;
  std::int64_t K_, N_;
  TraceFile fi_, ff_, fo_;
  std::vector<std::int64_t> v_;
};

}  // namespace tcsim::systolic
