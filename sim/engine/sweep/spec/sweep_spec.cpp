// Reads configs/sweeps/*.yaml (format: configs/sweeps/README.md).
#include "engine/sweep/spec/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "common/text/yaml_document.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"

namespace tcsim::engine::sweep {
namespace {

namespace fs = std::filesystem;

struct Reader {
  std::string file;
  long line(const YAML::Node& n) const { return n.Mark().line >= 0 ? long(n.Mark().line) + 1 : 0; }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& what) const {
    throw InputError(location(file, line(n), key), what);
  }
  // A mapping key as text; `? [a, b]: 1` and other non-scalar keys are an error, not yaml-cpp's throw.
  std::string key_name(const YAML::Node& k, const std::string& key) const {
    if (!k.IsScalar()) fail(k, key, "expected a key name");
    return k.Scalar();
  }
  void only_keys(const YAML::Node& map, const std::string& key, const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, key, "expected a mapping");
    for (const auto& kv : map) {
      const std::string k = key_name(kv.first, key);
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, key.empty() ? k : key + "." + k, "unknown key; expected one of " + list);
      }
    }
  }
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a single value");
    return n.Scalar();
  }
  std::int64_t positive(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    try {
      const std::int64_t v = units::parse_integer(s);
      if (v > 0) return v;
    } catch (const ParseError&) {
    }
    fail(n, key, "expected a positive integer, got '" + s + "'");
  }
  // A YAML value as override text: scalars as written, sequences and maps in flow style.
  std::string value_text(const YAML::Node& n) const {
    if (n.IsScalar()) return n.Scalar();
    YAML::Emitter e;
    e << YAML::Flow << n;
    return e.c_str();
  }
};

// "2TB/s" -> (2, "TB/s"); "16" -> (16, "").
bool split_number(const std::string& text, double& number, std::string& unit) {
  const char* s = text.c_str();
  char* end = nullptr;
  number = std::strtod(s, &end);
  if (end == s || !std::isfinite(number)) return false;
  unit = std::string(end);
  return unit.find_first_of(" \t") == std::string::npos;
}

// Shortest text for a range value: integers without a fraction, else 6 significant digits.
std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  const double r = std::strtod(buf, nullptr);
  if (std::fabs(r) < 1e15 && r == std::round(r)) std::snprintf(buf, sizeof buf, "%.0f", r);
  return buf;
}

fs::path relative_to(const fs::path& spec, const std::string& p) {
  const fs::path path(p);
  return path.is_absolute() ? path : (spec.parent_path() / path).lexically_normal();
}

