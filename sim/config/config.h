#pragma once
// A loaded, validated config: every parameter of its Schema with defaults filled in, each value
// remembering where it came from (file and line, a --set override, or the default) so that model
// code can report semantic errors ("more warps than the scheduler holds") at the right place.
//
//   const auto cfg = Config::load("configs/gpu/v100.yaml", gpu::config_schema(), {"sm.count=40"});
//   int sms = cfg.integer("sm.count");
//   double bw = cfg.bandwidth_bytes_per_s("memory.dram.bandwidth");
//   if (bad) throw InputError(cfg.where("sm.count"), "expected ...");
//
// Accessors throw std::logic_error (an internal error, exit 1) for a path the schema does not
// declare or a type that does not match the declaration: those are bugs, not bad input.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"

namespace tcsim::config {

class Config {   // loaded, validated, with defaults filled in; cheap to copy
 public:
  // Loads YAML: requires `version: 1` and `kind: <schema.kind()>`; follows `base: other.yaml`
  // (relative to the file, recursively; the derived file overrides field by field); applies
  // overrides "a.b=v" (CLI --set; an override of an unknown key is an error too); rejects unknown
  // keys (with a "did you mean" suggestion), wrong types, wrong units and out-of-range values with
  // InputError(location(file, line, key.path), what was expected).
  static Config load(const std::filesystem::path& file, const Schema& schema,
                     const std::vector<std::string>& overrides = {});
  static Config from_yaml_text(const std::string& text, const Schema& schema,
                               const std::string& name = "<string>",
                               const std::vector<std::string>& overrides = {});
  std::int64_t integer(std::string_view path) const;
  double number(std::string_view path) const;
  bool boolean(std::string_view path) const;
  std::string string(std::string_view path) const;   // also for choice
  std::uint64_t bytes(std::string_view path) const;
  double frequency_hz(std::string_view path) const;
  double bandwidth_bytes_per_s(std::string_view path) const;
  double bytes_per_cycle(std::string_view path) const;
  double time_s(std::string_view path) const;
  double cycles(std::string_view path) const;
  double power_w(std::string_view path) const;
  double energy_j(std::string_view path) const;
  double voltage_v(std::string_view path) const;
  double energy_per_byte_j(std::string_view path) const;
  std::vector<Config> list(std::string_view path) const;   // records of an add_list section
  bool has(std::string_view path) const;                   // explicitly given (not defaulted)
  std::string where(std::string_view path) const;          // "file:line: path" for semantic errors
  std::string resolved_yaml() const;                       // every value, defaults included
  void write_resolved(const std::filesystem::path& file) const;   // atomic

  const Schema& schema() const;
  // The value as written (unit form kept, "96KiB"), or the default text.
  std::string text(std::string_view path) const;
  // The file the config was loaded from (the name given to from_yaml_text).
  const std::string& source() const;
  // Same schema kind and the same value (as parsed) for every parameter and list record.
  bool same_values(const Config& other) const;

  struct Impl;  // public only so the loader (config_loader.cpp) can build one

 private:
  explicit Config(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
  friend struct ConfigBuilder;
};

// Reference text for a schema: a Markdown table (path, type, unit, default, range, description).
std::string describe(const Schema& schema);

}  // namespace tcsim::config
