#include "systolic/dram_estimate.h"

namespace tcsim::systolic {

DramSpan estimate_dram_reads(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t capacity_words,
                             std::int64_t footprint_words) {
  DramSpan d;
  d.exact = false;
  if (footprint_words <= capacity_words) {
    d.accesses = footprint_words;
    return d;
  }
  const std::int64_t M = layer.m(), N = layer.n(), K = layer.k();
  // Which tile a fold uses depends on fr or fc only; folds run fc outer, fr inner.
  // tile(fr, fc) size in words (upper bound on its distinct addresses).
  const bool by_fr = (s.dataflow == Dataflow::os && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::ws && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::is && op == Operand::filter);
  const bool by_fc = s.dataflow == Dataflow::os && op == Operand::filter;
  std::int64_t total = 0;
  for (std::int64_t fc = 0; fc < s.Fc; ++fc)
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
      std::int64_t tile = 0;
      switch (s.dataflow) {
        case Dataflow::os: tile = op == Operand::ifmap ? ru * K : K * cu; break;
        case Dataflow::ws: tile = op == Operand::ifmap ? M * ru : ru * cu; break;
        case Dataflow::is: tile = op == Operand::filter ? ru * N : ru * cu; break;
      }
      const bool same_as_previous = (by_fc && fr > 0) || (by_fr && s.Fr == 1 && fc > 0);
      if (!(same_as_previous && tile <= capacity_words)) total += tile;
    }
  d.accesses = total;
  return d;
}

}  // namespace tcsim::systolic
