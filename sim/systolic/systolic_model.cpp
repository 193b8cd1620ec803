#include "systolic/systolic_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.h"
#include "systolic/calc_read_buffer.h"
#include "systolic/demand_streams.h"
#include "systolic/dram_estimate.h"
#include "systolic/faithful.h"
#include "systolic/fold_schedule.h"
#include "systolic/ofmap_write_buffer.h"
#include "systolic/user_bandwidth.h"

namespace tcsim::systolic {

SystolicModel::SystolicModel(SystolicConfig config) : config_(std::move(config)) { config_.validate(""); }

std::string SystolicModel::name() const {
  std::ostringstream os;
  os << config_.name << " (" << config_.rows << "x" << config_.cols << " " << to_string(config_.dataflow) << ")";
  return os.str();
}

std::vector<Layer> SystolicModel::layers_of(const Kernel& kernel, const std::string& where) const {
  if (kernel.kind == Kernel::Kind::conv && kernel.conv.depthwise) {
    Kernel one = kernel;
    one.conv.depthwise = false;
    one.conv.channels = 1;
    const Layer l = make_layer(one, config_.semantics, where);
    return std::vector<Layer>(static_cast<std::size_t>(kernel.conv.channels), l);
  }
  return {make_layer(kernel, config_.semantics, where)};
}

namespace {

// Distinct valid input addresses touched by the layer's windows (rows x cols x channels).
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

AccessSpan to_span(const DramSpan& d) { return {double(d.start), double(d.stop), d.accesses, d.exact}; }

// Valid accesses of `op` in fold (fr, fc) when no window overhangs the input.
std::int64_t fold_accesses(const FoldSchedule& s, Operand op, std::int64_t fr, std::int64_t fc) {
  const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
  const bool preloaded = (s.dataflow == Dataflow::ws && op == Operand::filter) ||
                         (s.dataflow == Dataflow::is && op == Operand::ifmap);
  if (preloaded) return ru * cu;
  if (s.dataflow == Dataflow::os && op == Operand::filter) return cu * s.T;
  return ru * s.T;
}

// Replays the demand of `op` through the CALC read buffer, skipping work that provably repeats:
//  * a fold whose tile equals the previous fold's, with no epoch boundary since that fold
//    started, is all hits (os filter: the Fr folds of a column fold share their tile);
//  * when the address sequence of a whole column-fold sweep does not depend on the column fold
//    (os ifmap, ws ifmap, is filter), the buffer is periodic as soon as two consecutive sweeps end
//    their last epoch at the same position: the rest is extrapolated.
void replay(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op, CalcReadBuffer& buf) {
  auto visit = [&buf](std::int64_t row, std::int64_t addr) { buf.access(row, addr); };
  const bool sweep_invariant = (s.dataflow == Dataflow::os && op == Operand::ifmap) ||
                               (s.dataflow == Dataflow::ws && op == Operand::ifmap) ||
                               (s.dataflow == Dataflow::is && op == Operand::filter);
  // Tile identity of fold f (equal keys: identical address sequence), -1 when unique.
  auto key = [&](std::int64_t f) -> std::int64_t {
    if (s.dataflow == Dataflow::os && op == Operand::filter) return f / s.Fr;  // fc
    if (sweep_invariant && s.Fr == 1) return 0;                                // every fold alike
    return -1;
  };
  // The valid accesses of fold f as contiguous address runs (for folds without an epoch boundary).
  const std::int64_t K = layer.k(), R = s.R, H = layer.ifmap_h, W = layer.ifmap_w, Ch = layer.channels;
  const std::int64_t Fh = layer.filter_h, Fw = layer.filter_w, Ew = layer.out_w;
  auto any_order = [&](std::int64_t f, auto&& run) {
    const std::int64_t fr = f % s.Fr, ru = s.rows_used(fr);
    if (s.dataflow == Dataflow::is) {  // filter rows k = fr*R + r (contiguous), every n
      for (std::int64_t n = 0; n < s.T; ++n) run(n * K + fr * R, ru);
      return;
    }
    auto window = [&](std::int64_t m, auto&& per_pixel_row) {  // valid window rows of output pixel m
      const std::int64_t iy0 = (m / Ew) * layer.stride_h, ix0 = (m % Ew) * layer.stride_w;
      const std::int64_t vy = std::min(Fh, H - iy0), vx = std::min(Fw, W - ix0);
      for (std::int64_t fy = 0; fy < vy; ++fy) per_pixel_row(fy, (iy0 + fy) * W + ix0, vx);
    };
    if (s.dataflow == Dataflow::os) {  // im2col rows m = fr*R + p, all k: vx*C words per window row
      for (std::int64_t p = 0; p < ru; ++p)
        window(fr * R + p, [&](std::int64_t, std::int64_t pix, std::int64_t vx) { run(pix * Ch, vx * Ch); });
      return;
    }
    // ws: im2col columns k in [fr*R, fr*R + ru) for every m, split at window-position boundaries.
    const std::int64_t k0 = fr * R, k1 = fr * R + ru;
    for (std::int64_t m = 0; m < s.T; ++m) {
      const std::int64_t iy0 = (m / Ew) * layer.stride_h, ix0 = (m % Ew) * layer.stride_w;
      for (std::int64_t k = k0; k < k1;) {
        const std::int64_t fy = k / (Fw * Ch), rem = k % (Fw * Ch), fx = rem / Ch, c = rem % Ch;
        const std::int64_t len = std::min(Ch - c, k1 - k);
        if (iy0 + fy < H && ix0 + fx < W) run(((iy0 + fy) * W + ix0 + fx) * Ch + c, len);
        k += len;
      }
    }
  };
  // The os ifmap demand of fold f in exact order, as a tight loop (the hot path of os layers):
  // row t, ports p: A(m0 + p, k = t - p).
  auto os_ifmap_exact = [&](std::int64_t f) {
    const std::int64_t fr = f % s.Fr, ru = s.rows_used(fr), m0 = fr * R, base = f * s.fold_rows;
    const std::int64_t *iy0 = A.iy0() + m0, *ix0 = A.ix0() + m0, *fy = A.fy(), *fx = A.fx(), *ch = A.ch();
    for (std::int64_t t = 0; t < K + ru - 1; ++t) {
      const std::int64_t p_lo = t - K + 1 > 0 ? t - K + 1 : 0, p_hi = t < ru - 1 ? t : ru - 1;
      for (std::int64_t p = p_lo; p <= p_hi; ++p) {
        const std::int64_t k = t - p, iy = iy0[p] + fy[k], ix = ix0[p] + fx[k];
        if (iy < H && ix < W) buf.access(base + t, (iy * W + ix) * Ch + ch[k]);
      }
    }
  };
  std::int64_t prev_key = -2, prev_fold_triggers = -1, failures = 0;
  auto run_fold = [&](std::int64_t f) {
    const std::int64_t k = key(f);
    const std::int64_t triggers_before = buf.triggers();
    if (k >= 0 && k == prev_key && prev_fold_triggers == triggers_before) {
      // Same tile as the previous fold and no epoch boundary since it started: all hits.
      // (A later skipped fold compares against the same baseline.)
      return;
    }
    if (s.dataflow == Dataflow::os && op == Operand::filter && k == prev_key &&
        s.T * s.cols_used(f / s.Fr) > buf.capacity()) {
      // os filter tile (K x cols, every address once per fold) repeated but larger than an epoch:
      // each address was last touched a whole tile ago, beyond an epoch boundary, so every access
      // misses. Stamps of this tile are never consulted again except by such all-miss folds.
      buf.distinct_misses(s.T * s.cols_used(f / s.Fr), 0, [&](std::int64_t j) {
        std::int64_t row = 0;
        for_each_demand(layer, s, A, op, [&](std::int64_t r, std::int64_t) { if (j-- == 0) row = r; }, f, f + 1);
        return row;
      });
      prev_fold_triggers = -1;
      return;
    }
    if (s.dataflow == Dataflow::os && op == Operand::filter && k != prev_key && s.T * s.cols_used(f / s.Fr) > buf.capacity() &&
        buf.accesses() > 0) {
      // A new os filter tile (columns never seen before, each address once): all misses; it is larger
      // than an epoch, so its repeats take the all-miss path above and its stamps are never consulted.
      buf.distinct_misses(s.T * s.cols_used(f / s.Fr), 0, [&](std::int64_t j) {
        std::int64_t row = 0;
        for_each_demand(layer, s, A, op, [&](std::int64_t r, std::int64_t) { if (j-- == 0) row = r; }, f, f + 1);
        return row;
      });
      prev_key = k;
      prev_fold_triggers = -1;
      return;
    }
    // After two failed attempts in a row (folds larger than an epoch), try only every 8th fold.
    const bool order_free = sweep_invariant && layer.pad_h == 0 && layer.pad_w == 0 &&
                            (failures < 2 || f % 8 == 0);
    const bool done = order_free && buf.try_fold_without_boundary([&](auto&& run) { any_order(f, run); });
    if (order_free) failures = done ? 0 : failures + 1;
    if (!done) {
      if (s.dataflow == Dataflow::os && op == Operand::ifmap) os_ifmap_exact(f);
      else for_each_demand(layer, s, A, op, visit, f, f + 1);
    }
    prev_key = k;
    prev_fold_triggers = triggers_before;
  };
  if (!sweep_invariant) {
    for (std::int64_t f = 0; f < s.folds(); ++f) run_fold(f);
    return;
  }
  const std::int64_t sweep_rows = s.Fr * s.fold_rows;
  std::int64_t prev_offset = -1;
  for (std::int64_t fc = 0; fc < s.Fc; ++fc) {
    const std::int64_t acc0 = buf.accesses(), miss0 = buf.misses(), trig0 = buf.triggers();
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) run_fold(fc * s.Fr + fr);
    const std::int64_t trig = buf.triggers() - trig0;
    const std::int64_t offset = trig > 0 ? buf.last_trigger_access() - acc0 : -1;
    if (trig > 0 && offset == prev_offset && s.Fr > 1) {
      buf.repeat(s.Fc - 1 - fc, buf.misses() - miss0, trig, sweep_rows);
      return;
    }
    prev_offset = offset;
  }
}

DramSpan calc_dram_reads(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op,
                         std::uint64_t sram_words, std::int64_t sram_reads, std::int64_t first_row) {
  const std::int64_t items = static_cast<std::int64_t>(sram_words / CalcReadBuffer::kSets);
  const std::int64_t cap = CalcReadBuffer::kActiveSets * items;
  const std::int64_t footprint = op == Operand::ifmap ? ifmap_footprint(layer) : layer.k() * layer.n();
  const std::int64_t space = op == Operand::ifmap ? layer.ifmap_words() : layer.k() * layer.n();
  if (footprint < cap) return CalcReadBuffer::closed_form(items, footprint, first_row, 0);
  if (sram_reads == footprint) {
    // Every access touches a new address (e.g. ws filters): all misses, no replay. Only the row
    // of the last epoch boundary is needed: find its fold by per-fold counts, then its row.
    CalcReadBuffer buf(sram_words, 1);
    buf.distinct_misses(footprint, first_row, [&](std::int64_t j) {
      for (std::int64_t f = 0; f < s.folds(); ++f) {
        const std::int64_t n = fold_accesses(s, op, f % s.Fr, f / s.Fr);
        if (j >= n) {
          j -= n;
          continue;
        }
        std::int64_t row = 0;
        for_each_demand(layer, s, A, op, [&](std::int64_t r, std::int64_t) { if (j-- == 0) row = r; }, f, f + 1);
        return row;
      }
      return std::int64_t{0};
    });
    return buf.finish();
  }
  if (sram_reads <= SystolicModel::kMaxReplayAccesses && space <= SystolicModel::kMaxReplayAddresses) {
    CalcReadBuffer buf(sram_words, space);
    replay(layer, s, A, op, buf);
    return buf.finish();
  }
  DramSpan d = estimate_dram_reads(layer, s, op, cap, footprint);
  d.start = first_row - (cap + CalcReadBuffer::kInitialBandwidth - 1) / CalcReadBuffer::kInitialBandwidth;
  d.stop = s.total_rows() - 1;
  return d;
}

// Feeds every fold's output writes to the write buffer as runs of equal writes per row.
DramSpan ofmap_dram_writes(const FoldSchedule& s, std::uint64_t sram_words, std::int64_t line_words) {
  OfmapWriteBuffer buf(sram_words, line_words);
  for (std::int64_t fc = 0; fc < s.Fc; ++fc) {
    const std::int64_t cu = s.cols_used(fc);
    for (std::int64_t fr = 0; fr < s.Fr; ++fr) {
      const std::int64_t base = (fc * s.Fr + fr) * s.fold_rows;
      // Writes in fold row t: #(i, c) with i + c = t - t0, i in [lo, hi], c in [0, cu).
      std::int64_t t0, lo, hi;
      if (s.dataflow == Dataflow::os) {
        t0 = s.T - 1;
        lo = s.R - s.rows_used(fr);
        hi = s.R - 1;
      } else {
        t0 = 2 * s.R - 1;
        lo = 0;
        hi = s.T - 1;
      }
      auto w = [&](std::int64_t d) {
        const std::int64_t a = std::max(d - (cu - 1), lo), b = std::min(d, hi);
        return b >= a ? b - a + 1 : 0;
      };
      const std::int64_t f0 = std::min(hi, lo + cu - 1), f1 = std::max(hi, lo + cu - 1);
      for (std::int64_t d = lo; d < f0; ++d) buf.write_rows(base + t0 + d, 1, w(d));
      buf.write_rows(base + t0 + f0, f1 - f0 + 1, w(f0));
      for (std::int64_t d = f1 + 1; d <= hi + cu - 1; ++d) buf.write_rows(base + t0 + d, 1, w(d));
    }
  }
  return buf.finish(s.total_rows() - 1);
}

// First and last demand row with a valid (not -1) address: overhanging windows make the last
// entries of an im2col row invalid, so the closed-form span is refined on the first/last folds.
RowSpan valid_row_span(const Layer& layer, const FoldSchedule& s, const Im2col& A, Operand op) {
  RowSpan span{-1, -1};
  for (std::int64_t f = 0; f < s.folds() && span.first < 0; ++f)
    for_each_demand(layer, s, A, op, [&](std::int64_t row, std::int64_t) { if (span.first < 0) span.first = row; },
                    f, f + 1);
  for (std::int64_t f = s.folds() - 1; f >= 0 && span.last < 0; --f)
    for_each_demand(layer, s, A, op, [&](std::int64_t row, std::int64_t) { span.last = std::max(span.last, row); },
                    f, f + 1);
  return span;
}

}  // namespace

