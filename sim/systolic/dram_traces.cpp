#include "systolic/dram_traces.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <vector>

#include "common/atomic_file.h"
#include "common/error.h"
#include "systolic/calc_read_buffer.h"
#include "systolic/demand_streams.h"
#include "systolic/fold_schedule.h"

namespace tcsim::systolic {

bool dram_traces_supported(const SystolicConfig& c) {
  return c.semantics == Semantics::scalesim_v2 && c.bandwidth_mode == BandwidthMode::calc;
}

namespace {

// Writes rows "cycle,addr,addr,..." with strictly increasing cycles; every cycle of a transfer's
// span gets a row (possibly with no address), so the file's first and last rows are the span ends.
class RowWriter {
 public:
  explicit RowWriter(const std::filesystem::path& p) : f_(std::fopen(p.string().c_str(), "w")) {
    if (!f_) throw InputError(p.string(), "cannot write the trace file");
  }
  ~RowWriter() {
    if (f_) std::fclose(f_);
  }
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  // n addresses spread evenly over the cycles [a, b], in order. An empty span (two epoch
  // boundaries in one cycle) puts them all at b, continuing the previous transfer's last row.
  void transfer(std::int64_t a, std::int64_t b, const std::vector<std::int64_t>& addrs, std::int64_t offset) {
    if (b < a) a = b;
    const std::int64_t rows = b - a + 1, n = static_cast<std::int64_t>(addrs.size());
    std::int64_t i = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      open_row(a + r);
      // Address i goes to row floor(i * rows / n): the first at a, the last at or before b.
      for (; i < n && (i * rows) / n == r; ++i) {
        const std::int64_t x = addrs[static_cast<std::size_t>(i)];
        std::fprintf(f_, ",%lld", static_cast<long long>(x < 0 ? -1 : x + offset));  // -1: empty slot
      }
    }
  }
  void close() {
    if (open_) std::fputc('\n', f_);
    open_ = false;
    if (std::fclose(f_) != 0) {
      f_ = nullptr;
      throw InputError("--traces", "could not finish writing a DRAM trace file");
    }
    f_ = nullptr;
  }

 private:
  void open_row(std::int64_t cycle) {
    if (open_ && cycle == cycle_) return;  // spans never overlap; a repeated cycle continues its row
    if (open_) std::fputc('\n', f_);
    std::fprintf(f_, "%lld", static_cast<long long>(cycle));
    open_ = true;
    cycle_ = cycle;
  }
  std::FILE* f_;
  bool open_ = false;
  std::int64_t cycle_ = 0;
};

// CALC-mode read buffer with addresses: epochs of `cap` distinct new addresses (see
// CalcReadBuffer). Epoch 0 is prefetched before compute at 10 words/cycle; epoch j >= 1 is fetched
// over the cycles since the previous epoch boundary, ending one cycle (the port latency) after
// the boundary at which it becomes active.
void write_read_trace(const std::filesystem::path& path, const Layer& layer, const FoldSchedule& s, const Im2col& A,
                      Operand op, std::uint64_t sram_words, std::int64_t offset) {
  const std::int64_t items = static_cast<std::int64_t>(sram_words / CalcReadBuffer::kSets);
  const std::int64_t cap = CalcReadBuffer::kActiveSets * items;
  const std::int64_t space = op == Operand::ifmap ? layer.ifmap_words() : layer.k() * layer.n();
  constexpr std::int64_t bw0 = CalcReadBuffer::kInitialBandwidth;
  std::vector<std::uint32_t> stamp(static_cast<std::size_t>(std::max<std::int64_t>(space, 1)), 0);
  std::vector<std::int64_t> epoch;  // misses of the current epoch, in order
  std::int64_t j = 0, first_row = -1, prev_trigger = 0, trigger = 0;
  AtomicOutput out(path);
  RowWriter w(out.temp_path());
  // Emits epoch j (complete, or the last one at the end) once its span is known.
  auto emit = [&](bool last) {
    if (j == 0) {
      if (last) {  // never filled the active half: all of it before cycle 0, ending at -1
        const std::int64_t n = static_cast<std::int64_t>(epoch.size());
        const std::int64_t sets = items > 0 ? (n + items - 1) / items : 0;
        const std::int64_t cycles = (sets * items + bw0 - 1) / bw0;
        if (n > 0) w.transfer(-cycles, -1, epoch, offset);
      } else {
        w.transfer(first_row - (cap + bw0 - 1) / bw0, first_row - 1, epoch, offset);
      }
    } else {
      // Epoch j became active at boundary `trigger`; fetched since the previous boundary.
      const std::int64_t a = j == 1 ? first_row : prev_trigger + 2;
      w.transfer(a, trigger + 1, epoch, offset);
    }
  };
  for_each_demand(layer, s, A, op, [&](std::int64_t row, std::int64_t addr) {
    if (first_row < 0) first_row = row;
    std::uint32_t& st = stamp[static_cast<std::size_t>(addr)];
    if (st == static_cast<std::uint32_t>(j + 1)) return;
    st = static_cast<std::uint32_t>(j + 1);
    epoch.push_back(addr);
    if (static_cast<std::int64_t>(epoch.size()) == cap) {  // boundary: epoch j complete
      emit(false);
      epoch.clear();
      ++j;
      prev_trigger = trigger;
      trigger = row;
      // The epoch just completed was j-1; its successor (now j) is emitted when it completes.
    }
  });
  emit(true);
  w.close();
  out.commit();
}

// The output addresses written in demand row t of fold (fr, fc), in port order (as in the OFMAP
// SRAM trace, without the -1 cells).
void ofmap_row(const FoldSchedule& s, std::int64_t N, std::int64_t fr, std::int64_t fc, std::int64_t t,
               std::vector<std::int64_t>& out) {
  out.clear();
  const std::int64_t cu = s.cols_used(fc);
  for (std::int64_t p = 0; p < cu; ++p) {
    if (s.dataflow == Dataflow::os) {
      const std::int64_t i = t - (s.T - 1) - p;
      if (i >= s.R - s.rows_used(fr) && i < s.R) out.push_back((fc * s.C + p) + N * (fr * s.R + (s.R - 1 - i)));
    } else {
      const std::int64_t x = t - (2 * s.R - 1) - p;
      if (x >= 0 && x < s.T)
        out.push_back(s.dataflow == Dataflow::ws ? (fc * s.C + p) + N * x : x + N * (fc * s.C + p));
    }
  }
}

// SCALE-Sim's OFMAP write buffer (see OfmapWriteBuffer) replayed word by word with addresses: a
// drain of L lines writes line i at cycle start + i. A drain may start before an earlier one has
// ended (the final flush starts at the last compute cycle), so rows are kept until no later drain
// can reach them (at most one drain's worth).
class OfmapDramTrace {
 public:
  OfmapDramTrace(const std::filesystem::path& p, std::uint64_t sram_words, std::int64_t line_words,
                 std::int64_t offset)
      : w_(p),
        active_((static_cast<std::int64_t>(sram_words) + 1) / 2),
        line_(std::max<std::int64_t>(line_words, 1)),
        per_drain_((static_cast<std::int64_t>(sram_words) - active_ + line_ - 1) / line_),
        free_(static_cast<std::int64_t>(sram_words)),
        offset_(offset) {}

