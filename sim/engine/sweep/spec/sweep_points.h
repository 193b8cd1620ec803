#pragma once
// Expands a sweep spec into its points: the product (or zip) of the axes, minus the points a
// constraint drops. Every axis value and every point is loaded as a config (base + overrides, as
// --set), so an unknown path or a value of the wrong unit is an error naming the spec's line
// before anything runs.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/sweep/spec/sweep_spec.h"

namespace tcsim::engine::sweep {

// What a point's hardware costs, from its resolved config (empty when the kind has no such figure).
struct PointCosts {
  std::optional<double> peak_tflops;               // dense fp16 tensor (GPU) or array MACs x 2 x clock
  std::optional<double> sram_bytes;                // GPU: L1/shared per SM x SMs + L2; systolic: the three SRAMs
  std::optional<double> dram_bandwidth_bytes_per_s;
};

struct SweepPoint {
  std::size_t index = 0;                 // 0-based, after constraints
  std::vector<std::size_t> value;        // per axis: the index of its value
  std::vector<std::string> overrides;    // in axis order
  std::string resolved_yaml;             // the point's config, every value and default
  std::string kind;                      // gpu | systolic
  PointCosts costs;
};

struct Expansion {
  std::vector<SweepPoint> points;
  std::size_t candidates = 0;            // before constraints
  std::size_t dropped = 0;               // by constraints
};

// InputError (spec file:line: axis or constraint) for bad values, constraints that do not parse or
// do not evaluate, and an empty result.
Expansion expand_points(const SweepSpec& spec);

PointCosts point_costs(const std::string& resolved_yaml, const std::string& kind);

// "axis=label, axis=label" for messages and --dry-run.
std::string point_labels(const SweepSpec& s, const SweepPoint& p);

}  // namespace tcsim::engine::sweep