LayerReport SystolicModel::run_layer(const Layer& layer) const {
  const SystolicConfig& c = config_;
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const ClosedFormCounts cf = closed_form_counts(layer, s);
  LayerReport r;
  r.name = layer.name;
  r.macs = layer.macs();
  r.row_folds = s.Fr;
  r.col_folds = s.Fc;
  r.fold_cycles = s.fold_rows;
  r.word_bytes = c.word_bytes;
  const double RC = static_cast<double>(c.rows * c.cols);
  r.mapping_efficiency_pct = cf.mapping_efficiency * 100;
  r.compute_util_pct = cf.compute_utilization * 100;

  const Im2col A(layer);
  const RowSpan ri = valid_row_span(layer, s, A, Operand::ifmap), rf = filter_row_span(s), ro = ofmap_row_span(s);
  r.sram_ifmap = {double(ri.first + 1), double(ri.last + 1), cf.ifmap_sram_reads};  // 1-cycle hit latency
  r.sram_filter = {double(rf.first + 1), double(rf.last + 1), cf.filter_sram_reads};
  r.sram_ofmap = {double(ro.first), double(ro.last), cf.ofmap_sram_writes};

  const bool user = c.bandwidth_mode == BandwidthMode::user;
  if (c.semantics == Semantics::scalesim_v2 && user && user_bandwidth_fits(layer, s)) {
    const UserReplay u = replay_user_bandwidth(layer, s, A, c, ri, rf, ro);
    r.total_cycles = u.total_cycles;
    r.stall_cycles = u.stall_cycles;
    r.sram_ifmap.start = double(u.sram_ifmap.first);
    r.sram_ifmap.stop = double(u.sram_ifmap.last);
    r.sram_filter.start = double(u.sram_filter.first);
    r.sram_filter.stop = double(u.sram_filter.last);
    r.sram_ofmap.start = double(u.sram_ofmap.first);
    r.sram_ofmap.stop = double(u.sram_ofmap.last);
    r.dram_ifmap = to_span(u.dram_ifmap);
    r.dram_filter = to_span(u.dram_filter);
    r.dram_ofmap = to_span(u.dram_ofmap);
  } else if (c.semantics == Semantics::scalesim_v2) {
    r.total_cycles = s.total_rows() - 1;  // the index of the last cycle
    r.stall_cycles = 0;
    r.dram_ifmap = to_span(
        calc_dram_reads(layer, s, A, Operand::ifmap, c.ifmap_sram_words(), cf.ifmap_sram_reads, ri.first));
    r.dram_filter = to_span(
        calc_dram_reads(layer, s, A, Operand::filter, c.filter_sram_words(), cf.filter_sram_reads, rf.first));
    const std::int64_t line = c.bandwidth_mode == BandwidthMode::calc
                                  ? c.cols
                                  : std::max<std::int64_t>(1, static_cast<std::int64_t>(c.user_bandwidth_words));
    r.dram_ofmap = to_span(ofmap_dram_writes(s, c.ofmap_sram_words(), line));
    if (user)
      r.notes.push_back("USER bandwidth mode: layer too large to replay in bounded memory; cycles are stall-free "
                        "and DRAM reads are CALC-mode estimates");
    if (!r.dram_ifmap.exact || !r.dram_filter.exact)
      r.notes.push_back("layer too large to replay: DRAM reads estimated per fold tile");
  } else {
    const std::int64_t in_b = c.bytes_from_formats ? layer.in_bytes : c.word_bytes;
    const std::int64_t out_b = c.bytes_from_formats ? layer.out_bytes : c.word_bytes;
    r.word_bytes = in_b;
    const FaithfulResult f = faithful_layer(layer, s, c, in_b, out_b);
    r.total_cycles = f.cycles;
    r.stall_cycles = f.stall_cycles;
    r.dram_ifmap = f.dram_ifmap;
    r.dram_filter = f.dram_filter;
    r.dram_ofmap = f.dram_ofmap;
    r.sram_ofmap.count = cf.ofmap_real_writes;
    r.time_s = c.clock_hz > 0 ? static_cast<double>(r.total_cycles) / c.clock_hz : 0;
    r.notes.insert(r.notes.end(), f.notes.begin(), f.notes.end());
  }
  r.overall_util_pct = r.total_cycles > 0 ? r.macs * 100 / (static_cast<double>(r.total_cycles) * RC) : 0;
  return r;
}

