#include "systolic/ofmap_write_buffer.h"

#include <algorithm>

namespace tcsim::systolic {

OfmapWriteBuffer::OfmapWriteBuffer(std::uint64_t sram_words, std::int64_t line_words)
    : total_(static_cast<std::int64_t>(sram_words)),
      drain_size_(static_cast<std::int64_t>(sram_words) - (static_cast<std::int64_t>(sram_words) + 1) / 2),
      active_size_((static_cast<std::int64_t>(sram_words) + 1) / 2),
      line_(std::max<std::int64_t>(line_words, 1)),
      lines_per_drain_((drain_size_ + line_ - 1) / line_),
      free_(static_cast<std::int64_t>(sram_words)) {}

void OfmapWriteBuffer::store(std::int64_t n) {
  free_ -= n;
  const std::int64_t fill = line_fill_ + n;
  const std::int64_t full = fill / line_;
  if (full > 0) {
    if (!lines_.empty() && lines_.back().first == line_) lines_.back().second += full;
    else lines_.emplace_back(line_, full);
  }
  line_fill_ = fill % line_;
}

void OfmapWriteBuffer::close_partial_line() {
  if (line_fill_ == 0) return;
  lines_.emplace_back(line_fill_, 1);
  line_fill_ = 0;
}

void OfmapWriteBuffer::drain(std::int64_t cycle) {
  std::int64_t want = lines_per_drain_, taken = 0, last_fill = line_;
  while (want > 0 && !lines_.empty()) {
    auto& run = lines_.front();
    const std::int64_t k = std::min(want, run.second);
    taken += k;
    want -= k;
    last_fill = run.first;
    run.second -= k;
    if (run.second == 0) lines_.pop_front();
  }
  const std::int64_t words = taken * line_ - (line_ - last_fill);
  written_ += taken > 0 ? words : 0;
  free_ += taken > 0 ? words : 0;
  const std::int64_t end = cycle + std::max<std::int64_t>(taken, 1) - 1;
  if (!any_drain_) {
    any_drain_ = true;
    first_drain_ = cycle;
  }
  last_drain_end_ = end;  // SCALE-Sim reports the end of the LAST drain issued, not the latest one
  drain_end_ = end;
}

void OfmapWriteBuffer::write_rows(std::int64_t row, std::int64_t count, std::int64_t per_row) {
  if (per_row <= 0) return;
  const std::int64_t end_row = row + count;
  while (row < end_row) {
    if (row < drain_end_) {
      // A drain is in progress: no new drain can start in these rows.
      const std::int64_t k = std::min(end_row, drain_end_) - row;
      store(k * per_row);
      row += k;
      continue;
    }
    // How many words until the occupancy exceeds the drain half (free < active size)?
    const std::int64_t until = free_ - active_size_ + 1;  // the until-th word triggers
    if (until > (end_row - row) * per_row) {
      store((end_row - row) * per_row);
      row = end_row;
      continue;
    }
    const std::int64_t j = std::max<std::int64_t>(until, 1);  // words into the run
    const std::int64_t full_rows = (j - 1) / per_row;          // rows before the trigger row
    store(full_rows * per_row);
    row += full_rows;
    const std::int64_t in_row = j - full_rows * per_row;       // trigger word within this row
    store(in_row);
    close_partial_line();
    drain(row);
    // SCALE-Sim continues this row at cycle drain_end_; since that is not before drain_end_, every
    // further word of the row may start another drain (at that cycle) once the buffer is full again.
    std::int64_t rest = per_row - in_row;
    while (rest > 0) {
      const std::int64_t u = std::max<std::int64_t>(free_ - active_size_ + 1, 1);
      if (u > rest) {
        store(rest);
        rest = 0;
      } else {
        store(u);
        rest -= u;
        close_partial_line();
        drain(drain_end_);
      }
    }
    ++row;
  }
}

DramSpan OfmapWriteBuffer::finish(std::int64_t last_cycle) {
  close_partial_line();
  std::int64_t cycle = last_cycle;
  while (!lines_.empty()) {
    drain(cycle);
    cycle = drain_end_ + 1;
  }
  DramSpan d;
  d.accesses = written_;
  d.start = first_drain_;
  d.stop = last_drain_end_;
  return d;
}

}  // namespace tcsim::systolic
