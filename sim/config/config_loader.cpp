// Loading a config: YAML files (with their `base:` chain) and --set overrides are first collected
// into a Layer of raw texts keyed by parameter path, each remembering its file and line; the
// derived file overrides its base field by field (a list as a whole); then every parameter of the
// schema is parsed, defaulted or reported missing.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/yaml_document.h"
#include "config/config_impl.h"
#include "config/suggest.h"

namespace tcsim::config {

namespace fs = std::filesystem;

namespace {

struct RawScalar {
  std::string text;
  std::string file;
  long line = 0;
};

struct RawList {
  YAML::Node node;
  std::string file;
  long line = 0;
};

struct Where {
  std::string file;
  long line = 0;
};

struct Layer {
  std::map<std::string, RawScalar> scalars;
  std::map<std::string, RawList> lists;
  std::map<std::string, Where> sections;  // section path -> where its map was written
};

long line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

std::string join_shown(const std::string& shown_prefix, const std::string& path) {
  return shown_prefix.empty() ? path : shown_prefix + "." + path;
}

// The names directly under `prefix` ("" for the top level), in declaration order.
std::vector<std::string> children(const Schema& schema, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& path : schema.all_paths()) {
    if (!prefix.empty() && (path.size() <= prefix.size() + 1 || path.compare(0, prefix.size(), prefix) != 0 ||
                            path[prefix.size()] != '.'))
      continue;
    std::string rest = prefix.empty() ? path : path.substr(prefix.size() + 1);
    std::string seg = rest.substr(0, rest.find('.'));
    if (std::find(out.begin(), out.end(), seg) == out.end()) out.push_back(seg);
  }
  return out;
}

// Every parameter, list and section path (suggestion candidates for a misplaced key).
std::vector<std::string> all_names(const Schema& schema) {
  std::vector<std::string> out;
  for (const auto& path : schema.all_paths()) {
    for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
      std::string section = path.substr(0, dot);
      if (std::find(out.begin(), out.end(), section) == out.end()) out.push_back(section);
    }
    out.push_back(path);
  }
  return out;
}

std::string unknown_key_help(const Schema& schema, const std::string& prefix, const std::string& key,
                             const std::string& full) {
  const auto siblings = children(schema, prefix);
  std::string s = closest(key, siblings);
  if (!s.empty()) return "; did you mean '" + (prefix.empty() ? s : prefix + "." + s) + "'?";
  s = closest(full, all_names(schema));
  if (!s.empty()) return "; did you mean '" + s + "'?";
  if (siblings.empty()) return "";
  if (siblings.size() > 16) return "; see `tcsim config describe " + schema.kind() + "` for the keys";
  return "; expected one of: " + join(siblings, ", ");
}

const char* node_kind(const YAML::Node& n) {
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "a single value";
}

// Collects the values of one YAML map (a whole file, a section or a list record) into `out`.
void walk_map(const YAML::Node& map, const Schema& schema, const std::string& prefix,
              const std::string& shown_prefix, const std::string& file, bool file_root, Layer& out) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node val = it->second;
    const long line = line_of(key);
    if (!key.IsScalar())
      throw InputError(location(file, line, shown_prefix), "expected a key name, got " + std::string(node_kind(key)));
    const std::string k = key.Scalar();
    if (file_root && (k == "version" || k == "kind" || k == "base")) continue;
    const std::string full = prefix.empty() ? k : prefix + "." + k;
    const std::string shown = join_shown(shown_prefix, full);
    if (out.scalars.count(full) || out.lists.count(full) || out.sections.count(full))
      if (!schema.is_section(full) || !val.IsMap() || out.scalars.count(full))
        throw InputError(location(file, line, shown), "duplicate key (it is already given above in this file)");
    if (const Param* p = schema.find_param(full)) {
      if (!val.IsScalar())
        throw InputError(location(file, line, shown),
                         "expected " + expected_form(*p) + ", got " + node_kind(val));
      out.scalars[full] = RawScalar{val.Scalar(), file, line};
    } else if (schema.find_list(full)) {
      if (!val.IsSequence())
        throw InputError(location(file, line, shown),
                         "expected a list of records (a YAML sequence of maps), got " + std::string(node_kind(val)));
      out.lists[full] = RawList{val, file, line};
    } else if (schema.is_section(full)) {
      if (!val.IsMap())
        throw InputError(location(file, line, shown), "expected a section (a map) with keys " +
                                                          join(children(schema, full), ", ") + ", got " +
                                                          node_kind(val));
      out.sections.emplace(full, Where{file, line});
      walk_map(val, schema, full, shown_prefix, file, false, out);
    } else {
      throw InputError(location(file, line, shown), "unknown key '" + k + "'" + unknown_key_help(schema, prefix, k, full));
    }
  }
}

