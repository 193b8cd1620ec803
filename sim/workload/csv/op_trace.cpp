#include "workload/csv/op_trace.h"

#include <cstdio>

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {

const std::vector<std::string>& op_trace_columns() {
  static const std::vector<std::string> cols = {"name",     "m",        "n",      "k",    "batch", "a_format",
                                                "b_format", "c_format", "d_format", "layout", "count"};
  return cols;
}

const std::vector<std::string>& op_trace_optional_columns() {
  static const std::vector<std::string> cols = {"sparsity", "warm_l2"};
  return cols;
}

namespace {

std::vector<Kernel> kernels_from(const CsvText& csv, std::vector<std::string>* origins) {
  const auto& cols = op_trace_columns();
  for (std::size_t i = 0; i < csv.header.size(); ++i) {
    bool known = false;
    for (const auto& c : cols) known = known || to_lower(csv.header[i]) == c;
    for (const auto& c : op_trace_optional_columns()) known = known || to_lower(csv.header[i]) == c;
    if (!known)
      throw InputError(location(csv.file, csv.header_line, csv.header[i]),
                       "unknown column; expected the op-trace columns " + join(cols, ",") + " (optional: " +
                           join(op_trace_optional_columns(), ",") + ")");
  }
  const OpTraceColumns c = OpTraceColumns::find(csv);
  std::vector<Kernel> out;
  out.reserve(csv.rows.size());
  for (const CsvRow& row : csv.rows) {
    if (row.fields.size() != csv.header.size())
      throw InputError(location(csv.file, row.line), "expected " + std::to_string(csv.header.size()) +
                                                         " fields (as the header), got " +
                                                         std::to_string(row.fields.size()));
    out.push_back(op_trace_kernel(csv, row, c));
    if (origins) origins->push_back(location(csv.file, row.line));
  }
  return out;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n#") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

OpTraceColumns OpTraceColumns::find(const CsvText& csv) {
  for (const char* required : {"m", "n", "k"})
    if (csv.column(required) < 0)
      throw InputError(location(csv.file, csv.header_line, required),
                       "missing column; an op trace needs at least m, n and k (columns: " +
                           join(op_trace_columns(), ",") + ")");
  OpTraceColumns c;
  c.name = csv.column("name");
  c.m = csv.column("m");
  c.n = csv.column("n");
  c.k = csv.column("k");
  c.batch = csv.column("batch");
  c.a_format = csv.column("a_format");
  c.b_format = csv.column("b_format");
  c.c_format = csv.column("c_format");
  c.d_format = csv.column("d_format");
  c.layout = csv.column("layout");
  c.count = csv.column("count");
  c.sparsity = csv.column("sparsity");
  c.warm_l2 = csv.column("warm_l2");
  return c;
}

Kernel op_trace_kernel(const CsvText& csv, const CsvRow& row, const OpTraceColumns& c) {
  const std::string& f = csv.file;
  const long ln = row.line;
  Kernel k;
  k.kind = Kernel::Kind::gemm;
  k.name = c.name >= 0 ? csv.field(row, c.name) : "";
  if (k.name.empty()) k.name = "row" + std::to_string(ln);
  k.m = parse_dimension(csv.field(row, c.m), f, ln, "m");
  k.n = parse_dimension(csv.field(row, c.n), f, ln, "n");
  k.k = parse_dimension(csv.field(row, c.k), f, ln, "k");
  auto opt = [&](int col) -> const std::string* {
    if (col < 0) return nullptr;
    const std::string& s = csv.field(row, col);
    return s.empty() ? nullptr : &s;
  };
  if (auto* s = opt(c.batch)) k.batch = parse_dimension(*s, f, ln, "batch");
  if (auto* s = opt(c.a_format)) k.a_format = parse_format_field(*s, f, ln, "a_format");
  if (auto* s = opt(c.b_format)) k.b_format = parse_format_field(*s, f, ln, "b_format");
  if (auto* s = opt(c.c_format)) k.c_format = k.d_format = parse_format_field(*s, f, ln, "c_format");
  if (auto* s = opt(c.d_format)) k.d_format = parse_format_field(*s, f, ln, "d_format");
  if (auto* s = opt(c.layout)) k.layout = parse_layout_field(*s, f, ln, "layout");
  if (auto* s = opt(c.count)) k.count = parse_dimension(*s, f, ln, "count");
  if (auto* s = opt(c.sparsity)) {
    const std::string v = to_lower(std::string(trim(*s)));
    if (v != "dense" && v != "2:4")
      throw InputError(location(f, ln, "sparsity"), "expected dense or 2:4 (A 2:4 structured sparse), got '" + *s + "'");
    k.sparse_a = v == "2:4";
  }
  if (auto* s = opt(c.warm_l2)) {
    const std::string v = to_lower(std::string(trim(*s)));
    if (v != "0" && v != "1" && v != "true" && v != "false")
      throw InputError(location(f, ln, "warm_l2"), "expected 0 or 1 (true or false), got '" + *s + "'");
    k.l2_warm = v == "1" || v == "true";
  }
  return k;
}

std::vector<Kernel> read_op_trace(const std::filesystem::path& file, std::vector<std::string>* origins) {
  return kernels_from(read_csv(file), origins);
}

std::vector<Kernel> parse_op_trace(std::string_view text, const std::string& file_name,
                                   std::vector<std::string>* origins) {
  return kernels_from(parse_csv(text, file_name), origins);
}

std::string format_op_trace(const std::vector<Kernel>& kernels, const std::vector<std::string>& comments) {
  std::string out;
  for (const auto& c : comments) out += "# " + c + "\n";
  bool optional = false;
  for (const Kernel& kernel : kernels) optional = optional || kernel.sparse_a || kernel.l2_warm;
  out += join(op_trace_columns(), ",") + (optional ? "," + join(op_trace_optional_columns(), ",") : "") + "\n";
  for (const Kernel& kernel : kernels) {
    const Kernel g = gemm_view(kernel);
    out += csv_quote(kernel.name) + "," + std::to_string(g.m) + "," + std::to_string(g.n) + "," + std::to_string(g.k) +
           "," + std::to_string(g.batch) + "," + std::string(format_name(g.a_format)) + "," +
           std::string(format_name(g.b_format)) + "," + std::string(format_name(g.c_format)) + "," +
           std::string(format_name(g.d_format)) + "," + std::string(layout_name(g.layout)) + "," +
           std::to_string(g.count) +
           (optional ? std::string(kernel.sparse_a ? ",2:4," : ",dense,") + (kernel.l2_warm ? "1" : "0") : "") + "\n";
  }
  return out;
}

}  // namespace tcsim::workload
