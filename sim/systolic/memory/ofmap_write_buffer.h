#pragma once
// SCALE-Sim v2's OFMAP write buffer (memory/write_buffer.py), replayed on counts: one class for
// CALC mode (drains of `ArrayWidth` words per cycle), USER mode (drains of `Bandwidth` words per
// cycle, with write stalls) and the OFMAP DRAM traces (a LineObserver sees every drained line).
//
// Per written word, as write_buffer.py does: the word enters the buffer (packed into DRAM lines of
// `line_words`); then, if a drain is in flight (cycle < end of the drain) and the buffer is full,
// the row waits for the drain to end (a write stall); otherwise, if the occupancy exceeds the
// active half, the partial line is closed and a drain of up to ceil(drain_half / line_words) lines
// starts at the current cycle, one line per cycle (issuing it costs no cycles; its words are freed
// at once). The words a drain counts are lines * line_words minus the empty slots of its LAST line
// only, so an early-closed partial line in the middle of a drain counts as full: SCALE-Sim's
// DRAM-write artefact (e.g. 3359263 = 3359232 + 31 writes). After the last row everything left is
// drained, drain after drain. The reported stop cycle is the end of the last drain issued (the
// final flush), even when an earlier drain, still in flight at the last cycle, ends later.
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>

#include "systolic/memory/calc_read_buffer.h"

namespace tcsim::systolic {

class OfmapWriteBuffer {
 public:
  // Sees every DRAM line a drain writes, in order: its cycle, the words in it, and the words
  // SCALE-Sim counts for it (the line width for a partial line that is not its drain's last).
  using LineObserver = std::function<void(std::int64_t cycle, std::int64_t fill, std::int64_t counted)>;

  OfmapWriteBuffer(std::uint64_t sram_words, std::int64_t line_words, LineObserver observer = {});

  // `n` words written by the demand row issued at `cycle`; returns the cycle the row is served
  // (later than `cycle` only after a write stall).
  std::int64_t write_row(std::int64_t cycle, std::int64_t n);
  // CALC mode: `count` rows at consecutive cycles from `row`, `per_row` words each. Never stalls:
  // a drain frees about as many words as its lines hold at once, and C words per cycle cannot refill
  // them before it ends. O(1) per drain instead of per row.
  void write_rows(std::int64_t row, std::int64_t count, std::int64_t per_row);
  // Drains what is left, starting at `last_cycle` (the serviced cycle of the last demand row).
  DramSpan finish(std::int64_t last_cycle);

 private:
  void store(std::int64_t n);  // n words enter the buffer (packed into lines)
  void close_partial_line();
  void drain(std::int64_t cycle);
  std::int64_t drain_size_, active_size_, line_, lines_per_drain_, free_;
  std::int64_t line_fill_ = 0;
  std::deque<std::pair<std::int64_t, std::int64_t>> lines_;  // runs of (fill, count), undrained
  std::int64_t drain_end_ = 0, written_ = 0;
  bool any_drain_ = false;
  std::int64_t first_drain_ = 0, last_drain_end_ = 0;
  LineObserver observer_;
};

}  // namespace tcsim::systolic