Axis read_axis(const Reader& r, const YAML::Node& n, std::size_t i) {
  const std::string key = "axes[" + std::to_string(i) + "]";
  r.only_keys(n, key, {"path", "name", "values", "range", "presets"});
  Axis a;
  a.line = r.line(n);
  if (n["path"]) a.path = r.scalar(n["path"], key + ".path");
  a.name = n["name"] ? r.scalar(n["name"], key + ".name") : a.path;
  const int kinds = int(bool(n["values"])) + int(bool(n["range"])) + int(bool(n["presets"]));
  if (kinds != 1) r.fail(n, key, "expected exactly one of values:, range: or presets:");
  if (n["presets"]) {
    if (a.name.empty()) r.fail(n, key, "expected name: for a preset axis");
    const YAML::Node& p = n["presets"];
    if (!p.IsMap() || p.size() == 0) r.fail(p, key + ".presets", "expected a mapping of preset names to {config.path: value} maps");
    for (const auto& kv : p) {
      AxisValue v;
      v.label = r.key_name(kv.first, key + ".presets");
      const std::string pkey = key + ".presets." + v.label;
      if (!kv.second.IsMap() && !kv.second.IsNull()) r.fail(kv.second, pkey, "expected a {config.path: value} map ({} for the base)");
      if (kv.second.IsMap())
        for (const auto& ov : kv.second) v.overrides.push_back(r.key_name(ov.first, pkey) + "=" + r.value_text(ov.second));
      v.si = si_value(v.label);  // "2", "64KiB": a numeric preset axis plots as a number
      a.values.push_back(std::move(v));
    }
    return a;
  }
  if (a.path.empty()) r.fail(n, key, "expected path: (a config path, as --set takes it)");
  if (n["values"]) {
    const YAML::Node& vs = n["values"];
    if (!vs.IsSequence() || vs.size() == 0) r.fail(vs, key + ".values", "expected a non-empty list of values");
    for (std::size_t j = 0; j < vs.size(); ++j) {
      AxisValue v;
      v.label = r.value_text(vs[j]);
      v.overrides.push_back(a.path + "=" + v.label);
      v.si = si_value(v.label);
      a.values.push_back(std::move(v));
    }
    return a;
  }
  const YAML::Node& rg = n["range"];
  const std::string rkey = key + ".range";
  r.only_keys(rg, rkey, {"from", "to", "num", "scale"});
  if (!rg["from"] || !rg["to"] || !rg["num"]) r.fail(rg, rkey, "expected from:, to: and num: (and scale: linear|log)");
  const std::string from = r.scalar(rg["from"], rkey + ".from"), to = r.scalar(rg["to"], rkey + ".to");
  double f = 0, t = 0;
  std::string fu, tu;
  if (!split_number(from, f, fu)) r.fail(rg["from"], rkey + ".from", "expected a number with an optional unit, got '" + from + "'");
  if (!split_number(to, t, tu)) r.fail(rg["to"], rkey + ".to", "expected a number with an optional unit, got '" + to + "'");
  if (fu != tu) r.fail(rg["to"], rkey + ".to", "expected the same unit as from: ('" + fu + "'), got '" + tu + "'");
  const std::int64_t num = r.positive(rg["num"], rkey + ".num");
  if (num > kMaxAxisValues)
    r.fail(rg["num"], rkey + ".num", "expected at most " + std::to_string(kMaxAxisValues) + " values, got " + std::to_string(num));
  const std::string scale = rg["scale"] ? r.scalar(rg["scale"], rkey + ".scale") : "linear";
  if (scale != "linear" && scale != "log") r.fail(rg["scale"], rkey + ".scale", "expected linear or log, got '" + scale + "'");
  if (scale == "log" && (f <= 0 || t <= 0)) r.fail(rg, rkey, "expected positive from: and to: for a log range");
  for (std::int64_t j = 0; j < num; ++j) {
    const double x = num == 1 ? 0 : double(j) / double(num - 1);
    const double v = scale == "log" ? f * std::pow(t / f, x) : f + (t - f) * x;
    AxisValue av;
    av.label = number_text(v) + fu;
    av.overrides.push_back(a.path + "=" + av.label);
    av.si = si_value(av.label);
    a.values.push_back(std::move(av));
  }
  return a;
}

