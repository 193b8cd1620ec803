#pragma once
// One per-cycle trace CSV of --traces, SCALE-Sim's layout: one row per cycle, "cycle,cell,cell,...",
// cells are addresses or -1. Written row by row (bounded memory) to a temporary name and renamed
// into place by commit(), so an interrupted run leaves no half-written trace.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "common/files/atomic_file.h"

namespace tcsim::systolic {

class TraceFile {
 public:
  explicit TraceFile(const std::filesystem::path& path);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  // Appends one cell to the row of `cycle`: a later cycle than the open row's starts a new row,
  // the same cycle continues it (callers write cycles in increasing order).
  void cell(std::int64_t cycle, std::int64_t value) {
    open_row(cycle);
    put(',');
    put_int(value);
  }
  // A row with no cells yet (a cycle of a transfer that moves nothing).
  void open_row(std::int64_t cycle);
  // A whole row; always a new one, even for the open row's cycle (SCALE-Sim's OFMAP DRAM trace
  // has one row per DRAM line, and two lines can share a cycle).
  void row(std::int64_t cycle, const std::vector<std::int64_t>& cells) {
    if (open_) put('\n');
    put_int(cycle);
    open_ = true;
    cycle_ = cycle;
    for (std::int64_t v : cells) {
      put(',');
      put_int(v);
    }
  }
  // n cells gen(0) .. gen(n-1) spread evenly over the cycles [a, b], in order: cell i goes to
  // cycle a + floor(i * rows / n), so the first is at a and every cycle of the span gets a row.
  // An empty span (b < a) puts them all at b.
  template <class Gen>
  void transfer(std::int64_t a, std::int64_t b, std::int64_t n, Gen&& gen) {
    if (b < a) a = b;
    const std::int64_t rows = b - a + 1;
    std::int64_t i = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      open_row(a + r);
      for (; i < n && (i * rows) / n == r; ++i) cell(a + r, gen(i));
    }
  }
  // Finishes the file and renames it into place.
  void commit();

 private:
  void put(char ch) {
    if (len_ == sizeof buf_) flush();
    buf_[len_++] = ch;
  }
  void put_int(std::int64_t v);
  void flush();
  AtomicOutput out_;
  std::FILE* f_;
  char buf_[1 << 16];
  std::size_t len_ = 0;
  bool open_ = false;
  std::int64_t cycle_ = 0;
};

}  // namespace tcsim::systolic
