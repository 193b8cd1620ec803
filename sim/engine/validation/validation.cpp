#include "engine/validation/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/text/strings.h"
#include "engine/kernel_runner.h"
#include "workload/csv/csv_text.h"

namespace tcsim::engine {
namespace {

GroupSummary summarize_group(const std::string& name, const std::vector<const ValidationRow*>& rows) {
  std::vector<double> m, p;
  for (const auto* r : rows) {
    m.push_back(r->measured.time_s);
    p.push_back(r->predicted_s());
  }
  GroupSummary g;
  g.group = name;
  g.errors = summarize_errors(m, p);
  if (!rows.empty()) {
    g.worst_name = rows[g.errors.worst_row]->measured.kernel.name;
    g.worst_origin = rows[g.errors.worst_row]->measured.origin;
  }
  return g;
}

io::Cell num_or_empty(double v) { return std::isfinite(v) ? io::Cell(v) : io::Cell(); }

}  // namespace

ValidationReport validate(const Accelerator& acc, const std::vector<workload::MeasuredRow>& rows, int jobs,
                          double min_measured_s) {
  std::vector<Kernel> kernels;
  std::vector<std::size_t> simulated_index(rows.size(), rows.size());  // rows.size() = below the minimum
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!(rows[i].time_s < min_measured_s)) {
      simulated_index[i] = kernels.size();
      kernels.push_back(rows[i].kernel);
    }
  std::vector<KernelOutcome> ran = run_kernels_collect(acc, kernels, jobs);
  std::vector<KernelOutcome> outcomes(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (simulated_index[i] < kernels.size()) {
      outcomes[i] = std::move(ran[simulated_index[i]]);
    } else {
      outcomes[i].ok = false;
      char buf[160];
      std::snprintf(buf, sizeof buf, "measured %.3g us, below --min-measured-us %.3g", rows[i].time_s * 1e6,
                    min_measured_s * 1e6);
      outcomes[i].error = buf;
    }
  }

  ValidationReport report;
  report.rows.resize(rows.size());
  std::vector<std::string> group_names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ValidationRow& v = report.rows[i];
    v.measured = rows[i];
    v.simulated = outcomes[i].ok;
    if (v.simulated) {
      v.result = std::move(outcomes[i].result);
      if (const std::int64_t runs = v.measured.kernel.count; runs > 1) {
        // One measured time summing `runs` launches of the kernel (Kernel::count; Vidur's phi-2 add).
        v.result.time_s *= double(runs);
        v.result.flops *= double(runs);
        v.result.set("launches", double(runs) * v.result.get("launches").value_or(1));
        v.result.notes.push_back(std::to_string(runs) + " runs of the kernel, summed as measured");
      }
      if (const double gap = acc.queue_gap_s();
          gap > 0 && v.measured.host_calls == 0 && !v.measured.kernel.profiled) {
        // A loop's time per call (launches queued back to back in a stream: DeepBench, the CUDA
        // validation harness's event-timed groups, torch.mm loops) holds the stream's gap before
        // each launch (kernel.queue_gap), which a profiler's kernel durations leave out.
        const double launches = std::max(1.0, v.result.get("launches").value_or(1));
        v.result.time_s += launches * gap;
        v.result.set("queue_gap_us", launches * gap * 1e6);
      }
      if (v.measured.host_calls > 0 && acc.host_overhead_s() > 0) {
        // Timed around one framework call on an idle GPU: the kernel starts once the host has
        // launched it (its launch delay, plus the extra Python work of a heavier call path, which
        // comes before the launch), and the end is recorded no earlier than the host returns.
        const double host = acc.host_overhead_s() * v.measured.host_calls;
        const double start = acc.host_launch_delay_s() + (host - acc.host_overhead_s());
        const double kernel_s = v.result.time_s;
        v.result.time_s = std::max(host, start + kernel_s);
        v.result.set("kernel_us", kernel_s * 1e6);
        v.result.set("host_us", host * 1e6);
        if (host >= start + kernel_s) v.result.bound = "host";
      }
      if (const double r = v.measured.truncated_to_s; r > 0) {
        // Compared as the profiler reports it: each kernel's duration cut to whole units of r
        // (MeasuredRow::truncated_to_s), r / 2 less per launch in expectation; a kernel shorter
        // than r keeps half its time (continuous at r, never zero: the profiler drops zeros).
        const double launches = std::max(1.0, v.result.get("launches").value_or(1));
        const double untruncated = v.result.time_s, each = untruncated / launches;
        v.result.time_s = launches * (each >= r ? each - 0.5 * r : 0.5 * each);
        v.result.set("untruncated_us", untruncated * 1e6);
        char buf[200];
        std::snprintf(buf, sizeof buf, "%.4g us as the profiler reports it (the model's %.4g us; durations truncated to %.3g us, %g kernel%s)",
                      v.result.time_s * 1e6, untruncated * 1e6, r * 1e6, launches, launches == 1 ? "" : "s");
        v.result.notes.push_back(buf);
      }
      if (!(v.result.time_s > 0) || !std::isfinite(v.result.time_s)) {
        v.simulated = false;
        v.skip_reason = "the model gave no positive time";
      }
    } else {
      v.skip_reason = outcomes[i].error;
    }
    if (!v.simulated) ++report.skipped;
    bool known = false;
    for (const auto& g : group_names) known = known || g == v.measured.group;
    if (!known) group_names.push_back(v.measured.group);
  }
  std::vector<const ValidationRow*> all;
  for (const auto& r : report.rows)
    if (r.simulated) all.push_back(&r);
  report.groups.push_back(summarize_group("all", all));
  if (group_names.size() > 1)
    for (const auto& name : group_names) {
      std::vector<const ValidationRow*> sel;
      for (const auto* r : all)
        if (r->measured.group == name) sel.push_back(r);
      report.groups.push_back(summarize_group(name, sel));
    }
  return report;
}

