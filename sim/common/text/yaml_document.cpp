#include "common/text/yaml_document.h"

#include <yaml-cpp/eventhandler.h>

#include <set>
#include <sstream>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"

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

// Parser events ignored except where a document starts and where its first node is.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start, node;  // node: of the document's root (its line is where messages point)
  void OnDocumentStart(const YAML::Mark& mark) override { start = node = mark, seen_node_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { at(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { at(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { at(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { at(m); }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { at(m); }
  void OnMapEnd() override {}

 private:
  bool seen_node_ = false;
  void at(const YAML::Mark& m) {
    if (!seen_node_) node = m, seen_node_ = true;
  }
};

[[noreturn]] void not_valid(const std::string& file, const YAML::Mark& mark, const char* what, const std::string& msg) {
  throw InputError(location(file, mark.line >= 0 ? mark.line + 1 : 0), std::string("not valid ") + what + ": " + msg);
}

}  // namespace

YAML::Node parse_single_yaml_document(const std::string& text, const std::string& file, const char* what) {
  YAML::Node first;
  try {
    first = YAML::Load(text);  // the first document only: one pass of the parser
  } catch (const YAML::Exception& e) {
    not_valid(file, e.mark, what, e.msg);
  }
  // Whether a second document follows, in at most three bounded passes. yaml-cpp 0.7 answers a token
  // that cannot start a document (',' outside [ ] or { }) with an empty document that does not consume
  // it, forever: a document starting where the one before started is that token, a parse error.
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts events;
  YAML::Mark second, second_node;
  try {
    if (!parser.HandleNextDocument(events) || !parser.HandleNextDocument(events)) return first;
    second = events.start;
    second_node = events.node;
    if (parser.HandleNextDocument(events) && events.start.pos == second.pos) {
      const bool inside = second.pos >= 0 && std::size_t(second.pos) < text.size();
      const char c = inside ? text[std::size_t(second.pos)] : '?';
      not_valid(file, second, what,
                "unexpected '" + printable(std::string(1, c)) + "' where a value should start" +
                    (c == ',' ? " (a ',' outside [ ] or { })" : ""));
    }
  } catch (const YAML::Exception& e) {
    not_valid(file, e.mark, what, e.msg);
  }
  throw InputError(location(file, second_node.line >= 0 ? long(second_node.line) + 1 : 0),
                   "a second YAML document (after `---`); the file must hold exactly one");
}

YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* what) {
  const YAML::Node doc = parse_single_yaml_document(text, file, what);
  check_unique_keys(doc, file);
  return doc;
}

YAML::Node load_yaml_file(const std::string& file, const char* what) {
  return load_yaml_document(read_file(file), file, what);
}

}  // namespace tcsim
