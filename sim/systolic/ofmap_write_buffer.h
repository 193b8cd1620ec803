#pragma once
// SCALE-Sim v2's OFMAP write buffer (memory/write_buffer.py), replayed on counts only.
// Writes are packed into DRAM lines of `line_words` words. When the occupancy exceeds the drain
// half and no drain is in progress, the partial line is closed and a drain of up to
// ceil(drain_half / line_words) lines starts; it lasts one cycle per line. The words a drain
// counts are (lines * line_words) minus the empty slots of its LAST line only, so an early-closed
// partial line in the middle of a drain counts as full: that is SCALE-Sim's DRAM-write artefact
// (e.g. 3359263 = 3359232 + 31 writes). Everything left is drained after the last cycle.
// The reported stop cycle is the end of the last drain issued (the final flush), even when an
// earlier drain, still in progress at the last cycle, ends later.
#include <cstdint>
#include <deque>
#include <utility>

#include "systolic/calc_read_buffer.h"

namespace tcsim::systolic {

class OfmapWriteBuffer {
 public:
  OfmapWriteBuffer(std::uint64_t sram_words, std::int64_t line_words);

  // `count` rows starting at cycle `row`, each with `per_row` writes.
  void write_rows(std::int64_t row, std::int64_t count, std::int64_t per_row);
  // Drains what is left, starting at `last_cycle` (the cycle of the last demand row).
  DramSpan finish(std::int64_t last_cycle);

 private:
  void store(std::int64_t n);   // n words enter the buffer (packed into lines)
  void close_partial_line();
  void drain(std::int64_t cycle);
  std::int64_t total_;
  std::int64_t drain_size_;
  std::int64_t active_size_;
  std::int64_t line_;
  std::int64_t lines_per_drain_;
  std::int64_t free_;
  std::int64_t line_fill_ = 0;
  std::deque<std::pair<std::int64_t, std::int64_t>> lines_;  // runs of (fill, count), undrained
  std::int64_t drain_end_ = 0;
  std::int64_t written_ = 0;
  bool any_drain_ = false;
  std::int64_t first_drain_ = 0, last_drain_end_ = 0;
};

}  // namespace tcsim::systolic
