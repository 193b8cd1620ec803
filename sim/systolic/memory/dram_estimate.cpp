#include "systolic/memory/dram_estimate.h"

#include <algorithm>
#include <tuple>

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

namespace {

using Group = InputElementCursor::ChannelGroup;
using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// The block's k range [k0, k1) covers filter positions P0 .. P1 (p = k / C); the first position has
// the channels from k0 % C on, the last those up to (k1 - 1) % C, the ones between all channels. So
// channel c uses the positions [P0 + (c < cs), P1 - (c > ce)]: at most 4 groups of channels.
std::vector<Group> channel_groups(const Layer& l, const Im2colBlock& b) {
  const std::int64_t C = l.channels;
  const std::int64_t P0 = b.k0 / C, P1 = (b.k1 - 1) / C, cs = b.k0 % C, ce = (b.k1 - 1) % C;
  std::vector<Group> g;
  if (P0 == P1) {
    g.push_back({cs, ce + 1, P0, P0});
    return g;
  }
  std::int64_t cuts[] = {0, cs, ce + 1, C};
  std::sort(std::begin(cuts), std::end(cuts));
  for (int i = 0; i + 1 < 4; ++i) {
    const std::int64_t c0 = cuts[i], c1 = cuts[i + 1];
    if (c0 >= c1) continue;
    const std::int64_t pa = P0 + (c0 < cs ? 1 : 0), pb = P1 - (c0 > ce ? 1 : 0);
    if (pa <= pb) g.push_back({c0, c1, pa, pb});
  }
  return g;
}

// Input rows [lo, hi) that the group's windows can reach (some rows between may be untouched).
std::pair<std::int64_t, std::int64_t> row_range(const Layer& l, const Im2colBlock& b, const Group& g) {
  const std::int64_t oya = b.m0 / l.out_w, oyb = (b.m1 - 1) / l.out_w;
  const std::int64_t fya = g.pa / l.filter_w, fyb = g.pb / l.filter_w;
  return {std::max<std::int64_t>(0, oya * l.stride_h - l.pad_h + fya),
          std::min(l.ifmap_h, oyb * l.stride_h - l.pad_h + fyb + 1)};
}

// The merged column intervals [a, b] (inside the input) of input row iy that the group's windows
// touch: for each output row oy of the block whose window covers iy with filter row fy (in the
// group's positions), its columns ox in [xa, xb] and filter columns fx in [fa, fb] touch
// {ox * S_w + fx - pad_w}: one interval when fb - fa + 1 >= S_w, else one tooth per ox.
void row_intervals(const Layer& l, const Im2colBlock& b, const Group& g, std::int64_t iy, Intervals& out) {
  out.clear();
  const std::int64_t Ew = l.out_w, Fw = l.filter_w, Sh = l.stride_h, Sw = l.stride_w, W = l.ifmap_w;
  const std::int64_t oya = b.m0 / Ew, oyb = (b.m1 - 1) / Ew, xa0 = b.m0 % Ew, xb1 = (b.m1 - 1) % Ew;
  const std::int64_t fya = g.pa / Fw, fyb = g.pb / Fw, fa0 = g.pa % Fw, fb1 = g.pb % Fw;
  const std::int64_t t = iy + l.pad_h;  // iy = oy * S_h + fy - pad_h
  const std::int64_t oy_lo = std::max(oya, ceil_div(t - fyb, Sh)), oy_hi = std::min(oyb, floor_div(t - fya, Sh));
  auto push = [&](std::int64_t a, std::int64_t z) {
    a = std::max<std::int64_t>(a, 0);
    z = std::min(z, W - 1);
    if (a <= z) out.emplace_back(a, z);
  };
  for (std::int64_t oy = oy_lo; oy <= oy_hi; ++oy) {
    const std::int64_t fy = t - oy * Sh;
    const std::int64_t xa = oy == oya ? xa0 : 0, xb = oy == oyb ? xb1 : Ew - 1;
    const std::int64_t fa = fy == fya ? fa0 : 0, fb = fy == fyb ? fb1 : Fw - 1;
    if (xa > xb || fa > fb) continue;
    if (fb - fa + 1 >= Sw || xa == xb) {
      push(xa * Sw + fa - l.pad_w, xb * Sw + fb - l.pad_w);
    } else {
      // Teeth inside the input only: ox * S_w + fb - pad_w >= 0 and ox * S_w + fa - pad_w < W.
      const std::int64_t lo = std::max(xa, ceil_div(l.pad_w - fb, Sw));
      const std::int64_t hi = std::min(xb, floor_div(W - 1 + l.pad_w - fa, Sw));
      for (std::int64_t ox = lo; ox <= hi; ++ox) push(ox * Sw + fa - l.pad_w, ox * Sw + fb - l.pad_w);
    }
  }
  if (out.size() < 2) return;
  std::sort(out.begin(), out.end());
  std::size_t n = 0;
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i].first <= out[n].second + 1) out[n].second = std::max(out[n].second, out[i].second);
    else out[++n] = out[i];
  }
  out.resize(n + 1);
}

