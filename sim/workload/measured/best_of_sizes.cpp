#include "workload/measured/best_of_sizes.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {

namespace {

struct DtypeFormats {
  const char* name;
  FormatId a, d;
};
constexpr DtypeFormats kDtypes[] = {{"fp32", FormatId::fp32, FormatId::fp32},
                                    {"tf32", FormatId::tf32, FormatId::fp32},
                                    {"fp16", FormatId::fp16, FormatId::fp16},
                                    {"bf16", FormatId::bf16, FormatId::bf16}};

}  // namespace

// `tcsim validate` asks this of every input: only the header line is parsed.
bool is_best_of_sizes_csv(const std::string& file) {
  if (!file.ends_with(".csv")) return false;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    try {
      return parse_csv(line, file).column("best_tflops") >= 0;
    } catch (const InputError&) {
      return false;
    }
  }
  return false;
}

std::vector<BestOfSizesRow> read_best_of_sizes(const std::string& file) {
  const CsvText csv = read_csv(file);
  auto col = [&](const char* name) {
    const int c = csv.column(name);
    if (c < 0) throw InputError(location(csv.file, csv.header_line, name), "missing column (expected device, dtype, "
                                                                           "best_tflops, sizes, environment)");
    return c;
  };
  const int c_device = col("device"), c_dtype = col("dtype"), c_best = col("best_tflops"), c_sizes = col("sizes"),
            c_env = col("environment");
  std::vector<BestOfSizesRow> rows;
  for (const CsvRow& row : csv.rows) {
    BestOfSizesRow r;
    r.origin = location(csv.file, row.line);
    r.device = csv.field(row, c_device);
    if (r.device.empty()) throw InputError(location(csv.file, row.line, "device"), "expected the board's name");
    r.dtype = to_lower(csv.field(row, c_dtype));
    bool known = false;
    for (const auto& d : kDtypes)
      if (r.dtype == d.name) r.a = d.a, r.d = d.d, known = true;
    if (!known)
      throw InputError(location(csv.file, row.line, "dtype"), "expected fp32, tf32, fp16 or bf16, got '" + r.dtype + "'");
    r.best_tflops = parse_positive(csv.field(row, c_best), csv.file, row.line, "best_tflops");
    std::istringstream sizes(csv.field(row, c_sizes));
    for (std::string n; sizes >> n;) r.sizes.push_back(parse_int_in(n, 1, 65536, csv.file, row.line, "sizes"));
    if (r.sizes.empty())
      throw InputError(location(csv.file, row.line, "sizes"), "expected the N of each square product, e.g. 1024 2048 4096");
    r.environment = csv.field(row, c_env);
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw InputError(file, "no rows");
  return rows;
}

}  // namespace tcsim::workload
