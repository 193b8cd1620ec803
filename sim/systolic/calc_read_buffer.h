#pragma once
// SCALE-Sim v2's CALC-mode ("estimate bandwidth") read buffer, re-derived (spec section 6).
// Its 100 "sets" of floor(words/100) addresses, the 50-set active window and the prefetch
// bookkeeping reduce to this: new addresses are counted in epochs of 50*floor(words/100)
// distinct addresses; an address is a hit only if it was already touched in the current epoch;
// when an epoch fills up the next one starts empty. DRAM reads = number of misses.
// The reported DRAM start/stop cycles follow from the first request and the epoch boundaries.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tcsim::systolic {

struct DramSpan {
  std::int64_t accesses = 0;   // words moved
  std::int64_t start = 0;      // first cycle of the DRAM trace (negative: before compute)
  std::int64_t stop = 0;       // last cycle of the DRAM trace
  bool exact = true;           // false when estimated (layer too large to replay)
};

class CalcReadBuffer {
 public:
  // sram_words: the whole (double-buffered) SRAM in words; address_space: addresses are in
  // [0, address_space).
  CalcReadBuffer(std::uint64_t sram_words, std::int64_t address_space);

  void access(std::int64_t row, std::int64_t addr) {
    ++accesses_;
    if (!seen_first_) {
      seen_first_ = true;
      first_row_ = row;
    }
    std::uint8_t& st = stamp_[static_cast<std::size_t>(addr)];
    if (st == epoch_) return;
    st = epoch_;
    ++misses_;
    if (++in_epoch_ == capacity_) next_epoch(row);
  }

  DramSpan finish() const;
  std::int64_t capacity() const { return capacity_; }
  std::int64_t accesses() const { return accesses_; }
  std::int64_t misses() const { return misses_; }
  std::int64_t triggers() const { return triggers_; }
  std::int64_t last_trigger_row() const { return last_trigger_row_; }
  std::int64_t last_trigger_access() const { return last_trigger_access_; }
  // An order-free pass over one fold: `each(run)` calls run(start, len) for every contiguous range
  // of valid accesses of the fold (duplicates allowed). When the fold cannot reach an epoch
  // boundary (its new misses fit in the current epoch) the order inside the fold does not matter:
  // the pass is committed and true returned. Otherwise the stamps are restored and false returned
  // (the caller then replays the fold in exact order).
  template <class Each>
  bool try_fold_without_boundary(Each&& each) {
    if (!seen_first_) return false;
    undo_runs_.clear();
    undo_bytes_.clear();
    std::int64_t n = 0, fresh = 0;
    const std::uint8_t e = epoch_;
    each([&](std::int64_t start, std::int64_t len) {
      if (in_epoch_ + fresh >= capacity_) return;  // will be undone anyway
      n += len;
      std::uint8_t* p = stamp_.data() + start;
      undo_runs_.emplace_back(start, len);
      undo_bytes_.insert(undo_bytes_.end(), p, p + len);
      std::int64_t f = 0;
      for (std::int64_t i = 0; i < len; ++i) {
        f += p[i] != e;
        p[i] = e;
      }
      fresh += f;
    });
    if (in_epoch_ + fresh < capacity_) {
      accesses_ += n;
      misses_ += fresh;
      in_epoch_ += fresh;
      return true;
    }
    std::size_t off = undo_bytes_.size();
    for (auto it = undo_runs_.rbegin(); it != undo_runs_.rend(); ++it) {
      off -= static_cast<std::size_t>(it->second);
      std::copy_n(undo_bytes_.data() + off, it->second, stamp_.data() + it->first);
    }
    return false;
  }
  // Counts `n` accesses that are all distinct first touches (no replay of addresses needed):
  // `row_of(j)` gives the demand row of the j-th of them (0-based), used for epoch boundaries.
  template <class RowOf>
  void distinct_misses(std::int64_t n, std::int64_t first_row, RowOf&& row_of) {
    if (n <= 0) return;
    if (!seen_first_) {
      seen_first_ = true;
      first_row_ = first_row;
    }
    accesses_ += n;
    misses_ += n;
    const std::int64_t total = in_epoch_ + n;
    const std::int64_t new_triggers = total / capacity_;
    if (new_triggers > 0) {
      triggers_ += new_triggers;
      last_trigger_row_ = row_of(new_triggers * capacity_ - in_epoch_ - 1);
    }
    in_epoch_ = total % capacity_;
  }
  // Adds `n` repetitions of a periodic stretch that had `misses` misses and `triggers` epoch
  // boundaries, each repetition `rows` demand rows later than the previous one. The buffer state
  // (current epoch contents) is the same after each repetition, so it is left as it is.
  void repeat(std::int64_t n, std::int64_t misses, std::int64_t triggers, std::int64_t rows) {
    misses_ += n * misses;
    triggers_ += n * triggers;
    if (triggers > 0) last_trigger_row_ += n * rows;
  }

  // The DRAM span of `misses` misses whose first request came at `first_row` and whose last epoch
  // boundary (if any: misses >= 50 * items_per_set) came at `last_trigger_row`.
  static DramSpan closed_form(std::int64_t items_per_set, std::int64_t misses, std::int64_t first_row,
                              std::int64_t last_trigger_row);

  static constexpr int kSets = 100;          // SCALE-Sim: 100 sets per buffer
  static constexpr int kActiveSets = 50;     // active_buf_frac = 0.5
  static constexpr int kInitialBandwidth = 10;  // words/cycle of the first (pre-compute) fill

 private:
  void next_epoch(std::int64_t row);
  std::int64_t items_per_set_;
  std::int64_t capacity_;
  // Epoch stamp per address (1 byte keeps the array cache-resident; it is cleared every 255 epochs).
  std::vector<std::uint8_t> stamp_;
  std::uint8_t epoch_ = 1;
  std::int64_t in_epoch_ = 0;
  std::int64_t misses_ = 0;
  bool seen_first_ = false;
  std::int64_t first_row_ = 0;
  std::int64_t triggers_ = 0;
  std::int64_t last_trigger_row_ = 0;
  std::int64_t last_trigger_access_ = -1;
  std::int64_t accesses_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> undo_runs_;
  std::vector<std::uint8_t> undo_bytes_;
};

}  // namespace tcsim::systolic
