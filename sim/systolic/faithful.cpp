#include "systolic/faithful.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

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
    r.footprint = distinct_input_elements(layer, {0, layer.m(), 0, layer.k()});
  } else {
    r.capacity = half_words(c.filter_sram_bytes, in_bytes);
    r.footprint = layer.k() * layer.n();
  }
  return r;
}

Im2colBlock faithful_ifmap_block(const Layer& layer, const FoldSchedule& s, std::int64_t fr, std::int64_t fc) {
  const std::int64_t r0 = fr * s.R, r1 = r0 + s.rows_used(fr);
  switch (s.dataflow) {
    case Dataflow::os: return {r0, r1, 0, layer.k()};
    case Dataflow::ws: return {0, layer.m(), r0, r1};
    case Dataflow::is: return {fc * s.C, fc * s.C + s.cols_used(fc), r0, r1};
  }
  return {};
}

std::int64_t faithful_tile_words(const Layer& layer, const FoldSchedule& s, Operand op, std::int64_t fr,
                                 std::int64_t fc) {
  if (op == Operand::ifmap) return distinct_input_elements(layer, faithful_ifmap_block(layer, s, fr, fc));
  const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
  return s.dataflow == Dataflow::is ? ru * layer.n() : (s.dataflow == Dataflow::os ? layer.k() * cu : ru * cu);
}

void for_each_faithful_read(const Layer& layer, const FoldSchedule& s, Operand op, const FaithfulReads& r,
                            const std::function<void(std::int64_t fold, bool whole, std::int64_t words)>& visit) {
  if (r.footprint <= r.capacity) {
    visit(0, true, r.footprint);
    return;
  }
  // The tile depends on fr only (by_fr) or fc only (by_fc), else on both; folds run fc outer.
  const bool by_fr = (s.dataflow == Dataflow::os && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::ws && op == Operand::ifmap) ||
                     (s.dataflow == Dataflow::is && op == Operand::filter);
  const bool by_fc = s.dataflow == Dataflow::os && op == Operand::filter;
  // by_fr tiles repeat in every column fold: count each once (an ifmap tile costs a pass over its rows).
  std::vector<std::int64_t> by_fr_words(by_fr ? static_cast<std::size_t>(s.Fr) : 0, -1);
  auto words = [&](std::int64_t fr, std::int64_t fc) {
    if (!by_fr) return faithful_tile_words(layer, s, op, fr, fc);
    std::int64_t& w = by_fr_words[static_cast<std::size_t>(fr)];
    if (w < 0) w = faithful_tile_words(layer, s, op, fr, fc);
    return w;
  };
  for (std::int64_t fc = 0; fc < s.Fc; ++fc)
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const bool same_as_previous = (by_fc && fr > 0) || (by_fr && s.Fr == 1 && fc > 0);
      const std::int64_t w = words(fr, fc);
      if (!(same_as_previous && w <= r.capacity)) visit(fc * s.Fr + fr, false, w);
    }
}