  void row(std::int64_t r, const std::vector<std::int64_t>& addrs) {
    if (addrs.empty()) return;
    flush_before(r);
    const bool may_drain = r >= drain_end_;
    bool drained = false;
    for (std::int64_t a : addrs) {
      --free_;
      cur_.push_back(a);
      if (static_cast<std::int64_t>(cur_.size()) == line_) close_line();
      if (free_ < active_ && (drained || may_drain)) {
        close_line();
        drain(drained ? drain_end_ : r);
        drained = true;
      }
    }
  }
  void finish(std::int64_t last_cycle) {
    close_line();
    std::int64_t cycle = last_cycle;
    while (!lines_.empty()) {
      drain(cycle);
      cycle = drain_end_ + 1;
    }
    flush_before(INT64_MAX);
    w_.close();
  }

 private:
  void close_line() {
    if (cur_.empty()) return;
    lines_.push_back(std::move(cur_));
    cur_.clear();
  }
  void drain(std::int64_t cycle) {
    std::int64_t taken = 0, last_fill = line_;
    for (; taken < per_drain_ && !lines_.empty(); ++taken) {
      auto& rowv = pending_[cycle + taken];
      const std::vector<std::int64_t>& line = lines_.front();
      // A partial line that is not the last of its drain is counted as full by SCALE-Sim (its
      // write-count artefact): its empty slots are written as -1 cells, so the file's cells
      // (addresses and -1) add up to the reported DRAM writes, and its addresses to the real ones.
      const bool last = taken + 1 == per_drain_ || lines_.size() == 1;
      rowv.insert(rowv.end(), line.begin(), line.end());
      if (!last) rowv.insert(rowv.end(), static_cast<std::size_t>(line_) - line.size(), -1);
      last_fill = static_cast<std::int64_t>(line.size());
      lines_.pop_front();
    }
    if (taken == 0) pending_[cycle];
    // Free space grows by what SCALE-Sim counts (its partial-line artefact included).
    if (taken > 0) free_ += taken * line_ - (line_ - last_fill);
    drain_end_ = cycle + std::max<std::int64_t>(taken, 1) - 1;
  }
  void flush_before(std::int64_t cycle) {
    while (!pending_.empty() && pending_.begin()->first < cycle) {
      const auto& [c, v] = *pending_.begin();
      w_.transfer(c, c, v, offset_);
      pending_.erase(pending_.begin());
    }
  }
  RowWriter w_;
  std::int64_t active_, line_, per_drain_, free_, offset_;
  std::vector<std::int64_t> cur_;
  std::deque<std::vector<std::int64_t>> lines_;
  std::map<std::int64_t, std::vector<std::int64_t>> pending_;
  std::int64_t drain_end_ = 0;
};

}  // namespace

void write_dram_read_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const Im2col A(layer);
  write_read_trace(dir / "IFMAP_DRAM_TRACE.csv", layer, s, A, Operand::ifmap, c.ifmap_sram_words(), c.ifmap_offset);
  write_read_trace(dir / "FILTER_DRAM_TRACE.csv", layer, s, A, Operand::filter, c.filter_sram_words(),
                   c.filter_offset);
  AtomicOutput out(dir / "OFMAP_DRAM_TRACE.csv");
  {
    OfmapDramTrace t(out.temp_path(), c.ofmap_sram_words(), c.cols, c.ofmap_offset);
    std::vector<std::int64_t> v;
    for (std::int64_t fold = 0; fold < s.folds(); ++fold) {
      const std::int64_t fc = fold / s.Fr, fr = fold % s.Fr;
      for (std::int64_t r = 0; r < s.fold_rows; ++r) {
        ofmap_row(s, layer.n(), fr, fc, r, v);
        t.row(fold * s.fold_rows + r, v);
      }
    }
    t.finish(s.total_rows() - 1);
  }
  out.commit();
}

}  // namespace tcsim::systolic
