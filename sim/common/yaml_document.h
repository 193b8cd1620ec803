#pragma once
// Every YAML reader's entry: one document (a second one after `---` is an error, not ignored),
// no key given twice in any map (yaml-cpp keeps both and a lookup silently takes the first), and
// yaml-cpp's parse errors as InputError "file:line: not valid YAML: ...".
#include <yaml-cpp/yaml.h>

#include <string>

namespace tcsim {

// `what` names the format in the parse-error message ("YAML", "JSON").
YAML::Node load_yaml_document(const std::string& text, const std::string& file, const char* what = "YAML");

// The same for a file; InputError when it cannot be read.
YAML::Node load_yaml_file(const std::string& file, const char* what = "YAML");

}  // namespace tcsim
