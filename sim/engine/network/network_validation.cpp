#include "engine/network/network_validation.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/text/strings.h"
#include "engine/network/network_estimate.h"
#include "workload/network/reader/network_reader.h"

namespace tcsim::engine {

using io::Cell;
using io::ColumnOf;

namespace {
// A compared row whose passes were measured apart, and one pass's measured and predicted time.
bool passes(const NetworkValidationRow& r) { return r.simulated && r.measured.measured_forward_s > 0; }
double measured_pass_s(const NetworkValidationRow& r, bool forward) {
  return forward ? r.measured.measured_forward_s : r.measured.measured_backward_s;
}
double predicted_pass_s(const NetworkValidationRow& r, bool forward) {
  return forward ? r.predicted_forward_s : r.predicted_backward_s;
}

// A measured forward this much longer, relative to its backward, than the kernels make it is
// flagged. NeuSight's measure_e2e (neusight/Tracing/trace.py) runs gc.collect() and
// torch.cuda.empty_cache() before each timed forward, so the forward reallocates its activations
// (cudaMalloc) after an idle GPU, while the backward follows the forward at once. Its V100 and A100
// 40GB runs show nothing of it (measured forward/backward within 1.1x of the kernels' ratio); five
// of the eight A100 80GB training runs 1.4-1.9x, with their backward passes within 1-6% of the model.
constexpr double kForwardShareFlag = 1.25;

std::string passes_note(const NetworkValidationRow& r) {
  if (!passes(r) || !r.measured.forward_after_empty_cache || r.predicted_forward_s <= 0 || r.predicted_backward_s <= 0 || r.measured.measured_backward_s <= 0)
    return "";
  const double measured = r.measured.measured_forward_s / r.measured.measured_backward_s;
  const double predicted = r.predicted_forward_s / r.predicted_backward_s;
  if (measured < kForwardShareFlag * predicted) return "";
  return "forward/backward measured " + format_number("%.2f", measured) + ", the kernels' " +
         format_number("%.2f", predicted) +
         ": the forward was timed right after gc.collect() and torch.cuda.empty_cache(); compare the backward";
}

// The run was measured at its batch, so it fitted its board: an estimate that needs more memory than
// the board has modelled another workload (a precision, a fusion or a saved tensor that was not what
// ran) or overcounts its footprint, whatever its time says. The board is the measured one: a config
// may stand for boards of several sizes (v100.yaml's 16 GiB for a DGX-1's 32 GB V100s), so the memory
// the GPU's name gives comes first.
std::string footprint_note(const NetworkValidationRow& r) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const double named = workload::named_memory_gib(r.measured.gpu) * kGiB;
  const double board = named > 0 ? named : r.device_memory_bytes;
  if (!r.simulated || board <= 0 || r.memory_bytes <= board) return "";
  return "the estimate needs " + format_number("%.1f", r.memory_bytes / kGiB) + " GiB, more than the " +
         format_number("%.1f", board / kGiB) + " GiB of the board that ran it: the workload or its footprint as modelled is not what ran";
}
}  // namespace

