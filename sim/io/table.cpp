#include "io/table.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tcsim::io {

void Table::add_column(std::string column_name, std::string description) {
  if (!rows.empty()) throw std::logic_error("table '" + name + "': add_column after rows were added");
  columns.push_back({std::move(column_name), std::move(description)});
}

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns.size())
    throw std::invalid_argument("table '" + name + "': a row has " + std::to_string(row.size()) + " cells for " +
                                std::to_string(columns.size()) + " columns");
  rows.push_back(std::move(row));
}

std::string unit_of_column(std::string_view column_name) {
  std::string n(column_name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Whole names first, then suffixes, longest first where one suffix ends another.
  static const std::array<std::pair<std::string_view, std::string_view>, 5> whole = {{
      {"cycles", "cycles"}, {"tflops", "TFLOP/s"}, {"gflops", "GFLOP/s"}, {"flops", "FLOP"}, {"bytes", "bytes"}}};
  for (const auto& [w, u] : whole)
    if (n == w) return std::string(u);
  static const std::array<std::pair<std::string_view, std::string_view>, 30> suffixes = {{
      {"_bytes_per_s", "B/s"}, {"_bytes_per_cycle", "B/clk"}, {"_bytes_per_clk", "B/clk"},
      {"_per_s", "1/s"}, {"_per_clk", "1/clk"}, {"_per_cycle", "1/clk"},
      {"_us", "us"}, {"_ns", "ns"}, {"_ms", "ms"}, {"_ps", "ps"}, {"_s", "s"},
      {"_bytes", "bytes"}, {"_kib", "KiB"}, {"_mib", "MiB"}, {"_gib", "GiB"},
      {"_gbps", "GB/s"}, {"_tbps", "TB/s"},
      {"_pct", "%"}, {"_frac", "1"}, {"_ratio", "1"},
      {"_cycles", "cycles"}, {"_hz", "Hz"}, {"_mhz", "MHz"}, {"_ghz", "GHz"},
      {"_tflops", "TFLOP/s"}, {"_gflops", "GFLOP/s"}, {"_flops", "FLOP"}, {"_tops", "TOP/s"},
      {"_w", "W"}, {"_j", "J"}}};
  for (const auto& [s, u] : suffixes)
    if (n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0) return std::string(u);
  return "";
}

namespace {

Table with_columns(const Table& full, const std::vector<std::size_t>& idx) {
  Table t;
  t.name = full.name;
  for (auto i : idx) t.columns.push_back(full.columns[i]);
  for (const auto& row : full.rows) {
    std::vector<Cell> r(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i) r[i] = row[idx[i]];
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace

Table select_columns(const Table& full, const std::vector<std::string>& names) {
  std::vector<std::size_t> idx;
  for (const auto& n : names)
    for (std::size_t c = 0; c < full.columns.size(); ++c)
      if (full.columns[c].name == n) idx.push_back(c);
  return with_columns(full, idx);
}

Table select_columns_if(const Table& full, const std::function<bool(const std::string&)>& keep) {
  std::vector<std::size_t> idx;
  for (std::size_t c = 0; c < full.columns.size(); ++c)
    if (keep(full.columns[c].name)) idx.push_back(c);
  return with_columns(full, idx);
}

}  // namespace tcsim::io
