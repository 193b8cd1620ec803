// config.resolved.yaml: every parameter (defaults included) in schema order, nested as sections,
// each value in the form it was written ("96KiB" stays "96KiB"), so that loading it again gives
// the same Config.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "config/config_impl.h"

namespace tcsim::config {

namespace {

// Emits the entries of `impl` whose path lies under `prefix` ("" or "sm.") as a block map body.
void emit_entries(YAML::Emitter& out, const Config::Impl& impl, const std::string& prefix) {
  std::vector<std::string> done;  // first segments already emitted
  for (const auto& entry : impl.schema->entries()) {
    const std::string& path = std::visit([](const auto& x) -> const std::string& { return x.path; }, entry);
    if (path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    const std::string seg = rest.substr(0, rest.find('.'));
    if (std::find(done.begin(), done.end(), seg) != done.end()) continue;
    done.push_back(seg);
    out << YAML::Key << seg << YAML::Value;
    if (seg != rest) {  // a section
      out << YAML::BeginMap;
      emit_entries(out, impl, prefix + seg + ".");
      out << YAML::EndMap;
    } else if (const auto* p = std::get_if<Param>(&entry)) {
      const Value& v = impl.values.at(path);  // no "default" mark: showing a resolved file again must not change it
      out << v.text << YAML::Comment(p->description);
    } else {
      const ListValue& l = impl.lists.at(path);
      if (l.records.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      } else {
        out << YAML::BeginSeq;
        for (const auto& r : l.records) {
          out << YAML::BeginMap;
          emit_entries(out, ConfigBuilder::impl(r), "");
          out << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
    }
  }
}

}  // namespace

std::string Config::resolved_yaml() const {
  YAML::Emitter out;
  out << YAML::Comment("resolved " + impl_->schema->kind() + " config from " + impl_->source +
                       ": every parameter, defaults included")
      << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "kind" << YAML::Value << impl_->schema->kind();
  emit_entries(out, *impl_, "");
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace tcsim::config
