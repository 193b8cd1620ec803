#include "engine/network/network_tables.h"

#include <algorithm>
#include <map>

#include "common/text/strings.h"

namespace tcsim::engine {

using io::Cell;
using io::ColumnOf;

namespace {

double gemm_time(const NetworkEstimate& e) {
  double t = 0;
  for (const auto& k : e.kernels)
    if (k.lowered.kernel.kind != Kernel::Kind::memory) t += k.time_s();
  return t;
}

std::size_t baseline_of(const std::vector<NetworkEstimate>& modes) {
  for (std::size_t i = 0; i < modes.size(); ++i)
    if (modes[i].precision == "fp32") return i;
  return 0;
}

}  // namespace

namespace {

io::Table layers_table(const NetworkEstimate& e, double total) {
  std::vector<ColumnOf<LayerEstimate>> cols = {
      {"layer", "layer name (repeat groups as group.name)", [](const LayerEstimate& l) { return Cell(l.name); }},
      {"kind", "layer kind", [](const LayerEstimate& l) { return Cell(l.kind); }},
      {"shape", "per-sample output shape", [](const LayerEstimate& l) { return Cell(l.shape); }},
      {"count", "copies of the layer (repeat)", [](const LayerEstimate& l) { return Cell(l.count); }},
      {"kernels", "kernel launches per step, copies included", [](const LayerEstimate& l) { return Cell(l.launches); }},
      {"time_us", "GPU time per step, copies included", [](const LayerEstimate& l) { return Cell(l.time_s() * 1e6); }},
      {"forward_us", "forward kernels", [](const LayerEstimate& l) { return Cell(l.forward_s * 1e6); }},
      {"backward_us", "backward kernels", [](const LayerEstimate& l) { return Cell(l.backward_s * 1e6); }},
      {"tflops", "useful FLOP/s over its time",
       [](const LayerEstimate& l) { return Cell(l.time_s() > 0 ? l.flops / l.time_s() / 1e12 : 0.0); }},
      {"bound", "what limits its longest kernel (host: its kernels are shorter than a launch)",
       [](const LayerEstimate& l) { return Cell(l.bound); }},
      {"share_pct", "share of the step's GPU time",
       [total](const LayerEstimate& l) { return Cell(total > 0 ? 100 * l.time_s() / total : 0.0); }},
      {"flags", "padding, off-tensor-core sizes, not-modelled kernels",
       [](const LayerEstimate& l) { return Cell(join(l.flags, "; ")); }},
  };
  if (e.energy_modelled) {
    const double energy = e.energy_j;
    cols.insert(cols.end() - 1,
                {{"energy_mj", "energy of its kernels per step, copies included",
                  [](const LayerEstimate& l) { return Cell(l.energy_j * 1e3); }},
                 {"avg_power_w", "board power while its kernels run",
                  [](const LayerEstimate& l) { return Cell(l.time_s() > 0 ? l.energy_j / l.time_s() : 0.0); }},
                 {"energy_share_pct", "share of the step's energy",
                  [energy](const LayerEstimate& l) { return Cell(energy > 0 ? 100 * l.energy_j / energy : 0.0); }}});
  }
  return io::table_of("layers", cols, e.layers);
}

// Step energy, power and energy per sample or token (totals and compare tables).
std::vector<ColumnOf<NetworkEstimate>> energy_columns() {
  return {{"energy_j", "one step: kernels, leakage and idle power while the GPU waits for the host",
           [](const NetworkEstimate& x) { return Cell(x.energy_j); }},
          {"avg_power_w", "board power over the step", [](const NetworkEstimate& x) { return Cell(x.avg_power_w()); }},
          {"energy_per_item_mj", "per sample (images) or per token (token models), as throughput_unit",
           [](const NetworkEstimate& x) { return Cell(x.energy_per_item_j() * 1e3); }},
          {"power_bound_launches", "kernel launches the power limit runs below the boost clock",
           [](const NetworkEstimate& x) { return Cell(x.power_bound_launches); }},
          {"step_clock_mhz", "the clock the step's kernels share under the power limit (empty: no limit to enforce)",
           [](const NetworkEstimate& x) { return x.step_clock_hz > 0 ? Cell(x.step_clock_hz / 1e6) : Cell(); }}};
}

double layers_time(const NetworkEstimate& e) {
  double total = 0;
  for (const auto& l : e.layers) total += l.time_s();
  return total;
}

}  // namespace

io::Table network_layers_table(const NetworkEstimate& e) { return layers_table(e, layers_time(e)); }

io::Table network_kernels_table(const NetworkEstimate& e) {
  std::vector<ColumnOf<KernelEstimate>> cols = {
      {"kernel", "kernel name (layer.part)", [](const KernelEstimate& k) { return Cell(k.lowered.kernel.name); }},
      {"phase", "forward, backward or optimizer",
       [](const KernelEstimate& k) { return Cell(std::string(workload::to_string(k.lowered.phase))); }},
      {"count", "launches per step", [](const KernelEstimate& k) { return Cell(k.lowered.kernel.count); }},
      {"time_us", "one launch", [](const KernelEstimate& k) { return Cell(k.modelled ? k.result.time_s * 1e6 : 0.0); }},
      {"total_us", "all launches", [](const KernelEstimate& k) { return Cell(k.time_s() * 1e6); }},
      {"tflops", "useful FLOP/s", [](const KernelEstimate& k) { return Cell(k.modelled ? k.result.tflops() : 0.0); }},
      {"bound", "what limits it", [](const KernelEstimate& k) { return Cell(k.modelled ? k.result.bound : "not modelled"); }},
      {"mapping", "the model's mapping, or why it is not modelled",
       [](const KernelEstimate& k) { return Cell(k.modelled ? k.result.mapping : k.not_modelled_reason); }},
      {"notes", "the model's notes", [](const KernelEstimate& k) { return Cell(join(k.result.notes, "; ")); }},
  };
  if (e.energy_modelled) {
    auto metric = [](const char* name, double scale) {
      return [name, scale](const KernelEstimate& k) { return Cell(k.result.get(name).value_or(0) * scale); };
    };
    cols.insert(cols.end() - 2, {{"clock_mhz", "SM clock it runs at (below boost when power-bound)", metric("clock_mhz", 1)},
                                 {"power_bound", "1 when the power limit lowers its clock", metric("power_bound", 1)},
                                 {"energy_mj", "one launch", metric("energy_j", 1e3)},
                                 {"avg_power_w", "board power over one launch", metric("avg_power_w", 1)}});
  }
  return io::table_of("kernels", cols, e.kernels);
}

io::Table network_totals_table(const NetworkEstimate& e) {
  std::vector<ColumnOf<NetworkEstimate>> cols = {
      {"network", "", [](const NetworkEstimate& x) { return Cell(x.network); }},
      {"accelerator", "", [](const NetworkEstimate& x) { return Cell(x.accelerator); }},
      {"pass", "infer or train", [](const NetworkEstimate& x) { return Cell(x.pass); }},
      {"precision", "", [](const NetworkEstimate& x) { return Cell(x.precision); }},
      {"batch", "", [](const NetworkEstimate& x) { return Cell(x.batch); }},
      {"seq", "tokens per sample (token models)", [](const NetworkEstimate& x) { return Cell(x.seq); }},
      {"past", "KV-cache tokens before the step", [](const NetworkEstimate& x) { return Cell(x.past); }},
      {"step_time_us", "one step, launch queue included", [](const NetworkEstimate& x) { return Cell(x.step_time_s * 1e6); }},
      {"gpu_time_us", "kernels back to back, with the stream's queue gaps", [](const NetworkEstimate& x) { return Cell(x.gpu_time_s * 1e6); }},
      {"queue_gap_us", "of gpu_time_us, the gaps before eager launches (kernel.queue_gap)",
       [](const NetworkEstimate& x) { return Cell(x.queue_gap_time_s * 1e6); }},
      {"host_time_us", "CPU time launching the kernels", [](const NetworkEstimate& x) { return Cell(x.host_time_s * 1e6); }},
      {"host_bound", "1 when the GPU waits for launches most of the step",
       [](const NetworkEstimate& x) { return Cell(std::int64_t(x.host_bound)); }},
      {"throughput", "samples/s (images) or tokens/s (token models)", [](const NetworkEstimate& x) { return Cell(x.throughput()); }},
      {"throughput_unit", "", [](const NetworkEstimate& x) { return Cell(std::string(x.throughput_unit())); }},
      {"tflops", "useful FLOP/s over the step",
       [](const NetworkEstimate& x) { return Cell(x.step_time_s > 0 ? x.flops / x.step_time_s / 1e12 : 0.0); }},
      {"kernel_launches", "per step", [](const NetworkEstimate& x) { return Cell(x.launches); }},
      {"distinct_kernels", "simulated (the rest reuse their results)", [](const NetworkEstimate& x) { return Cell(x.distinct_kernels); }},
      {"not_modelled_kernels", "launches the accelerator does not model", [](const NetworkEstimate& x) { return Cell(x.not_modelled); }},
  };
  if (e.energy_modelled)
    for (auto& c : energy_columns()) cols.push_back(std::move(c));
  return io::table_of("totals", cols, std::vector<NetworkEstimate>{e});
}

io::Table network_memory_table(const NetworkEstimate& e) {
  const std::vector<ColumnOf<NetworkEstimate>> cols = {
      {"weights_bytes", "weights as the GEMMs read them", [](const NetworkEstimate& x) { return Cell(x.footprint.weights); }},
      {"master_weights_bytes", "fp32 master weights (autocast, --fp32-master)", [](const NetworkEstimate& x) { return Cell(x.footprint.master); }},
      {"gradients_bytes", "", [](const NetworkEstimate& x) { return Cell(x.footprint.gradients); }},
      {"optimizer_state_bytes", "", [](const NetworkEstimate& x) { return Cell(x.footprint.optimizer); }},
      {"activations_bytes", "kept for backward (training), largest live layer (inference)",
       [](const NetworkEstimate& x) { return Cell(x.footprint.activations); }},
      {"kv_cache_bytes", "", [](const NetworkEstimate& x) { return Cell(x.footprint.kv_cache); }},
      {"total_bytes", "", [](const NetworkEstimate& x) { return Cell(x.footprint.total()); }},
      {"device_memory_bytes", "the config's device memory (0: not given)",
       [](const NetworkEstimate& x) { return Cell(x.device_memory_bytes); }},
  };
  return io::table_of("memory", cols, std::vector<NetworkEstimate>{e});
}

io::Table network_compare_table(const std::vector<NetworkEstimate>& modes) {
  const std::size_t b = baseline_of(modes);
  const double base = modes.empty() ? 0 : modes[b].step_time_s;
  const std::string base_name = modes.empty() ? "" : modes[b].precision;
  std::vector<ColumnOf<NetworkEstimate>> cols = {
      {"precision", "", [](const NetworkEstimate& x) { return Cell(x.precision); }},
      {"step_time_us", "", [](const NetworkEstimate& x) { return Cell(x.step_time_s * 1e6); }},
      {"speedup", "over " + base_name,
       [base](const NetworkEstimate& x) { return Cell(x.step_time_s > 0 ? base / x.step_time_s : 0.0); }},
      {"gemm_conv_attention_us", "GEMM, convolution and attention kernels", [](const NetworkEstimate& x) { return Cell(gemm_time(x) * 1e6); }},
      {"memory_bound_us", "every other kernel",
       [](const NetworkEstimate& x) { return Cell((x.gpu_time_s - x.queue_gap_time_s - gemm_time(x)) * 1e6); }},
      {"queue_gap_us", "gaps before eager launches",
       [](const NetworkEstimate& x) { return Cell(x.queue_gap_time_s * 1e6); }},
      {"host_wait_us", "GPU idle waiting for launches",
       [](const NetworkEstimate& x) { return Cell((x.step_time_s - x.gpu_time_s) * 1e6); }},
      {"throughput", "", [](const NetworkEstimate& x) { return Cell(x.throughput()); }},
      {"memory_bytes", "footprint", [](const NetworkEstimate& x) { return Cell(x.footprint.total()); }},
  };
  if (!modes.empty() && modes[b].energy_modelled) {
    const double base_energy = modes[b].energy_j;
    for (auto& c : energy_columns())
      if (c.name != "power_bound_launches") cols.push_back(std::move(c));
    cols.push_back({"energy_saving", "energy of " + base_name + " over this mode's",
                    [base_energy](const NetworkEstimate& x) { return Cell(x.energy_j > 0 ? base_energy / x.energy_j : 0.0); }});
  }
  return io::table_of("compare", cols, modes);
}

io::Table network_compare_by_kind_table(const std::vector<NetworkEstimate>& modes) {
  io::Table t;
  t.name = "compare_by_kind";
  t.add_column("kind", "layer kind (optimizer: the step's own kernels)");
  const std::size_t b = baseline_of(modes);
  for (const auto& m : modes) t.add_column(m.precision + "_time_us", "time of this kind's layers in " + m.precision);
  for (const auto& m : modes)
    t.add_column(m.precision + "_speedup", "over " + (modes.empty() ? std::string() : modes[b].precision));
  std::vector<std::string> kinds;
  std::vector<std::map<std::string, double>> per(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i)
    for (const auto& l : modes[i].layers) {
      if (std::find(kinds.begin(), kinds.end(), l.kind) == kinds.end()) kinds.push_back(l.kind);
      per[i][l.kind] += l.time_s();
    }
  for (const auto& k : kinds) {
    std::vector<Cell> row(t.columns.size());
    row[0] = k;
    for (std::size_t i = 0; i < modes.size(); ++i) {
      row[1 + i] = per[i][k] * 1e6;
      const double base = per[b][k];
      row[1 + modes.size() + i] = per[i][k] > 0 ? base / per[i][k] : 0.0;
    }
    t.add_row(std::move(row));
  }
  return t;
}

std::vector<std::string> compare_summary(const std::vector<NetworkEstimate>& modes) {
  std::vector<std::string> out;
  if (modes.size() < 2) return out;
  const std::size_t b = baseline_of(modes);
  std::map<std::string, double> base;
  for (const auto& l : modes[b].layers) base[l.kind] += l.time_s();
  for (std::size_t i = 0; i < modes.size(); ++i) {
    if (i == b) continue;
    std::map<std::string, double> t;
    for (const auto& l : modes[i].layers) t[l.kind] += l.time_s();
    std::vector<std::pair<double, std::string>> saved;  // time saved per kind
    std::vector<std::string> flat;
    for (const auto& [kind, bt] : base) {
      saved.push_back({bt - t[kind], kind});
      if (t[kind] >= 0.05 * modes[i].gpu_time_s && t[kind] > 0 && bt / t[kind] < 1.1)
        flat.push_back(kind + " (" + format_number("%.2f", bt / t[kind]) + "x)");
    }
    std::sort(saved.rbegin(), saved.rend());
    std::string line = modes[i].precision + " vs " + modes[b].precision + ": " +
                       format_number("%.2f", modes[i].step_time_s > 0 ? modes[b].step_time_s / modes[i].step_time_s : 0) +
                       "x; the gain comes from ";
    for (std::size_t k = 0; k < std::min<std::size_t>(3, saved.size()) && saved[k].first > 0; ++k)
      line += (k ? ", " : "") + saved[k].second + " (" + format_number("%.3g", saved[k].first * 1e3) + " ms saved, " +
              format_number("%.2f", t[saved[k].second] > 0 ? base[saved[k].second] / t[saved[k].second] : 0) + "x)";
    if (!flat.empty())
      line += "; no gain in " + join(flat, ", ") + ": memory-bound or host-bound kernels whose bytes do not shrink "
              "(fp32 master weights, optimizer state, autocast's fp32 ops and casts)";
    out.push_back(line);
    if (modes[i].energy_modelled && modes[i].energy_j > 0) {
      std::map<std::string, double> be, ie;
      for (const auto& l : modes[b].layers) be[l.kind] += l.energy_j;
      for (const auto& l : modes[i].layers) ie[l.kind] += l.energy_j;
      std::vector<std::pair<double, std::string>> spared;
      for (const auto& [kind, j] : be) spared.push_back({j - ie[kind], kind});
      std::sort(spared.rbegin(), spared.rend());
      std::string el = modes[i].precision + " energy: " + format_number("%.2f", modes[b].energy_j / modes[i].energy_j) +
                       "x less than " + modes[b].precision + " (" + format_number("%.4g", modes[i].energy_j) + " vs " +
                       format_number("%.4g", modes[b].energy_j) + " J per step, " +
                       format_number("%.4g", modes[i].energy_per_item_j() * 1e3) + " mJ per " +
                       (modes[i].tokens ? "token" : "sample") + " at " + format_number("%.0f", modes[i].avg_power_w()) + " W)";
      if (!spared.empty() && spared[0].first > 0)
        el += "; most saved in " + spared[0].second + " (" + format_number("%.3g", spared[0].first) + " J)";
      out.push_back(el);
    }
  }
  return out;
}

io::Table network_top_layers_table(const NetworkEstimate& e, std::size_t n) {
  NetworkEstimate top = e;
  std::stable_sort(top.layers.begin(), top.layers.end(),
                   [](const LayerEstimate& a, const LayerEstimate& b) { return a.time_s() > b.time_s(); });
  if (top.layers.size() > n) top.layers.resize(n);
  io::Table t = io::select_columns(layers_table(top, layers_time(e)),
                                   {"layer", "kind", "count", "time_us", "tflops", "bound", "share_pct"});
  t.name = "top_layers";
  return t;
}

}  // namespace tcsim::engine
