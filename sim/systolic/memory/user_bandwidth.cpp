#include "systolic/memory/user_bandwidth.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "systolic/memory/ofmap_write_buffer.h"
#include "systolic/memory/user_read_buffer.h"

namespace tcsim::systolic {

namespace {

// Entries of a rows x cols matrix in SCALE-Sim's anti-diagonal unroll order
// (diagonal d = row + col ascending; within a diagonal, row descending).
// kAll: visit the -1 entries too.
template <bool kAll, class Elem, class Visit>
void diagonal_order(std::int64_t rows, std::int64_t cols, Elem&& elem, Visit&& visit) {
  for (std::int64_t d = 0; d < rows + cols - 1; ++d) {
    const std::int64_t hi = std::min(d, rows - 1), lo = std::max<std::int64_t>(0, d - cols + 1);
    for (std::int64_t row = hi; row >= lo; --row) {
      const std::int64_t a = elem(row, d - row);
      if (kAll || a >= 0) visit(a, row);
    }
  }
}

// Entries of a rows x cols matrix row by row (prefetch matrices that SCALE-Sim does not unroll).
template <bool kAll, class Elem, class Visit>
void row_order(std::int64_t rows, std::int64_t cols, Elem&& elem, Visit&& visit) {
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t col = 0; col < cols; ++col) {
      const std::int64_t a = elem(row, col);
      if (kAll || a >= 0) visit(a, row);
    }
}

// The prefetch matrix of an operand (compute/systolic_compute_{os,ws,is}.py): per fold of the
// operand's spatial dimension, its tile stacked below the previous one, padded with -1 to the
// array edge; skewed operands are then unrolled along the anti-diagonals.
//   os ifmap : rows fr*K + k, cols r < R -> A(fr*R + r, k)          diagonal
//   os filter: rows fc*K + k, cols c < C -> B(k, fc*C + c)          diagonal
//   ws ifmap : rows fr*M + m, cols r < R -> A(m, fr*R + r)          diagonal
//   ws filter: rows fc*K + k, cols c < C -> B(k, fc*C + c)          row by row
//   is ifmap : rows fc*K + k, cols c < C -> A(fc*C + c, k)          row by row
//   is filter: rows fr*N + n, cols r < R -> B(fr*R + r, n)          diagonal
// Calls visit(addr, tile) for the valid entries in order (kAll: all entries, -1 included; tile =
// the fold index in the first column: fr or fc); returns the entries including -1.
template <bool kAll = false, class Visit>
std::int64_t prefetch_order(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                            Visit&& visit_tile) {
  const std::int64_t K = layer.k(), M = layer.m(), N = layer.n(), R = s.R, C = s.C;
  auto B = [K](std::int64_t k, std::int64_t n) { return n * K + k; };
  const bool ifmap = op == Operand::ifmap;
  // rows of one tile of the prefetch matrix
  const std::int64_t tile_rows = s.dataflow == Dataflow::ws ? (ifmap ? M : K)
                                 : s.dataflow == Dataflow::is ? (ifmap ? K : N)
                                                              : K;
  auto visit = [&](std::int64_t a, std::int64_t row) { visit_tile(a, row / tile_rows); };
  switch (s.dataflow) {
    case Dataflow::os:
      if (ifmap) {
        diagonal_order<kAll>(s.Fr * K, R, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
          const std::int64_t fr = row / K;
          return col < s.rows_used(fr) ? A(fr * R + col, row % K) : -1;
        }, visit);
        return s.Fr * K * R;
      }
      diagonal_order<kAll>(s.Fc * K, C, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
        const std::int64_t fc = row / K;
        return col < s.cols_used(fc) ? B(row % K, fc * C + col) : -1;
      }, visit);
      return s.Fc * K * C;
    case Dataflow::ws:
      if (ifmap) {
        diagonal_order<kAll>(s.Fr * M, R, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
          const std::int64_t fr = row / M;
          return col < s.rows_used(fr) ? A(row % M, fr * R + col) : -1;
        }, visit);
        return s.Fr * M * R;
      }
      row_order<kAll>(s.Fc * K, C, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
        const std::int64_t fc = row / K;
        return col < s.cols_used(fc) ? B(row % K, fc * C + col) : -1;
      }, visit);
      return s.Fc * K * C;
    case Dataflow::is:
      if (ifmap) {
        row_order<kAll>(s.Fc * K, C, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
          const std::int64_t fc = row / K;
          return col < s.cols_used(fc) ? A(fc * C + col, row % K) : -1;
        }, visit);
        return s.Fc * K * C;
      }
      diagonal_order<kAll>(s.Fr * N, R, [&](std::int64_t row, std::int64_t col) -> std::int64_t {
        const std::int64_t fr = row / N;
        return col < s.rows_used(fr) ? B(fr * R + col, row % N) : -1;
      }, visit);
      return s.Fr * N * R;
  }
  return 0;
}

