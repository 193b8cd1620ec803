#pragma once
// A network workload as `tcsim network` and `tcsim sweep` take it: a model file with batch, seq,
// KV-cache length, precision and pass, read and checked once (the verb's options and a sweep
// spec's workloads: entries name the same things).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/network/network_estimate.h"
#include "workload/network/network.h"

namespace tcsim::engine {

struct NetworkWorkloadArgs {
  std::filesystem::path model;
  std::optional<std::int64_t> batch, seq, kv_len;
  std::string precision = "fp32";
  std::string pass = "infer";
};

struct NetworkWorkload {
  workload::Network network;
  NetworkRunOptions options;   // precision and training set; the rest default
};

// InputError naming `where_*` (an option like "--precision" or a spec's "file:line: key") for a
// bad precision or pass, and for seq/kv_len on an image network; the reader's errors otherwise.
workload::Precision parse_precision_or_throw(const std::string& text, const std::string& where);
NetworkWorkload read_network_workload(const NetworkWorkloadArgs& a, const std::string& where_precision = "--precision",
                                      const std::string& where_pass = "--pass", const std::string& where_seq = "--seq");

}  // namespace tcsim::engine
