#include "systolic/traces/dram_traces.h"

#include <algorithm>
#include <stdexcept>

#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_streams.h"

namespace tcsim::systolic {

namespace {

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
  TraceFile w(path);
  auto put = [&](std::int64_t a, std::int64_t b) {
    w.transfer(a, b, static_cast<std::int64_t>(epoch.size()),
               [&](std::int64_t i) { return epoch[static_cast<std::size_t>(i)] + offset; });
  };
  // Emits epoch j (complete, or the last one at the end) once its span is known.
  auto emit = [&](bool last) {
    if (j == 0) {
      if (last) {  // never filled the active half: all of it before cycle 0, ending at -1
        const std::int64_t n = static_cast<std::int64_t>(epoch.size());
        const std::int64_t sets = items > 0 ? (n + items - 1) / items : 0;
        const std::int64_t cycles = (sets * items + bw0 - 1) / bw0;
        if (n > 0) put(-cycles, -1);
      } else {
        put(first_row - (cap + bw0 - 1) / bw0, first_row - 1);
      }
    } else {
      // Epoch j became active at boundary `trigger`; fetched since the previous boundary.
      put(j == 1 ? first_row : prev_trigger + 2, trigger + 1);
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
    }
  });
  emit(true);
  w.commit();
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

}  // namespace

OfmapDramTrace::OfmapDramTrace(const std::filesystem::path& path, const Layer& layer, const FoldSchedule& s,
                               std::int64_t offset)
    : f_(path), s_(s), N_(layer.n()), offset_(offset) {}

std::int64_t OfmapDramTrace::next_address() {
  while (pos_ == row_.size()) {
    if (next_row_ >= s_.total_rows()) throw std::logic_error("OFMAP DRAM trace: more words drained than written");
    const std::int64_t fold = next_row_ / s_.fold_rows, t = next_row_ % s_.fold_rows;
    ofmap_row(s_, N_, fold % s_.Fr, fold / s_.Fr, t, row_);
    pos_ = 0;
    ++next_row_;
  }
  return row_[pos_++] + offset_;
}

void OfmapDramTrace::line(std::int64_t cycle, std::int64_t fill, std::int64_t counted) {
  cells_.clear();
  for (std::int64_t i = 0; i < fill; ++i) cells_.push_back(next_address());
  cells_.insert(cells_.end(), static_cast<std::size_t>(counted - fill), -1);
  f_.row(cycle, cells_);
}

void write_calc_dram_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const Im2col A(layer);
  write_read_trace(dir / "IFMAP_DRAM_TRACE.csv", layer, s, A, Operand::ifmap, c.ifmap_sram_words(), c.ifmap_offset);
  write_read_trace(dir / "FILTER_DRAM_TRACE.csv", layer, s, A, Operand::filter, c.filter_sram_words(),
                   c.filter_offset);
  // The OFMAP write buffer drains C words per cycle in CALC mode.
  OfmapDramTrace trace(dir / "OFMAP_DRAM_TRACE.csv", layer, s, c.ofmap_offset);
  OfmapWriteBuffer buf(c.ofmap_sram_words(), c.cols, trace.observer());
  for (std::int64_t fold = 0; fold < s.folds(); ++fold) {
    const std::int64_t fc = fold / s.Fr, fr = fold % s.Fr;
    for (std::int64_t t = 0; t < s.fold_rows; ++t) {
      const std::int64_t n = ofmap_writes_in_row(s, fr, fc, t), row = fold * s.fold_rows + t;
      if (n > 0) buf.write_row(row, n);
    }
  }
  buf.finish(s.total_rows() - 1);
  trace.commit();
}

}  // namespace tcsim::systolic
