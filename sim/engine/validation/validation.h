#pragma once
// Simulates measured rows and compares (`tcsim validate`): every MeasuredRow's kernel is run on
// the accelerator; rows the model rejects are kept as "skipped" with its reason and left out of
// the metrics. Metrics are given over all compared rows and per group ("gemm fp16", ...). Rows
// timed around a framework call (MeasuredRow::host_calls = c > 0; h = host_overhead_s, d =
// host_launch_delay_s) are predicted as max(c h, d + (c - 1) h + kernel time): the host
// dispatches, launches and returns while the GPU runs the kernel.
#include <string>
#include <vector>

#include "engine/validation/validation_metrics.h"
#include "io/table.h"
#include "workload/accelerator.h"
#include "workload/measured/measured.h"

namespace tcsim::engine {

struct ValidationRow {
  workload::MeasuredRow measured;
  bool simulated = false;
  KernelResult result;       // when simulated
  std::string skip_reason;   // when not
  double predicted_s() const { return result.time_s; }
};

struct GroupSummary {
  std::string group;         // "all" for the whole set
  ErrorSummary errors;
  std::string worst_name;    // the worst row's kernel name and origin
  std::string worst_origin;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;     // in input order
  std::vector<GroupSummary> groups;    // "all" first, then each group in first-seen order
  std::size_t skipped = 0;
  const GroupSummary& overall() const { return groups.front(); }
};

// Rows measured faster than `min_measured_s` are not simulated and are left out of the metrics
// (skip reason says so): timings taken around a framework call (PyTorch, host clocks) carry tens
// of microseconds of dispatch and launch overhead that no kernel model should be asked to predict.
ValidationReport validate(const Accelerator& acc, const std::vector<workload::MeasuredRow>& rows, int jobs,
                          double min_measured_s = 0);

// Tables for output: "rows" (one per measured row: name, group, origin, shape, measured_us,
// predicted_us, error_pct, bound, mapping, skipped reason) and "metrics" (one per group).
io::Table validation_rows_table(const ValidationReport& report);
io::Table validation_metrics_table(const ValidationReport& report);

}  // namespace tcsim::engine
