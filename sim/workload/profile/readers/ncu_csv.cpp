#include "workload/profile/readers/ncu_csv.h"

#include <cmath>
#include <fstream>
#include <map>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {
namespace {

// ncu's header line, after any "==PROF==" lines it printed first.
std::string_view from_header(std::string_view text, long& skipped_lines) {
  skipped_lines = 0;
  while (!text.empty() && text.substr(0, 2) == "==") {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return {};
    text.remove_prefix(nl + 1);
    ++skipped_lines;
  }
  return text;
}

// A value as ncu writes it ("1,234.5", "n/a"): the number, or NaN.
double number_of(const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != ',') t += c;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  return end == t.c_str() || *end || !std::isfinite(v) ? NAN : v;
}

double us_per(const std::string& unit, const std::string& where) {
  const std::string u = to_lower(trim(unit));
  if (u == "nsecond" || u == "ns") return 1e-3;
  if (u == "usecond" || u == "us") return 1;
  if (u == "msecond" || u == "ms") return 1e3;
  if (u == "second" || u == "s") return 1e6;
  throw InputError(where, "unknown time unit '" + unit + "' (expected nsecond, usecond, msecond or second)");
}

std::array<std::int64_t, 3> triple(const std::string& text) {  // "(256, 1, 1)"
  std::array<std::int64_t, 3> out{0, 0, 0};
  std::string t;
  for (char c : text)
    if (c != '(' && c != ')') t += c;
  const auto parts = split(t, ',');
  for (std::size_t i = 0; i < 3 && i < parts.size(); ++i) {
    const double v = number_of(std::string(trim(parts[i])));
    out[i] = v >= 0 && v < 1e12 ? std::int64_t(v) : 0;  // unreadable: 0 (grid and block are only reported)
  }
  return out;
}

