#pragma once
// The declaration of a config kind's parameters: each parameter is declared once, in C++, with
// its dotted path, type (which fixes the unit), default, range and a one-line description.
// Everything else (loading, validation, `tcsim config describe`, config.resolved.yaml) is derived
// from the Schema.
//
//   Schema s("gpu", "A GPU: SMs, tensor cores, memory hierarchy");
//   s.add({"sm.count", ParamType::integer, "80", "number of SMs", 1, 1024});
//   s.add({"memory.dram.bandwidth", ParamType::bandwidth, "900GB/s", "DRAM bandwidth", 1e9});
//   Schema mma("mma", "one MMA instruction");
//   mma.add({"shape", ParamType::string, "", "m16n8k16"});   // "" default: required
//   s.add_list("mma", mma, "the MMA instruction table");
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tcsim::config {

enum class ParamType { integer, number, boolean, string, choice, bytes, frequency, bandwidth,
                       bytes_per_cycle, time, cycles, power, energy, voltage, energy_per_byte };

struct Param {
  // A constructor (not an aggregate) so that `{"a.b", ParamType::integer, "1", "..."}` leaves out
  // min/max/choices without -Wmissing-field-initializers firing under -Wextra -Werror.
  Param() = default;
  Param(std::string path_, ParamType type_, std::string default_text_ = "", std::string description_ = "",
        double min_ = -std::numeric_limits<double>::infinity(),
        double max_ = std::numeric_limits<double>::infinity(), std::vector<std::string> choices_ = {})
      : path(std::move(path_)), type(type_), default_text(std::move(default_text_)),
        description(std::move(description_)), min(min_), max(max_), choices(std::move(choices_)) {}

  std::string path;          // dotted key path, e.g. "sm.count", "memory.dram.bandwidth"
  ParamType type = ParamType::string;
  std::string default_text;  // as it would be written in YAML ("96KiB"); empty = required
  std::string description;   // one line
  double min = -std::numeric_limits<double>::infinity();  // range check on the parsed value
  double max = std::numeric_limits<double>::infinity();   // (bytes/Hz/B/s/s/cycles), inclusive
  std::vector<std::string> choices;                       // for ParamType::choice
};

class Schema;

// A list of records (a YAML sequence of maps), each validated against `record`.
struct ListParam {
  std::string path;
  std::shared_ptr<const Schema> record;
  std::string description;
};

using SchemaEntry = std::variant<Param, ListParam>;

class Schema {
 public:
  Schema(std::string kind, std::string description);   // kind: "gpu", "systolic"
  // Throws std::logic_error for a programming mistake: a duplicate or malformed path, a path
  // that is also a prefix of another (a value cannot also be a section), a default that does not
  // parse as its type or lies outside the range, a choice without choices.
  Schema& add(Param p);
  // A list of records, e.g. the MMA instruction table `mma:` (a YAML sequence of maps, each
  // validated against `record`). Records may have required fields. A list given in a derived
  // file or with --set replaces the base file's list as a whole.
  Schema& add_list(std::string path, Schema record, std::string description);
  const std::string& kind() const { return kind_; }
  const std::string& description() const { return description_; }

  // Declaration order (also the order of config.resolved.yaml and `describe`).
  const std::vector<SchemaEntry>& entries() const { return entries_; }
  const Param* find_param(std::string_view path) const;     // nullptr when not a parameter
  const ListParam* find_list(std::string_view path) const;  // nullptr when not a list
  // True when `prefix` names a section: some parameter or list path starts with "prefix.".
  bool is_section(std::string_view prefix) const;
  // Every parameter and list path (for "did you mean" suggestions).
  std::vector<std::string> all_paths() const;

 private:
  void check_new_path(const std::string& path) const;
  std::string kind_;
  std::string description_;
  std::vector<SchemaEntry> entries_;
};

// "integer", "bandwidth", ... as shown in messages and in `describe`.
std::string_view type_name(ParamType type);
// What a value of this type looks like, for error messages: "a bandwidth like 900GB/s".
std::string expected_form(const Param& p);

}  // namespace tcsim::config
