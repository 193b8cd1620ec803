#pragma once
// SCALE-Sim v2's OFMAP write buffer (memory/write_buffer.py) in USER mode, where it can stall:
// per written word, when a drain is in progress and the buffer is full the row waits for the
// drain to end; otherwise, when the occupancy exceeds the active half, the partial DRAM line is
// closed and a drain of up to ceil(drain_half / bw) lines (one per cycle) starts at the current
// cycle (issuing it costs no cycles). DRAM accounting (lines of `bw` words, only the last line of a
// drain discounted for empty slots, start = first drain, stop = end of the last drain issued) is
// the same as OfmapWriteBuffer's.
#include <cstdint>
#include <deque>
#include <utility>

#include "systolic/calc_read_buffer.h"

namespace tcsim::systolic {

class UserWriteBuffer {
 public:
  UserWriteBuffer(std::uint64_t sram_words, std::int64_t bw);
  // `n` words written in the demand row at `cycle`; returns the cycle the row is served.
  std::int64_t write_row(std::int64_t cycle, std::int64_t n);
  // Drains what is left, starting at `last_cycle` (the serviced cycle of the last demand row).
  DramSpan finish(std::int64_t last_cycle);

 private:
  void store(std::int64_t n);
  void close_partial_line();
  void drain(std::int64_t cycle);
  std::int64_t drain_size_, active_size_, line_, lines_per_drain_, free_;
  std::int64_t line_fill_ = 0;
  std::deque<std::pair<std::int64_t, std::int64_t>> lines_;  // runs of (fill, count), undrained
  std::int64_t drain_end_ = 0, written_ = 0;
  bool any_drain_ = false;
  std::int64_t first_drain_ = 0, last_drain_end_ = 0;
};

}  // namespace tcsim::systolic
