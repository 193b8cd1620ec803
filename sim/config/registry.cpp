#include "config/registry.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/yaml_document.h"

namespace tcsim::config {

namespace {
std::map<std::string, const Schema& (*)()>& registry() {
  static std::map<std::string, const Schema& (*)()> r;
  return r;
}
}  // namespace

bool register_schema(const std::string& kind, const Schema& (*get)()) {
  registry()[kind] = get;
  return true;
}

const Schema* find_schema(const std::string& kind) {
  auto it = registry().find(kind);
  return it == registry().end() ? nullptr : &it->second();
}

std::vector<std::string> schema_kinds() {
  std::vector<std::string> out;
  for (const auto& [k, _] : registry()) out.push_back(k);
  return out;  // std::map: already sorted
}

std::string read_kind(const std::filesystem::path& file, long* line) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "config file not found");
  const YAML::Node root = parse_single_yaml_document(read_file(file), file.string());
  if (!root.IsMap() || !root["kind"])
    throw InputError(location(file.string(), 1, "kind"),
                     "expected a YAML map with a top-level `kind:` (one of the kinds `tcsim config describe` lists)");
  const YAML::Node kind = root["kind"];
  if (!kind.IsScalar() || kind.Scalar().empty())
    throw InputError(location(file.string(), kind.Mark().line + 1, "kind"), "expected a kind name such as gpu");
  if (line) *line = kind.Mark().line + 1;
  return kind.Scalar();
}

const Schema& schema_for_file(const std::filesystem::path& file) {
  long line = 0;
  const std::string kind = read_kind(file, &line);
  if (const Schema* s = find_schema(kind)) return *s;
  const auto kinds = schema_kinds();
  std::string list;
  for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
  throw InputError(location(file.string(), line, "kind"),
                   "unknown config kind '" + kind + "'; expected " +
                       (kinds.empty() ? std::string("a kind registered by a model (none is in this build)")
                                      : "one of: " + list));
}

}  // namespace tcsim::config
