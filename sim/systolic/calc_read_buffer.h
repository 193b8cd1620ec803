#pragma once
// SCALE-Sim v2's CALC-mode ("estimate bandwidth") read buffer, re-derived (spec section 6).
// Its 100 "sets" of floor(words/100) addresses, the 50-set active window and the prefetch
// bookkeeping reduce to this: new addresses are counted in epochs of 50*floor(words/100)
// distinct addresses; an address is a hit only if it was already touched in the current epoch;
// when an epoch fills up the next one starts empty. DRAM reads = number of misses.
// The reported DRAM start/stop cycles follow from the first request and the epoch boundaries.
#include <cstdint>
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

  // The span when every access in [first_row ...] is a distinct miss counted in closed form
  // (no replay): `misses` misses, the epoch triggers at the rows given by trigger_row(j).
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
};

}  // namespace tcsim::systolic