WorkloadSpec read_workload(const Reader& r, const fs::path& spec, const YAML::Node& n, std::size_t i) {
  const std::string key = "workloads[" + std::to_string(i) + "]";
  std::set<std::string> keys = {"model", "trace", "name", "batch", "seq", "kv_len", "precision", "pass"};
  for (const auto& [k, member] : kRunChoiceText) keys.insert(k);
  for (const auto& [k, member] : kRunChoiceSwitches) keys.insert(k);
  r.only_keys(n, key, keys);
  WorkloadSpec w;
  w.line = r.line(n);
  if (bool(n["model"]) == bool(n["trace"])) r.fail(n, key, "expected exactly one of model: (models/*.yaml) or trace: (an op-trace CSV)");
  w.trace = bool(n["trace"]);
  const std::string fkey = key + (w.trace ? ".trace" : ".model");
  w.file_as_written = r.scalar(w.trace ? n["trace"] : n["model"], fkey);
  w.file = relative_to(spec, w.file_as_written);
  std::error_code ec;
  if (!fs::is_regular_file(w.file, ec))
    r.fail(w.trace ? n["trace"] : n["model"], fkey, "no such file: " + w.file.string() + " (paths are relative to the spec's folder)");
  if (w.trace)
    for (const auto& k : keys)
      if (k != "trace" && k != "name" && n[k])
        r.fail(n[k], key + "." + k, "a trace takes no " + k + ": (its rows give shapes and formats)");
  if (n["batch"]) w.batch = r.positive(n["batch"], key + ".batch");
  if (n["seq"]) w.seq = r.positive(n["seq"], key + ".seq");
  if (n["kv_len"]) {
    const std::string text = r.scalar(n["kv_len"], key + ".kv_len");
    try {
      w.kv_len = units::parse_integer(text);
    } catch (const ParseError&) {  // a bad number is bad input, not an internal error (scripts/audit)
      r.fail(n["kv_len"], key + ".kv_len", "expected 0 or more cached tokens (an integer), got '" + text + "'");
    }
    if (*w.kv_len < 0) r.fail(n["kv_len"], key + ".kv_len", "expected 0 or more cached tokens");
  }
  if (n["precision"]) w.precision = r.scalar(n["precision"], key + ".precision");
  if (n["pass"]) w.pass = r.scalar(n["pass"], key + ".pass");
  if (w.pass != "infer" && w.pass != "train") r.fail(n["pass"], key + ".pass", "expected infer or train, got '" + w.pass + "'");
  // How the framework runs the step: tcsim network's options of the same names.
  for (const auto& [k, member] : kRunChoiceText)
    if (n[k]) w.run.*member = r.scalar(n[k], key + "." + k);
  for (const auto& [k, member] : kRunChoiceSwitches)
    if (n[k]) {
      const std::string v = r.scalar(n[k], key + "." + k);
      if (v != "true" && v != "false") r.fail(n[k], key + "." + k, "expected true or false, got '" + v + "'");
      w.run.*member = v == "true";
    }
  // Switches that belong to one pass: refused where the spec says so, not at every point.
  if (w.run.eval_metrics && w.pass != "infer")
    r.fail(n["eval_metrics"], key + ".eval_metrics", "an evaluation step's loss and accuracy: only with pass: infer");
  if (w.run.fp32_master && w.pass != "train")
    r.fail(n["fp32_master"], key + ".fp32_master", "master weights are the optimizer's: only with pass: train");
  if (w.kv_len && *w.kv_len > 0 && w.pass == "train")
    r.fail(n["kv_len"], key + ".kv_len", "a KV cache is a decode step's: only with pass: infer (training runs the whole sequence)");
  NetworkRunOptions checked;  // a bad value names its line now, not when the sweep runs
  apply_run_choices(w.run, checked, [&](const std::string& k) { return location(r.file, r.line(n[k]), key + "." + k); });
  w.name = n["name"] ? r.scalar(n["name"], key + ".name") : w.file.stem().string();
  return w;
}

}  // namespace

std::optional<double> si_value(const std::string& text) {
  double n = 0;
  std::string unit;
  if (!split_number(text, n, unit)) return std::nullopt;
  if (unit.empty()) return n;
  using P = double (*)(std::string_view);
  static const P parsers[] = {
      [](std::string_view t) { return double(units::parse_bytes(t)); }, units::parse_bandwidth_bytes_per_s,
      units::parse_frequency_hz, units::parse_power_w, units::parse_time_s, units::parse_energy_j,
      units::parse_voltage_v, units::parse_bytes_per_cycle, units::parse_cycles, units::parse_energy_per_byte_j};
  for (P p : parsers) {
    try {
      return p(text);
    } catch (const ParseError&) {
    }
  }
  return std::nullopt;
}

