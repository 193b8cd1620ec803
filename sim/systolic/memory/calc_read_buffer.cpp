#include "systolic/memory/calc_read_buffer.h"

#include <algorithm>
#include <new>

namespace tcsim::systolic {

CalcReadBuffer::CalcReadBuffer(std::uint64_t sram_words, std::int64_t address_space)
    : items_per_set_(static_cast<std::int64_t>(sram_words / kSets)),
      capacity_(kActiveSets * static_cast<std::int64_t>(sram_words / kSets)),
      space_(std::max<std::int64_t>(address_space, 1)) {
  stamp_.reset(static_cast<std::uint16_t*>(std::calloc(static_cast<std::size_t>(space_), sizeof(std::uint16_t))));
  if (!stamp_) throw std::bad_alloc();
}

void CalcReadBuffer::next_epoch(std::int64_t row) {
  in_epoch_ = 0;
  ++triggers_;
  last_trigger_row_ = row;
  last_trigger_access_ = accesses_;
  if (cur_ == kMaxStamp) {  // out of stamps: the new epoch is empty, so forget every stamp
    std::fill_n(stamp_.get(), space_, std::uint16_t{0});
    cur_ = 0;
  }
  lo_ = cur_ = static_cast<std::uint16_t>(cur_ + 1);
}

void CalcReadBuffer::renumber() {
  std::uint16_t* p = stamp_.get();
  for (std::int64_t i = 0; i < space_; ++i) p[i] = in_epoch(p[i]) ? std::uint16_t{1} : std::uint16_t{0};
  lo_ = cur_ = 1;
}

DramSpan CalcReadBuffer::closed_form(std::int64_t items_per_set, std::int64_t misses, std::int64_t first_row,
                                     std::int64_t last_trigger_row) {
  DramSpan d;
  d.accesses = misses;
  const std::int64_t cap = kActiveSets * items_per_set;
  if (misses < cap || cap == 0) {
    // Never filled the active half: everything is "prefetched" before cycle 0 at 10 words/cycle,
    // ending at cycle -2 (plus the port's 1-cycle latency in the trace).
    const std::int64_t sets = items_per_set > 0 ? (misses + items_per_set - 1) / items_per_set : 0;
    const std::int64_t cycles = (sets * items_per_set + kInitialBandwidth - 1) / kInitialBandwidth;
    d.start = -cycles;
    d.stop = -1;
  } else {
    const std::int64_t cycles = (cap + kInitialBandwidth - 1) / kInitialBandwidth;
    d.start = first_row - cycles;
    d.stop = last_trigger_row + 1;
  }
  return d;
}

DramSpan CalcReadBuffer::finish() const {
  return closed_form(items_per_set_, misses_, first_row_, last_trigger_row_);
}

}  // namespace tcsim::systolic
