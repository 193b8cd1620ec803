#include "systolic/systolic_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "common/error.h"
#include "common/text/strings.h"
#include "systolic/memory/calc_dram_reads.h"
#include "systolic/memory/calc_read_buffer.h"
#include "systolic/schedule/demand_runs.h"
#include "systolic/schedule/demand_streams.h"
#include "systolic/memory/dram_estimate.h"
#include "systolic/faithful.h"
#include "systolic/schedule/fold_schedule.h"
#include "systolic/memory/ofmap_write_buffer.h"
#include "systolic/memory/user_bandwidth.h"
#include "systolic/vector/vector_unit.h"

namespace tcsim::systolic {

SystolicModel::SystolicModel(SystolicConfig config) : config_(std::move(config)) { config_.validate(""); }

std::string SystolicModel::name() const {
  std::ostringstream os;
  os << config_.name << " (" << config_.rows << "x" << config_.cols << " " << to_string(config_.dataflow) << ")";
  return os.str();
}

namespace {

// Refuses a layer whose simulation would take absurdly long: the model's cost is up to about 3 us
// and 300 bytes per fold (measured, Release: 65536^3 on 32x32 os, 4.2M folds, 3.6 s, 19 MB;
// 99999999x64x128, 6.25M folds, 20.7 s, 1.7 GB).
void check_work(const Layer& l, std::int64_t copies, const SystolicConfig& c, const std::string& where) {
  const FoldSchedule s = make_schedule(l, c.rows, c.cols, c.dataflow);
  const double folds = double(s.Fr) * double(s.Fc) * double(copies);
  if (folds > kMaxFoldsPerLayer)
    throw InputError(where, "too much work: " + format_number("%.3g", folds) + " folds on the " +
                                std::to_string(c.rows) + "x" + std::to_string(c.cols) + " array, an estimated " +
                                format_number("%.3g", folds * 3e-6) + " s and " + format_number("%.3g", folds * 300e-9) +
                                " GB; at most 2^22 (4.2e6) folds per layer (use a larger array or a smaller layer)");
}

// A GEMM or convolution whose operands the array's MACs do not take (array.formats).
void check_formats(const Kernel& k, const SystolicConfig& c, const std::string& where) {
  for (const auto& [f, operand] : {std::pair{k.a_format, "A"}, std::pair{k.b_format, "B"}})
    if (!c.takes(f))
      throw InputError(where, c.name + "'s array takes " + c.formats_text() + " operands (array.formats), not " +
                                  std::string(format_name(f)) + " (operand " + operand +
                                  "); run the workload in the array's format or list this one in array.formats");
}

}  // namespace

void note_underfill(const Layer& layer, const SystolicConfig& c, LayerReport& r) {
  if (r.mapping_efficiency_pct >= kUnderfilledPct) return;
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  // Which GEMM dimension each array side holds (fold_schedule.cpp): K is the reduction, M the output
  // positions (tokens, pixels), N the outputs per position (features, filters).
  const char* row_dim = c.dataflow == Dataflow::os ? "M" : "K";
  const char* col_dim = c.dataflow == Dataflow::is ? "M" : "N";
  r.notes.push_back(std::string(kUnderfilledNote) + format_number("%.3g", r.mapping_efficiency_pct) + "% of the PEs hold work (" +
                    to_string(c.dataflow) + " maps " + row_dim + " = " + std::to_string(s.Sr) + " onto " +
                    std::to_string(c.rows) + " rows, " + col_dim + " = " + std::to_string(s.Sc) + " onto " +
                    std::to_string(c.cols) + " columns); " + row_dim + " a multiple of " + std::to_string(c.rows) + " and " +
                    col_dim + " of " + std::to_string(c.cols) + " fill it");
}

std::vector<Layer> SystolicModel::layers_of(const Kernel& kernel, const std::string& where, bool simulate_each) const {
  check_formats(kernel, config_, where);
  const std::int64_t mac_cycles = config_.mac_cycles(kernel.a_format, kernel.b_format);
  if (kernel.kind == Kernel::Kind::conv && kernel.conv.depthwise()) {
    Kernel one = kernel;
    one.conv.groups = 1;
    one.conv.channels = 1;
    one.conv.num_filters /= kernel.conv.groups;
    Layer l = make_layer(one, config_.semantics, where);
    l.mac_cycles = mac_cycles;
    check_work(l, simulate_each ? kernel.conv.channels : 1, config_, where);
    return std::vector<Layer>(static_cast<std::size_t>(kernel.conv.channels), l);
  }
  Layer l = make_layer(kernel, config_.semantics, where);
  l.mac_cycles = mac_cycles;
  check_work(l, 1, config_, where);
  return {std::move(l)};
}

namespace {

AccessSpan to_span(const DramSpan& d) { return {double(d.start), double(d.stop), d.accesses, d.exact}; }

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
  r.out_word_bytes = c.word_bytes;
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
    r.out_word_bytes = out_b;
    const FaithfulResult f = faithful_layer(layer, s, c, in_b, out_b);
    r.total_cycles = f.cycles;
    r.stall_cycles = f.stall_cycles;
    r.dram_ifmap = f.dram_ifmap;
    r.dram_filter = f.dram_filter;
    r.dram_ofmap = f.dram_ofmap;
    r.sram_ofmap.count = cf.ofmap_real_writes;
    // SRAM start/stop on the overlapped-fold timeline (the traces'), not SCALE-Sim's schedule.
    for (auto [to, from] : {std::pair{&r.sram_ifmap, &f.sram_ifmap}, std::pair{&r.sram_filter, &f.sram_filter},
                            std::pair{&r.sram_ofmap, &f.sram_ofmap}}) {
      to->start = from->start;
      to->stop = from->stop;
    }
    r.time_s = c.clock_hz > 0 ? static_cast<double>(r.total_cycles) / c.clock_hz : 0;
    r.notes.insert(r.notes.end(), f.notes.begin(), f.notes.end());
    if (layer.mac_cycles > 1)
      r.notes.push_back("operands at 1/" + std::to_string(layer.mac_cycles) + " of the native MAC rate (array.formats): " +
                        std::to_string(layer.mac_cycles) + " cycles per pipeline step");
  }
  r.overall_util_pct = r.total_cycles > 0 ? r.macs * 100 / (static_cast<double>(r.total_cycles) * RC) : 0;
  return r;
}

