// The YAML spellings of the layer kinds (models/README.md lists them with their fields).
#include <string>

#include "workload/network/network.h"

namespace tcsim::workload {
namespace {

struct KindName {
  LayerKind kind;
  const char* name;
};

constexpr KindName kKinds[] = {
    {LayerKind::conv2d, "conv2d"},
    {LayerKind::linear, "linear"},
    {LayerKind::matmul, "matmul"},
    {LayerKind::attention, "attention"},
    {LayerKind::batch_norm, "batch_norm"},
    {LayerKind::layer_norm, "layer_norm"},
    {LayerKind::rms_norm, "rms_norm"},
    {LayerKind::relu, "relu"},
    {LayerKind::gelu, "gelu"},
    {LayerKind::silu, "silu"},
    {LayerKind::tanh, "tanh"},
    {LayerKind::sigmoid, "sigmoid"},
    {LayerKind::add, "add"},
    {LayerKind::mul, "mul"},
    {LayerKind::dropout, "dropout"},
    {LayerKind::max_pool, "max_pool"},
    {LayerKind::avg_pool, "avg_pool"},
    {LayerKind::global_avg_pool, "global_avg_pool"},
    {LayerKind::flatten, "flatten"},
    {LayerKind::reshape, "reshape"},
    {LayerKind::concat, "concat"},
    {LayerKind::softmax, "softmax"},
    {LayerKind::embedding, "embedding"},
    {LayerKind::rope, "rope"},
    {LayerKind::cross_entropy, "cross_entropy"},
    {LayerKind::moe, "moe"},
    {LayerKind::position_bias, "position_bias"},
    {LayerKind::rnn, "rnn"},
    {LayerKind::parameter, "parameter"},
};

}  // namespace

const char* to_string(LayerKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

int rnn_gates(RnnCell cell) {
  switch (cell) {
    case RnnCell::lstm: return 4;
    case RnnCell::gru: return 3;
    case RnnCell::tanh:
    case RnnCell::relu: return 1;
  }
  return 1;
}

const char* to_string(RnnCell cell) {
  switch (cell) {
    case RnnCell::lstm: return "lstm";
    case RnnCell::gru: return "gru";
    case RnnCell::tanh: return "tanh";
    case RnnCell::relu: return "relu";
  }
  return "?";
}

bool parse_layer_kind(const std::string& text, LayerKind& kind) {
  for (const auto& k : kKinds)
    if (text == k.name) {
      kind = k.kind;
      return true;
    }
  return false;
}

}  // namespace tcsim::workload
