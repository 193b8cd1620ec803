#pragma once
// One operand's SRAM demand inside one fold, restricted to a range of fold rows, in two forms:
//  * runs(): the valid accesses as contiguous address ranges, in no particular order (what the
//    CALC read buffer needs when no epoch boundary can fall inside the range);
//  * exact(): every valid access in SCALE-Sim's order (row, then port), as for_each_demand.
// Both describe exactly the accesses of for_each_demand (demand_streams.h) in those rows; the
// differential test in tests/systolic/test_calc_read_fast_paths.cpp pins that.
// Requires a layer without padding (scalesim_v2 semantics): im2col rows start inside the input.
#include <algorithm>
#include <cstdint>

#include "systolic/schedule/demand_streams.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/schedule/layer.h"

namespace tcsim::systolic {

class FoldDemand {
 public:
  FoldDemand(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op)
      : l_(layer), s_(s), A_(A), op_(op), K_(layer.k()), W_(layer.ifmap_w), H_(layer.ifmap_h), Ch_(layer.channels),
        row_len_(layer.filter_w * layer.channels) {
    preloaded_ = (s.dataflow == Dataflow::ws && op == Operand::filter) ||
                 (s.dataflow == Dataflow::is && op == Operand::ifmap);
    delay_ = s.dataflow == Dataflow::os ? 0 : s.R;
  }

  bool preloaded() const { return preloaded_; }
  // Ports used in fold f (accesses per row at most).
  std::int64_t ports(std::int64_t f) const {
    const std::int64_t fr = f % s_.Fr, fc = f / s_.Fr;
    if (preloaded_) return s_.cols_used(fc);
    return s_.dataflow == Dataflow::os && op_ == Operand::filter ? s_.cols_used(fc) : s_.rows_used(fr);
  }
  // Fold rows [first, last) that can carry accesses of fold f.
  std::int64_t first_row(std::int64_t f) const { return preloaded_ ? s_.R - s_.rows_used(f % s_.Fr) : delay_; }
  std::int64_t end_row(std::int64_t f) const { return preloaded_ ? s_.R : delay_ + s_.T + ports(f) - 1; }

  // Entries in fold row t of fold f, -1 addresses included (all valid for filters).
  std::int64_t row_entries(std::int64_t f, std::int64_t t) const {
    if (preloaded_) return t >= first_row(f) && t < s_.R ? ports(f) : 0;
    const std::int64_t d = t - delay_, used = ports(f);
    return std::max<std::int64_t>(0, std::min(d, used - 1) - std::max<std::int64_t>(0, d - s_.T + 1) + 1);
  }

  // The fold row of the j-th entry (0-based, -1 addresses included) of fold f, by binary search on
  // the closed-form count of entries in the rows before d: sum over ports p of clamp(d - p, 0, T).
  std::int64_t row_of_entry(std::int64_t f, std::int64_t j) const {
    const std::int64_t u = ports(f);
    if (preloaded_) return first_row(f) + j / u;
    const std::int64_t L = s_.T;
    auto P = [L](std::int64_t y) -> std::int64_t {  // sum_{x=1..y} min(x, L)
      if (y <= 0) return 0;
      return y <= L ? y * (y + 1) / 2 : L * (L + 1) / 2 + (y - L) * L;
    };
    std::int64_t lo = 0, hi = L + u - 2;  // the answer d: entries before row d+1 exceed j
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (P(mid + 1) - P(mid + 1 - u) > j) hi = mid;
      else lo = mid + 1;
    }
    return delay_ + lo;
  }

  // Calls emit(start, len) -> bool for the valid accesses of fold f in fold rows [t0, t1);
  // stops when emit returns false.
  template <class Emit>
  void runs(std::int64_t f, std::int64_t t0, std::int64_t t1, Emit&& emit) const {
    const std::int64_t fr = f % s_.Fr, fc = f / s_.Fr;
    const std::int64_t R = s_.R, C = s_.C, ru = s_.rows_used(fr);
    if (preloaded_) {
      const std::int64_t a = std::max(t0, R - ru), b = std::min(t1, R);
      if (a >= b) return;
      const std::int64_t cu = s_.cols_used(fc);
      // rows [a, b) carry tile rows i = R-1-t in [R-b, R-a)
      if (op_ == Operand::filter) {  // ws filter: B(fr*R + i, fc*C + p)
        for (std::int64_t p = 0; p < cu; ++p)
          if (!emit((fc * C + p) * K_ + fr * R + R - b, b - a)) return;
      } else {  // is ifmap: A(fc*C + p, fr*R + i)
        for (std::int64_t p = 0; p < cu; ++p)
          if (!im2col_runs(fc * C + p, fr * R + R - b, fr * R + R - a, emit)) return;
      }
      return;
    }
    const std::int64_t used = ports(f), len = s_.T;
    const std::int64_t d0 = t0 - delay_, d1 = t1 - delay_;  // i + p in [d0, d1)
    if (s_.dataflow == Dataflow::os) {
      // port p reads index i = d - p: one contiguous i range per port
      for (std::int64_t p = 0; p < used; ++p) {
        const std::int64_t i0 = std::max<std::int64_t>(0, d0 - p), i1 = std::min(len, d1 - p);
        if (i0 >= i1) continue;
        if (op_ == Operand::ifmap) {
          if (!im2col_runs(fr * R + p, i0, i1, emit)) return;
        } else if (!emit((fc * C + p) * K_ + i0, i1 - i0)) {
          return;
        }
      }
      return;
    }
    // ws ifmap A(i, fr*R + p), is filter B(fr*R + p, i): one contiguous port range per index i
    const std::int64_t ilo = std::max<std::int64_t>(0, d0 - (used - 1)), ihi = std::min(len, d1);
    for (std::int64_t i = ilo; i < ihi; ++i) {
      const std::int64_t p0 = std::max<std::int64_t>(0, d0 - i), p1 = std::min(used, d1 - i);
      if (p0 >= p1) continue;
      if (op_ == Operand::ifmap) {
        if (!im2col_runs(i, fr * R + p0, fr * R + p1, emit)) return;
      } else if (!emit(i * K_ + fr * R + p0, p1 - p0)) {
        return;
      }
    }
  }

