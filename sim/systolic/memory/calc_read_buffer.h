#pragma once
// SCALE-Sim v2's CALC-mode ("estimate bandwidth") read buffer, re-derived (spec section 6).
// Its 100 "sets" of floor(words/100) addresses, the 50-set active window and the prefetch
// bookkeeping reduce to this: new addresses are counted in epochs of 50*floor(words/100)
// distinct addresses; an address is a hit only if it was already touched in the current epoch;
// when an epoch fills up the next one starts empty. DRAM reads = number of misses.
// The reported DRAM start/stop cycles follow from the first request and the epoch boundaries.
//
// Membership is a 16-bit stamp per address: the current epoch is the stamp range [lo, cur]
// (every stamp ever written is <= cur, except during a tentative pass, which writes cur + 1).
// A tentative, order-free pass over a batch of accesses (`try_runs`) marks new addresses with
// cur + 1; if the batch cannot reach an epoch boundary it is committed by setting cur = cur + 1
// (no second pass), otherwise its marks are reset to 0 ("never") and the caller replays the
// batch in exact order (`access`).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>

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

  // One access in exact demand order.
  void access(std::int64_t row, std::int64_t addr) {
    ++accesses_;
    if (!seen_first_) {
      seen_first_ = true;
      first_row_ = row;
    }
    std::uint16_t& st = stamp_.get()[addr];
    if (in_epoch(st)) return;
    st = cur_;
    ++misses_;
    if (++in_epoch_ == capacity_) next_epoch(row);
  }

  // Sets the row of the first access when the caller knows it (fast paths that never call
  // access() before their first order-free batch).
  void set_first_row(std::int64_t row) {
    if (!seen_first_) {
      seen_first_ = true;
      first_row_ = row;
    }
  }

  // An order-free pass over a batch of accesses: `gen(emit)` calls emit(start, len) for
  // contiguous address ranges (duplicates allowed, any order); emit returns false when the
  // generator may stop. If the batch's new addresses fit in the current epoch without filling it
  // (no epoch boundary inside the batch), the order inside the batch does not matter: it is
  // committed and true returned. Otherwise nothing changes (its marks are cleared with a second
  // call of `gen` over the ranges it already visited) and false is returned: the caller must then
  // replay the batch in exact order with access().
  template <class Gen>
  bool try_runs(Gen&& gen) {
    if (cur_ == kMaxStamp) renumber();
    const std::uint16_t lo = lo_, v = static_cast<std::uint16_t>(cur_ + 1);
    const std::uint16_t span = static_cast<std::uint16_t>(v - lo);
    const std::int64_t room = capacity_ - in_epoch_;
    std::int64_t n = 0, fresh = 0, ranges = 0;
    bool over = false;
    std::uint16_t* stamps = stamp_.get();
    gen([&](std::int64_t start, std::int64_t len) -> bool {
      std::uint16_t* p = stamps + start;
      for (std::int64_t done = 0; done < len;) {  // 16-bit counts vectorise best: chunks < 2^16
        const std::int64_t chunk = std::min<std::int64_t>(len - done, 0x8000);
        std::uint16_t f = 0;
        for (std::int64_t i = 0; i < chunk; ++i) {
          const std::uint16_t s = p[done + i];
          const bool in = static_cast<std::uint16_t>(s - lo) <= span;
          f = static_cast<std::uint16_t>(f + !in);
          p[done + i] = in ? s : v;
        }
        fresh += f;
        done += chunk;
      }
      n += len;
      ++ranges;
      if (fresh >= room) {
        over = true;
        return false;
      }
      return true;
    });
    if (!over) {
      accesses_ += n;
      misses_ += fresh;
      in_epoch_ += fresh;
      cur_ = v;
      return true;
    }
    gen([&](std::int64_t start, std::int64_t len) -> bool {
      std::uint16_t* p = stamps + start;
      for (std::int64_t i = 0; i < len; ++i) p[i] = p[i] == v ? std::uint16_t{0} : p[i];
      return --ranges > 0;
    });
    return false;
  }

  DramSpan finish() const;
  std::int64_t capacity() const { return capacity_; }
  std::int64_t accesses() const { return accesses_; }
  std::int64_t misses() const { return misses_; }
  std::int64_t in_epoch_count() const { return in_epoch_; }
  std::int64_t triggers() const { return triggers_; }
  std::int64_t last_trigger_row() const { return last_trigger_row_; }
  std::int64_t last_trigger_access() const { return last_trigger_access_; }

  // Counts `n` accesses that are all distinct first touches (no replay of addresses needed):
  // `row_of(j)` gives the demand row of the j-th of them (0-based), used for epoch boundaries.
  template <class RowOf>
  void distinct_misses(std::int64_t n, std::int64_t first_row, RowOf&& row_of) {
    if (n <= 0) return;
    set_first_row(first_row);
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

  // Adds a stretch known to repeat an earlier one: `misses` misses and `triggers` epoch
  // boundaries, the last of them (if any) at `last_trigger_row`; the state after it is the state
  // the buffer is in now.
  void skip(std::int64_t misses, std::int64_t triggers, std::int64_t last_trigger_row) {
    misses_ += misses;
    triggers_ += triggers;
    if (triggers > 0) last_trigger_row_ = last_trigger_row;
  }

  // The DRAM span of `misses` misses whose first request came at `first_row` and whose last epoch
  // boundary (if any: misses >= 50 * items_per_set) came at `last_trigger_row`.
  static DramSpan closed_form(std::int64_t items_per_set, std::int64_t misses, std::int64_t first_row,
                              std::int64_t last_trigger_row);

  static constexpr int kSets = 100;          // SCALE-Sim: 100 sets per buffer
  static constexpr int kActiveSets = 50;     // active_buf_frac = 0.5
  static constexpr int kInitialBandwidth = 10;  // words/cycle of the first (pre-compute) fill

 private:
  static constexpr std::uint16_t kMaxStamp = 0xffff;
  bool in_epoch(std::uint16_t s) const {
    return static_cast<std::uint16_t>(s - lo_) <= static_cast<std::uint16_t>(cur_ - lo_);
  }
  void next_epoch(std::int64_t row);
  void renumber();  // stamps run out: current epoch -> 1, everything else -> 0
  std::int64_t items_per_set_;
  std::int64_t capacity_;
  // 0 = never touched; 2 bytes keep it cache-resident. calloc'ed: large arrays come as zero pages
  // from the OS, so the untouched parts of the address space cost nothing.
  struct Free {
    void operator()(std::uint16_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint16_t[], Free> stamp_;
  std::int64_t space_ = 1;
  std::uint16_t lo_ = 1, cur_ = 1;    // the current epoch is the stamp range [lo_, cur_]
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
