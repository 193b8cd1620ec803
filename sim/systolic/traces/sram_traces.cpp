#include "systolic/traces/sram_traces.h"

namespace tcsim::systolic {

SramTraceWriter::SramTraceWriter(const std::filesystem::path& dir, const Layer& layer, const FoldSchedule& s,
                                 const Im2col& A, const SystolicConfig& c)
    : s_(s),
      A_(A),
      c_(c),
      K_(layer.k()),
      N_(layer.n()),
      fi_(dir / "IFMAP_SRAM_TRACE.csv"),
      ff_(dir / "FILTER_SRAM_TRACE.csv"),
      fo_(dir / "OFMAP_SRAM_TRACE.csv") {}

void SramTraceWriter::row(std::int64_t i, std::int64_t ifmap_cycle, std::int64_t filter_cycle,
                          std::int64_t ofmap_cycle) {
  const std::int64_t fold = i / s_.fold_rows, t = i % s_.fold_rows;
  const std::int64_t fc = fold / s_.Fr, fr = fold % s_.Fr;
  ifmap(fr, fc, t);
  fi_.row(ifmap_cycle, v_);
  filter(fr, fc, t);
  ff_.row(filter_cycle, v_);
  ofmap(fr, fc, t);
  fo_.row(ofmap_cycle, v_);
}

void SramTraceWriter::commit() {
  fi_.commit();
  ff_.commit();
  fo_.commit();
}

// The port order of demand_streams.h. Skewed stream: port p < used reads addr(p, x) at fold row
// t = delay + p + x, x < T.
template <class Addr>
void SramTraceWriter::skewed(std::int64_t t, std::int64_t delay, std::int64_t ports, std::int64_t used,
                             Addr&& addr) {
  v_.assign(static_cast<std::size_t>(ports), -1);
  for (std::int64_t p = 0; p < used; ++p) {
    const std::int64_t x = t - delay - p;
    if (x >= 0 && x < s_.T) v_[p] = addr(p, x);
  }
}

// Preloaded tile: fold row t < R loads tile row R-1-t (when used) on the C ports.
template <class Addr>
void SramTraceWriter::preload(std::int64_t t, std::int64_t ru, std::int64_t cu, Addr&& addr) {
  v_.assign(static_cast<std::size_t>(s_.C), -1);
  if (t < s_.R && s_.R - 1 - t < ru)
    for (std::int64_t p = 0; p < cu; ++p) v_[p] = addr(s_.R - 1 - t, p);
}

void SramTraceWriter::ifmap(std::int64_t fr, std::int64_t fc, std::int64_t t) {
  const std::int64_t R = s_.R, C = s_.C, ru = s_.rows_used(fr), cu = s_.cols_used(fc);
  switch (s_.dataflow) {
    case Dataflow::os: skewed(t, 0, R, ru, [&](auto p, auto k) { return a(fr * R + p, k); }); break;
    case Dataflow::ws: skewed(t, R, R, ru, [&](auto p, auto m) { return a(m, fr * R + p); }); break;
    case Dataflow::is: preload(t, ru, cu, [&](auto i, auto p) { return a(fc * C + p, fr * R + i); }); break;
  }
}

void SramTraceWriter::filter(std::int64_t fr, std::int64_t fc, std::int64_t t) {
  const std::int64_t R = s_.R, C = s_.C, ru = s_.rows_used(fr), cu = s_.cols_used(fc);
  switch (s_.dataflow) {
    case Dataflow::os: skewed(t, 0, C, cu, [&](auto p, auto k) { return b(k, fc * C + p); }); break;
    case Dataflow::ws: preload(t, ru, cu, [&](auto i, auto p) { return b(fr * R + i, fc * C + p); }); break;
    case Dataflow::is: skewed(t, R, R, ru, [&](auto p, auto n) { return b(fr * R + p, n); }); break;
  }
}

void SramTraceWriter::ofmap(std::int64_t fr, std::int64_t fc, std::int64_t t) {
  const FoldSchedule& s = s_;
  const std::int64_t cu = s.cols_used(fc);
  v_.assign(static_cast<std::size_t>(s.C), -1);
  for (std::int64_t p = 0; p < cu; ++p) {
    if (s.dataflow == Dataflow::os) {
      const std::int64_t i = t - (s.T - 1) - p;  // row of the flipped tile
      if (i >= s.R - s.rows_used(fr) && i < s.R) v_[p] = o(fr * s.R + (s.R - 1 - i), fc * s.C + p);
    } else {
      const std::int64_t x = t - (2 * s.R - 1) - p;
      if (x >= 0 && x < s.T) v_[p] = s.dataflow == Dataflow::ws ? o(x, fc * s.C + p) : o(fc * s.C + p, x);
    }
  }
}

}  // namespace tcsim::systolic
