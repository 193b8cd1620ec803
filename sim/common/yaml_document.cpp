#include "common/yaml_document.h"

#include <set>

#include "common/atomic_file.h"
#include "common/error.h"

namespace tcsim {
namespace {

long line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

void check_unique_keys(const YAML::Node& node, const std::string& file) {
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : node) {
      if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second)
        throw InputError(location(file, line_of(kv.first), kv.first.Scalar()),
                         "duplicate key (it is already given above in the same map)");
      check_unique_keys(kv.second, file);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) check_unique_keys(item, file);
  }
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* what) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw InputError(location(file, e.mark.line >= 0 ? e.mark.line + 1 : 0), std::string("not valid ") + what + ": " + e.msg);
  }
  if (docs.size() > 1)
    throw InputError(location(file, line_of(docs[1])), "a second YAML document (after `---`); the file must hold exactly one");
  if (docs.empty()) return YAML::Node();
  check_unique_keys(docs.front(), file);
  return docs.front();
}

YAML::Node load_yaml_file(const std::string& file, const char* what) {
  return load_yaml_document(read_file(file), file, what);
}

}  // namespace tcsim
