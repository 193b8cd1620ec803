#include "systolic/memory/user_read_buffer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tcsim::systolic {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

UserReadBuffer::UserReadBuffer(std::uint64_t sram_words, std::int64_t bw, std::int64_t address_space)
    : total_(static_cast<std::int64_t>(sram_words)),
      active_(ceil_div(static_cast<std::int64_t>(sram_words), 2)),  // ceil(total * 0.5)
      prefetch_(static_cast<std::int64_t>(sram_words) - ceil_div(static_cast<std::int64_t>(sram_words), 2)),
      bw_(std::max<std::int64_t>(bw, 1)),
      per_set_(std::max<std::int64_t>(ceil_div(static_cast<std::int64_t>(sram_words), kSets), 1)),
      offsets_(static_cast<std::size_t>(address_space) + 1, 0),
      memo_(static_cast<std::size_t>(address_space), 0) {}

bool UserReadBuffer::fits_in_active_half() const {
  return valid_ / per_set_ + 1 <= ceil_div(active_, per_set_);
}

void UserReadBuffer::start_placing() {
  for (std::size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
  cursor_.assign(offsets_.begin(), offsets_.end() - 1);
  sets_.assign(static_cast<std::size_t>(valid_), 0);
  placed_ = 0;
}

void UserReadBuffer::seal(std::int64_t fetch_entries) {
  cursor_.clear();
  cursor_.shrink_to_fit();
  num_sets_ = valid_ / per_set_ + 1;
  active_sets_ = std::min(num_sets_, ceil_div(active_, per_set_));
  prefetch_sets_ = std::min(num_sets_ - active_sets_, ceil_div(prefetch_, per_set_));
  start_ = 0;
  const std::int64_t fetch_rows = ceil_div(fetch_entries, bw_);
  const std::int64_t lines = std::min(ceil_div(active_, bw_), fetch_rows);
  accesses_ = lines * bw_;
  // Requests at cycles -lines-1 .. -2 (first demand cycle 0), answered one cycle later.
  dram_start_ = -lines;
  last_prefetch_ = -1;
}

bool UserReadBuffer::hit_any(std::int64_t addr) {
  std::uint32_t& m = memo_[static_cast<std::size_t>(addr)];
  if (m == generation_) return true;
  const std::int32_t* b = sets_.data() + offsets_[static_cast<std::size_t>(addr)];
  const std::int32_t* e = sets_.data() + offsets_[static_cast<std::size_t>(addr) + 1];
  if (b == e) throw std::logic_error("USER read buffer: demanded address is not in the prefetch order");
  bool found;
  if (active_sets_ >= num_sets_) {
    found = true;
  } else {
    const std::int64_t end = start_ + active_sets_;
    auto any_in = [&](std::int64_t lo, std::int64_t hi) {  // a set id in [lo, hi)?
      const std::int32_t* p = std::lower_bound(b, e, static_cast<std::int32_t>(lo));
      return p != e && *p < hi;
    };
    found = end <= num_sets_ ? any_in(start_, end) : (any_in(start_, num_sets_) || any_in(0, end - num_sets_));
  }
  if (found) m = generation_;
  return found;
}

void UserReadBuffer::unreachable(std::int64_t addr) {
  throw std::logic_error("USER read buffer: address " + std::to_string(addr) + " never enters the active window");
}

void UserReadBuffer::new_prefetch() {
  if (prefetch_sets_ <= 0)  // SCALE-Sim would loop forever here; cannot happen when sets are consistent
    throw std::logic_error("USER read buffer: miss with no prefetch window");
  start_ = (start_ + prefetch_sets_) % num_sets_;
  const std::int64_t lines = ceil_div(prefetch_, bw_);
  accesses_ += lines * bw_;
  last_prefetch_ += lines + 1;  // requests at last+1 .. last+lines, 1-cycle port latency
  ++prefetches_;
  if (++generation_ == 0) {  // wrapped: clear the memo
    std::fill(memo_.begin(), memo_.end(), 0);
    generation_ = 1;
  }
}

}  // namespace tcsim::systolic
