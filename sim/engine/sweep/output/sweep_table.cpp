#include "engine/sweep/output/sweep_table.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "common/error.h"

namespace tcsim::engine::sweep {
namespace {

struct Metric {
  const char* name;
  const char* description;
  std::function<io::Cell(const WorkloadRun&, const PointCosts&)> cell;
};

io::Cell num(double v) { return io::Cell(v); }
io::Cell opt(const std::optional<double>& v) { return v ? io::Cell(*v) : io::Cell(); }

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"step_time_s", "time of one step (network) or of the whole trace",
       [](const WorkloadRun& r, const PointCosts&) { return num(r.step_time_s); }},
      {"throughput_per_s", "items (the item column: samples, tokens, trace passes) per second",
       [](const WorkloadRun& r, const PointCosts&) { return num(r.step_time_s > 0 ? r.items / r.step_time_s : 0); }},
      {"tflops", "achieved TFLOP/s over the step",
       [](const WorkloadRun& r, const PointCosts&) { return num(r.step_time_s > 0 ? r.flops / r.step_time_s / 1e12 : 0); }},
      {"energy_j", "energy per step (empty when the model has no energy)",
       [](const WorkloadRun& r, const PointCosts&) { return r.energy_modelled ? num(r.energy_j) : io::Cell(); }},
      {"avg_power_w", "average power over the step",
       [](const WorkloadRun& r, const PointCosts&) {
         return r.energy_modelled && r.step_time_s > 0 ? num(r.energy_j / r.step_time_s) : io::Cell();
       }},
      {"energy_per_item_j", "energy per sample or token",
       [](const WorkloadRun& r, const PointCosts&) { return r.energy_modelled ? num(r.energy_j / r.items) : io::Cell(); }},
      {"items_per_j", "performance per watt: throughput / average power (items per joule)",
       [](const WorkloadRun& r, const PointCosts&) {
         return r.energy_modelled && r.energy_j > 0 ? num(r.items / r.energy_j) : io::Cell();
       }},
      {"tflops_per_w", "achieved TFLOP/s per watt of average power",
       [](const WorkloadRun& r, const PointCosts&) {
         return r.energy_modelled && r.energy_j > 0 ? num(r.flops / r.energy_j / 1e12) : io::Cell();
       }},
      {"peak_tflops", "cost: dense fp16 tensor peak (GPU) or array MACs x 2 x clock (systolic)",
       [](const WorkloadRun&, const PointCosts& c) { return opt(c.peak_tflops); }},
      {"sram_bytes", "cost: on-chip SRAM (GPU: L1 per SM x SMs + L2; systolic: ifmap + filter + ofmap)",
       [](const WorkloadRun&, const PointCosts& c) { return opt(c.sram_bytes); }},
      {"dram_bandwidth_bytes_per_s", "cost: theoretical DRAM bandwidth",
       [](const WorkloadRun&, const PointCosts& c) { return opt(c.dram_bandwidth_bytes_per_s); }},
      {"distinct_kernels", "distinct kernels of the step",
       [](const WorkloadRun& r, const PointCosts&) { return io::Cell(r.distinct_kernels); }},
      {"launches", "kernel launches per step",
       [](const WorkloadRun& r, const PointCosts&) { return io::Cell(r.launches); }},
  };
  return m;
}

std::vector<const Metric*> chosen(const SweepSpec& s) {
  std::vector<const Metric*> out;
  if (s.metrics.empty()) {
    for (const auto& m : metrics()) out.push_back(&m);
    return out;
  }
  for (const auto& name : s.metrics)
    for (const auto& m : metrics())
      if (name == m.name) out.push_back(&m);
  return out;
}

bool numeric_axis(const Axis& a) {
  for (const auto& v : a.values)
    if (!v.si) return false;
  return true;
}

// Cells as text: "-" empty, "i<int>", "d<hex float>", "s<text with \\ \t \n escaped>".
std::string encode_cell(const io::Cell& c) {
  if (std::holds_alternative<std::int64_t>(c)) return "i" + std::to_string(std::get<std::int64_t>(c));
  if (std::holds_alternative<double>(c)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", std::get<double>(c));
    return std::string("d") + buf;
  }
  if (std::holds_alternative<std::string>(c)) {
    std::string out = "s";
    for (char ch : std::get<std::string>(c)) {
      if (ch == '\\') out += "\\\\";
      else if (ch == '\t') out += "\\t";
      else if (ch == '\n') out += "\\n";
      else out += ch;
    }
    return out;
  }
  return "-";
}

