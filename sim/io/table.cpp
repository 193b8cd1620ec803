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

Table kernel_results_table(const std::vector<KernelResult>& results, std::string name) {
  Table t;
  t.name = std::move(name);
  t.add_column("name", "kernel name");
  t.add_column("cycles", "core-clock cycles of one run");
  t.add_column("time_us", "wall time of one run");
  t.add_column("tflops", "achieved TFLOP/s (useful operations / time)");
  t.add_column("bound", "what limits the kernel");
  t.add_column("mapping", "the mapping chosen");
  std::vector<std::string> metrics;
  for (const auto& r : results)
    for (const auto& [m, _] : r.metrics)
      if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  for (const auto& m : metrics) t.add_column(m);
  t.add_column("notes", "remarks of the model, '; '-separated");
  for (const auto& r : results) {
    // Cells are assigned one by one: g++ 12 warns falsely (maybe-uninitialized) on
    // brace-initialised vectors of variants holding strings.
    std::vector<Cell> row(t.columns.size());
    row[0] = r.name;
    row[1] = r.cycles;
    row[2] = r.time_s * 1e6;
    row[3] = r.tflops();
    row[4] = r.bound;
    row[5] = r.mapping;
    for (std::size_t i = 0; i < metrics.size(); ++i)
      if (auto v = r.get(metrics[i])) row[6 + i] = *v;
    std::string notes;
    for (const auto& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
    row.back() = notes;
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace tcsim::io
