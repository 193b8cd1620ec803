#pragma once
// SCALE-Sim v2's USER-mode ("fixed interface bandwidth") read buffer (memory/read_buffer.py),
// re-derived on counts: no fetch matrix or trace is built.
//
// What read_buffer.py does, and what we keep of it:
//  * the operand's prefetch order (compute model's prefetch matrix, see user_bandwidth.h) is cut
//    into "sets" of ceil(words / 100) valid entries (the last set may be partial or empty, and it
//    always exists: num_sets = valid / per_set + 1); an address may sit in several sets;
//  * the active window is min(num_sets, ceil(active / per_set)) consecutive sets starting at set s
//    (wrapping), active = ceil(words / 2); the prefetch window has
//    min(num_sets - active_sets, ceil(prefetch / per_set)) sets, prefetch = words - active;
//  * a demanded address is a hit when one of its sets is in the active window; on a miss the window
//    advances by the prefetch sets (modulo num_sets) and a DRAM prefetch of
//    ceil(prefetch / bw) lines is issued right after the previous one, one line per cycle with a
//    1-cycle port latency: last_prefetch += lines + 1. The stall of the demand row is
//    max(0, last_prefetch - (cycle + offset)) accumulated into the row's offset (hit latency 1);
//    repeated until the address hits;
//  * DRAM reads count whole lines (lines * bw words); the first active half (min(ceil(active / bw),
//    fetch rows) lines) is loaded before cycle 0, ending at cycle -1.
#include <cstdint>
#include <utility>
#include <vector>

namespace tcsim::systolic {

class UserReadBuffer {
 public:
  // sram_words: the whole double-buffered SRAM; bw: words per cycle (line width);
  // address_space: addresses are in [0, address_space). At most 2^32 - 1 prefetch entries.
  UserReadBuffer(std::uint64_t sram_words, std::int64_t bw, std::int64_t address_space);

  // Two passes over the prefetch order (valid entries only): count(addr) for all, then
  // place(addr) for all, in the same order; then seal() with the number of entries of the
  // prefetch matrix including -1 (it sets the number of DRAM lines of the initial fill).
  void count(std::int64_t addr) { ++offsets_[static_cast<std::size_t>(addr) + 1]; ++valid_; }
  // After the count pass: true when the whole order fits in the active window (then nothing can
  // miss, and the placing pass may be skipped: go straight to seal()).
  bool fits_in_active_half() const;
  void start_placing();
  // `tile`: the fold tile of the prefetch matrix the entry belongs to (0 .. tiles-1).
  void place(std::int64_t addr, std::int64_t tile) {
    const auto set = static_cast<std::int32_t>(placed_++ / per_set_);
    sets_[static_cast<std::size_t>(cursor_[static_cast<std::size_t>(addr)]++)] = set;
    if (static_cast<std::size_t>(tile) >= tiles_.size()) tiles_.resize(static_cast<std::size_t>(tile) + 1, {-1, -1});
    auto& [lo, hi] = tiles_[static_cast<std::size_t>(tile)];
    if (lo < 0) lo = set;
    hi = set;  // sets grow along the prefetch order
  }
  // True when every set holding an entry of `tile` is in the active window: then every demand
  // for that tile's addresses hits (a sufficient condition used to skip address-by-address checks).
  bool covers(std::int64_t tile) const {
    if (active_sets_ >= num_sets_) return true;
    if (static_cast<std::size_t>(tile) >= tiles_.size() || tiles_[static_cast<std::size_t>(tile)].first < 0)
      return true;  // no valid entries
    const auto [lo, hi] = tiles_[static_cast<std::size_t>(tile)];
    std::int64_t dl = lo - start_, dh = hi - start_;
    if (dl < 0) dl += num_sets_;
    if (dh < 0) dh += num_sets_;
    return dl <= dh && dh < active_sets_;
  }
  void seal(std::int64_t fetch_entries);

  // Serves one demand address at `cycle` (the row's cycle); `offset` is the row's running offset
  // (starts at the hit latency, 1). Misses advance the window and push the offset.
  void serve(std::int64_t addr, std::int64_t cycle, std::int64_t& offset) {
    for (std::int64_t tries = 0; !hit(addr); ++tries) {
      if (tries > num_sets_ + 1) unreachable(addr);
      new_prefetch();
      const std::int64_t stall = last_prefetch_ - (cycle + offset);
      if (stall > 0) offset += stall;
    }
  }

  std::int64_t dram_accesses() const { return accesses_; }
  std::int64_t dram_start() const { return dram_start_; }
  std::int64_t dram_stop() const { return last_prefetch_; }
  std::int64_t prefetches() const { return prefetches_; }

  static constexpr int kSets = 100;  // read_buffer.py: the buffer is 100 sets

 private:
  bool hit(std::int64_t addr) {
    if (active_sets_ >= num_sets_) return true;
    const std::uint32_t b = offsets_[static_cast<std::size_t>(addr)];
    if (offsets_[static_cast<std::size_t>(addr) + 1] - b == 1) {  // one occurrence (e.g. every filter word)
      std::int64_t d = sets_[static_cast<std::size_t>(b)] - start_;
      if (d < 0) d += num_sets_;
      return d < active_sets_;
    }
    return hit_any(addr);
  }
  bool hit_any(std::int64_t addr);
  [[noreturn]] static void unreachable(std::int64_t addr);
  void new_prefetch();

  std::int64_t total_, active_, prefetch_, bw_, per_set_;
  std::int64_t valid_ = 0, placed_ = 0;
  std::vector<std::uint32_t> offsets_;  // CSR over addresses: sets_[offsets_[a] .. offsets_[a+1])
  std::vector<std::uint32_t> cursor_;
  std::vector<std::int32_t> sets_;     // set ids of every occurrence, ascending per address
  std::vector<std::pair<std::int32_t, std::int32_t>> tiles_;  // first and last set of each tile
  std::int64_t num_sets_ = 1, active_sets_ = 1, prefetch_sets_ = 0, start_ = 0;
  std::int64_t accesses_ = 0, dram_start_ = 0, last_prefetch_ = -1, prefetches_ = 0;
  // hit memo: memo_[a] == generation_ means a hit in the current window
  std::vector<std::uint32_t> memo_;
  std::uint32_t generation_ = 1;
};

}  // namespace tcsim::systolic
