#pragma once
// The SRAM demand of each operand in SCALE-Sim v2's exact order (demand row = cycle, then port),
// generated on the fly without materialising any matrix. Used by the CALC-mode DRAM model (which
// depends on the order of first touches) and by the per-cycle traces.
//
// Per fold (column folds outer, row folds inside), rows t = 0 .. fold_rows-1:
//   os ifmap  : port r <  R reads A(m = fr*R + r, k = t - r)            (skewed, from row 0)
//   os filter : port c <  C reads B(k = t - c,    n = fc*C + c)
//   ws ifmap  : port r <  R reads A(m = t - R - r, k = fr*R + r)        (after R rows of weight load)
//   ws filter : row t <  R, port c reads B(k = fr*R + R-1-t, n = fc*C + c)   (preload, reversed)
//   is filter : port r <  R reads B(k = fr*R + r, n = t - R - r)
//   is ifmap  : row t <  R, port c reads A(m = fc*C + c, k = fr*R + R-1-t)
// A = im2col of the input (address -1 outside the input), B(k, n) = n*K + k.
#include <cstdint>
#include <vector>

#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"

namespace tcsim::systolic {

// Precomputed im2col address parts: A(m, k) = row_base[m] + k_off[k] when the pixel is inside.
class Im2col {
 public:
  explicit Im2col(const Layer& l) : l_(l) {
    const std::int64_t M = l.m(), K = l.k();
    iy0_.resize(static_cast<std::size_t>(M));
    ix0_.resize(static_cast<std::size_t>(M));
    for (std::int64_t m = 0; m < M; ++m) {
      iy0_[m] = (m / l.out_w) * l.stride_h - l.pad_h;
      ix0_[m] = (m % l.out_w) * l.stride_w - l.pad_w;
    }
    fy_.resize(static_cast<std::size_t>(K));
    fx_.resize(static_cast<std::size_t>(K));
    c_.resize(static_cast<std::size_t>(K));
    for (std::int64_t k = 0; k < K; ++k) {
      fy_[k] = k / (l.filter_w * l.channels);
      const std::int64_t rem = k % (l.filter_w * l.channels);
      fx_[k] = rem / l.channels;
      c_[k] = rem % l.channels;
    }
  }
  // Raw parts for tight loops: A(m, k) = ((iy0[m] + fy[k]) * W + ix0[m] + fx[k]) * C + c[k].
  const std::int64_t* iy0() const { return iy0_.data(); }
  const std::int64_t* ix0() const { return ix0_.data(); }
  const std::int64_t* fy() const { return fy_.data(); }
  const std::int64_t* fx() const { return fx_.data(); }
  const std::int64_t* ch() const { return c_.data(); }
  std::int64_t operator()(std::int64_t m, std::int64_t k) const {
    const std::int64_t iy = iy0_[m] + fy_[k], ix = ix0_[m] + fx_[k];
    if (iy < 0 || ix < 0 || iy >= l_.ifmap_h || ix >= l_.ifmap_w) return -1;
    return (iy * l_.ifmap_w + ix) * l_.channels + c_[k];
  }

 private:
  const Layer& l_;
  std::vector<std::int64_t> iy0_, ix0_, fy_, fx_, c_;
};

enum class Operand { ifmap, filter };

// Calls visit(row, address) for every valid demand entry of `op`, in SCALE-Sim's order, for the
// folds [fold_begin, fold_end) (fold index = fc * Fr + fr; fold_end < 0: all folds).
template <class Visit>
void for_each_demand(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op, Visit&& visit,
                     std::int64_t fold_begin = 0, std::int64_t fold_end = -1) {
  const std::int64_t K = layer.k();
  const std::int64_t R = s.R, C = s.C, L = s.fold_rows;
  auto B = [K](std::int64_t k, std::int64_t n) { return n * K + k; };
  // Skewed stream: ports p < used, time index i = t - delay - p in [0, len).
  auto skewed = [&](std::int64_t base, std::int64_t delay, std::int64_t used, std::int64_t len, auto&& addr) {
    for (std::int64_t t = delay; t < delay + len + used - 1; ++t) {
      const std::int64_t d = t - delay;
      const std::int64_t p_lo = d - len + 1 > 0 ? d - len + 1 : 0;
      const std::int64_t p_hi = d < used - 1 ? d : used - 1;
      for (std::int64_t p = p_lo; p <= p_hi; ++p) {
        const std::int64_t a = addr(p, d - p);
        if (a >= 0) visit(base + t, a);
      }
    }
  };
  // Preload: rows t < R carry row R-1-t of the tile (rows_used x cols_used), all ports at once.
  auto preload = [&](std::int64_t base, std::int64_t ru, std::int64_t cu, auto&& addr) {
    for (std::int64_t t = R - ru; t < R; ++t)
      for (std::int64_t p = 0; p < cu; ++p) {
        const std::int64_t a = addr(R - 1 - t, p);
        if (a >= 0) visit(base + t, a);
      }
  };
  if (fold_end < 0) fold_end = s.folds();
  for (std::int64_t f = fold_begin; f < fold_end; ++f) {
    {
      const std::int64_t fc = f / s.Fr, fr = f % s.Fr;
      const std::int64_t base = f * L;
      const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
      switch (s.dataflow) {
        case Dataflow::os:
          if (op == Operand::ifmap)
            skewed(base, 0, ru, s.T, [&](std::int64_t p, std::int64_t k) { return A(fr * R + p, k); });
          else
            skewed(base, 0, cu, s.T, [&](std::int64_t p, std::int64_t k) { return B(k, fc * C + p); });
          break;
        case Dataflow::ws:
          if (op == Operand::ifmap)
            skewed(base, R, ru, s.T, [&](std::int64_t p, std::int64_t m) { return A(m, fr * R + p); });
          else
            preload(base, ru, cu, [&](std::int64_t i, std::int64_t p) { return B(fr * R + i, fc * C + p); });
          break;
        case Dataflow::is:
          if (op == Operand::filter)
            skewed(base, R, ru, s.T, [&](std::int64_t p, std::int64_t n) { return B(fr * R + p, n); });
          else
            preload(base, ru, cu, [&](std::int64_t i, std::int64_t p) { return A(fc * C + p, fr * R + i); });
          break;
      }
    }
  }
}

// Output writes per demand row within a fold: the number of ports writing in fold row t.
// os: outputs leave in the last R rows, skewed over the columns; ws/is: T rows after 2R-1.
inline std::int64_t ofmap_writes_in_row(const FoldSchedule& s, std::int64_t fr, std::int64_t fc, std::int64_t t) {
  const std::int64_t cu = s.cols_used(fc);
  std::int64_t lo_i, hi_i, d;  // count (i, c): i + c = d, i in [lo_i, hi_i], c in [0, cu)
  if (s.dataflow == Dataflow::os) {
    d = t - (s.T - 1);
    lo_i = s.R - s.rows_used(fr);
    hi_i = s.R - 1;
  } else {
    d = t - (2 * s.R - 1);
    lo_i = 0;
    hi_i = s.T - 1;
  }
  const std::int64_t a = d - (cu - 1) > lo_i ? d - (cu - 1) : lo_i;
  const std::int64_t b = d < hi_i ? d : hi_i;
  return b >= a ? b - a + 1 : 0;
}

}  // namespace tcsim::systolic
