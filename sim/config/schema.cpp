#include "config/schema.h"

#include <stdexcept>

#include "common/error.h"
#include "config/value.h"

namespace tcsim::config {

namespace {

bool valid_segment(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

const std::string& path_of(const SchemaEntry& e) {
  return std::visit([](const auto& x) -> const std::string& { return x.path; }, e);
}

bool starts_with_section(std::string_view path, std::string_view prefix) {
  return path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix && path[prefix.size()] == '.';
}

}  // namespace

Schema::Schema(std::string kind, std::string description)
    : kind_(std::move(kind)), description_(std::move(description)) {}

void Schema::check_new_path(const std::string& path) const {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string_view seg = std::string_view(path).substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!valid_segment(seg))
      throw std::logic_error("schema '" + kind_ + "': parameter path '" + path +
                             "' must be dotted lower_snake_case segments");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& e : entries_) {
    const std::string& other = path_of(e);
    if (other == path) throw std::logic_error("schema '" + kind_ + "': parameter '" + path + "' declared twice");
    if (starts_with_section(other, path) || starts_with_section(path, other))
      throw std::logic_error("schema '" + kind_ + "': '" + path + "' and '" + other +
                             "' conflict (a value cannot also be a section)");
  }
}

Schema& Schema::add(Param p) {
  check_new_path(p.path);
  if (p.type == ParamType::choice && p.choices.empty())
    throw std::logic_error("schema '" + kind_ + "': choice parameter '" + p.path + "' has no choices");
  if (p.min > p.max) throw std::logic_error("schema '" + kind_ + "': '" + p.path + "' has min > max");
  if (!p.default_text.empty()) {
    try {
      (void)parse_value(p, p.default_text);
    } catch (const ParseError& e) {
      throw std::logic_error("schema '" + kind_ + "': default of '" + p.path + "' is invalid: " + e.what());
    }
  }
  entries_.emplace_back(std::move(p));
  return *this;
}

Schema& Schema::add_list(std::string path, Schema record, std::string description) {
  check_new_path(path);
  entries_.emplace_back(ListParam{std::move(path), std::make_shared<const Schema>(std::move(record)),
                                  std::move(description)});
  return *this;
}

const Param* Schema::find_param(std::string_view path) const {
  for (const auto& e : entries_)
    if (const auto* p = std::get_if<Param>(&e); p && p->path == path) return p;
  return nullptr;
}

const ListParam* Schema::find_list(std::string_view path) const {
  for (const auto& e : entries_)
    if (const auto* l = std::get_if<ListParam>(&e); l && l->path == path) return l;
  return nullptr;
}

bool Schema::is_section(std::string_view prefix) const {
  for (const auto& e : entries_)
    if (starts_with_section(path_of(e), prefix)) return true;
  return false;
}

std::vector<std::string> Schema::all_paths() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(path_of(e));
  return out;
}

std::string_view type_name(ParamType type) {
  switch (type) {
    case ParamType::integer: return "integer";
    case ParamType::number: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
    case ParamType::bytes: return "bytes";
    case ParamType::frequency: return "frequency";
    case ParamType::bandwidth: return "bandwidth";
    case ParamType::bytes_per_cycle: return "bytes_per_cycle";
    case ParamType::time: return "time";
    case ParamType::cycles: return "cycles";
    case ParamType::power: return "power";
    case ParamType::energy: return "energy";
    case ParamType::voltage: return "voltage";
    case ParamType::energy_per_byte: return "energy_per_byte";
  }
  return "?";
}

std::string expected_form(const Param& p) {
  switch (p.type) {
    case ParamType::integer: return "an integer";
    case ParamType::number: return "a number";
    case ParamType::boolean: return "true or false";
    case ParamType::string: return "a string";
    case ParamType::choice: {
      std::string list;
      for (const auto& c : p.choices) list += (list.empty() ? "" : ", ") + c;
      return "one of " + list;
    }
    case ParamType::bytes: return "a size like 96KiB";
    case ParamType::frequency: return "a frequency like 1.41GHz";
    case ParamType::bandwidth: return "a bandwidth like 900GB/s";
    case ParamType::bytes_per_cycle: return "a per-cycle bandwidth like 128B/clk";
    case ParamType::time: return "a time like 5us";
    case ParamType::cycles: return "a cycle count like 35cycles";
    case ParamType::power: return "a power like 250W";
    case ParamType::energy: return "an energy like 3.9pJ";
    case ParamType::voltage: return "a voltage like 1.05V";
    case ParamType::energy_per_byte: return "an energy per bit or byte like 3.9pJ/bit";
  }
  return "a value";
}

}  // namespace tcsim::config
