#pragma once
// Tabular results, independent of the output format: a Table has named columns (the unit is in
// the name: time_us, dram_read_bytes, tensor_util_pct) and rows of cells; a ResultSet is the
// tables of one run plus string attributes (versions, command line, resolved config).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "workload/kernel_result.h"

namespace tcsim::io {

using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;  // monostate = empty

struct Column {
  std::string name;          // unit in the name: time_us
  std::string description;
};

struct Table {
  std::string name;                       // "layers", "points", "kernels"
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  void add_column(std::string name, std::string description = "");
  void add_row(std::vector<Cell> row);    // must have columns.size() cells (std::invalid_argument)
};

struct ResultSet {
  std::vector<std::pair<std::string, std::string>> attributes;  // schema_version, tcsim_version,
                                            // command_line, config_yaml, ... (strings)
  std::vector<Table> tables;                // tables[0] is the summary
};

// The unit of a column from its name's suffix: "time_us" -> "us", "dram_read_bytes" -> "bytes",
// "tensor_util_pct" -> "%", "cycles" -> "cycles", "tflops" -> "TFLOP/s"; "" when none is known.
std::string unit_of_column(std::string_view column_name);

// A Table from KernelResults: name, cycles, time_us, tflops, bound, mapping, then the union of the
// metrics (in first-seen order; empty cells where a kernel lacks one), then notes ("; "-joined).
Table kernel_results_table(const std::vector<KernelResult>& results, std::string name = "kernels");

}  // namespace tcsim::io