KernelResult SystolicModel::run(const Kernel& kernel) const {
  const std::string where = kernel.name.empty() ? "kernel" : kernel.name;
  if (kernel.kind == Kernel::Kind::memory) {
    if (!config_.vector.present())
      throw InputError(where, "no vector unit (vector.lanes in the config): the array runs GEMM and convolution layers");
    return run_vector_kernel(kernel, config_);
  }
  const std::vector<Layer> layers = layers_of(kernel, where, false);  // identical copies: one simulated
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
  note_underfill(layers.front(), config_, total);
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
  const double wb = static_cast<double>(r.word_bytes), ob = static_cast<double>(r.out_word_bytes);
  k.set("stall_cycles", static_cast<double>(r.stall_cycles) * repeat);
  k.set("overall_util_pct", r.overall_util_pct);
  k.set("mapping_efficiency_pct", r.mapping_efficiency_pct);
  k.set("compute_util_pct", r.compute_util_pct);
  k.set("sram_ifmap_read_bytes", static_cast<double>(r.sram_ifmap.count) * wb * repeat);
  k.set("sram_filter_read_bytes", static_cast<double>(r.sram_filter.count) * wb * repeat);
  k.set("sram_ofmap_write_bytes", static_cast<double>(r.sram_ofmap.count) * ob * repeat);
  k.set("dram_ifmap_read_bytes", static_cast<double>(r.dram_ifmap.count) * wb * repeat);
  k.set("dram_filter_read_bytes", static_cast<double>(r.dram_filter.count) * wb * repeat);
  k.set("dram_ofmap_write_bytes", static_cast<double>(r.dram_ofmap.count) * ob * repeat);
  k.notes = r.notes;
  return k;
}

}  // namespace tcsim::systolic