NetworkValidationReport validate_networks(const Accelerator& acc, const std::vector<workload::MeasuredNetworkRow>& rows,
                                          const std::filesystem::path& models_dir, int jobs) {
  NetworkValidationReport rep;
  for (const auto& m : rows) {
    NetworkValidationRow r;
    r.measured = m;
    const std::filesystem::path model = models_dir / (m.model + ".yaml");
    if (!m.skip_reason.empty()) r.skip_reason = m.skip_reason;
    else if (!workload::same_gpu(m.gpu, acc.name()))
      r.skip_reason = "measured on " + m.gpu + ", the config is " + acc.name();
    else if (m.model_yaml.empty() && !std::filesystem::exists(model))
      r.skip_reason = "no " + model.string() + " (the network is not shipped)";
    if (r.skip_reason.empty()) {
      NetworkRunOptions opt;
      opt.precision = m.precision;
      opt.training = m.training;
      opt.optimizer_step = m.optimizer_step;
      opt.bert_adam = m.bert_adam;
      opt.fp32_master = m.fp32_master;
      opt.clip_grad_norm = m.clip_grad_norm;
      opt.conv_layout = m.layout;
      opt.framework = m.framework;
      opt.fuse_batch_norm_relu = m.fuse_batch_norm_relu;
      opt.cuda_graphs = m.cuda_graphs;
      opt.kv_cache_concat = m.kv_cache_concat;
      opt.kv_cache_cropped = m.kv_cache_cropped;
      opt.per_sample_readbacks = m.per_sample_readbacks;
      opt.eval_metrics = m.eval_metrics;
      opt.jobs = jobs;
      // A length-binning loader's step is the share-weighted mean of the steps at its padded lengths;
      // the bound is that of the length whose steps take the most time in all.
      const std::vector<workload::SequenceShare> mix =
          m.seq_mix.empty() ? std::vector<workload::SequenceShare>{{m.seq, 1.0}} : m.seq_mix;
      double heaviest = -1;
      for (const auto& part : mix) {
        workload::NetworkVariables vars;
        vars.batch = m.batch;
        if (part.seq > 0) vars.seq = part.seq;
        if (m.past > 0) vars.past = m.past;
        workload::Network net;
        try {
          net = m.model_yaml.empty() ? workload::read_network(model, vars)
                                     : workload::parse_network(m.model_yaml, m.origin, vars);
        } catch (const InputError& e) {
          // The measured row asked for what the model file cannot be (a KV cache on an image network):
          // name the measurement as well as the model file.
          throw InputError(m.origin, m.label + ": " + e.what());
        }
        if (!m.optimizer.empty()) net.optimizer = m.optimizer;  // the run's own optimizer
        const NetworkEstimate e = estimate_network(acc, net, opt);
        r.predicted_s += part.share * e.step_time_s;
        r.memory_bytes = std::max(r.memory_bytes, e.footprint.total());
        r.device_memory_bytes = e.device_memory_bytes;
        for (const auto& l : e.layers) {
          r.predicted_forward_s += part.share * l.forward_s;
          r.predicted_backward_s += part.share * l.backward_s;
        }
        if (part.share * e.step_time_s <= heaviest) continue;
        heaviest = part.share * e.step_time_s;
        if (e.host_bound) r.bound = "host";
        else {
          double longest = -1;
          for (const auto& l : e.layers)
            if (l.time_s() > longest) longest = l.time_s(), r.bound = l.kind + ":" + l.bound;
        }
      }
      r.simulated = true;
    } else {
      ++rep.skipped;
    }
    r.note = m.measurement_note;
    if (const std::string p = passes_note(r); !p.empty()) r.note += (r.note.empty() ? "" : "; ") + p;
    if (const std::string f = footprint_note(r); !f.empty()) r.note += (r.note.empty() ? "" : "; ") + f;
    rep.rows.push_back(std::move(r));
  }
  // Metrics over all compared rows, then per group in first-seen order.
  std::vector<std::string> groups = {"all"};
  for (const auto& r : rep.rows)
    if (r.simulated && std::find(groups.begin(), groups.end(), r.measured.group) == groups.end())
      groups.push_back(r.measured.group);
  for (const auto& g : groups) {
    std::vector<double> meas, pred;
    for (const auto& r : rep.rows)
      if (r.simulated && (g == "all" || r.measured.group == g)) {
        meas.push_back(r.measured.measured_s);
        pred.push_back(r.predicted_s);
      }
    rep.groups.push_back({g, summarize_errors(meas, pred)});
  }
  // The passes, per group, where they were measured apart (NeuSight's training runs).
  for (std::size_t i = 1; i < groups.size(); ++i)
    for (const bool forward : {true, false}) {
      std::vector<double> meas, pred;
      for (const auto& r : rep.rows)
        if (passes(r) && r.measured.group == groups[i]) {
          meas.push_back(measured_pass_s(r, forward));
          pred.push_back(predicted_pass_s(r, forward));
        }
      if (!meas.empty()) rep.groups.push_back({groups[i] + (forward ? ": forward" : ": backward"), summarize_errors(meas, pred)});
    }
  return rep;
}

