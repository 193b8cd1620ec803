#pragma once
// A network workload as `tcsim network` and `tcsim sweep` take it: a model file with batch, seq,
// KV-cache length, precision and pass, read and checked once (the verb's options and a sweep
// spec's workloads: entries name the same things).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>

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

// How the framework runs the step, as text: `tcsim network`'s --layout, --framework, --attention,
// --kv-cache, --cuda-graphs, --fuse-epilogues, --fuse-bn-relu, --fp32-master, --eval-metrics and a sweep
// workload's keys of the same names (underscores for dashes).
struct NetworkRunChoices {
  std::string layout = "nchw";        // nchw | nhwc (channels-last)
  std::string framework = "pytorch";  // pytorch | mxnet | tensorflow
  std::string attention = "auto";     // auto | fused | unfused
  std::string kv_cache = "static";    // static | dynamic (Hugging Face's DynamicCache) | cropped (the same, cropped after each step)
  bool cuda_graphs = false, fuse_epilogues = false, fuse_bn_relu = false, fp32_master = false, eval_metrics = false;
};
// The choices by a sweep workload's key names (the CLI's flags spell them with dashes): one list
// for reading a spec, refusing them on a trace and writing the resolved spec.
inline constexpr std::pair<const char*, std::string NetworkRunChoices::*> kRunChoiceText[] = {
    {"layout", &NetworkRunChoices::layout},
    {"framework", &NetworkRunChoices::framework},
    {"attention", &NetworkRunChoices::attention},
    {"kv_cache", &NetworkRunChoices::kv_cache}};
inline constexpr std::pair<const char*, bool NetworkRunChoices::*> kRunChoiceSwitches[] = {
    {"cuda_graphs", &NetworkRunChoices::cuda_graphs},
    {"fuse_epilogues", &NetworkRunChoices::fuse_epilogues},
    {"fuse_bn_relu", &NetworkRunChoices::fuse_bn_relu},
    {"fp32_master", &NetworkRunChoices::fp32_master},
    {"eval_metrics", &NetworkRunChoices::eval_metrics}};
// Sets the choices on `opt`. A bad value is an InputError at where(key), key one of "layout",
// "framework", "attention", "kv_cache".
void apply_run_choices(const NetworkRunChoices& c, NetworkRunOptions& opt,
                       const std::function<std::string(const std::string& key)>& where);

// Refuses, at where("kv_cache"), a dynamic KV cache (Hugging Face's DynamicCache) for a network
// without causal self-attention: an image network, an encoder, an LSTM keep no cache to grow.
void check_run_choices_fit(const workload::Network& net, const NetworkRunOptions& opt,
                           const std::function<std::string(const std::string& key)>& where);

// InputError naming `where_*` (an option like "--precision" or a spec's "file:line: key") for a
// bad precision or pass, for seq/kv_len on an image network and for a KV cache in training (at
// where_pass); the reader's errors otherwise.
workload::Precision parse_precision_or_throw(const std::string& text, const std::string& where);
NetworkWorkload read_network_workload(const NetworkWorkloadArgs& a, const std::string& where_precision = "--precision",
                                      const std::string& where_pass = "--pass", const std::string& where_seq = "--seq");

}  // namespace tcsim::engine