// Calls visit(addr) for the valid demand entries of `op` in fold row t, in port order (the same
// streams as for_each_demand, one row at a time).
template <class Visit>
void row_demand(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op, std::int64_t fr,
                std::int64_t fc, std::int64_t t, Visit&& visit) {
  const std::int64_t K = layer.k(), R = s.R, C = s.C;
  const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
  auto B = [K](std::int64_t k, std::int64_t n) { return n * K + k; };
  auto skewed = [&](std::int64_t delay, std::int64_t used, std::int64_t len, auto&& addr) {
    const std::int64_t d = t - delay;
    if (d < 0 || d >= len + used - 1) return;
    for (std::int64_t p = std::max<std::int64_t>(0, d - len + 1), e = std::min(used - 1, d); p <= e; ++p) {
      const std::int64_t a = addr(p, d - p);
      if (a >= 0) visit(a);
    }
  };
  auto preload = [&](auto&& addr) {
    if (t < R - ru || t >= R) return;
    for (std::int64_t p = 0; p < cu; ++p) {
      const std::int64_t a = addr(R - 1 - t, p);
      if (a >= 0) visit(a);
    }
  };
  switch (s.dataflow) {
    case Dataflow::os:
      if (op == Operand::ifmap) skewed(0, ru, s.T, [&](std::int64_t p, std::int64_t k) { return A(fr * R + p, k); });
      else skewed(0, cu, s.T, [&](std::int64_t p, std::int64_t k) { return B(k, fc * C + p); });
      break;
    case Dataflow::ws:
      if (op == Operand::ifmap) skewed(R, ru, s.T, [&](std::int64_t p, std::int64_t m) { return A(m, fr * R + p); });
      else preload([&](std::int64_t i, std::int64_t p) { return B(fr * R + i, fc * C + p); });
      break;
    case Dataflow::is:
      if (op == Operand::filter) skewed(R, ru, s.T, [&](std::int64_t p, std::int64_t n) { return B(fr * R + p, n); });
      else preload([&](std::int64_t i, std::int64_t p) { return A(fc * C + p, fr * R + i); });
      break;
  }
}

}  // namespace

std::int64_t user_line_words(const SystolicConfig& c) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(c.user_bandwidth_words)));
}

std::int64_t for_each_fetch_entry(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                                  const std::function<void(std::int64_t)>& visit) {
  return prefetch_order<true>(layer, s, A, op, [&visit](std::int64_t a, std::int64_t) { visit(a); });
}

bool user_bandwidth_fits(const Layer& layer, const FoldSchedule& s) {
  // The index holds one 4-byte set id per prefetch entry and 20 bytes per address.
  constexpr std::int64_t kMaxEntries = std::int64_t{1} << 27;
  const std::int64_t K = layer.k(), M = layer.m(), N = layer.n();
  std::int64_t ifmap_entries = 0, filter_entries = 0;
  switch (s.dataflow) {
    case Dataflow::os: ifmap_entries = s.Fr * K * s.R; filter_entries = s.Fc * K * s.C; break;
    case Dataflow::ws: ifmap_entries = s.Fr * M * s.R; filter_entries = s.Fc * K * s.C; break;
    case Dataflow::is: ifmap_entries = s.Fc * K * s.C; filter_entries = s.Fr * N * s.R; break;
  }
  return ifmap_entries <= kMaxEntries && filter_entries <= kMaxEntries && layer.ifmap_words() <= kMaxEntries &&
         K * N <= kMaxEntries && s.total_rows() <= (std::int64_t{1} << 31);
}

