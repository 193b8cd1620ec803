#pragma once
// Every YAML reader's entry: one document (a second one after `---` is an error, not ignored),
// no key given twice in any map (yaml-cpp keeps both and a lookup silently takes the first), and
// yaml-cpp's parse errors as InputError "file:line: not valid YAML: ...".
#include <yaml-cpp/yaml.h>

#include <string>

namespace tcsim {

// The one document of `text` (null when there is none), without the duplicate-key check: parse
// errors and a second document are InputErrors naming `file` and the line. Never calls
// YAML::LoadAll, which loops forever on some malformed input in yaml-cpp 0.7 (a ',' where a
// document starts: its parser yields empty documents without consuming it); see the .cpp.
YAML::Node parse_single_yaml_document(const std::string& text, const std::string& file, const char* what = "YAML");

// `what` names the format in the parse-error message ("YAML", "JSON").
YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* what = "YAML");

// The same for a file; InputError when it cannot be read.
YAML::Node load_yaml_file(const std::string& file, const char* what = "YAML");

}  // namespace tcsim