io::Table validation_rows_table(const ValidationReport& report) {
  // Cells of the prediction are empty when the row was not simulated.
  auto predicted = [](auto value) {
    return [value](const ValidationRow& r) { return r.simulated ? io::Cell(value(r)) : io::Cell(); };
  };
  auto gemm = [](auto field) {
    return [field](const ValidationRow& r) { return io::Cell(field(gemm_view(r.measured.kernel))); };
  };
  using Col = io::ColumnOf<ValidationRow>;
  const std::vector<Col> cols = {
      {"name", "kernel name", [](const ValidationRow& r) { return io::Cell(r.measured.kernel.name); }},
      {"group", "rows summarised together", [](const ValidationRow& r) { return io::Cell(r.measured.group); }},
      {"m", "GEMM M (a conv: its implicit GEMM)", gemm([](const Kernel& g) { return g.m; })},
      {"n", "GEMM N", gemm([](const Kernel& g) { return g.n; })},
      {"k", "GEMM K", gemm([](const Kernel& g) { return g.k; })},
      {"batch", "batched GEMMs", gemm([](const Kernel& g) { return g.batch; })},
      {"layout", "operand layout (tcsim letters, row-major)",
       gemm([](const Kernel& g) { return std::string(workload::layout_name(g.layout)); })},
      {"measured_us", "measured time of the row: one run of its kernel (the sum where the kernel has a count)", [](const ValidationRow& r) { return io::Cell(r.measured.time_s * 1e6); }},
      {"measured_tflops", "useful flops / measured time",
       [](const ValidationRow& r) {
         return io::Cell(r.measured.kernel.flops() * double(r.measured.kernel.count) / r.measured.time_s / 1e12);
       }},
      {"predicted_us", "simulated time of the row, as measured_us", predicted([](const ValidationRow& r) { return r.predicted_s() * 1e6; })},
      {"error_pct", "(predicted - measured) / measured",
       predicted([](const ValidationRow& r) { return error_pct(r.measured.time_s, r.predicted_s()); })},
      {"predicted_tflops", "useful flops / simulated time",
       predicted([](const ValidationRow& r) {
         return r.measured.kernel.flops() * double(r.measured.kernel.count) / r.predicted_s() / 1e12;
       })},
      {"bound", "what limits the simulated kernel", predicted([](const ValidationRow& r) { return r.result.bound; })},
      {"mapping", "the mapping the model chose", predicted([](const ValidationRow& r) { return r.result.mapping; })},
      {"clock_mhz", "SM clock of the simulated kernel (below boost when the power limit binds; empty: no clock model)",
       [](const ValidationRow& r) {
         const auto c = r.result.get("clock_mhz");
         return r.simulated && c ? io::Cell(*c) : io::Cell();
       }},
      {"origin", "file:line of the measured row", [](const ValidationRow& r) { return io::Cell(r.measured.origin); }},
      {"skipped", "why the row was not simulated (empty when it was)",
       [](const ValidationRow& r) { return r.simulated ? io::Cell() : io::Cell(r.skip_reason); }},
      // As in `tcsim run`'s tables: e.g. a convolution's "benchmark mode, fastest of: ..." lists every
      // algorithm the model timed with its kernel time, what scripts/conv_family_bias.py reads.
      {"notes", "the model's notes (\"; \" between them)", predicted([](const ValidationRow& r) { return join(r.result.notes, "; "); })},
  };
  return io::table_of("rows", cols, report.rows);
}

io::Table validation_metrics_table(const ValidationReport& report) {
  auto number = [](double ErrorSummary::*field) {
    return [field](const GroupSummary& g) { return num_or_empty(g.errors.*field); };
  };
  using Col = io::ColumnOf<GroupSummary>;
  const std::vector<Col> cols = {
      {"group", "'all' or one group of rows", [](const GroupSummary& g) { return io::Cell(g.group); }},
      {"rows", "rows compared", [](const GroupSummary& g) { return io::Cell(static_cast<std::int64_t>(g.errors.rows)); }},
      {"mape_pct", "mean absolute percentage error", number(&ErrorSummary::mape_pct)},
      {"median_ape_pct", "median absolute percentage error", number(&ErrorSummary::median_ape_pct)},
      {"bias_pct", "mean signed error (> 0: predictions too slow)", number(&ErrorSummary::bias_pct)},
      {"max_ape_pct", "the worst row's absolute error", number(&ErrorSummary::max_ape_pct)},
      {"worst_name", "the worst row", [](const GroupSummary& g) { return io::Cell(g.worst_name); }},
      {"worst_origin", "file:line of the worst row", [](const GroupSummary& g) { return io::Cell(g.worst_origin); }},
      {"pearson", "correlation of predicted and measured times", number(&ErrorSummary::pearson)},
      {"pearson_log", "correlation of their logarithms", number(&ErrorSummary::pearson_log)},
  };
  return io::table_of("metrics", cols, report.groups);
}

}  // namespace tcsim::engine
