#include "engine/validation.h"

#include <cmath>
#include <limits>

#include "engine/kernel_runner.h"
#include "workload/csv_text.h"

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

ValidationReport validate(const Accelerator& acc, const std::vector<workload::MeasuredRow>& rows, int jobs) {
  std::vector<Kernel> kernels;
  kernels.reserve(rows.size());
  for (const auto& r : rows) kernels.push_back(r.kernel);
  std::vector<KernelOutcome> outcomes = run_kernels_collect(acc, kernels, jobs);

  ValidationReport report;
  report.rows.resize(rows.size());
  std::vector<std::string> group_names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ValidationRow& v = report.rows[i];
    v.measured = rows[i];
    v.simulated = outcomes[i].ok;
    if (v.simulated) {
      v.result = std::move(outcomes[i].result);
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
  io::Table t;
  t.name = "rows";
  t.add_column("name", "kernel name");
  t.add_column("group", "rows summarised together");
  t.add_column("m", "GEMM M (a conv: its implicit GEMM)");
  t.add_column("n", "GEMM N");
  t.add_column("k", "GEMM K");
  t.add_column("batch", "batched GEMMs");
  t.add_column("layout", "operand layout (tcsim letters, row-major)");
  t.add_column("measured_us", "measured time of one run");
  t.add_column("measured_tflops", "useful flops / measured time");
  t.add_column("predicted_us", "simulated time of one run");
  t.add_column("error_pct", "(predicted - measured) / measured");
  t.add_column("predicted_tflops", "useful flops / simulated time");
  t.add_column("bound", "what limits the simulated kernel");
  t.add_column("mapping", "the mapping the model chose");
  t.add_column("origin", "file:line of the measured row");
  t.add_column("skipped", "why the row was not simulated (empty when it was)");
  for (const auto& r : report.rows) {
    const Kernel g = gemm_view(r.measured.kernel);
    const double flops = r.measured.kernel.flops();
    const double meas_us = r.measured.time_s * 1e6;
    std::vector<io::Cell> row(t.columns.size());  // assigned one by one (g++ 12 false -Wmaybe-uninitialized)
    std::size_t c = 0;
    row[c++] = r.measured.kernel.name;
    row[c++] = r.measured.group;
    row[c++] = g.m;
    row[c++] = g.n;
    row[c++] = g.k;
    row[c++] = g.batch;
    row[c++] = std::string(workload::layout_name(g.layout));
    row[c++] = meas_us;
    row[c++] = flops / r.measured.time_s / 1e12;
    if (r.simulated) {
      row[c++] = r.predicted_s() * 1e6;
      row[c++] = error_pct(r.measured.time_s, r.predicted_s());
      row[c++] = flops / r.predicted_s() / 1e12;
      row[c++] = r.result.bound;
      row[c++] = r.result.mapping;
    } else {
      c += 5;
    }
    row[c++] = r.measured.origin;
    if (r.simulated) c++;
    else row[c++] = r.skip_reason;
    t.add_row(std::move(row));
  }
  return t;
}

io::Table validation_metrics_table(const ValidationReport& report) {
  io::Table t;
  t.name = "metrics";
  t.add_column("group", "'all' or one group of rows");
  t.add_column("rows", "rows compared");
  t.add_column("mape_pct", "mean absolute percentage error");
  t.add_column("median_ape_pct", "median absolute percentage error");
  t.add_column("bias_pct", "mean signed error (> 0: predictions too slow)");
  t.add_column("max_ape_pct", "the worst row's absolute error");
  t.add_column("worst_name", "the worst row");
  t.add_column("worst_origin", "file:line of the worst row");
  t.add_column("pearson", "correlation of predicted and measured times");
  t.add_column("pearson_log", "correlation of their logarithms");
  for (const auto& g : report.groups) {
    const ErrorSummary& e = g.errors;
    std::vector<io::Cell> row(t.columns.size());  // assigned one by one (g++ 12 false -Wmaybe-uninitialized)
    std::size_t c = 0;
    row[c++] = g.group;
    row[c++] = static_cast<std::int64_t>(e.rows);
    row[c++] = num_or_empty(e.mape_pct);
    row[c++] = num_or_empty(e.median_ape_pct);
    row[c++] = num_or_empty(e.bias_pct);
    row[c++] = num_or_empty(e.max_ape_pct);
    row[c++] = g.worst_name;
    row[c++] = g.worst_origin;
    row[c++] = num_or_empty(e.pearson);
    row[c++] = num_or_empty(e.pearson_log);
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace tcsim::engine
