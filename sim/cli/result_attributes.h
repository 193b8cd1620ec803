#pragma once
// The attributes every result folder starts with: tcsim's version, the command line, the config
// file, its resolved YAML and the accelerator's name; verbs append their own.
#include <string>
#include <utility>
#include <vector>

#include "common/version.h"

namespace tcsim::cli {

using Attributes = std::vector<std::pair<std::string, std::string>>;

inline Attributes result_attributes(const std::string& command_line, const std::string& config_file,
                                    const std::string& resolved_yaml, const std::string& accelerator,
                                    const Attributes& more = {}) {
  Attributes a = {{"tcsim_version", kVersion},
                  {"command_line", command_line},
                  {"config_file", config_file},
                  {"config_yaml", resolved_yaml},
                  {"accelerator", accelerator}};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

}  // namespace tcsim::cli
