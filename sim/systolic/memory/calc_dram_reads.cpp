#include "systolic/memory/calc_dram_reads.h"

#include <algorithm>
#include <vector>

#include "systolic/schedule/demand_runs.h"
#include "systolic/memory/dram_estimate.h"
#include "systolic/systolic_model.h"

namespace tcsim::systolic {

std::int64_t ifmap_footprint(const Layer& l) {
  auto touched = [](std::int64_t in, std::int64_t out, std::int64_t f, std::int64_t s, std::int64_t pad) {
    std::vector<char> hit(static_cast<std::size_t>(in), 0);
    std::int64_t n = 0;
    for (std::int64_t o = 0; o < out; ++o)
      for (std::int64_t j = 0; j < f; ++j) {
        const std::int64_t i = o * s + j - pad;
        if (i >= 0 && i < in && !hit[static_cast<std::size_t>(i)]) {
          hit[static_cast<std::size_t>(i)] = 1;
          ++n;
        }
      }
    return n;
  };
  return touched(l.ifmap_h, l.out_h, l.filter_h, l.stride_h, l.pad_h) *
         touched(l.ifmap_w, l.out_w, l.filter_w, l.stride_w, l.pad_w) * l.channels;
}

namespace {

// Valid accesses of `op` in fold (fr, fc) when no window overhangs the input.
std::int64_t fold_accesses(const FoldSchedule& s, Operand op, std::int64_t fr, std::int64_t fc) {
  const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
  const bool preloaded = (s.dataflow == Dataflow::ws && op == Operand::filter) ||
                         (s.dataflow == Dataflow::is && op == Operand::ifmap);
  if (preloaded) return ru * cu;
  if (s.dataflow == Dataflow::os && op == Operand::filter) return cu * s.T;
  return ru * s.T;
}

// The demand row of the j-th valid access (0-based) of fold f.
std::int64_t row_of_access(const FoldDemand& D, const FoldSchedule& s, Operand op, std::int64_t f, std::int64_t j) {
  if (op == Operand::filter) return f * s.fold_rows + D.row_of_entry(f, j);  // every entry valid
  std::int64_t row = 0;
  D.exact(f, D.first_row(f), D.end_row(f), [&](std::int64_t r, std::int64_t) {
    if (j-- == 0) row = r;
  });
  return row;
}

// Replays the demand of `op` through the CALC read buffer. Per fold, the accesses are first
// offered as one order-free batch of address ranges (CalcReadBuffer::try_runs): a fold that
// cannot reach an epoch boundary is committed in one pass. A fold that can (or is predicted to,
// from the previous fold's new misses) is cut into blocks of rows, each offered order-free; a
// block that holds a boundary is cut into 8 smaller blocks, and so on: only single rows that hold
// a boundary are replayed access by access. On top of that, work that provably repeats is
// skipped:
//  * a fold whose tile equals the previous fold's, with no epoch boundary since that fold
//    started, is all hits (os filter: the Fr folds of a column fold share their tile);
//  * when the address sequence of a whole column-fold sweep does not depend on the column fold
//    (os ifmap, ws ifmap, is filter), the rest is extrapolated as soon as a sweep's boundary chain
//    meets the previous sweep's (see below).
void replay(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op, CalcReadBuffer& buf,
            std::int64_t first_row) {
  const FoldDemand D(layer, s, A, op);
  buf.set_first_row(first_row);
  const bool sweep_invariant = (s.dataflow == Dataflow::os && op == Operand::ifmap) ||
                               (s.dataflow == Dataflow::ws && op == Operand::ifmap) ||
                               (s.dataflow == Dataflow::is && op == Operand::filter);
  const bool os_filter = s.dataflow == Dataflow::os && op == Operand::filter;
  // Tile identity of fold f (equal keys: identical address sequence), -1 when unique.
  auto key = [&](std::int64_t f) -> std::int64_t {
    if (os_filter) return f / s.Fr;                  // fc
    if (sweep_invariant && s.Fr == 1) return 0;      // every fold alike
    return -1;
  };
  const std::int64_t block_accesses = std::clamp<std::int64_t>(buf.capacity() / 16, 256, 4096);
  auto try_rows = [&](std::int64_t f, std::int64_t t0, std::int64_t t1) {
    return buf.try_runs([&](auto&& emit) { D.runs(f, t0, t1, emit); });
  };
  auto exact_rows = [&](std::int64_t f, std::int64_t t0, std::int64_t t1) {
    D.exact(f, t0, t1, [&buf](std::int64_t row, std::int64_t addr) { buf.access(row, addr); });
  };
  // Rows [t0, t1) of fold f in blocks of `rows` rows, each offered order-free; a refused block is
  // split into 8 and so on, down to single rows, which are replayed in order.
  auto in_blocks = [&](auto&& self, std::int64_t f, std::int64_t t0, std::int64_t t1, std::int64_t rows) -> void {
    for (std::int64_t t = t0; t < t1; t += rows) {
      const std::int64_t e = std::min(t1, t + rows);
      if (try_rows(f, t, e)) continue;
      if (e - t == 1) exact_rows(f, t, e);
      else self(self, f, t, e, (e - t + 7) / 8);
    }
  };
  // New misses per access in the previous fold: predicts where the next boundary falls.
  double fresh_rate = 1;
  std::int64_t prev_fresh = 0;
  auto fold_in_blocks = [&](std::int64_t f) {
    const std::int64_t a = D.first_row(f), b = D.end_row(f);
    const std::int64_t misses0 = buf.misses(), accesses0 = buf.accesses();
    if (prev_fresh >= buf.capacity() - buf.in_epoch_count() || !try_rows(f, a, b)) {
      // Blocks sized to end just before the predicted boundary (long blocks, long address ranges),
      // at least `block_accesses` accesses.
      const double ports = static_cast<double>(std::max<std::int64_t>(1, D.ports(f)));
      const std::int64_t min_rows = std::max<std::int64_t>(1, block_accesses / std::max<std::int64_t>(1, D.ports(f)));
      for (std::int64_t t = a; t < b;) {
        const double room = static_cast<double>(buf.capacity() - buf.in_epoch_count());
        const std::int64_t rows =
            std::min(b - t, std::max(min_rows, static_cast<std::int64_t>(0.9 * room / (fresh_rate * ports))));
        if (!try_rows(f, t, t + rows)) in_blocks(in_blocks, f, t, t + rows, (rows + 7) / 8);
        t += rows;
      }
    }
    prev_fresh = buf.misses() - misses0;
    const std::int64_t n = buf.accesses() - accesses0;
    if (n > 0) fresh_rate = std::max(1e-3, static_cast<double>(prev_fresh) / static_cast<double>(n));
  };
  std::int64_t prev_key = -2, prev_fold_triggers = -1;
  auto run_fold = [&](std::int64_t f) {
    const std::int64_t k = key(f);
    const std::int64_t triggers_before = buf.triggers();
    if (k >= 0 && k == prev_key && prev_fold_triggers == triggers_before) {
      // Same tile as the previous fold and no epoch boundary since it started: all hits.
      // (A later skipped fold compares against the same baseline.)
      return;
    }
    const std::int64_t tile = s.T * s.cols_used(f / s.Fr);
    if (os_filter && tile > buf.capacity() && (k == prev_key || buf.accesses() > 0)) {
      // os filter tile (K x cols, every address once per fold) larger than an epoch. Repeated:
      // each address was last touched a whole tile ago, beyond an epoch boundary, so every access
      // misses. New (columns never seen before): all misses too. Either way its stamps are never
      // consulted again except by such all-miss folds.
      buf.distinct_misses(tile, 0, [&](std::int64_t j) { return row_of_access(D, s, op, f, j); });
      prev_key = k;
      prev_fold_triggers = -1;
      return;
    }
    fold_in_blocks(f);
    prev_key = k;
    prev_fold_triggers = triggers_before;
  };
  if (!sweep_invariant) {
    for (std::int64_t f = 0; f < s.folds(); ++f) run_fold(f);
    return;
  }
  // Sweep-invariant operands: every sweep (column fold) replays the same address sequence, so the
  // epoch boundaries form one chain (the state right after a boundary is an empty epoch). If, at
  // the end of row fold fr, this sweep's last boundary sits at the same offset as the previous
  // sweep's last boundary at the end of its fold fr, both sweeps are in the same state there: the
  // rest of this sweep repeats the rest of the previous one, and every later sweep repeats this one.
  struct Mark {
    std::int64_t misses = 0, triggers = 0, last_offset = -1;  // since the sweep began
  };
  std::vector<Mark> prev(static_cast<std::size_t>(s.Fr)), cur(static_cast<std::size_t>(s.Fr));
  const std::int64_t sweep_rows = s.Fr * s.fold_rows;
  std::int64_t prev_last_row = 0;  // the previous sweep's last boundary row (absolute)
  for (std::int64_t fc = 0; fc < s.Fc; ++fc) {
    const std::int64_t acc0 = buf.accesses(), miss0 = buf.misses(), trig0 = buf.triggers();
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      run_fold(fc * s.Fr + fr);
      Mark& m = cur[static_cast<std::size_t>(fr)];
      m.misses = buf.misses() - miss0;
      m.triggers = buf.triggers() - trig0;
      m.last_offset = m.triggers > 0 ? buf.last_trigger_access() - acc0 : -1;
      const Mark& p = prev[static_cast<std::size_t>(fr)];
      if (fc > 0 && s.Fr > 1 && m.last_offset >= 0 && m.last_offset == p.last_offset) {
        const Mark& end = prev.back();
        const std::int64_t rest_misses = end.misses - p.misses, rest_triggers = end.triggers - p.triggers;
        buf.skip(rest_misses, rest_triggers, prev_last_row + sweep_rows);
        buf.repeat(s.Fc - 1 - fc, m.misses + rest_misses, m.triggers + rest_triggers, sweep_rows);
        return;
      }
    }
    std::swap(prev, cur);
    prev_last_row = buf.last_trigger_row();
  }
}

}  // namespace

