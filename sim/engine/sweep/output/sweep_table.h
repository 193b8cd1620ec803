#pragma once
// The rows a sweep records: one per (point, workload) with the axes as columns and the chosen
// metrics (units in the names), optionally per-layer rows; and the record file that commits one
// finished (point, workload) to the output folder (sweep_runner.h).
#include <string>
#include <vector>

#include "engine/sweep/spec/sweep_points.h"
#include "engine/sweep/spec/sweep_spec.h"
#include "engine/sweep/sweep_workload.h"
#include "io/table.h"

namespace tcsim::engine::sweep {

// Every metric a sweep can record, in the default order ("name: description" lines for the docs).
std::vector<std::string> metric_names();
std::string metric_help();
// InputError (spec file:line: metrics) for a name that is not a metric.
void check_metrics(const SweepSpec& s);

// The finished work of one (point, workload): its results row and its layer rows.
struct Record {
  std::vector<io::Cell> row;
  std::vector<std::vector<io::Cell>> layers;
};

io::Table results_columns(const SweepSpec& s);  // "points": no rows
io::Table layer_columns();                      // "layers": no rows
Record make_record(const SweepSpec& s, const SweepPoint& p, std::size_t workload, const WorkloadRun& run);

// Text form of a record, exact for every cell (doubles as hex floats); decode returns false for a
// record that is damaged or has the wrong number of cells.
std::string encode_record(const Record& r, const std::string& spec_hash);
bool decode_record(const std::string& text, const std::string& spec_hash, std::size_t row_cells, Record& out);

}  // namespace tcsim::engine::sweep