// One YAML document: a second one (after `---`) is an error, not silently ignored.
YAML::Node parse_yaml(const std::string& text, const std::string& name) {
  return parse_single_yaml_document(text, name);
}

void check_header(const YAML::Node& root, const Schema& schema, const std::string& name) {
  if (!root.IsMap())
    throw InputError(location(name, root.IsNull() ? 0 : line_of(root)),
                     "expected a YAML map starting with `version: 1` and `kind: " + schema.kind() + "`, got " +
                         node_kind(root));
  const YAML::Node version = root["version"];
  if (!version) throw InputError(location(name, 1, "version"), "missing; expected `version: 1` (the config format version)");
  if (!version.IsScalar() || version.Scalar() != "1")
    throw InputError(location(name, line_of(version), "version"),
                     "expected 1 (the only config format version this tcsim reads), got '" +
                         (version.IsScalar() ? version.Scalar() : std::string(node_kind(version))) + "'");
  const YAML::Node kind = root["kind"];
  if (!kind) throw InputError(location(name, 1, "kind"), "missing; expected `kind: " + schema.kind() + "`");
  if (!kind.IsScalar() || kind.Scalar() != schema.kind())
    throw InputError(location(name, line_of(kind), "kind"),
                     "expected " + schema.kind() + " (this file is read as a " + schema.kind() + " config), got '" +
                         (kind.IsScalar() ? kind.Scalar() : std::string(node_kind(kind))) + "'");
}

// How many files a `base:` chain may have: deep enough for any real family of configs, shallow
// enough that a generated chain cannot exhaust the stack.
constexpr std::size_t kMaxBaseDepth = 32;

// One file and its base chain: the base's layer overlaid with this file's values.
Layer load_layer(const std::string& text, const std::string& name, const Schema& schema,
                 std::vector<std::string>& chain) {
  const YAML::Node root = parse_yaml(text, name);
  check_header(root, schema, name);
  Layer layer;
  if (const YAML::Node base = root["base"]) {
    const long line = line_of(base);
    if (!base.IsScalar() || base.Scalar().empty())
      throw InputError(location(name, line, "base"), "expected the name of a base config file, e.g. `base: v100.yaml`");
    const fs::path base_path = fs::path(name).parent_path() / base.Scalar();
    std::error_code ec;
    if (!fs::is_regular_file(base_path, ec))
      throw InputError(location(name, line, "base"), "base file '" + base_path.string() + "' not found");
    const std::string id = fs::weakly_canonical(base_path, ec).string();
    if (std::find(chain.begin(), chain.end(), id) != chain.end()) {
      std::string cycle;
      for (const auto& c : chain) cycle += fs::path(c).filename().string() + " -> ";
      throw InputError(location(name, line, "base"), "base files form a cycle: " + cycle + fs::path(id).filename().string());
    }
    if (chain.size() >= kMaxBaseDepth)
      throw InputError(location(name, line, "base"), "base chain deeper than " + std::to_string(kMaxBaseDepth) +
                                                         " files (the limit); is a base missing its end?");
    chain.push_back(id);
    layer = load_layer(read_file(base_path), base_path.string(), schema, chain);
    chain.pop_back();
  }
  Layer own;
  walk_map(root, schema, "", "", name, true, own);
  for (auto& [path, v] : own.scalars) layer.scalars[path] = std::move(v);
  for (auto& [path, v] : own.lists) layer.lists[path] = std::move(v);
  for (auto& [path, v] : own.sections) layer.sections[path] = std::move(v);
  return layer;
}

void apply_override(const std::string& option, const Schema& schema, Layer& layer) {
  const auto eq = option.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set", "expected KEY=VALUE like sm.count=40, got '" + option + "'");
  const std::string key(trim(std::string_view(option).substr(0, eq)));
  const std::string text = option.substr(eq + 1);
  const std::string where = location("--set", 0, key);
  if (key == "version" || key == "kind" || key == "base")
    throw InputError(where, "cannot be overridden with --set (it is part of the file, not a parameter)");
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(where, "the value '" + text + "' is not valid YAML: " + e.msg);
  }
  if (const Param* p = schema.find_param(key)) {
    if (!node.IsScalar())
      throw InputError(where, "expected " + expected_form(*p) + ", got " + node_kind(node) + " ('" + text + "')");
    layer.scalars[key] = RawScalar{node.Scalar(), "--set", 0};
  } else if (schema.find_list(key)) {
    if (!node.IsSequence())
      throw InputError(where, "expected a list of records in YAML flow form, e.g. [{a: 1}], got '" + text + "'");
    layer.lists[key] = RawList{node, "--set", 0};
  } else if (schema.is_section(key)) {
    throw InputError(where, "is a section, not a parameter; set one of its keys: " + join(children(schema, key), ", "));
  } else if (key == "power.mode") {  // what --clock sets
    throw InputError("--clock", "a " + schema.kind() + " config has no power model or clock governor: --clock (power.mode) "
                                "applies to GPU configs");
  } else {
    std::string help = did_you_mean(key, all_names(schema));
    throw InputError(where, "unknown parameter" + (help.empty() ? "; see `tcsim config describe " + schema.kind() + "`" : help));
  }
}

