#pragma once
// Registry so `tcsim config describe|check|show` (and the engine) can find a schema by kind.
// Models register their schema from a file in sim/cli/ (e.g. sim/cli/config/schema_gpu.cpp) with
//   static const bool r = tcsim::config::register_schema("gpu", &tcsim::gpu::config_schema);
#include <filesystem>
#include <string>
#include <vector>

#include "config/schema.h"

namespace tcsim::config {

bool register_schema(const std::string& kind, const Schema& (*get)());
const Schema* find_schema(const std::string& kind);   // nullptr when no schema has that kind
std::vector<std::string> schema_kinds();              // sorted

// The top-level `kind:` of a YAML config file. Throws InputError(file:line: kind) when the file
// is missing, is not YAML, is not a map or has no string `kind:`. `line` (when given) receives the
// 1-based line of the `kind:` key.
std::string read_kind(const std::filesystem::path& file, long* line = nullptr);

// The schema for a config file's kind; throws InputError(file:line: kind) naming the registered
// kinds when none has that kind.
const Schema& schema_for_file(const std::filesystem::path& file);

}  // namespace tcsim::config