bool decode_cell(const std::string& t, io::Cell& c) {
  if (t == "-") {
    c = io::Cell();
    return true;
  }
  if (t.empty()) return false;
  const std::string body = t.substr(1);
  char* end = nullptr;
  if (t[0] == 'i') {
    c = io::Cell(std::int64_t(std::strtoll(body.c_str(), &end, 10)));
    return !body.empty() && *end == 0;
  }
  if (t[0] == 'd') {
    c = io::Cell(std::strtod(body.c_str(), &end));
    return !body.empty() && *end == 0;
  }
  if (t[0] != 's') return false;
  std::string s;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      s += body[i];
      continue;
    }
    if (++i >= body.size()) return false;
    s += body[i] == 't' ? '\t' : body[i] == 'n' ? '\n' : body[i];
  }
  c = io::Cell(std::move(s));
  return true;
}

std::string encode_line(const char* tag, const std::vector<io::Cell>& cells) {
  std::string out = tag;
  for (const auto& c : cells) out += "\t" + encode_cell(c);
  return out + "\n";
}

}  // namespace

std::vector<std::string> metric_names() {
  std::vector<std::string> n;
  for (const auto& m : metrics()) n.push_back(m.name);
  return n;
}

std::string metric_help() {
  std::string out;
  for (const auto& m : metrics()) out += std::string("  ") + m.name + ": " + m.description + "\n";
  return out;
}

void check_metrics(const SweepSpec& s) {
  for (const auto& name : s.metrics) {
    bool known = false;
    for (const auto& m : metrics()) known = known || name == m.name;
    if (!known) {
      std::string list;
      for (const auto& n : metric_names()) list += (list.empty() ? "" : ", ") + n;
      throw InputError(location(s.file.string(), s.metrics_line, "metrics"), "unknown metric '" + name + "'; expected one of " + list);
    }
  }
}

io::Table results_columns(const SweepSpec& s) {
  io::Table t;
  t.name = "points";
  t.add_column("point", "point index (after constraints)");
  t.add_column("workload", "workload name (spec workloads:)");
  for (const auto& a : s.axes) {
    t.add_column(a.name, a.path.empty() ? "preset" : "axis value as written");
    if (numeric_axis(a)) t.add_column(a.name + "_si", "axis value in SI units (bytes, bytes/s, Hz, W, s)");
  }
  t.add_column("status", "ok, or why the point could not run the workload");
  t.add_column("item", "what throughput counts: sample, token or trace");
  for (const Metric* m : chosen(s)) t.add_column(m->name, m->description);
  return t;
}

io::Table layer_columns() {
  io::Table t;
  t.name = "layers";
  for (const char* c : {"point", "workload", "layer", "kind", "count", "time_s", "energy_j"}) t.add_column(c);
  return t;
}

Record make_record(const SweepSpec& s, const SweepPoint& p, std::size_t w, const WorkloadRun& run) {
  Record r;
  r.row.emplace_back(std::int64_t(p.index));
  r.row.emplace_back(s.workloads[w].name);
  for (std::size_t a = 0; a < s.axes.size(); ++a) {
    const AxisValue& v = s.axes[a].values[p.value[a]];
    r.row.emplace_back(v.label);
    if (numeric_axis(s.axes[a])) r.row.emplace_back(*v.si);
  }
  r.row.emplace_back(run.status);
  r.row.emplace_back(run.item);
  const bool ok = run.status == "ok";
  for (const Metric* m : chosen(s)) r.row.push_back(ok ? m->cell(run, p.costs) : io::Cell());
  if (s.layer_detail)
    for (const auto& l : run.layers)
      r.layers.push_back({io::Cell(std::int64_t(p.index)), io::Cell(s.workloads[w].name), io::Cell(l.layer),
                          io::Cell(l.kind), io::Cell(l.count), io::Cell(l.time_s),
                          run.energy_modelled ? io::Cell(l.energy_j) : io::Cell()});
  return r;
}

std::string encode_record(const Record& r, const std::string& spec_hash) {
  std::string out = "tcsim-sweep-record 1 " + spec_hash + "\n" + encode_line("row", r.row);
  for (const auto& l : r.layers) out += encode_line("layer", l);
  return out + "end\n";
}

bool decode_record(const std::string& text, const std::string& spec_hash, std::size_t row_cells, Record& out) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "tcsim-sweep-record 1 " + spec_hash) return false;
  Record r;
  bool row = false, end = false;
  while (std::getline(in, line)) {
    if (line == "end") {
      end = true;
      break;
    }
    std::vector<io::Cell> cells;
    std::size_t start = line.find('\t');
    const std::string tag = line.substr(0, start);
    while (start != std::string::npos) {
      const std::size_t next = line.find('\t', start + 1);
      io::Cell c;
      if (!decode_cell(line.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1), c)) return false;
      cells.push_back(std::move(c));
      start = next;
    }
    if (tag == "row" && !row && cells.size() == row_cells) {
      r.row = std::move(cells);
      row = true;
    } else if (tag == "layer" && cells.size() == layer_columns().columns.size()) {
      r.layers.push_back(std::move(cells));
    } else {
      return false;
    }
  }
  if (!row || !end) return false;
  out = std::move(r);
  return true;
}

}  // namespace tcsim::engine::sweep
