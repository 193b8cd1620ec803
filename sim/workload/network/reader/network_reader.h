#pragma once
// Reads a network definition (models/*.yaml; the format is documented in models/README.md),
// binds its variables and infers every layer's shape.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "workload/network/network.h"

namespace tcsim::workload {

// Values for the network's variables; unset ones take the YAML's `defaults:`.
struct NetworkVariables {
  std::optional<std::int64_t> batch, seq, past;
};

// Throws InputError("file:line: layers[7].kernel" or "...: layer 'conv2': kernel", what was
// expected) for malformed YAML, unknown keys or layer kinds, undefined references, shapes that do
// not fit (a kernel larger than its padded input, inconsistent inputs of an add, ...).
Network read_network(const std::filesystem::path& file, const NetworkVariables& vars = {});
Network parse_network(const std::string& yaml_text, const std::string& file_name, const NetworkVariables& vars = {});

}  // namespace tcsim::workload