// Every im2col entry of the layer reads its own input element: windows overlap in neither
// direction (stride >= filter, or a single output row/column), no padding, all windows inside.
bool im2col_is_injective(const Layer& l) {
  return l.pad_h == 0 && l.pad_w == 0 && (l.stride_h >= l.filter_h || l.out_h == 1) &&
         (l.stride_w >= l.filter_w || l.out_w == 1) && (l.out_h - 1) * l.stride_h + l.filter_h <= l.ifmap_h &&
         (l.out_w - 1) * l.stride_w + l.filter_w <= l.ifmap_w;
}

}  // namespace

std::int64_t distinct_input_elements(const Layer& layer, const Im2colBlock& b) {
  if (b.m0 >= b.m1 || b.k0 >= b.k1) return 0;
  if (im2col_is_injective(layer)) return (b.m1 - b.m0) * (b.k1 - b.k0);
  std::int64_t total = 0;
  Intervals iv;
  for (const Group& g : channel_groups(layer, b)) {
    const auto [lo, hi] = row_range(layer, b, g);
    std::int64_t pixels = 0;
    for (std::int64_t iy = lo; iy < hi; ++iy) {
      row_intervals(layer, b, g, iy, iv);
      for (const auto& [a, z] : iv) pixels += z - a + 1;
    }
    total += pixels * (g.c1 - g.c0);
  }
  return total;
}

InputElementCursor::InputElementCursor(const Layer& layer, const Im2colBlock& b) : l_(layer), b_(b) {
  if (b.m0 < b.m1 && b.k0 < b.k1) groups_ = channel_groups(layer, b);
}

// Moves to the next input row (of this or a later group) and lists its elements; false at the end.
bool InputElementCursor::fill_row() {
  while (group_ < groups_.size()) {
    const Group& g = groups_[group_];
    if (!started_) {
      std::tie(iy_, iy_end_) = row_range(l_, b_, g);
      started_ = true;
    }
    if (iy_ >= iy_end_) {
      ++group_;
      started_ = false;
      continue;
    }
    const std::int64_t iy = iy_++;
    row_intervals(l_, b_, g, iy, intervals_);
    row_.clear();
    pos_ = 0;
    for (const auto& [a, z] : intervals_)
      for (std::int64_t ix = a; ix <= z; ++ix)
        for (std::int64_t c = g.c0; c < g.c1; ++c) row_.push_back((iy * l_.ifmap_w + ix) * l_.channels + c);
    if (!row_.empty()) return true;
  }
  return false;
}

std::int64_t InputElementCursor::next() {
  if (pos_ == row_.size() && !fill_row()) return -1;
  return row_[pos_++];
}

}  // namespace tcsim::systolic