  // Calls visit(layer_row, address) for every valid access of fold f in fold rows [t0, t1), in
  // SCALE-Sim's order.
  template <class Visit>
  void exact(std::int64_t f, std::int64_t t0, std::int64_t t1, Visit&& visit) const {
    const std::int64_t fr = f % s_.Fr, fc = f / s_.Fr;
    const std::int64_t R = s_.R, C = s_.C, ru = s_.rows_used(fr), base = f * s_.fold_rows;
    if (preloaded_) {
      const std::int64_t cu = s_.cols_used(fc);
      for (std::int64_t t = std::max(t0, R - ru); t < std::min(t1, R); ++t) {
        const std::int64_t k = fr * R + R - 1 - t;
        for (std::int64_t p = 0; p < cu; ++p) {
          const std::int64_t a = op_ == Operand::filter ? (fc * C + p) * K_ + k : A_(fc * C + p, k);
          if (a >= 0) visit(base + t, a);
        }
      }
      return;
    }
    const std::int64_t used = ports(f), len = s_.T;
    for (std::int64_t t = std::max(t0, delay_); t < std::min(t1, delay_ + len + used - 1); ++t) {
      const std::int64_t d = t - delay_;
      const std::int64_t p_lo = std::max<std::int64_t>(0, d - len + 1), p_hi = std::min(d, used - 1);
      for (std::int64_t p = p_lo; p <= p_hi; ++p) {
        const std::int64_t i = d - p;
        std::int64_t a;
        if (s_.dataflow == Dataflow::os)
          a = op_ == Operand::ifmap ? A_(fr * R + p, i) : (fc * C + p) * K_ + i;
        else
          a = op_ == Operand::ifmap ? A_(i, fr * R + p) : i * K_ + fr * R + p;
        if (a >= 0) visit(base + t, a);
      }
    }
  }

 private:
  // The valid addresses of im2col row m for k in [k0, k1): one range per filter row fy (the
  // window row's fx, c are contiguous words), cut where the window overhangs the input.
  template <class Emit>
  bool im2col_runs(std::int64_t m, std::int64_t k0, std::int64_t k1, Emit&& emit) const {
    const std::int64_t iy0 = A_.iy0()[m], ix0 = A_.ix0()[m];
    const std::int64_t vx = std::min(l_.filter_w, W_ - ix0), vy = std::min(l_.filter_h, H_ - iy0);
    if (vx <= 0) return true;
    const std::int64_t valid = vx * Ch_;
    for (std::int64_t fy = A_.fy()[k0]; fy < vy && fy * row_len_ < k1; ++fy) {
      const std::int64_t lo = std::max(k0, fy * row_len_), hi = std::min(k1, fy * row_len_ + valid);
      if (lo >= hi) continue;
      if (!emit(((iy0 + fy) * W_ + ix0) * Ch_ + (lo - fy * row_len_), hi - lo)) return false;
    }
    return true;
  }

  const Layer& l_;
  const FoldSchedule& s_;
  const Im2col& A_;
  Operand op_;
  std::int64_t K_, W_, H_, Ch_, row_len_;
  bool preloaded_ = false;
  std::int64_t delay_ = 0;
};

// First and last demand row (0-based, within the layer) with a valid (not -1) address of `op`:
// overhanging windows make the last entries of an im2col row invalid, so the closed-form span is
// refined by scanning rows from the front of the first fold and the back of the last one.
inline RowSpan valid_row_span(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op) {
  const FoldDemand D(layer, s, A, op);
  RowSpan span{-1, -1};
  for (std::int64_t f = 0; f < s.folds() && span.first < 0; ++f)
    for (std::int64_t t = D.first_row(f); t < D.end_row(f) && span.first < 0; ++t)
      D.exact(f, t, t + 1, [&](std::int64_t row, std::int64_t) { span.first = row; });
  for (std::int64_t f = s.folds() - 1; f >= 0 && span.last < 0; --f)
    for (std::int64_t t = D.end_row(f) - 1; t >= D.first_row(f) && span.last < 0; --t)
      D.exact(f, t, t + 1, [&](std::int64_t row, std::int64_t) { span.last = row; });
  return span;
}

}  // namespace tcsim::systolic
