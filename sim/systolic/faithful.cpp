#include "systolic/faithful.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "systolic/dram_estimate.h"

namespace tcsim::systolic {

namespace {
std::int64_t half_words(std::uint64_t bytes, std::int64_t word_bytes) {
  return static_cast<std::int64_t>(bytes / 2 / static_cast<std::uint64_t>(std::max<std::int64_t>(word_bytes, 1)));
}
}  // namespace

std::int64_t faithful_compute_cycles(const FoldSchedule& s) {
  const std::int64_t skew = s.R + s.C - 2;
  if (s.dataflow == Dataflow::os) return s.folds() * std::max(s.T, s.R) + skew;
  return s.R + s.folds() * std::max(s.T, s.R) + skew;
}

std::int64_t faithful_fold_period(const FoldSchedule& s) { return std::max(s.T, s.R); }

bool faithful_partial_sums_to_dram(const FoldSchedule& s, const SystolicConfig& c, std::int64_t out_bytes) {
  return s.dataflow != Dataflow::os && s.Fr > 1 && s.T * s.C > half_words(c.ofmap_sram_bytes, out_bytes);
}

FaithfulReads faithful_reads(const Layer& layer, const SystolicConfig& c, Operand op, std::int64_t in_bytes) {
  FaithfulReads r;
  if (op == Operand::ifmap) {
    r.capacity = half_words(c.ifmap_sram_bytes, in_bytes);
    r.footprint = std::min(layer.ifmap_words(), layer.m() * layer.k());
  } else {
    r.capacity = half_words(c.filter_sram_bytes, in_bytes);
    r.footprint = layer.k() * layer.n();
  }
  return r;
}

std::int64_t faithful_tile_words(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t fr,
                                 std::int64_t fc) {
  const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
  switch (s.dataflow) {
    case Dataflow::os: return op == Operand::ifmap ? ru * layer.k() : layer.k() * cu;
    case Dataflow::ws: return op == Operand::ifmap ? layer.m() * ru : ru * cu;
    case Dataflow::is: return op == Operand::filter ? ru * layer.n() : ru * cu;
  }
  return 0;
}

void for_each_faithful_read(const Layer& layer, const FoldSchedule& s, Operand op, const FaithfulReads& r,
                            const std::function<void(std::int64_t fold, bool whole)>& visit) {
  if (r.footprint <= r.capacity) {
    visit(0, true);
    return;
  }
  // dram_estimate.cpp's rule: the tile depends on fr (by_fr) or fc (by_fc) only.
  const bool by_fr = (s.dataflow == Dataflow::os && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::ws && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::is && op == Operand::filter);
  const bool by_fc = s.dataflow == Dataflow::os && op == Operand::filter;
  for (std::int64_t fc = 0; fc < s.Fc; ++fc)
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const bool same_as_previous = (by_fc && fr > 0) || (by_fr && s.Fr == 1 && fc > 0);
      if (!(same_as_previous && faithful_tile_words(layer, s, op, fr, fc) <= r.capacity)) visit(fc * s.Fr + fr, false);
    }
}

FaithfulResult faithful_layer(const Layer& layer, const FoldSchedule& s, const SystolicConfig& c,
                              std::int64_t in_bytes, std::int64_t out_bytes) {
  FaithfulResult f;
  f.compute_cycles = faithful_compute_cycles(s);
  const std::int64_t M = layer.m(), N = layer.n(), K = layer.k();
  const std::int64_t P = faithful_fold_period(s);
  // Compulsory traffic plus tile re-reads when the operand does not fit in half its buffer.
  const FaithfulReads ri = faithful_reads(layer, c, Operand::ifmap, in_bytes);
  const FaithfulReads rf = faithful_reads(layer, c, Operand::filter, in_bytes);
  const DramSpan di = estimate_dram_reads(layer, s, Operand::ifmap, ri.capacity, ri.footprint);
  const DramSpan dfl = estimate_dram_reads(layer, s, Operand::filter, rf.capacity, rf.footprint);
  // Outputs: os accumulates in the array over the whole K. ws/is accumulate the K folds'
  // partial sums in the ofmap buffer when one output tile (T x C) fits in half of it.
  const bool psums = faithful_partial_sums_to_dram(s, c, out_bytes);
  if (psums) f.notes.push_back("output tile exceeds half the ofmap buffer: partial sums of every K fold go to DRAM");
  f.dram_ifmap.count = di.accesses;  // words
  f.dram_filter.count = dfl.accesses;
  f.dram_ofmap.count = psums ? s.Fr * M * N : M * N;
  // Spans of the transfers (see faithful_traces.h): reads for fold g in [(g-1) P, g P - 1].
  for (auto [span, op, r] : {std::tuple{&f.dram_ifmap, Operand::ifmap, ri}, std::tuple{&f.dram_filter, Operand::filter, rf}}) {
    std::int64_t first = -1, last = -1;
    for_each_faithful_read(layer, s, op, r, [&](std::int64_t g, bool) {
      if (first < 0) first = g;
      last = g;
    });
    span->start = static_cast<double>((first - 1) * P);
    span->stop = static_cast<double>(last * P - 1);
  }
  // Writes: os outputs leave PE (r, c) of fold g at g P + r + c + K - 1; ws/is partial sums of
  // output row x at column c at R + g P + R - 1 + c + x (only the last K fold's when accumulated).
  // The latest write of the last fold: its last row (os only), last column and last time step.
  std::int64_t last_extent = (s.cols_used(s.Fc - 1) - 1) + s.T - 1;
  if (s.dataflow == Dataflow::os) {
    last_extent += s.rows_used(s.Fr - 1) - 1;
    f.dram_ofmap.start = static_cast<double>(K - 1);
    f.dram_ofmap.stop = static_cast<double>((s.folds() - 1) * P + last_extent);
  } else {
    const std::int64_t first_fold = psums ? 0 : s.Fr - 1;
    f.dram_ofmap.start = static_cast<double>(2 * s.R - 1 + first_fold * P);
    f.dram_ofmap.stop = static_cast<double>(2 * s.R - 1 + (s.folds() - 1) * P + last_extent);
  }
  for (AccessSpan* a : {&f.dram_ifmap, &f.dram_filter, &f.dram_ofmap}) a->exact = false;
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