KernelResult SystolicModel::run(const Kernel& kernel) const {
  const std::string where = kernel.name.empty() ? "kernel" : kernel.name;
  const std::vector<Layer> layers = layers_of(kernel, where);
  const double repeat = static_cast<double>(kernel.kind == Kernel::Kind::gemm ? kernel.batch : kernel.conv.batch);
  LayerReport total = run_layer(layers.front());
  if (layers.size() > 1) {  // depthwise: identical per-channel layers
    const double n = static_cast<double>(layers.size());
    total.total_cycles = static_cast<std::int64_t>(static_cast<double>(total.total_cycles) * n);
    total.macs *= n;
    for (AccessSpan* a : {&total.sram_ifmap, &total.sram_filter, &total.sram_ofmap, &total.dram_ifmap,
                          &total.dram_filter, &total.dram_ofmap})
      a->count = static_cast<std::int64_t>(static_cast<double>(a->count) * n);
    total.time_s *= n;
  }
  total.name = kernel.name;
  return to_kernel_result(total, config_, repeat);
}

KernelResult to_kernel_result(const LayerReport& r, const SystolicConfig& c, double repeat) {
  KernelResult k;
  k.name = r.name;
  k.cycles = static_cast<double>(r.total_cycles) * repeat;
  k.time_s = c.clock_hz > 0 ? k.cycles / c.clock_hz : 0;
  k.flops = 2 * r.macs * repeat;
  k.bound = "compute";
  if (r.stall_cycles > 0) k.bound = "memory";
  std::ostringstream m;
  m << r.row_folds << "x" << r.col_folds << " folds of " << r.fold_cycles << " cycles, "
    << to_string(c.dataflow);
  k.mapping = m.str();
  const double wb = static_cast<double>(r.word_bytes);
  k.set("stall_cycles", static_cast<double>(r.stall_cycles) * repeat);
  k.set("overall_util_pct", r.overall_util_pct);
  k.set("mapping_efficiency_pct", r.mapping_efficiency_pct);
  k.set("compute_util_pct", r.compute_util_pct);
  k.set("sram_ifmap_read_bytes", static_cast<double>(r.sram_ifmap.count) * wb * repeat);
  k.set("sram_filter_read_bytes", static_cast<double>(r.sram_filter.count) * wb * repeat);
  k.set("sram_ofmap_write_bytes", static_cast<double>(r.sram_ofmap.count) * wb * repeat);
  k.set("dram_ifmap_read_bytes", static_cast<double>(r.dram_ifmap.count) * wb * repeat);
  k.set("dram_filter_read_bytes", static_cast<double>(r.dram_filter.count) * wb * repeat);
  k.set("dram_ofmap_write_bytes", static_cast<double>(r.dram_ofmap.count) * wb * repeat);
  k.notes = r.notes;
  return k;
}

}  // namespace tcsim::systolic