SweepSpec read_sweep_spec(const fs::path& file) {
  Reader r{file.string()};
  YAML::Node root;
  std::error_code file_ec;
  if (!fs::is_regular_file(file, file_ec)) throw InputError(file.string(), "cannot read the sweep spec");
  root = load_yaml_file(file.string());
  if (!root.IsMap()) throw InputError(file.string(), "expected a mapping with base:, axes:, workloads:");
  r.only_keys(root, "", {"name", "base", "axes", "mode", "constraints", "workloads", "metrics", "detail"});
  SweepSpec s;
  s.file = file;
  s.name = root["name"] ? r.scalar(root["name"], "name") : file.stem().string();
  if (!root["base"]) throw InputError(location(file.string(), 1, "base"), "expected base: a hardware config (relative to this file)");
  s.base_as_written = r.scalar(root["base"], "base");
  s.base_line = r.line(root["base"]);
  s.base = relative_to(file, s.base_as_written);
  std::error_code ec;
  if (!fs::is_regular_file(s.base, ec)) r.fail(root["base"], "base", "no such config: " + s.base.string() + " (relative to the spec's folder)");

  if (root["mode"]) {
    const std::string m = r.scalar(root["mode"], "mode");
    if (m != "product" && m != "zip") r.fail(root["mode"], "mode", "expected product or zip, got '" + m + "'");
    s.zip = m == "zip";
    s.mode_line = r.line(root["mode"]);
  }
  const YAML::Node& axes = root["axes"];
  if (!axes || !axes.IsSequence() || axes.size() == 0)
    throw InputError(location(file.string(), axes ? r.line(axes) : 1, "axes"), "expected a non-empty list of axes");
  std::set<std::string> names;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    s.axes.push_back(read_axis(r, axes[i], i));
    if (!names.insert(s.axes.back().name).second)
      r.fail(axes[i], "axes[" + std::to_string(i) + "]", "axis '" + s.axes.back().name + "' appears twice");
  }
  if (s.zip)
    for (const auto& a : s.axes)
      if (a.values.size() != s.axes.front().values.size())
        throw InputError(location(file.string(), a.line, "axes: " + a.name),
                         "mode: zip expects every axis to have " + std::to_string(s.axes.front().values.size()) +
                             " values (as " + s.axes.front().name + "), got " + std::to_string(a.values.size()));
  double combinations = s.zip ? double(s.axes.front().values.size()) : 1.0;
  if (!s.zip)
    for (const auto& a : s.axes) combinations *= double(a.values.size());
  if (combinations > kMaxSweepPoints)
    throw InputError(location(file.string(), r.line(axes), "axes"),
                     "the axes make " + format_number("%.3g", combinations) + " combinations; at most " +
                         format_number("%.3g", kMaxSweepPoints) + " (split the sweep into several specs)");
  if (const YAML::Node& c = root["constraints"]) {
    if (!c.IsSequence()) r.fail(c, "constraints", "expected a list of expressions");
    for (std::size_t i = 0; i < c.size(); ++i)
      s.constraints.push_back({r.scalar(c[i], "constraints[" + std::to_string(i) + "]"), r.line(c[i])});
  }
  const YAML::Node& w = root["workloads"];
  if (!w || !w.IsSequence() || w.size() == 0)
    throw InputError(location(file.string(), w ? r.line(w) : 1, "workloads"), "expected a non-empty list of workloads (model: or trace:)");
  std::set<std::string> wnames;
  for (std::size_t i = 0; i < w.size(); ++i) {
    s.workloads.push_back(read_workload(r, file, w[i], i));
    if (!wnames.insert(s.workloads.back().name).second)
      r.fail(w[i], "workloads[" + std::to_string(i) + "]", "workload name '" + s.workloads.back().name + "' appears twice: give each a name:");
  }
  if (const YAML::Node& m = root["metrics"]) {
    if (!m.IsSequence()) r.fail(m, "metrics", "expected a list of metric names");
    s.metrics_line = r.line(m);
    for (std::size_t i = 0; i < m.size(); ++i) s.metrics.push_back(r.scalar(m[i], "metrics[" + std::to_string(i) + "]"));
  }
  if (const YAML::Node& d = root["detail"]) {
    const std::string v = r.scalar(d, "detail");
    if (v != "layers" && v != "none") r.fail(d, "detail", "expected layers or none, got '" + v + "'");
    s.layer_detail = v == "layers";
  }
  return s;
}

}  // namespace tcsim::engine::sweep
