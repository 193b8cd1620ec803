#include "systolic/traces/faithful_traces.h"

#include <vector>

#include "systolic/schedule/demand_streams.h"
#include "systolic/faithful.h"
#include "systolic/traces/trace_file.h"

namespace tcsim::systolic {

namespace {

// Floor division for a possibly negative numerator and a positive divisor.
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The cells of one cycle on the faithful timeline.
class FaithfulRows {
 public:
  FaithfulRows(const Layer& layer, const FoldSchedule& s, const Im2col& A, const SystolicConfig& c)
      : s_(s), A_(A), c_(c), K_(layer.k()), N_(layer.n()), P_(faithful_fold_period(s)) {}

  // The fold whose skewed stream reaches a port at time x (fold-relative index t = x - g P < len).
  bool stream(std::int64_t x, std::int64_t len, std::int64_t& g, std::int64_t& t) const {
    if (x < 0) return false;
    g = floor_div(x, P_);
    t = x - g * P_;
    return g < s_.folds() && t < len;
  }
  std::int64_t a(std::int64_t m, std::int64_t k) const {
    const std::int64_t v = A_(m, k);
    return v < 0 ? -1 : v + c_.ifmap_offset;
  }
  std::int64_t b(std::int64_t k, std::int64_t n) const { return c_.filter_offset + n * K_ + k; }
  std::int64_t o(std::int64_t m, std::int64_t n) const { return c_.ofmap_offset + n + N_ * m; }

  // Streamed operand: port p < ports reads at `delay` + g P + p + t; addr(fr, fc, p, t) or -1.
  template <class Addr>
  void streamed(std::int64_t cycle, std::int64_t delay, std::int64_t ports, bool by_rows, Addr&& addr,
                std::vector<std::int64_t>& v) const {
    v.assign(static_cast<std::size_t>(ports), -1);
    for (std::int64_t p = 0; p < ports; ++p) {
      std::int64_t g, t;
      if (!stream(cycle - delay - p, s_.T, g, t)) continue;
      const std::int64_t fr = g % s_.Fr, fc = g / s_.Fr;
      if (p < (by_rows ? s_.rows_used(fr) : s_.cols_used(fc))) v[p] = addr(fr, fc, p, t);
    }
  }
  // Preloaded operand (ws filter, is ifmap): in cycle g P + u (u < R), row R-1-u of the tile, C ports.
  template <class Addr>
  void preloaded(std::int64_t cycle, Addr&& addr, std::vector<std::int64_t>& v) const {
    v.assign(static_cast<std::size_t>(s_.C), -1);
    std::int64_t g, u;
    if (!stream(cycle, s_.R, g, u)) return;
    const std::int64_t fr = g % s_.Fr, fc = g / s_.Fr, i = s_.R - 1 - u;
    if (i >= s_.rows_used(fr)) return;
    for (std::int64_t p = 0; p < s_.cols_used(fc); ++p) v[p] = addr(fr, fc, i, p);
  }

  void ifmap(std::int64_t cycle, std::vector<std::int64_t>& v) const {
    const std::int64_t R = s_.R, C = s_.C;
    switch (s_.dataflow) {
      case Dataflow::os:
        streamed(cycle, 0, R, true, [&](auto fr, auto, auto p, auto k) { return a(fr * R + p, k); }, v);
        break;
      case Dataflow::ws:
        streamed(cycle, R, R, true, [&](auto fr, auto, auto p, auto m) { return a(m, fr * R + p); }, v);
        break;
      case Dataflow::is:
        preloaded(cycle, [&](auto fr, auto fc, auto i, auto p) { return a(fc * C + p, fr * R + i); }, v);
        break;
    }
  }
  void filter(std::int64_t cycle, std::vector<std::int64_t>& v) const {
    const std::int64_t R = s_.R, C = s_.C;
    switch (s_.dataflow) {
      case Dataflow::os:
        streamed(cycle, 0, C, false, [&](auto, auto fc, auto p, auto k) { return b(k, fc * C + p); }, v);
        break;
      case Dataflow::ws:
        preloaded(cycle, [&](auto fr, auto fc, auto i, auto p) { return b(fr * R + i, fc * C + p); }, v);
        break;
      case Dataflow::is:
        streamed(cycle, R, R, true, [&](auto fr, auto, auto p, auto n) { return b(fr * R + p, n); }, v);
        break;
    }
  }
  // Output writes of the cycle; `final_only` keeps only the last K fold's (ws/is), `dram` gets the
  // cells that go to DRAM.
  void ofmap(std::int64_t cycle, bool psums_to_dram, std::vector<std::int64_t>& v,
             std::vector<std::int64_t>& dram) const {
    const std::int64_t R = s_.R, C = s_.C;
    v.assign(static_cast<std::size_t>(C), -1);
    dram.clear();
    for (std::int64_t p = 0; p < C; ++p) {
      std::int64_t g, x, addr = -1;
      if (s_.dataflow == Dataflow::os) {
        // PE (r, p) of fold g finishes at g P + r + p + K - 1.
        if (!stream(cycle - p - (K_ - 1), R, g, x)) continue;
        const std::int64_t fr = g % s_.Fr, fc = g / s_.Fr;
        if (x < s_.rows_used(fr) && p < s_.cols_used(fc)) addr = o(fr * R + x, fc * C + p);
      } else {
        if (!stream(cycle - (2 * R - 1) - p, s_.T, g, x)) continue;
        const std::int64_t fr = g % s_.Fr, fc = g / s_.Fr;
        if (p >= s_.cols_used(fc)) continue;
        addr = s_.dataflow == Dataflow::ws ? o(x, fc * C + p) : o(fc * C + p, x);
        if (psums_to_dram || fr == s_.Fr - 1) dram.push_back(addr);
        v[p] = addr;
        continue;
      }
      v[p] = addr;
      if (addr >= 0) dram.push_back(addr);
    }
  }

