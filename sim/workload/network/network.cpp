// Shapes, parameter counts and forward multiply-adds of layers and networks (conventions in
// models/README.md: MACs count only the GEMM-like layers, as torchvision's published GFLOPS do).
#include "workload/network/network.h"

#include <algorithm>

namespace tcsim::workload {

std::int64_t elements(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

namespace {
// Trainable parameters of one copy of `l`, in T's arithmetic.
template <class T>
T parameters(const Layer& l) {
  const bool tied = !l.tied_to.empty();
  auto v = [](std::int64_t x) { return T(x); };
  switch (l.kind) {
    case LayerKind::conv2d:
      return v(l.out_channels) * v(l.input.at(0) / l.groups) * v(l.kernel_h) * v(l.kernel_w) +
             (l.bias ? v(l.out_channels) : T(0));
    case LayerKind::linear:
      return (tied ? T(0) : v(l.input.back()) * v(l.out_features)) + (l.bias ? v(l.out_features) : T(0));
    case LayerKind::matmul:
      return l.inputs.size() < 2 ? v(l.k) * v(l.n) : T(0);  // a weight B when there is no second operand
    case LayerKind::embedding:
      return tied ? T(0) : v(l.vocab) * v(l.output.back());
    case LayerKind::batch_norm:  // affine scale and shift per channel
      return T(2) * v(l.input.size() == 3 ? l.input[0] : l.input.back());
    case LayerKind::layer_norm:
      return T(2) * v(l.input.back());
    case LayerKind::rms_norm:  // scale only
      return v(l.input.back());
    case LayerKind::moe:  // the router (d x experts, no bias) and each expert's two linears (no biases)
      return v(l.input.back()) * v(l.experts) + v(l.experts) * v(l.expert_matrices()) * v(l.input.back()) * v(l.ffn);
    case LayerKind::parameter:  // the tensor itself, once (not per sample)
      return v(elements(l.output));
    case LayerKind::position_bias:  // a bias per bucket and head
      return v(l.buckets) * v(l.heads);
    case LayerKind::rnn: {  // per layer and direction: gates x hidden rows of input and recurrent weights, two biases
      const T rows = v(rnn_gates(l.rnn_cell)) * v(l.hidden);
      T total = T(0);
      for (std::int64_t layer = 0; layer < l.rnn_layers; ++layer)
        total += v(l.rnn_directions()) * (rows * (v(l.rnn_input_weights(layer)) + v(l.hidden)) + (l.bias ? T(2) * rows : T(0)));
      return total;
    }
    default:
      return T(0);
  }
}
}  // namespace

std::int64_t Layer::params() const { return parameters<std::int64_t>(*this); }
long double Layer::params_wide() const { return parameters<long double>(*this); }

double Layer::forward_macs(std::int64_t batch) const {
  const double b = static_cast<double>(batch);
  switch (kind) {
    case LayerKind::conv2d:
      return b * static_cast<double>(elements(output)) * static_cast<double>(input.at(0) / groups) *
             static_cast<double>(kernel_h * kernel_w);
    case LayerKind::linear:
      return b * static_cast<double>(elements(input)) * static_cast<double>(out_features);
    case LayerKind::matmul:
      return b * static_cast<double>(matmul_batch) * static_cast<double>(m) * static_cast<double>(n) *
             static_cast<double>(k);
    case LayerKind::attention:
      // Q·Kᵀ and P·V over the whole q_len x kv_len score matrix (a causal mask is not subtracted:
      // the unfused path computes every score, and FLOP counters count them all).
      return b * 2.0 * static_cast<double>(heads) * static_cast<double>(q_len) * static_cast<double>(kv_len) *
             static_cast<double>(head_dim);
    case LayerKind::rnn: {
      // Every step's input and recurrent products, per layer and direction (skip_input: no input
      // product in the first layer).
      const double rows = static_cast<double>(rnn_gates(rnn_cell)) * static_cast<double>(hidden);
      double per_step = 0;
      for (std::int64_t layer = 0; layer < rnn_layers; ++layer)
        per_step += static_cast<double>(rnn_directions()) * rows *
                    static_cast<double>(rnn_input_weights(layer) + hidden);
      return b * static_cast<double>(q_len) * per_step;
    }
    case LayerKind::moe: {
      // The router over every token, and each expert's linears over the rows it runs on (topk:
      // every token through top_k experts).
      const double routing = b * static_cast<double>(q_len) * static_cast<double>(input.back()) * static_cast<double>(experts);
      const double per_row = static_cast<double>(expert_matrices()) * static_cast<double>(input.back()) * static_cast<double>(ffn);
      if (router == MoeRouter::topk) return routing + b * static_cast<double>(q_len) * static_cast<double>(top_k) * per_row;
      return routing + static_cast<double>(experts) * static_cast<double>(expert_rows(batch)) * per_row;
    }
    default:
      return 0;
  }
}

std::int64_t Layer::active_experts(std::int64_t batch) const {
  if (router != MoeRouter::topk) return experts;
  return std::max<std::int64_t>(1, std::min(experts, batch * q_len * top_k));
}

std::int64_t Layer::routed_rows(std::int64_t batch) const {
  if (router == MoeRouter::topk) {
    const std::int64_t active = active_experts(batch);
    return (batch * q_len * top_k + active - 1) / active;
  }
  const std::int64_t e = std::max<std::int64_t>(1, experts);
  return batch * std::min(capacity, (q_len + e - 1) / e);
}

std::int64_t Layer::expert_rows(std::int64_t batch) const {
  return dispatch == MoeDispatch::padded ? batch * capacity : routed_rows(batch);
}

bool Network::has_causal_self_attention() const {
  return std::any_of(layers.begin(), layers.end(),
                     [](const Layer& l) { return l.kind == LayerKind::attention && l.causal && !l.cross; });
}

std::int64_t Network::params() const {
  std::int64_t total = 0;
  for (const auto& l : layers) total += l.params() * l.count;
  return total;
}

double Network::forward_macs() const {
  double total = 0;
  for (const auto& l : layers)
    if (!l.train_only) total += l.forward_macs(batch) * static_cast<double>(l.count);
  return total;
}

}  // namespace tcsim::workload