namespace {

// The filter rows [y0, y1] and columns [x0, x1] of output m's window that lie inside the input
// (empty when y0 > y1 or x0 > x1).
struct Range2 {
  std::int64_t y0, y1, x0, x1;
  bool empty() const { return y0 > y1 || x0 > x1; }
};
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

Range2 valid_filter_positions(const Layer& l, std::int64_t m) {
  const std::int64_t y = (m / l.out_w) * l.stride_h - l.pad_h, x = (m % l.out_w) * l.stride_w - l.pad_w;
  return {std::max<std::int64_t>(0, -y), std::min(l.filter_h - 1, l.ifmap_h - 1 - y), std::max<std::int64_t>(0, -x),
          std::min(l.filter_w - 1, l.ifmap_w - 1 - x)};
}
// The output rows and columns whose window reads an element (not padding) at im2col column k.
Range2 valid_outputs(const Layer& l, std::int64_t k) {
  const std::int64_t fy = k / (l.filter_w * l.channels), fx = (k / l.channels) % l.filter_w;
  // iy = oy S_h + fy - pad_h in [0, H)
  return {std::max<std::int64_t>(0, ceil_div(l.pad_h - fy, l.stride_h)),
          std::min(l.out_h - 1, floor_div(l.ifmap_h - 1 + l.pad_h - fy, l.stride_h)),
          std::max<std::int64_t>(0, ceil_div(l.pad_w - fx, l.stride_w)),
          std::min(l.out_w - 1, floor_div(l.ifmap_w - 1 + l.pad_w - fx, l.stride_w))};
}
// The first / last output position in [m0, m1) (raster order) inside v, or -1.
std::int64_t first_in(const Layer& l, const Range2& v, std::int64_t m0, std::int64_t m1) {
  if (v.empty()) return -1;
  std::int64_t m = m0;
  for (;;) {
    const std::int64_t oy = m / l.out_w, ox = m % l.out_w;
    if (oy < v.y0) m = v.y0 * l.out_w + v.x0;
    else if (oy > v.y1) return -1;
    else if (ox < v.x0) m = oy * l.out_w + v.x0;
    else if (ox > v.x1) m = (oy + 1) * l.out_w + v.x0;
    else return m < m1 ? m : -1;
    if (m >= m1) return -1;
  }
}
std::int64_t last_in(const Layer& l, const Range2& v, std::int64_t m0, std::int64_t m1) {
  if (v.empty()) return -1;
  std::int64_t m = m1 - 1;
  for (;;) {
    if (m < m0) return -1;
    const std::int64_t oy = m / l.out_w, ox = m % l.out_w;
    if (oy > v.y1) m = v.y1 * l.out_w + v.x1;
    else if (oy < v.y0) return -1;
    else if (ox > v.x1) m = oy * l.out_w + v.x1;
    else if (ox < v.x0) m = (oy - 1) * l.out_w + v.x1;
    else return m;
  }
}

// First and last cycle of fold g that reads an ifmap element from the SRAM (faithful_traces.h):
//   os: port p reads A(fr R + p, k) at g P + p + k;  ws: port p reads A(m, fr R + p) at R + g P + p + m;
//   is: row i of the tile, A(fc C + p, fr R + i) for p < cu, is loaded at g P + R - 1 - i.
// False when every entry of the fold is padding.
bool ifmap_fold_span(const Layer& l, const FoldSchedule& s, std::int64_t g, std::int64_t& first, std::int64_t& last) {
  const std::int64_t P = faithful_fold_period(s), fr = g % s.Fr, fc = g / s.Fr, ru = s.rows_used(fr);
  const std::int64_t C = l.channels, Fw = l.filter_w;
  first = -1;
  last = -1;
  auto add = [&](std::int64_t a, std::int64_t b) {
    first = first < 0 ? a : std::min(first, a);
    last = std::max(last, b);
  };
  for (std::int64_t p = 0; p < ru; ++p) {
    const std::int64_t k = fr * s.R + p;
    switch (s.dataflow) {
      case Dataflow::os: {
        const Range2 f = valid_filter_positions(l, fr * s.R + p);
        if (f.empty()) break;
        add(g * P + p + (f.y0 * Fw + f.x0) * C, g * P + p + (f.y1 * Fw + f.x1) * C + C - 1);
        break;
      }
      case Dataflow::ws: {
        const Range2 v = valid_outputs(l, k);
        const std::int64_t a = first_in(l, v, 0, l.m());
        if (a >= 0) add(s.R + g * P + p + a, s.R + g * P + p + last_in(l, v, 0, l.m()));
        break;
      }
      case Dataflow::is: {  // p is the tile row i here
        const std::int64_t m0 = fc * s.C, m1 = m0 + s.cols_used(fc);
        if (first_in(l, valid_outputs(l, k), m0, m1) >= 0) add(g * P + s.R - 1 - p, g * P + s.R - 1 - p);
        break;
      }
    }
  }
  return first >= 0;
}

}  // namespace

