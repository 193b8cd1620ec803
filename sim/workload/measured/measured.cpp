#include "workload/measured/measured.h"

#include <yaml-cpp/yaml.h>

#include "common/text/yaml_document.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"
#include "workload/measured/deepbench.h"
#include "workload/measured/neusight.h"
#include "workload/measured/vidur.h"
#include "workload/csv/op_trace.h"

namespace tcsim::workload {
namespace {

// meta.yaml's scalars with dotted keys; a key given twice (literally, or as "a.b" beside a: {b:})
// is an error naming its line.
void flatten(const YAML::Node& node, const std::string& prefix, long line, const std::string& file,
             std::vector<std::pair<std::string, std::string>>& out, std::vector<long>& lines) {
  auto add = [&](std::string value) {
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].first == prefix)
        throw InputError(location(file, line, prefix),
                         "key given twice (also on line " + std::to_string(lines[i]) + ")");
    out.emplace_back(prefix, std::move(value));
    lines.push_back(line);
  };
  if (node.IsScalar()) {
    add(node.Scalar());
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      const long key_line = kv.first.Mark().line + 1;
      if (!kv.first.IsScalar()) throw InputError(location(file, key_line, prefix), "expected a key name");
      flatten(kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(), key_line, file, out,
              lines);
    }
  } else if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const auto& item : node)
      if (item.IsScalar()) items.push_back(item.Scalar());
    add(join(items, " "));
  }
}

void read_meta(const std::filesystem::path& csv_file, MeasuredSet& out) {
  const auto meta = csv_file.parent_path() / "meta.yaml";
  for (auto& kv : read_meta_yaml(meta)) {
    for (const auto& have : out.meta)
      if (have.first == kv.first)
        throw InputError(location(meta.string(), 0, kv.first), "reserved key (tcsim sets it from the data)");
    out.meta.push_back(std::move(kv));
  }
}

bool not_measured(const std::string& t) {
  const std::string l = to_lower(trim(t));
  return l.empty() || l == "nan" || l.starts_with("n/a");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> read_meta_yaml(const std::filesystem::path& meta) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(meta, ec)) return out;
  std::vector<long> lines;
  flatten(load_yaml_file(meta.string()), "", 0, meta.string(), out, lines);
  return out;
}

MeasuredSet measured_from_table(const CsvText& csv) {
  MeasuredSet out;
  out.source = csv.file;
  out.schema = "tcsim-measured";
  const OpTraceColumns cols = OpTraceColumns::find(csv);
  const int ct = csv.column("time_us");
  if (ct < 0) throw InputError(location(csv.file, csv.header_line, "time_us"), "missing column (measured time in us)");
  long skipped = 0;
  for (const CsvRow& row : csv.rows) {
    if (row.fields.size() != csv.header.size())
      throw InputError(location(csv.file, row.line), "expected " + std::to_string(csv.header.size()) +
                                                         " fields (as the header), got " +
                                                         std::to_string(row.fields.size()));
    const std::string& t = csv.field(row, ct);
    if (not_measured(t)) {
      ++skipped;
      continue;
    }
    Kernel k = op_trace_kernel(csv, row, cols);
    const double time_s = parse_time_seconds(t, 1e-6, "us", csv.file, row.line, "time_us");
    std::string group = "gemm " + std::string(format_name(k.a_format)) + "." + std::string(format_name(k.b_format)) +
                        "." + std::string(format_name(k.d_format));
    out.rows.push_back({std::move(k), time_s, location(csv.file, row.line), std::move(group)});
  }
  out.meta.emplace_back("rows_not_measured", std::to_string(skipped));
  return out;
}

MeasuredSet read_measured_schema(const std::filesystem::path& file) {
  MeasuredSet out = measured_from_table(read_csv(file));
  read_meta(file, out);
  return out;
}

MeasuredSet read_measured(const std::filesystem::path& file) {
  const CsvText csv = read_csv(file);
  if (deepbench_section(csv.header) != DeepBenchSection::unknown) return read_deepbench(file);
  if (is_neusight_header(csv.header)) return neusight_from_table(csv);
  if (is_vidur_header(csv.header)) return vidur_from_table(csv);
  if (csv.column("time_us") >= 0 && csv.column("m") >= 0) {
    MeasuredSet out = measured_from_table(csv);
    read_meta(file, out);
    return out;
  }
  throw InputError(location(file.string(), csv.header_line),
                   "unknown measured-data format: expected tcsim's schema (op-trace columns plus time_us, "
                   "validation/measured/README.md), a DeepBench GEMM/convolution CSV, a NeuSight kernel CSV (OPName, "
                   "Latency) or a Vidur profile CSV (time_stats.<op>.median, num_tokens); whole-network files (DeepBench's "
                   "recurrent layers among them) are validated in a run of their own");
}

}  // namespace tcsim::workload