UserReplay replay_user_bandwidth(const Layer& layer, const FoldSchedule& s, const Im2col& A, const SystolicConfig& c,
                                 RowSpan ri, RowSpan rf, RowSpan ro, const UserReplayHooks* hooks) {
  const std::int64_t bw = user_line_words(c);
  UserReadBuffer ifmap(c.ifmap_sram_words(), bw, layer.ifmap_words());
  UserReadBuffer filter(c.filter_sram_words(), bw, layer.k() * layer.n());
  for (auto [op, buf] : {std::pair{Operand::ifmap, &ifmap}, std::pair{Operand::filter, &filter}}) {
    const std::int64_t entries = prefetch_order(layer, s, A, op, [b = buf](std::int64_t a, std::int64_t) { b->count(a); });
    if (!buf->fits_in_active_half()) {
      buf->start_placing();
      prefetch_order(layer, s, A, op, [b = buf](std::int64_t a, std::int64_t tile) { b->place(a, tile); });
    }
    buf->seal(entries);
  }
  OfmapWriteBuffer ofmap(c.ofmap_sram_words(), bw, hooks ? hooks->ofmap_line : OfmapWriteBuffer::LineObserver{});
  const bool row_hook = hooks && hooks->row;
  // The prefetch tile a fold's demand comes from (os ifmap, ws ifmap, is filter: the row fold).
  auto ifmap_tile = [&](std::int64_t fr, std::int64_t fc) { return s.dataflow == Dataflow::is ? fc : fr; };
  auto filter_tile = [&](std::int64_t fr, std::int64_t fc) { return s.dataflow == Dataflow::is ? fr : fc; };

  UserReplay out;
  std::int64_t stalls = 0, last_out = 0;
  const std::int64_t L = s.fold_rows;
  for (std::int64_t fc = 0; fc < s.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const std::int64_t base = (fc * s.Fr + fr) * L;
      // A fold whose whole prefetch tile is in the active window cannot miss: skip its addresses
      // (the window only moves on that buffer's own misses, so this holds for the whole fold).
      const bool check_i = !ifmap.covers(ifmap_tile(fr, fc)), check_f = !filter.covers(filter_tile(fr, fc));
      for (std::int64_t t = 0; t < L; ++t) {
        const std::int64_t i = base + t, cycle = i + stalls;
        std::int64_t off_i = 1, off_f = 1;  // hit latency 1, plus this row's read stalls
        if (check_i)
          row_demand(layer, s, A, Operand::ifmap, fr, fc, t, [&](std::int64_t a) { ifmap.serve(a, cycle, off_i); });
        if (check_f)
          row_demand(layer, s, A, Operand::filter, fr, fc, t, [&](std::int64_t a) { filter.serve(a, cycle, off_f); });
        const std::int64_t w = ofmap_writes_in_row(s, fr, fc, t);
        const std::int64_t of_out = w > 0 ? ofmap.write_row(cycle, w) : cycle;
        if (i == ri.first) out.sram_ifmap.first = cycle + off_i;
        if (i == ri.last) out.sram_ifmap.last = cycle + off_i;
        if (i == rf.first) out.sram_filter.first = cycle + off_f;
        if (i == rf.last) out.sram_filter.last = cycle + off_f;
        if (i == ro.first) out.sram_ofmap.first = of_out;
        if (i == ro.last) out.sram_ofmap.last = of_out;
        last_out = of_out;
        if (row_hook) hooks->row(i, cycle, cycle + off_i, cycle + off_f, of_out);
        stalls += std::max({off_i - 1, off_f - 1, of_out - cycle});
      }
    }
  }
  out.total_cycles = last_out;
  out.stall_cycles = stalls;
  out.dram_ifmap = {ifmap.dram_accesses(), ifmap.dram_start(), ifmap.dram_stop(), true};
  out.dram_filter = {filter.dram_accesses(), filter.dram_start(), filter.dram_stop(), true};
  out.dram_ofmap = ofmap.finish(last_out);
  out.ifmap_prefetches = ifmap.prefetches();
  out.filter_prefetches = filter.prefetches();
  return out;
}

}  // namespace tcsim::systolic
