#pragma once
// Whole-network validation (`tcsim validate` on NeuSight model files or NVIDIA's throughput CSV):
// each measured row is estimated with its models/<model>.yaml, batch, sequence, precision and pass,
// and compared step time to step time. Rows measured on another GPU than the config's, rows with
// no shipped model and rows that are not comparable as published are kept as skipped, with why.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/validation/validation_metrics.h"
#include "io/table.h"
#include "workload/accelerator.h"
#include "workload/network/measured_networks.h"

namespace tcsim::engine {

struct NetworkValidationRow {
  workload::MeasuredNetworkRow measured;
  bool simulated = false;
  double predicted_s = 0;
  // The kernels of each pass back to back (no host gaps), for rows that measured the passes.
  double predicted_forward_s = 0, predicted_backward_s = 0;
  // The estimate's memory footprint (the largest over a length mix) and the config's device memory
  // (0: not given). A measured run whose footprint exceeds its board's memory ran another workload.
  double memory_bytes = 0, device_memory_bytes = 0;
  std::string bound;         // "host" when the step is host-bound, else the longest layer's bound
  std::string skip_reason;
  std::string note;          // the measurement's own note, and what comparing the passes shows
};

struct NetworkGroupSummary {
  std::string group;         // "all" first; "<group>: forward" / ": backward" for passes measured apart
  ErrorSummary errors;
};

struct NetworkValidationReport {
  std::vector<NetworkValidationRow> rows;
  std::vector<NetworkGroupSummary> groups;
  std::size_t skipped = 0;
};

NetworkValidationReport validate_networks(const Accelerator& acc, const std::vector<workload::MeasuredNetworkRow>& rows,
                                          const std::filesystem::path& models_dir, int jobs);

io::Table network_validation_rows_table(const NetworkValidationReport& r);     // "rows"
io::Table network_validation_metrics_table(const NetworkValidationReport& r);  // "metrics"

}  // namespace tcsim::engine
