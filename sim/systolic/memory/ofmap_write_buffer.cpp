#include "systolic/memory/ofmap_write_buffer.h"

#include <algorithm>

namespace tcsim::systolic {

OfmapWriteBuffer::OfmapWriteBuffer(std::uint64_t sram_words, std::int64_t line_words, LineObserver observer)
    : drain_size_(static_cast<std::int64_t>(sram_words) - (static_cast<std::int64_t>(sram_words) + 1) / 2),
      active_size_((static_cast<std::int64_t>(sram_words) + 1) / 2),  // ceil(total * 0.5)
      line_(std::max<std::int64_t>(line_words, 1)),
      lines_per_drain_((drain_size_ + line_ - 1) / line_),
      free_(static_cast<std::int64_t>(sram_words)),
      observer_(std::move(observer)) {}

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
    if (observer_)
      for (std::int64_t i = 0; i < k; ++i) {
        const bool last = want - i == 1 || (run.second - i == 1 && lines_.size() == 1);
        observer_(cycle + taken + i, run.first, last ? run.first : line_);
      }
    taken += k;
    want -= k;
    last_fill = run.first;
    run.second -= k;
    if (run.second == 0) lines_.pop_front();
  }
  const std::int64_t words = taken > 0 ? taken * line_ - (line_ - last_fill) : 0;
  written_ += words;
  free_ += words;  // SCALE-Sim frees what it counts, its partial-line artefact included
  const std::int64_t end = cycle + std::max<std::int64_t>(taken, 1) - 1;  // write port: no latency
  if (!any_drain_) {
    any_drain_ = true;
    first_drain_ = cycle;
  }
  last_drain_end_ = end;  // SCALE-Sim reports the end of the LAST drain issued, not the latest one
  drain_end_ = end;
}

std::int64_t OfmapWriteBuffer::write_row(std::int64_t cycle, std::int64_t n) {
  std::int64_t cur = cycle;
  while (n > 0) {
    if (cur < drain_end_) {
      // Drain in flight: words enter until the buffer is full; the word that finds it full
      // (free <= 0 after storing) waits for the drain to end.
      const std::int64_t k = std::min(n, std::max<std::int64_t>(free_, 1));
      store(k);
      n -= k;
      if (free_ <= 0) cur = drain_end_;
      continue;
    }
    // No drain in flight: the word that makes the occupancy exceed the active half drains.
    const std::int64_t until = std::max<std::int64_t>(free_ - active_size_ + 1, 1);
    if (until > n) {
      store(n);
      n = 0;
    } else {
      store(until);
      n -= until;
      close_partial_line();
      drain(cur);
    }
  }
  return cur;
}

void OfmapWriteBuffer::write_rows(std::int64_t row, std::int64_t count, std::int64_t per_row) {
  if (per_row <= 0) return;
  const std::int64_t end_row = row + count;
  while (row < end_row) {
    if (row < drain_end_) {  // a drain is in flight: no new drain can start in these rows
      const std::int64_t k = std::min(end_row, drain_end_) - row;
      store(k * per_row);
      row += k;
      continue;
    }
    const std::int64_t until = free_ - active_size_ + 1;  // the until-th word triggers a drain
    if (until > (end_row - row) * per_row) {
      store((end_row - row) * per_row);
      row = end_row;
      continue;
    }
    const std::int64_t full_rows = (std::max<std::int64_t>(until, 1) - 1) / per_row;  // rows before the trigger row
    store(full_rows * per_row);
    row += full_rows;
    write_row(row, per_row);  // the trigger row, word by word (it cannot stall, see the header)
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
