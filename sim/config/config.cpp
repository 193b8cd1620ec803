// Config's accessors: typed reads of the values the loader (config_loader.cpp) parsed.
#include <stdexcept>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "config/config_impl.h"

namespace tcsim::config {

namespace {

const Value& value_of(const Config::Impl& impl, std::string_view path, ParamType want1,
                      ParamType want2 = ParamType::integer, bool two = false) {
  const Param* p = impl.schema->find_param(path);
  if (!p)
    throw std::logic_error("config '" + impl.schema->kind() + "': no parameter '" + std::string(path) +
                           "' in the schema");
  if (p->type != want1 && !(two && p->type == want2))
    throw std::logic_error("config '" + impl.schema->kind() + "': parameter '" + std::string(path) + "' is a " +
                           std::string(type_name(p->type)) + ", read as a " + std::string(type_name(want1)));
  return impl.values.find(path)->second;
}

}  // namespace

std::int64_t Config::integer(std::string_view path) const { return value_of(*impl_, path, ParamType::integer).integer; }
double Config::number(std::string_view path) const { return value_of(*impl_, path, ParamType::number).number; }
bool Config::boolean(std::string_view path) const { return value_of(*impl_, path, ParamType::boolean).boolean; }
std::string Config::string(std::string_view path) const {
  return value_of(*impl_, path, ParamType::string, ParamType::choice, true).text_if_string;
}
std::uint64_t Config::bytes(std::string_view path) const { return value_of(*impl_, path, ParamType::bytes).bytes; }
double Config::frequency_hz(std::string_view path) const { return value_of(*impl_, path, ParamType::frequency).number; }
double Config::bandwidth_bytes_per_s(std::string_view path) const {
  return value_of(*impl_, path, ParamType::bandwidth).number;
}
double Config::bytes_per_cycle(std::string_view path) const {
  return value_of(*impl_, path, ParamType::bytes_per_cycle).number;
}
double Config::time_s(std::string_view path) const { return value_of(*impl_, path, ParamType::time).number; }
double Config::cycles(std::string_view path) const { return value_of(*impl_, path, ParamType::cycles).number; }
double Config::power_w(std::string_view path) const { return value_of(*impl_, path, ParamType::power).number; }
double Config::energy_j(std::string_view path) const { return value_of(*impl_, path, ParamType::energy).number; }
double Config::voltage_v(std::string_view path) const { return value_of(*impl_, path, ParamType::voltage).number; }
double Config::energy_per_byte_j(std::string_view path) const {
  return value_of(*impl_, path, ParamType::energy_per_byte).number;
}

std::vector<Config> Config::list(std::string_view path) const {
  auto it = impl_->lists.find(path);
  if (it == impl_->lists.end())
    throw std::logic_error("config '" + impl_->schema->kind() + "': no list '" + std::string(path) + "' in the schema");
  return it->second.records;
}

bool Config::has(std::string_view path) const {
  if (auto it = impl_->values.find(path); it != impl_->values.end()) return it->second.given;
  if (auto it = impl_->lists.find(path); it != impl_->lists.end()) return it->second.given;
  throw std::logic_error("config '" + impl_->schema->kind() + "': no parameter '" + std::string(path) + "' in the schema");
}

std::string Config::where(std::string_view path) const {
  if (auto it = impl_->values.find(path); it != impl_->values.end())
    return location(it->second.given ? it->second.file : impl_->source, it->second.line, impl_->shown(path));
  if (auto it = impl_->lists.find(path); it != impl_->lists.end())
    return location(it->second.given ? it->second.file : impl_->source, it->second.line, impl_->shown(path));
  // A semantic error may name a section ("sm") or a path the schema lacks: still say the file.
  return location(impl_->source, 0, impl_->shown(path));
}

std::string Config::text(std::string_view path) const {
  auto it = impl_->values.find(path);
  if (it == impl_->values.end())
    throw std::logic_error("config '" + impl_->schema->kind() + "': no parameter '" + std::string(path) + "' in the schema");
  return it->second.text;
}

const Schema& Config::schema() const { return *impl_->schema; }
const std::string& Config::source() const { return impl_->source; }

bool Config::same_values(const Config& other) const {
  if (impl_->schema->kind() != other.impl_->schema->kind()) return false;
  if (impl_->values.size() != other.impl_->values.size() || impl_->lists.size() != other.impl_->lists.size()) return false;
  for (const auto& [path, v] : impl_->values) {
    auto it = other.impl_->values.find(path);
    if (it == other.impl_->values.end() || !(it->second == v)) return false;
  }
  for (const auto& [path, l] : impl_->lists) {
    auto it = other.impl_->lists.find(path);
    if (it == other.impl_->lists.end() || it->second.records.size() != l.records.size()) return false;
    for (std::size_t i = 0; i < l.records.size(); ++i)
      if (!l.records[i].same_values(it->second.records[i])) return false;
  }
  return true;
}

void Config::write_resolved(const std::filesystem::path& file) const { write_file_atomically(file, resolved_yaml()); }

}  // namespace tcsim::config
