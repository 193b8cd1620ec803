#pragma once
// Tabular results, independent of the output format: a Table has named columns (the unit is in
// the name: time_us, dram_read_bytes, tensor_util_pct) and rows of cells; a ResultSet is the
// tables of one run plus string attributes (versions, command line, resolved config).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>


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

// A table declared column by column: each column's name, description and the cell it takes from
// one record sit together, so they cannot drift apart. An empty Cell() is an empty cell.
template <class Record>
struct ColumnOf {
  std::string name;
  std::string description;
  std::function<Cell(const Record&)> cell;
};

template <class Record>
Table table_of(std::string name, const std::vector<ColumnOf<Record>>& columns, const std::vector<Record>& records) {
  Table t;
  t.name = std::move(name);
  for (const auto& c : columns) t.add_column(c.name, c.description);
  for (const auto& r : records) {
    std::vector<Cell> row(columns.size());  // assigned one by one (g++ 12 false -Wmaybe-uninitialized)
    for (std::size_t i = 0; i < columns.size(); ++i) row[i] = columns[i].cell(r);
    t.add_row(std::move(row));
  }
  return t;
}

// The named columns of `full`, in the order of `names`; names `full` lacks are skipped.
Table select_columns(const Table& full, const std::vector<std::string>& names);
// The columns of `full` whose name `keep` accepts, in table order.
Table select_columns_if(const Table& full, const std::function<bool(const std::string&)>& keep);

}  // namespace tcsim::io
