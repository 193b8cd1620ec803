#pragma once
// Typed reads of YAML values for the network reader, each throwing InputError at `where`
// ("file:line: key") with what was expected.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tcsim::workload {

using Names = std::map<std::string, std::int64_t>;  // batch, seq, past and the constants

long line_of(const YAML::Node& node);  // 1-based; 0 when unknown

// An integer or an integer expression over `names` (int_expression.h).
std::int64_t read_int(const YAML::Node& value, const Names& names, const std::string& where);
bool read_bool(const YAML::Node& value, const std::string& where);          // true | false
double read_number(const YAML::Node& value, const std::string& where);
std::string read_text(const YAML::Node& value, const std::string& where);   // a non-empty scalar

// Every key of `map` must be one of `allowed` and appear once; `what` names the map in messages
// ("a conv2d layer"), `where_of(key, line)` locates a key.
void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what,
                const std::function<std::string(const std::string& key, long line)>& where_of);

}  // namespace tcsim::workload
