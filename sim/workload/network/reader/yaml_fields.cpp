#include "workload/network/reader/yaml_fields.h"

#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"
#include "config/suggest.h"
#include "workload/network/reader/int_expression.h"

namespace tcsim::workload {
namespace {

const char* node_kind(const YAML::Node& n) {
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "a single value";
}

}  // namespace

long line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

std::int64_t read_int(const YAML::Node& value, const Names& names, const std::string& where) {
  if (!value.IsScalar())
    throw InputError(where, std::string("expected an integer or an integer expression, got ") + node_kind(value));
  try {
    return evaluate_int_expression(value.Scalar(), names);
  } catch (const ParseError& e) {
    throw InputError(where, e.what());
  }
}

bool read_bool(const YAML::Node& value, const std::string& where) {
  const std::string t = value.IsScalar() ? value.Scalar() : "";
  if (t == "true") return true;
  if (t == "false") return false;
  throw InputError(where, "expected true or false" + (t.empty() ? std::string() : ", got '" + t + "'"));
}

double read_number(const YAML::Node& value, const std::string& where) {
  if (!value.IsScalar()) throw InputError(where, std::string("expected a number, got ") + node_kind(value));
  try {
    return units::parse_number(value.Scalar());
  } catch (const ParseError&) {
    throw InputError(where, "expected a number, got '" + value.Scalar() + "'");
  }
}

std::string read_text(const YAML::Node& value, const std::string& where) {
  if (!value.IsScalar() || value.Scalar().empty())
    throw InputError(where, std::string("expected a name or text, got ") + node_kind(value));
  return value.Scalar();
}

void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what,
                const std::function<std::string(const std::string& key, long line)>& where_of) {
  std::vector<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const long line = line_of(it->first);
    if (!it->first.IsScalar()) throw InputError(where_of("", line), "expected a key name");
    const std::string key = it->first.Scalar();
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known)
      throw InputError(where_of(key, line), "unknown key for " + what + " (expected one of: " +
                                                join(allowed, ", ") + ")" + config::did_you_mean(key, allowed));
    for (const auto& s : seen)
      if (s == key) throw InputError(where_of(key, line), "duplicate key (it is already given above)");
    seen.push_back(key);
  }
}

}  // namespace tcsim::workload
