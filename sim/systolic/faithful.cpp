#include "systolic/faithful.h"

#include <algorithm>
#include <cmath>

#include "systolic/dram_estimate.h"

namespace tcsim::systolic {

std::int64_t faithful_compute_cycles(const FoldSchedule& s) {
  const std::int64_t skew = s.R + s.C - 2;
  if (s.dataflow == Dataflow::os) return s.folds() * std::max(s.T, s.R) + skew;
  return s.R + s.folds() * std::max(s.T, s.R) + skew;
}

FaithfulResult faithful_layer(const Layer& layer, const FoldSchedule& s, const SystolicConfig& c,
                              std::int64_t in_bytes, std::int64_t out_bytes) {
  FaithfulResult f;
  f.compute_cycles = faithful_compute_cycles(s);
  const std::int64_t M = layer.m(), N = layer.n(), K = layer.k();
  const auto half_words = [&](std::uint64_t bytes, std::int64_t wb) {
    return static_cast<std::int64_t>(bytes / 2 / static_cast<std::uint64_t>(std::max<std::int64_t>(wb, 1)));
  };
  // Compulsory traffic plus tile re-reads when the operand does not fit in half its buffer.
  const std::int64_t ifmap_fp = layer.ifmap_words(), filter_fp = K * N;
  const DramSpan di = estimate_dram_reads(layer, s, Operand::ifmap, half_words(c.ifmap_sram_bytes, in_bytes),
                                          std::min(ifmap_fp, M * K));
  const DramSpan dfl =
      estimate_dram_reads(layer, s, Operand::filter, half_words(c.filter_sram_bytes, in_bytes), filter_fp);
  // Outputs: os accumulates in the array over the whole K. ws/is accumulate the K folds'
  // partial sums in the ofmap buffer when one output tile (T x C) fits in half of it.
  std::int64_t out_words = M * N;
  if (s.dataflow != Dataflow::os && s.Fr > 1) {
    const std::int64_t tile = s.T * s.C;
    if (tile > half_words(c.ofmap_sram_bytes, out_bytes)) {
      out_words = s.Fr * M * N;
      f.notes.push_back("output tile exceeds half the ofmap buffer: partial sums of every K fold go to DRAM");
    }
  }
  f.dram_ifmap.count = di.accesses;  // words
  f.dram_filter.count = dfl.accesses;
  f.dram_ofmap.count = out_words;
  for (AccessSpan* a : {&f.dram_ifmap, &f.dram_filter, &f.dram_ofmap}) {
    a->exact = false;
    a->start = 0;
    a->stop = static_cast<double>(f.compute_cycles);
  }
  // DRAM bandwidth (bytes/cycle) bounds the layer when double buffering cannot hide it.
  double bpc = 0;
  if (c.dram_bandwidth_bytes_per_s > 0 && c.clock_hz > 0) bpc = c.dram_bandwidth_bytes_per_s / c.clock_hz;
  else if (c.bandwidth_mode == BandwidthMode::user) bpc = c.user_bandwidth_words * static_cast<double>(in_bytes);
  std::int64_t cycles = f.compute_cycles;
  if (bpc > 0) {
    const double bytes = static_cast<double>(f.dram_ifmap.count + f.dram_filter.count) * static_cast<double>(in_bytes) +
                         static_cast<double>(f.dram_ofmap.count) * static_cast<double>(out_bytes);
    // The first tiles must arrive before compute starts (not hidden by double buffering).
    const double first_tiles = static_cast<double>(std::min<std::int64_t>(s.R * std::max(s.T, s.C), M * K) +
                                                   std::min<std::int64_t>(s.R * s.C, K * N)) *
                               static_cast<double>(in_bytes);
    const auto dram_cycles = static_cast<std::int64_t>(std::ceil(bytes / bpc));
    const auto fill = static_cast<std::int64_t>(std::ceil(first_tiles / bpc));
    cycles = std::max(f.compute_cycles, dram_cycles) + fill;
  }
  f.cycles = cycles;
  f.stall_cycles = cycles - f.compute_cycles;
  return f;
}

}  // namespace tcsim::systolic