// Metric names of the two pages -> ours.
const std::map<std::string, std::string>& raw_metrics() {
  static const std::map<std::string, std::string> m = {
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct"},
      {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct"},
      {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pipe_pct"},
      {"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", "tensor_pipe_pct"}};
  return m;
}
const std::map<std::string, std::string>& details_metrics() {
  static const std::map<std::string, std::string> m = {{"Compute (SM) Throughput", "sm_throughput_pct"},
                                                       {"DRAM Throughput", "dram_throughput_pct"}};
  return m;
}

ProfiledKernel kernel_of(const CsvText& csv, const CsvRow& row, int c_name, int c_grid, int c_block) {
  ProfiledKernel k;
  k.name = csv.field(row, c_name);
  if (k.name.empty()) throw InputError(location(csv.file, row.line, "Kernel Name"), "empty");
  if (c_grid >= 0) k.grid = triple(csv.field(row, c_grid));
  if (c_block >= 0) k.block = triple(csv.field(row, c_block));
  k.origin = location(csv.file, row.line);
  return k;
}

}  // namespace

bool is_ncu_csv_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string head(8192, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  long skipped = 0;
  const std::string_view h = from_header(head, skipped);
  const std::string_view line = h.substr(0, h.find('\n'));
  // ncu's pages start with an "ID" column ("ID","Process ID",... on the raw and details pages) and
  // name the kernel; other CSVs with a "Kernel Name" column (NeuSight's kernel tables) are not ncu's.
  auto has = [&](std::string_view column) {
    const std::string quoted = "\"" + std::string(column) + "\"";
    return line.find(quoted) != std::string_view::npos || line.find(std::string(column) + ",") != std::string_view::npos;
  };
  const bool starts_with_id = line.rfind("\"ID\",", 0) == 0 || line.rfind("ID,", 0) == 0;
  return has("Kernel Name") && (starts_with_id || has("Process ID"));
}

Profile parse_ncu_csv(std::string_view text, const std::string& file_name) {
  long skipped = 0;
  const std::string_view body = from_header(text, skipped);
  CsvText csv = parse_csv(body, file_name);
  csv.header_line += skipped;
  for (auto& r : csv.rows) r.line += skipped;
  const int c_name = csv.column("Kernel Name");
  if (c_name < 0) throw InputError(location(file_name, csv.header_line), "not an Nsight Compute CSV (no \"Kernel Name\" column)");
  const int c_id = csv.column("ID"), c_grid = csv.column("Grid Size"), c_block = csv.column("Block Size");
  Profile p;
  p.source = file_name;
  double clock_us = 0;
  auto place = [&](ProfiledKernel& k) {
    k.start_us = clock_us;  // ncu serialises kernels and records no timestamps: back to back
    clock_us += k.dur_us;
  };

  if (const int c_metric = csv.column("Metric Name"); c_metric >= 0) {
    p.format = "ncu-details";
    const int c_unit = csv.column("Metric Unit"), c_value = csv.column("Metric Value");
    if (c_unit < 0 || c_value < 0)
      throw InputError(location(file_name, csv.header_line), "ncu details page without \"Metric Unit\" and \"Metric Value\" columns");
    std::map<std::string, std::size_t> by_id;  // ID (or row) -> kernel
    for (const CsvRow& row : csv.rows) {
      const std::string id = c_id >= 0 ? csv.field(row, c_id) : std::to_string(row.line);
      auto [it, fresh] = by_id.emplace(id, p.kernels.size());
      if (fresh) {
        p.kernels.push_back(kernel_of(csv, row, c_name, c_grid, c_block));
        p.kernels.back().dur_us = -1;
      }
      ProfiledKernel& k = p.kernels[it->second];
      const std::string metric(trim(csv.field(row, c_metric)));
      const double v = number_of(csv.field(row, c_value));
      if (metric == "Duration") {
        if (!(v >= 0)) throw InputError(location(file_name, row.line, "Metric Value"), "expected a duration");
        k.dur_us = v * us_per(csv.field(row, c_unit), location(file_name, row.line, "Metric Unit"));
      } else if (auto m = details_metrics().find(metric); m != details_metrics().end() && std::isfinite(v)) {
        k.metrics.emplace_back(m->second, v);
      }
    }
    for (const ProfiledKernel& k : p.kernels)
      if (k.dur_us < 0)
        throw InputError(k.origin, "kernel '" + k.name + "' has no Duration metric (export with --section SpeedOfLight, or --page raw)");
  } else {
    p.format = "ncu-raw";
    const int c_dur = csv.column("gpu__time_duration.sum");
    if (c_dur < 0)
      throw InputError(location(file_name, csv.header_line),
                       "no per-kernel duration: expected an ncu --page raw export (column gpu__time_duration.sum) or "
                       "--page details (\"Metric Name\" rows); is this another ncu page?");
    // The line after the header holds the units ("nsecond", "%").
    if (csv.rows.empty()) throw InputError(location(file_name, csv.header_line), "no kernels");
    const CsvRow& units = csv.rows.front();
    const double scale = us_per(csv.field(units, c_dur), location(file_name, units.line, "gpu__time_duration.sum"));
    std::vector<std::pair<int, std::string>> metric_cols;
    for (const auto& [name, ours] : raw_metrics())
      if (const int c = csv.column(name); c >= 0) metric_cols.emplace_back(c, ours);
    for (std::size_t i = 1; i < csv.rows.size(); ++i) {
      const CsvRow& row = csv.rows[i];
      ProfiledKernel k = kernel_of(csv, row, c_name, c_grid, c_block);
      const double d = number_of(csv.field(row, c_dur));
      if (!(d >= 0)) throw InputError(location(file_name, row.line, "gpu__time_duration.sum"), "expected a duration, got '" + csv.field(row, c_dur) + "'");
      k.dur_us = d * scale;
      for (const auto& [c, ours] : metric_cols)
        if (const double v = number_of(csv.field(row, c)); std::isfinite(v)) k.metrics.emplace_back(ours, v);
      p.kernels.push_back(std::move(k));
    }
  }
  if (p.kernels.empty()) throw InputError(location(file_name, csv.header_line), "no kernels");
  for (ProfiledKernel& k : p.kernels) place(k);
  return p;
}

Profile read_ncu_csv(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  return parse_ncu_csv(read_file(file), file.string());
}

}  // namespace tcsim::workload
