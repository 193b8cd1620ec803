#include "systolic/traces/user_traces.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "common/error.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/traces/dram_traces.h"
#include "systolic/traces/sram_traces.h"
#include "systolic/traces/trace_file.h"
#include "systolic/memory/user_bandwidth.h"

namespace tcsim::systolic {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// read_buffer.py's DRAM trace of one operand (scale-sim-v2, memory/read_buffer.py):
//  prefetch_active_buffer: n0 = min(ceil(active / bw), lines) lines from line 0; when n0 * bw >
//    active, the last one keeps only its first active % bw slots (next_col_prefetch_idx) and the
//    next prefetch starts at line n0, otherwise at line n0 + 1 (both modulo the line count);
//  new_prefetch: L = ceil(prefetch / bw) lines from that start, wrapping around the fetch matrix;
//    the first next_col_prefetch_idx slots of its first line are set to -1, and when L * bw >
//    active the slots from active % bw on of its last line too; the next start is L (or L + 1)
//    modulo the line count -- not start + L, so from the second prefetch on every prefetch reads
//    the same lines.
// numpy slicing makes the unwrapped requests views of the fetch matrix, so their -1 slots stay in
// it and show up when the lines are read again; a wrapped request is a copy. We keep only the lines
// these requests touch (at most n0 + 2L) and apply the same edits in the same order.
void write_read_trace(const std::filesystem::path& path, const Layer& layer, const FoldSchedule& s, const Im2col& A,
                      Operand op, std::uint64_t sram_words, std::int64_t bw, std::int64_t offset,
                      std::int64_t prefetches) {
  const std::int64_t words = static_cast<std::int64_t>(sram_words);
  const std::int64_t active = ceil_div(words, 2), prefetch = words - active;
  // The number of fetch-matrix entries (a counting pass: the order is generated, not stored).
  const std::int64_t entries = for_each_fetch_entry(layer, s, A, op, [](std::int64_t) {});
  const std::int64_t lines = std::max<std::int64_t>(ceil_div(entries, bw), 1);
  const std::int64_t n0 = std::min(ceil_div(active, bw), lines), L = ceil_div(prefetch, bw);
  const std::int64_t next_col = n0 * bw > active ? active % bw : 0;
  const std::int64_t start1 = n0 * bw > active ? n0 % lines : (n0 + 1) % lines;
  const std::int64_t start_rest = L * bw > active ? L % lines : (L + 1) % lines;
  if (prefetches > 0 && L > lines)  // v2 would fail to concatenate; the replay cannot miss then
    throw std::logic_error("USER DRAM trace: a prefetch longer than the fetch matrix");

  std::set<std::int64_t> needed;
  for (std::int64_t i = 0; i < n0; ++i) needed.insert(i);
  if (prefetches > 0)
    for (std::int64_t i = 0; i < L; ++i) needed.insert((start1 + i) % lines);
  if (prefetches > 1)
    for (std::int64_t i = 0; i < L; ++i) needed.insert((start_rest + i) % lines);
  std::map<std::int64_t, std::vector<std::int64_t>> fm;  // line -> its bw slots
  for (std::int64_t l : needed) fm[l].assign(static_cast<std::size_t>(bw), -1);
  std::int64_t e = 0;
  for_each_fetch_entry(layer, s, A, op, [&](std::int64_t a) {
    const auto it = fm.find(e / bw);
    if (it != fm.end() && a >= 0) it->second[static_cast<std::size_t>(e % bw)] = a + offset;
    ++e;
  });

  TraceFile w(path);
  auto chomp_tail = [&](std::vector<std::int64_t>& line) {
    std::fill(line.begin() + active % bw, line.end(), -1);
  };
  // Initial fill: cycles -n0 .. -1.
  if (n0 * bw > active) chomp_tail(fm[n0 - 1]);
  for (std::int64_t i = 0; i < n0; ++i) w.row(i - n0, fm[i]);
  // Prefetches: back to back after cycle -1, one line per cycle, one idle cycle between them.
  std::vector<std::vector<std::int64_t>> req(static_cast<std::size_t>(L));
  for (std::int64_t j = 1; j <= prefetches; ++j) {
    const std::int64_t start = j == 1 ? start1 : start_rest;
    const bool wraps = start + L > lines;
    std::vector<std::int64_t*> slots(static_cast<std::size_t>(L));  // the lines this request uses
    for (std::int64_t i = 0; i < L; ++i) {
      std::vector<std::int64_t>& src = fm[(start + i) % lines];
      if (wraps) {
        req[static_cast<std::size_t>(i)] = src;  // a copy: edits stay in the request
        slots[static_cast<std::size_t>(i)] = req[static_cast<std::size_t>(i)].data();
      } else {
        slots[static_cast<std::size_t>(i)] = src.data();  // a view: edits stay in the fetch matrix
      }
    }
    std::fill(slots.front(), slots.front() + next_col, -1);
    if (L * bw > active) std::fill(slots.back() + active % bw, slots.back() + bw, -1);
    const std::int64_t first = (j - 1) * (L + 1) + 1;
    for (std::int64_t i = 0; i < L; ++i) {
      const std::int64_t* p = slots[static_cast<std::size_t>(i)];
      for (std::int64_t k = 0; k < bw; ++k) w.cell(first + i, p[k]);
    }
  }
  w.commit();
}

}  // namespace

void write_user_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  if (!user_bandwidth_fits(layer, s))
    throw InputError("--traces", "layer " + layer.name + " is too large to replay in USER bandwidth mode");
  const Im2col A(layer);
  const std::int64_t bw = user_line_words(c);
  SramTraceWriter sram(dir, layer, s, A, c);
  OfmapDramTrace ofmap(dir / "OFMAP_DRAM_TRACE.csv", layer, s, c.ofmap_offset);
  UserReplayHooks hooks;
  hooks.row = [&](std::int64_t i, std::int64_t, std::int64_t ci, std::int64_t cf, std::int64_t co) {
    sram.row(i, ci, cf, co);
  };
  hooks.ofmap_line = ofmap.observer();
  const RowSpan none{-1, -1};  // first/last SRAM cycles are not needed here
  const UserReplay u = replay_user_bandwidth(layer, s, A, c, none, none, none, &hooks);
  sram.commit();
  ofmap.commit();
  write_read_trace(dir / "IFMAP_DRAM_TRACE.csv", layer, s, A, Operand::ifmap, c.ifmap_sram_words(), bw,
                   c.ifmap_offset, u.ifmap_prefetches);
  write_read_trace(dir / "FILTER_DRAM_TRACE.csv", layer, s, A, Operand::filter, c.filter_sram_words(), bw,
                   c.filter_offset, u.filter_prefetches);
}

}  // namespace tcsim::systolic
