#include "engine/sweep/spec/sweep_points.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "common/text/units.h"
#include "engine/load_accelerator.h"
#include "engine/sweep/spec/constraint_expr.h"

namespace tcsim::engine::sweep {
namespace {

std::string labels(const SweepSpec& s, const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t a = 0; a < s.axes.size(); ++a)
    out += (out.empty() ? "" : ", ") + s.axes[a].name + "=" + s.axes[a].values[idx[a]].label;
  return out;
}

// The combinations in order: product (the last axis varies fastest) or zip.
std::vector<std::vector<std::size_t>> combinations(const SweepSpec& s) {
  std::vector<std::vector<std::size_t>> out;
  if (s.zip) {
    for (std::size_t i = 0; i < s.axes.front().values.size(); ++i) out.emplace_back(s.axes.size(), i);
    return out;
  }
  std::vector<std::size_t> idx(s.axes.size(), 0);
  for (;;) {
    out.push_back(idx);
    std::size_t a = s.axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < s.axes[a].values.size()) break;
      idx[a] = 0;
      if (a == 0) return out;
    }
    if (s.axes.empty()) return out;
  }
}

std::optional<double> yaml_quantity(const YAML::Node& n, double (*parse)(std::string_view)) {
  if (!n || !n.IsScalar() || n.Scalar() == "none") return std::nullopt;
  try {
    return parse(n.Scalar());
  } catch (const ParseError&) {
    return std::nullopt;
  }
}

double bytes_of(std::string_view t) { return double(units::parse_bytes(t)); }

}  // namespace

PointCosts point_costs(const std::string& resolved_yaml, const std::string& kind) {
  PointCosts c;
  const YAML::Node y = YAML::Load(resolved_yaml);
  const auto clock = yaml_quantity(y["clock"], units::parse_frequency_hz);
  if (kind == "gpu") {
    const auto sms = yaml_quantity(y["sm"]["count"], units::parse_number);
    const auto sub = yaml_quantity(y["sm"]["subcores"], units::parse_number);
    double fma = 0, fma16 = 0;
    for (const auto& m : y["mma"]) {
      if (m["sparse"] && m["sparse"].Scalar() == "true") continue;  // dense peak: 2:4 rows count twice the MACs
      const double f = yaml_quantity(m["fma_per_clk"], units::parse_number).value_or(0);
      fma = std::max(fma, f);
      if (m["ab"] && m["ab"].Scalar().find("fp16") != std::string::npos) fma16 = std::max(fma16, f);
    }
    if (fma16 <= 0) fma16 = fma;
    if (sms && sub && clock && fma16 > 0) c.peak_tflops = *sms * *sub * fma16 * 2 * *clock / 1e12;
    const auto l1 = yaml_quantity(y["l1"]["size"], bytes_of);
    const auto l2 = yaml_quantity(y["l2"]["size"], bytes_of);
    if (sms && l1 && l2) c.sram_bytes = *sms * *l1 + *l2;
    c.dram_bandwidth_bytes_per_s = yaml_quantity(y["dram"]["bandwidth"], units::parse_bandwidth_bytes_per_s);
  } else {
    const auto rows = yaml_quantity(y["array"]["rows"], units::parse_number);
    const auto cols = yaml_quantity(y["array"]["cols"], units::parse_number);
    if (rows && cols && clock) c.peak_tflops = *rows * *cols * 2 * *clock / 1e12;
    const auto i = yaml_quantity(y["sram"]["ifmap"], bytes_of), f = yaml_quantity(y["sram"]["filter"], bytes_of),
               o = yaml_quantity(y["sram"]["ofmap"], bytes_of);
    if (i && f && o) c.sram_bytes = *i + *f + *o;
    c.dram_bandwidth_bytes_per_s = yaml_quantity(y["dram"]["bandwidth"], units::parse_bandwidth_bytes_per_s);
  }
  return c;
}

Expansion expand_points(const SweepSpec& s) {
  const std::string file = s.file.string();
  // Each value alone first: an error then names the axis line that holds the bad value.
  for (const auto& a : s.axes)
    for (const auto& v : a.values) {
      try {
        (void)resolve_config_yaml(s.base, v.overrides);
      } catch (const InputError& e) {
        throw InputError(location(file, a.line, "axes: " + a.name),
                         "value '" + v.label + "' does not apply to " + s.base.string() + ": " + e.what());
      }
    }
  std::map<std::string, int> names;
  for (std::size_t a = 0; a < s.axes.size(); ++a) names[s.axes[a].name] = int(a);
  std::vector<ConstraintExpr> constraints;
  for (std::size_t i = 0; i < s.constraints.size(); ++i)
    constraints.emplace_back(s.constraints[i].text,
                             location(file, s.constraints[i].line, "constraints[" + std::to_string(i) + "]"), names);

  Expansion ex;
  for (const auto& idx : combinations(s)) {
    ++ex.candidates;
    std::vector<ExprValue> vals;
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      const AxisValue& v = s.axes[a].values[idx[a]];
      if (v.si) vals.emplace_back(*v.si);
      else vals.emplace_back(v.label);
    }
    bool keep = true;
    for (const auto& c : constraints) keep = keep && c.holds(vals);
    if (!keep) {
      ++ex.dropped;
      continue;
    }
    SweepPoint p;
    p.index = ex.points.size();
    p.value = idx;
    for (std::size_t a = 0; a < s.axes.size(); ++a)
      for (const auto& o : s.axes[a].values[idx[a]].overrides) p.overrides.push_back(o);
    try {
      LoadedAccelerator l = load_accelerator_with_config(s.base, p.overrides);
      p.resolved_yaml = std::move(l.resolved_yaml);
      p.kind = l.kind;
    } catch (const InputError& e) {
      throw InputError(location(file, s.axes.front().line, "axes"),
                       "the point " + labels(s, idx) + " is not a valid config: " + e.what() +
                           " (add a constraint that drops it)");
    }
    p.costs = point_costs(p.resolved_yaml, p.kind);
    ex.points.push_back(std::move(p));
  }
  if (ex.points.empty())
    throw InputError(location(file, s.axes.front().line, "axes"),
                     "the sweep has no points (" + std::to_string(ex.candidates) + " combinations, " +
                         std::to_string(ex.dropped) + " dropped by the constraints)");
  return ex;
}

std::string point_labels(const SweepSpec& s, const SweepPoint& p) { return labels(s, p.value); }

}  // namespace tcsim::engine::sweep