// Where a missing parameter would have been written: its nearest enclosing section, if written.
Where missing_where(const Layer& layer, const std::string& path, const Where& fallback) {
  std::string p = path;
  for (auto dot = p.rfind('.'); dot != std::string::npos; dot = p.rfind('.')) {
    p.resize(dot);
    if (auto it = layer.sections.find(p); it != layer.sections.end()) return it->second;
  }
  return fallback;
}

std::shared_ptr<const Config::Impl> finalize(std::shared_ptr<const Schema> schema, const Layer& layer,
                                             const std::string& source, const std::string& shown_prefix,
                                             const Where& fallback) {
  auto impl = std::make_shared<Config::Impl>();
  impl->schema = schema;
  impl->source = source;
  impl->prefix = shown_prefix;
  for (const auto& entry : schema->entries()) {
    if (const auto* p = std::get_if<Param>(&entry)) {
      const std::string shown = join_shown(shown_prefix, p->path);
      Value v;
      if (auto it = layer.scalars.find(p->path); it != layer.scalars.end()) {
        const RawScalar& raw = it->second;
        try {
          v = parse_value(*p, raw.text);
        } catch (const ParseError& e) {
          throw InputError(location(raw.file, raw.line, shown), e.what());
        }
        v.file = raw.file;
        v.line = raw.line;
        v.given = true;
      } else if (!p->default_text.empty()) {
        v = parse_value(*p, p->default_text);
        v.file = source;
      } else {
        const Where w = missing_where(layer, p->path, fallback);
        throw InputError(location(w.file, w.line, shown),
                         "missing required parameter: expected " + expected_form(*p) + " (" + p->description + ")");
      }
      impl->values.emplace(p->path, std::move(v));
    } else {
      const auto& l = std::get<ListParam>(entry);
      ListValue lv;
      lv.file = source;
      if (auto it = layer.lists.find(l.path); it != layer.lists.end()) {
        const RawList& raw = it->second;
        lv.file = raw.file;
        lv.line = raw.line;
        lv.given = true;
        for (std::size_t i = 0; i < raw.node.size(); ++i) {
          const YAML::Node item = raw.node[i];
          const std::string shown = join_shown(shown_prefix, l.path) + "[" + std::to_string(i) + "]";
          const long line = line_of(item) ? line_of(item) : raw.line;
          if (!item.IsMap())
            throw InputError(location(raw.file, line, shown),
                             "expected a record (a map) with keys " + join(children(*l.record, ""), ", ") + ", got " +
                                 node_kind(item));
          Layer rec;
          walk_map(item, *l.record, "", shown, raw.file, false, rec);
          lv.records.push_back(ConfigBuilder::make(finalize(l.record, rec, raw.file, shown, Where{raw.file, line})));
        }
      }
      impl->lists.emplace(l.path, std::move(lv));
    }
  }
  return impl;
}

Config load_text(const std::string& text, const Schema& schema, const std::string& name,
                 const std::vector<std::string>& overrides, std::vector<std::string> chain) {
  for (const char* reserved : {"version", "kind", "base"})
    if (schema.find_param(reserved) || schema.find_list(reserved) || schema.is_section(reserved))
      throw std::logic_error("schema '" + schema.kind() + "' declares the reserved key '" + reserved + "'");
  Layer layer = load_layer(text, name, schema, chain);
  for (const auto& o : overrides) apply_override(o, schema, layer);
  auto owned = std::make_shared<const Schema>(schema);
  return ConfigBuilder::make(finalize(owned, layer, name, "", Where{name, 0}));
}

}  // namespace

Config Config::load(const fs::path& file, const Schema& schema, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw InputError(file.string(), "config file not found");
  return load_text(read_file(file), schema, file.string(), overrides, {fs::weakly_canonical(file, ec).string()});
}

Config Config::from_yaml_text(const std::string& text, const Schema& schema, const std::string& name,
                              const std::vector<std::string>& overrides) {
  return load_text(text, schema, name, overrides, {});
}

}  // namespace tcsim::config