io::Table network_validation_rows_table(const NetworkValidationReport& rep) {
  std::vector<ColumnOf<NetworkValidationRow>> cols = {
      {"name", "the measured run", [](const NetworkValidationRow& r) { return Cell(r.measured.label); }},
      {"group", "metrics group", [](const NetworkValidationRow& r) { return Cell(r.measured.group); }},
      {"origin", "file or file:line", [](const NetworkValidationRow& r) { return Cell(r.measured.origin); }},
      {"model", "models/<model>.yaml", [](const NetworkValidationRow& r) { return Cell(r.measured.model); }},
      {"measured_us", "one step as measured (batch / throughput for throughputs)",
       [](const NetworkValidationRow& r) { return r.measured.measured_s > 0 ? Cell(r.measured.measured_s * 1e6) : Cell(); }},
      {"predicted_us", "one step as estimated",
       [](const NetworkValidationRow& r) { return r.simulated ? Cell(r.predicted_s * 1e6) : Cell(); }},
      {"error_pct", "(predicted - measured) / measured",
       [](const NetworkValidationRow& r) {
         return r.simulated ? Cell(error_pct(r.measured.measured_s, r.predicted_s)) : Cell();
       }},
  };
  // Each pass measured apart: measured, predicted, error.
  for (const bool forward : {true, false}) {
    const std::string pass = forward ? "forward" : "backward";
    auto measured = [forward](const NetworkValidationRow& r) { return measured_pass_s(r, forward); };
    auto predicted = [forward](const NetworkValidationRow& r) { return predicted_pass_s(r, forward); };
    cols.push_back({"measured_" + pass + "_us",
                    "the " + pass + " pass as measured apart (NeuSight's " + (forward ? "fw_latency" : "bwall_latency") + ")",
                    [=](const NetworkValidationRow& r) { return passes(r) ? Cell(measured(r) * 1e6) : Cell(); }});
    cols.push_back({"predicted_" + pass + "_us", "the " + pass + " pass's kernels back to back",
                    [=](const NetworkValidationRow& r) { return passes(r) ? Cell(predicted(r) * 1e6) : Cell(); }});
    cols.push_back({pass + "_error_pct", "",
                    [=](const NetworkValidationRow& r) { return passes(r) ? Cell(error_pct(measured(r), predicted(r))) : Cell(); }});
  }
  cols.insert(cols.end(), {
      {"memory_bytes", "the estimate's memory footprint (weights, master copy, gradients, optimizer state, saved activations, KV cache)",
       [](const NetworkValidationRow& r) { return r.simulated ? Cell(r.memory_bytes) : Cell(); }},
      {"device_memory_bytes", "the config's device memory (0: not given)",
       [](const NetworkValidationRow& r) { return r.simulated ? Cell(r.device_memory_bytes) : Cell(); }},
      {"bound", "host, or the kind and bound of the longest layer", [](const NetworkValidationRow& r) { return Cell(r.bound); }},
      {"note", "what the measurement shows of itself (a busy host's spread of steps, a timing protocol)",
       [](const NetworkValidationRow& r) { return Cell(r.note); }},
      {"skipped", "why the row was not compared", [](const NetworkValidationRow& r) { return Cell(r.skip_reason); }},
  });
  return io::table_of("rows", cols, rep.rows);
}

io::Table network_validation_metrics_table(const NetworkValidationReport& rep) {
  const std::vector<ColumnOf<NetworkGroupSummary>> cols = {
      {"group", "", [](const NetworkGroupSummary& g) { return Cell(g.group); }},
      {"rows", "compared rows", [](const NetworkGroupSummary& g) { return Cell(std::int64_t(g.errors.rows)); }},
      {"mape_pct", "", [](const NetworkGroupSummary& g) { return Cell(g.errors.mape_pct); }},
      {"median_ape_pct", "", [](const NetworkGroupSummary& g) { return Cell(g.errors.median_ape_pct); }},
      {"bias_pct", "mean signed error (> 0: predicted slower)", [](const NetworkGroupSummary& g) { return Cell(g.errors.bias_pct); }},
      {"max_ape_pct", "", [](const NetworkGroupSummary& g) { return Cell(g.errors.max_ape_pct); }},
  };
  return io::table_of("metrics", cols, rep.groups);
}

}  // namespace tcsim::engine