  // The i-th word of fold (fr, fc)'s filter tile (faithful_tile_words of them).
  std::int64_t filter_tile_word(std::int64_t fr, std::int64_t fc, std::int64_t i) const {
    const std::int64_t R = s_.R, C = s_.C, cu = s_.cols_used(fc);
    switch (s_.dataflow) {
      case Dataflow::os: return b(i / cu, fc * C + i % cu);
      case Dataflow::ws: return b(fr * R + i / cu, fc * C + i % cu);
      case Dataflow::is: return b(fr * R + i / N_, i % N_);
    }
    return -1;
  }

 private:
  const FoldSchedule& s_;
  const Im2col& A_;
  const SystolicConfig& c_;
  std::int64_t K_, N_, P_;
};

void write_read_trace(const std::filesystem::path& path, const Layer& layer, const FoldSchedule& s,
                      const FaithfulRows& rows, const SystolicConfig& c, Operand op, std::int64_t in_bytes) {
  const FaithfulReads r = faithful_reads(layer, c, op, in_bytes);
  const std::int64_t P = faithful_fold_period(s);
  TraceFile w(path);
  for_each_faithful_read(layer, s, op, r, [&](std::int64_t g, bool whole, std::int64_t n) {
    const std::int64_t fr = g % s.Fr, fc = g / s.Fr;
    if (op == Operand::filter) {
      w.transfer((g - 1) * P, g * P - 1, n, [&](std::int64_t i) -> std::int64_t {
        return whole ? c.filter_offset + i : rows.filter_tile_word(fr, fc, i);
      });
      return;
    }
    // The distinct input elements of the whole layer or of the fold's im2col block, each once;
    // transfer() asks for them in order, i = 0 .. n - 1.
    const Im2colBlock block = whole ? Im2colBlock{0, layer.m(), 0, layer.k()} : faithful_ifmap_block(layer, s, fr, fc);
    InputElementCursor cursor(layer, block);
    w.transfer((g - 1) * P, g * P - 1, n, [&](std::int64_t) { return c.ifmap_offset + cursor.next(); });
  });
  w.commit();
}

}  // namespace

void write_faithful_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const Im2col A(layer);
  const FaithfulRows rows(layer, s, A, c);
  const std::int64_t in_b = c.bytes_from_formats ? layer.in_bytes : c.word_bytes;
  const std::int64_t out_b = c.bytes_from_formats ? layer.out_bytes : c.word_bytes;
  const bool psums = faithful_partial_sums_to_dram(s, c, out_b);
  {
    TraceFile fi(dir / "IFMAP_SRAM_TRACE.csv"), ff(dir / "FILTER_SRAM_TRACE.csv"), fo(dir / "OFMAP_SRAM_TRACE.csv");
    TraceFile fd(dir / "OFMAP_DRAM_TRACE.csv");
    std::vector<std::int64_t> v, dram;
    const std::int64_t cycles = faithful_compute_cycles(s);
    for (std::int64_t t = 0; t < cycles; ++t) {
      rows.ifmap(t, v);
      fi.row(t, v);
      rows.filter(t, v);
      ff.row(t, v);
      rows.ofmap(t, psums, v, dram);
      fo.row(t, v);
      if (!dram.empty()) fd.row(t, dram);
    }
    fi.commit();
    ff.commit();
    fo.commit();
    fd.commit();
  }
  write_read_trace(dir / "IFMAP_DRAM_TRACE.csv", layer, s, rows, c, Operand::ifmap, in_b);
  write_read_trace(dir / "FILTER_DRAM_TRACE.csv", layer, s, rows, c, Operand::filter, in_b);
}

}  // namespace tcsim::systolic