FaithfulResult faithful_layer(const Layer& layer, const FoldSchedule& s, const SystolicConfig& c,
                              std::int64_t in_bytes, std::int64_t out_bytes) {
  FaithfulResult f;
  f.compute_cycles = faithful_compute_cycles(s);
  const std::int64_t M = layer.m(), N = layer.n(), K = layer.k();
  const std::int64_t P = faithful_fold_period(s);
  // Compulsory traffic plus tile re-reads when the operand does not fit in half its buffer.
  const FaithfulReads ri = faithful_reads(layer, c, Operand::ifmap, in_bytes);
  const FaithfulReads rf = faithful_reads(layer, c, Operand::filter, in_bytes);
  // Outputs: os accumulates in the array over the whole K. ws/is accumulate the K folds'
  // partial sums in the ofmap buffer when one output tile (T x C) fits in half of it.
  const bool psums = faithful_partial_sums_to_dram(s, c, out_bytes);
  if (psums) f.notes.push_back("output tile exceeds half the ofmap buffer: partial sums of every K fold go to DRAM");
  f.dram_ofmap.count = psums ? s.Fr * M * N : M * N;
  // Words (elements) and spans of the transfers (see faithful_traces.h): reads for fold g in
  // [(g-1) P, g P - 1].
  for (auto [span, op, r] : {std::tuple{&f.dram_ifmap, Operand::ifmap, ri}, std::tuple{&f.dram_filter, Operand::filter, rf}}) {
    std::int64_t first = -1, last = -1, words = 0;
    for_each_faithful_read(layer, s, op, r, [&](std::int64_t g, bool, std::int64_t w) {
      if (first < 0) first = g;
      last = g;
      words += w;
    });
    span->count = words;
    span->start = static_cast<double>((first - 1) * P);
    span->stop = static_cast<double>(last * P - 1);
  }
  // Writes: os outputs leave PE (r, c) of fold g at g P + r + c + K - 1; ws/is partial sums of
  // output row x at column c at R + g P + R - 1 + c + x (only the last K fold's when accumulated).
  // Folds overlap (P may be shorter than a fold's skew), so the latest write or read need not be the
  // last fold's: `latest` takes the last fold of each kind (full or partial rows x columns).
  const std::int64_t G = s.folds();
  auto latest = [&](bool last_k_fold_only, auto&& hi) {
    std::int64_t best = -1;
    for (std::int64_t fc = s.Fc - 1; fc >= std::max<std::int64_t>(0, s.Fc - 2); --fc)
      for (std::int64_t fr = s.Fr - 1; fr >= std::max<std::int64_t>(0, s.Fr - 2); --fr)
        if (!last_k_fold_only || fr == s.Fr - 1) best = std::max(best, hi(fc * s.Fr + fr, s.rows_used(fr), s.cols_used(fc)));
    return static_cast<double>(best);
  };
  if (s.dataflow == Dataflow::os) {
    f.dram_ofmap.start = f.sram_ofmap.start = static_cast<double>(K - 1);
    f.dram_ofmap.stop = f.sram_ofmap.stop =
        latest(false, [&](std::int64_t g, std::int64_t ru, std::int64_t cu) { return g * P + ru - 1 + cu - 1 + K - 1; });
  } else {
    const auto hi = [&](std::int64_t g, std::int64_t, std::int64_t cu) { return 2 * s.R - 1 + g * P + cu - 1 + s.T - 1; };
    f.dram_ofmap.start = static_cast<double>(2 * s.R - 1 + (psums ? 0 : s.Fr - 1) * P);
    f.dram_ofmap.stop = latest(!psums, hi);
    f.sram_ofmap.start = static_cast<double>(2 * s.R - 1);  // every K fold's partial sums
    f.sram_ofmap.stop = latest(false, hi);
  }
  for (AccessSpan* a : {&f.dram_ifmap, &f.dram_filter, &f.dram_ofmap}) a->exact = false;
  // SRAM reads on the overlapped timeline.
  switch (s.dataflow) {
    case Dataflow::os:  // filter port c reads B(k, n) at g P + c + k
      f.sram_filter.start = 0;
      f.sram_filter.stop = latest(false, [&](std::int64_t g, std::int64_t, std::int64_t cu) { return g * P + cu - 1 + K - 1; });
      break;
    case Dataflow::ws:  // tile row i loaded at g P + R - 1 - i
      f.sram_filter.start = static_cast<double>(s.R - s.rows_used(0));
      f.sram_filter.stop = static_cast<double>((G - 1) * P + s.R - 1);
      break;
    case Dataflow::is:  // filter port r reads B(fr R + r, n) at R + g P + r + n
      f.sram_filter.start = static_cast<double>(s.R);
      f.sram_filter.stop = latest(false, [&](std::int64_t g, std::int64_t ru, std::int64_t) { return s.R + g * P + ru - 1 + N - 1; });
      break;
  }
  // Folds overlap, so a later fold can read before an earlier one whose first entries are padding:
  // scan on while a fold's window of cycles [lo(g), lo(g) + extent] can still beat the best.
  const std::int64_t lo0 = s.dataflow == Dataflow::ws ? s.R : 0;
  const std::int64_t extent = s.R - 1 + (s.dataflow == Dataflow::is ? 0 : s.T - 1);
  std::int64_t a = 0, b = 0, ifirst = -1, ilast = -1;
  for (std::int64_t g = 0; g < G && (ifirst < 0 || lo0 + g * P <= ifirst); ++g)
    if (ifmap_fold_span(layer, s, g, a, b)) ifirst = ifirst < 0 ? a : std::min(ifirst, a);
  for (std::int64_t g = G - 1; g >= 0 && (ilast < 0 || lo0 + g * P + extent >= ilast); --g)
    if (ifmap_fold_span(layer, s, g, a, b)) ilast = std::max(ilast, b);
  f.sram_ifmap.start = static_cast<double>(std::max<std::int64_t>(ifirst, 0));  // 0, 0: only padding
  f.sram_ifmap.stop = static_cast<double>(std::max<std::int64_t>(ilast, 0));
  // A format at 1/N of the native rate (array.formats' /N): every MAC step of the pipeline takes N
  // cycles, so the whole timeline above, transfers and SRAM accesses included, stretches N-fold.
  if (layer.mac_cycles > 1) {
    const std::int64_t n = layer.mac_cycles;
    f.compute_cycles *= n;
    for (AccessSpan* a : {&f.dram_ifmap, &f.dram_filter, &f.dram_ofmap, &f.sram_ifmap, &f.sram_filter, &f.sram_ofmap}) {
      a->start *= static_cast<double>(n);
      a->stop *= static_cast<double>(n);
    }
  }
  // DRAM bandwidth (bytes/cycle) bounds the layer when double buffering cannot hide it.
  const double bpc = c.dram_bytes_per_cycle(static_cast<double>(in_bytes));
  std::int64_t cycles = f.compute_cycles;
  if (bpc > 0) {
    const double bytes = static_cast<double>(f.dram_ifmap.count + f.dram_filter.count) * static_cast<double>(in_bytes) +
                         static_cast<double>(f.dram_ofmap.count) * static_cast<double>(out_bytes);
    // Fold 0's tiles must arrive before compute starts (not hidden by double buffering): the
    // distinct input elements of its ifmap block and its filter tile.
    const double first_tiles = static_cast<double>(faithful_tile_words(layer, s, Operand::ifmap, 0, 0) +
                                                   faithful_tile_words(layer, s, Operand::filter, 0, 0)) *
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
