#include "engine/validation/measured_h5_convert.h"

#include <charconv>
#include <cmath>

#include "io/hdf5_writer.h"
#include "workload/csv/csv_text.h"
#include "workload/measured/measured.h"
#include "workload/measured/measured_h5.h"

namespace tcsim::engine {
namespace {

// The whole text is a number (as std::from_chars reads it: no leading '+', no trailing junk).
bool parse_number(const std::string& text, double& v) {
  if (text.empty()) return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace

io::ResultSet measured_csv_as_result_set(const std::filesystem::path& csv_file) {
  const workload::CsvText csv = workload::read_csv(csv_file);
  // Validates every row (same messages as `tcsim validate`); the rows themselves are not needed.
  (void)workload::measured_from_table(csv);

  io::ResultSet r;
  for (auto& kv : workload::read_meta_yaml(csv_file.parent_path() / "meta.yaml")) r.attributes.push_back(std::move(kv));
  r.attributes.emplace_back("converted_from", csv_file.filename().string());

  io::Table t;
  t.name = workload::kMeasuredH5Group;
  std::vector<bool> numeric(csv.header.size(), true);
  for (std::size_t c = 0; c < csv.header.size(); ++c) {
    t.add_column(csv.header[c]);
    for (const auto& row : csv.rows) {
      const std::string& f = csv.field(row, static_cast<int>(c));
      double v = 0;
      if (!f.empty() && !parse_number(f, v)) numeric[c] = false;
    }
  }
  for (const auto& row : csv.rows) {
    std::vector<io::Cell> cells;
    for (std::size_t c = 0; c < csv.header.size(); ++c) {
      const std::string& f = csv.field(row, static_cast<int>(c));
      double v = 0;
      if (f.empty()) cells.emplace_back(std::monostate{});
      else if (numeric[c] && parse_number(f, v)) cells.emplace_back(v);
      else cells.emplace_back(f);
    }
    t.add_row(std::move(cells));
  }
  r.tables.push_back(std::move(t));
  return r;
}

std::size_t convert_measured_csv_to_h5(const std::filesystem::path& csv, const std::filesystem::path& h5) {
  const io::ResultSet r = measured_csv_as_result_set(csv);
  io::write_hdf5(h5, r);
  return r.tables.front().rows.size();
}

}  // namespace tcsim::engine