DramSpan calc_dram_reads(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                         std::uint64_t sram_words, std::int64_t sram_reads, std::int64_t first_row) {
  const std::int64_t items = static_cast<std::int64_t>(sram_words / CalcReadBuffer::kSets);
  const std::int64_t cap = CalcReadBuffer::kActiveSets * items;
  const std::int64_t footprint = op == Operand::ifmap ? ifmap_footprint(layer) : layer.k() * layer.n();
  const std::int64_t space = op == Operand::ifmap ? layer.ifmap_words() : layer.k() * layer.n();
  if (footprint < cap) return CalcReadBuffer::closed_form(items, footprint, first_row, 0);
  const bool padded = layer.pad_h != 0 || layer.pad_w != 0;  // never in scalesim_v2; FoldDemand needs none
  // Every access misses when each touches a new address (e.g. ws filters), and for is filters: each
  // column-fold sweep reads every filter word once, in the same order, and the K x N words fill
  // at least one epoch, so between two reads of a word lie >= capacity - 1 other misses (by
  // induction), which close the word's epoch. Only the row of the last epoch boundary is needed:
  // find its fold by per-fold counts, then its row.
  const bool is_filter = s.dataflow == Dataflow::is && op == Operand::filter;
  if (sram_reads == footprint || is_filter) {
    const FoldDemand D(layer, s, A, op);
    CalcReadBuffer buf(sram_words, 1);
    buf.distinct_misses(sram_reads, first_row, [&](std::int64_t j) {
      // is filter sweeps repeat: skip whole sweeps first
      if (is_filter) j %= footprint;
      for (std::int64_t f = 0; f < s.folds(); ++f) {
        const std::int64_t n = fold_accesses(s, op, f % s.Fr, f / s.Fr);
        if (j >= n) {
          j -= n;
          continue;
        }
        return row_of_access(D, s, op, f, j);
      }
      return std::int64_t{0};
    });
    DramSpan d = buf.finish();
    if (is_filter && d.accesses >= cap) {  // the boundary row found in sweep 0: shift to its sweep
      const std::int64_t last = (d.accesses / cap) * cap - 1;
      d.stop += (last / footprint) * s.Fr * s.fold_rows;
    }
    return d;
  }
  if (sram_reads <= SystolicModel::kMaxReplayAccesses && space <= SystolicModel::kMaxReplayAddresses) {
    if (padded) return calc_dram_reads_reference(layer, s, A, op, sram_words);
    CalcReadBuffer buf(sram_words, space);
    replay(layer, s, A, op, buf, first_row);
    return buf.finish();
  }
  DramSpan d = estimate_dram_reads(layer, s, op, cap, footprint);
  d.start = first_row - (cap + CalcReadBuffer::kInitialBandwidth - 1) / CalcReadBuffer::kInitialBandwidth;
  d.stop = s.total_rows() - 1;
  return d;
}

DramSpan calc_dram_reads_reference(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                                   std::uint64_t sram_words) {
  const std::int64_t space = op == Operand::ifmap ? layer.ifmap_words() : layer.k() * layer.n();
  CalcReadBuffer buf(sram_words, space);
  for_each_demand(layer, s, A, op, [&buf](std::int64_t row, std::int64_t addr) { buf.access(row, addr); });
  return buf.finish();
}

}  // namespace tcsim::systolic
