#pragma once
// A network with concrete shapes: the layers of a models/*.yaml file (format: models/README.md)
// after the variables (batch, seq, past) are bound and every shape is inferred. read_network()
// (network_reader.h) builds it; lower_network() (lowering.h) turns it into kernels for a pass and
// a precision mode.
#include <cstdint>
#include <string>
#include <vector>

namespace tcsim::workload {

enum class LayerKind {
  // GEMM-like: run on tensor cores / the array
  conv2d, linear, matmul, attention,
  // normalisation
  batch_norm, layer_norm, rms_norm,
  // elementwise (one or two inputs of the same shape)
  relu, gelu, silu, tanh, sigmoid, add, mul, dropout,
  // pooling and reshaping (flatten and reshape move no data; concat joins its inputs along an axis)
  max_pool, avg_pool, global_avg_pool, flatten, reshape, concat,
  // the rest
  softmax, embedding, rope, cross_entropy,
  // mixture of experts (a router and expert feed-forward networks); T5's attention score bias
  moe, position_bias,
  // recurrent layers (LSTM, GRU, Elman RNN) as cuDNN runs them
  rnn,
  // a learned tensor read as it is (ViT's class token and position embedding): no input, and one
  // copy per step, not per sample (its readers broadcast it over the batch)
  parameter,
};
constexpr LayerKind kLastLayerKind = LayerKind::parameter;

// The YAML spelling ("conv2d", "layer_norm", ...), and back (false for an unknown name).
const char* to_string(LayerKind kind);
bool parse_layer_kind(const std::string& text, LayerKind& kind);

// A per-sample tensor shape: the batch dimension is implicit and comes first. [C, H, W] for
// images (channels first whatever the memory layout), [tokens, features] for sequences,
// [features] for vectors.
using Shape = std::vector<std::int64_t>;
std::int64_t elements(const Shape& s);  // product of the dimensions (1 for [])
std::string to_string(const Shape& s);  // "[64, 56, 56]"

enum class AttentionImpl { automatic, fused, unfused };

// gelu: torch.nn.GELU (erf, one kernel), or Hugging Face's NewGELUActivation ("gelu_new" in GPT-2
// and GPT-3 style configs): the tanh approximation written as eight eager elementwise PyTorch ops.
enum class GeluForm { erf, tanh_eager };

// rms_norm: one fused kernel, or Hugging Face's eager RMSNorm (T5LayerNorm, LlamaRMSNorm): pow, mean,
// add, rsqrt and two multiplies, one PyTorch kernel each.
enum class RmsNormForm { fused, eager };

// rope: one fused kernel (vLLM's, FlashInfer's, Megatron's), or Hugging Face's eager
// apply_rotary_pos_emb: neg, cat, two multiplies and an add, one PyTorch kernel each.
enum class RopeForm { fused, eager };

// moe: how the tokens reach the experts. routed: each expert runs on the tokens its router sent it
// (Hugging Face's SwitchTransformersSparseMLP loop: a boolean-mask gather and scatter per expert);
// padded: each expert runs on a buffer of capacity x batch rows, filled with its tokens (GShard's and
// Switch's capacity-padded dispatch; NeuSight's patched SwitchTransformersSparseMLP.forward);
// grouped: an inference engine's fused MoE kernels (vLLM's fused_moe): the tokens sorted by expert
// on the GPU, then one grouped GEMM kernel over every expert per linear, no host sync.
enum class MoeDispatch { routed, padded, grouped };

// moe: the router. switch: Switch Transformer's top-1 with an expert capacity (Hugging Face's
// SwitchTransformersTop1Router); topk: softmax, the top_k experts per token, their weights
// renormalised, no capacity (Hugging Face's MixtralSparseMoeBlock).
enum class MoeRouter { switch_top1, topk };

// rnn: the cell, as cuDNN (and PyTorch's nn.LSTM / nn.GRU / nn.RNN) defines it. lstm: four gates
// (input, forget, cell, output) and a cell state; gru: three (reset, update, new), the reset gate
// applied to the recurrent product plus its bias (cuDNN's and PyTorch's form); tanh and relu: the
// Elman cell, one gate.
enum class RnnCell { lstm, gru, tanh, relu };
int rnn_gates(RnnCell cell);         // 4, 3, 1, 1
const char* to_string(RnnCell cell);  // "lstm", "gru", "tanh", "relu"

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::linear;
  std::string where;         // "file:line" of its definition (errors, the report)
  std::vector<int> inputs;   // producers: indices into Network::layers, -1 = the network input
  Shape input;               // shape of inputs[0]
  Shape output;
  std::int64_t count = 1;    // identical copies (inside `repeat: N`): totals multiply by it
  std::string group;         // name of the repeat group it belongs to ("" when none)
  bool train_only = false;   // run only in a training pass (the loss: cross_entropy)

  // conv2d; max_pool / avg_pool use kernel, stride, padding too
  std::int64_t out_channels = 0;
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  std::int64_t dilation_h = 1, dilation_w = 1, groups = 1;
  bool bias = false;         // conv2d, linear

  // linear: y = x·Wᵀ (+ b) over the last dimension: in_features = input.back()
  std::int64_t out_features = 0;
  // linear: reads only the first token's row of its producer's [tokens, d] output (BERT's pooler
  // on [CLS]); `input` is then the row it reads, [d], and the output [out_features].
  bool first_token = false;
  // linear: reads only `tokens` rows of its producer's [tokens, d] output (0: all), the rows a
  // gather selects (DeepLearningExamples' BERT runs its MLM head on the masked tokens only);
  // `input` is then [tokens, d] and the output [tokens, out_features].
  std::int64_t tokens = 0;

  // matmul (a product of two activations, e.g. attention scores written out): per sample,
  // `matmul_batch` independent [m x k]·[k x n] products. inputs[0] is A, inputs[1] (if any) B.
  std::int64_t m = 0, n = 0, k = 0, matmul_batch = 1;

  // attention core, softmax(Q·Kᵀ/sqrt(d) [+ causal mask])·V: input [q_len, (heads + 2 kv_heads) *
  // head_dim] (a fused QKV projection) or [q_len, heads * head_dim] with K and V of the same
  // projection; output [q_len, heads * head_dim]. kv_len = past + q_len (KV cache + new tokens).
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, q_len = 0, kv_len = 0;
  bool causal = false;
  AttentionImpl impl = AttentionImpl::automatic;

  // concat: the per-sample axis its inputs are joined along (0 = the first per-sample dimension:
  // channels of [C, H, W], tokens of [tokens, features]; negative counts from the end)
  std::int64_t axis = 0;

  // embedding: a table of vocab x output.back() rows; the input holds token ids
  std::int64_t vocab = 0;
  // embedding with `first_position`: a learned absolute position table (BERT, GPT-2, OPT), whose ids
  // are the step's positions, past + 0 .. past + tokens - 1, from this row on (OPT keeps 2 rows
  // before the first position); -1: the ids are tokens. A step past the table's end cannot run.
  std::int64_t first_position = -1;

  // dropout: the probability of zeroing an element; attention: that of its dropout on the attention
  // probabilities in training (Hugging Face's eager attention: attention_probs_dropout_prob, attn_pdrop)
  double probability = 0;
  GeluForm gelu_form = GeluForm::erf;  // gelu

  // Weights shared with an earlier layer (GPT-2's lm_head and wte): no parameters of its own.
  std::string tied_to;

  RmsNormForm rms_form = RmsNormForm::fused;  // rms_norm
  RopeForm rope_form = RopeForm::fused;       // rope

  // mul with one input: y = x * scalar (`scalar` given; a tied LM head's d_model^-0.5 in T5)
  bool has_scalar = false;
  double scalar = 1;

  // attention: `cross` = the keys and values come from another sequence (an encoder's output):
  // kv_len is their token count, no KV cache. A fourth input is an additive score bias
  // [heads, q_len, kv_len] (T5: the relative position bias plus the mask) used instead of the
  // scale and the mask.
  bool cross = false;

  // moe (a router, then `experts` feed-forward networks d -> ffn -> d): capacity = tokens an
  // expert takes per sample under the switch router (it drops the rest); activation after the
  // first linear (relu, gelu or silu); dropout = its probability after the activation in training;
  // jitter = the router's multiplicative input noise in training.
  std::int64_t experts = 0, ffn = 0, capacity = 0;
  LayerKind activation = LayerKind::relu;
  MoeDispatch dispatch = MoeDispatch::routed;
  bool jitter = false;
  MoeRouter router = MoeRouter::switch_top1;
  std::int64_t top_k = 1;   // experts per token (topk router)
  bool gated = false;       // experts w2(act(w1 x) * w3 x) (SwiGLU), else w2(act(w1 x))
  // Tokens each expert runs on for `batch` samples: batch x the capacity (padded); the tokens
  // spread evenly over the experts, up to each sample's capacity (switch, routed); the batch's
  // tokens' top_k choices spread evenly over the experts they reach (topk).
  std::int64_t expert_rows(std::int64_t batch) const;
  // Tokens the router sends each expert for `batch` samples (what its gather and scatter move):
  // expert_rows but for padded dispatch, whose GEMMs run on the whole buffer.
  std::int64_t routed_rows(std::int64_t batch) const;
  // Experts that get tokens: all of them, except under the topk router when the batch makes fewer
  // (token, expert) choices than there are experts (a decode step: 2 of Mixtral's 8 at batch 1).
  std::int64_t active_experts(std::int64_t batch) const;
  std::int64_t expert_matrices() const { return gated ? 3 : 2; }

  // position_bias (T5's relative attention bias): `buckets` learned biases per head looked up by
  // the bucketed distance key - query (0: none, a zero bias: T5's cross-attention), up to
  // `max_distance`; `causal`: one-directional buckets and a causal mask (a decoder's). `heads`.
  std::int64_t buckets = 0, max_distance = 128;

  // rnn: `rnn_layers` stacked layers of `hidden` units over an input [seq, features] (seq = q_len),
  // each layer's input the previous layer's output; `bidirectional`: a forward and a backward
  // direction per layer, their outputs concatenated; `bias` (cuDNN's double bias: the input's and
  // the recurrent product's); `skip_input`: cuDNN's CUDNN_SKIP_INPUT, the first layer has no input
  // weights and adds its input, whose width must be `hidden`, to every gate (DeepBench's RNNs).
  // `probability` (the `dropout` field): training's dropout on each stacked layer's output but the
  // last (nn.LSTM's dropout, run by cuDNN between the layers).
  RnnCell rnn_cell = RnnCell::lstm;
  std::int64_t hidden = 0, rnn_layers = 1;
  bool bidirectional = false, skip_input = false;
  std::int64_t rnn_directions() const { return bidirectional ? 2 : 1; }
  // The input width of stacked layer `layer` (0: the layer's input; then the previous layer's output).
  std::int64_t rnn_layer_input(std::int64_t layer) const { return layer == 0 ? input.back() : rnn_directions() * hidden; }
  // Input-weight columns of stacked layer `layer` (0 for the first under skip_input).
  std::int64_t rnn_input_weights(std::int64_t layer) const { return layer == 0 && skip_input ? 0 : rnn_layer_input(layer); }

  // Trainable parameters of one copy (0 for weightless ops; a tied layer counts only its own bias).
  std::int64_t params() const;
  // The same count in long double: a size check's (it cannot overflow).
  long double params_wide() const;
  // Multiply-adds of one copy's forward pass for `batch` samples (GEMM-like layers; 0 otherwise).
  double forward_macs(std::int64_t batch) const;
};

struct Network {
  std::string name;
  std::string file;          // the models/*.yaml it came from
  std::string source;        // where the definition comes from (paper, torchvision, HF config)
  // "image" (input [C, H, W]), "tokens" (input [seq] token ids) or "sequence" (input [seq, features]:
  // feature vectors such as audio frames, read by recurrent layers)
  std::string task;
  // Token and sequence networks have a sequence length (seq, and past for token models); images not.
  bool has_sequence() const { return task != "image"; }
  std::int64_t batch = 1, seq = 0, past = 0;  // bound variables (seq, past: token models)
  Shape input;               // per-sample network input
  std::string optimizer = "sgd";  // training: sgd (with momentum), adam or adamw
  std::vector<Layer> layers;

  // A decoder's attention over its own earlier tokens, what a KV cache (past) is kept for.
  bool has_causal_self_attention() const;
  std::int64_t params() const;      // trainable parameters, counting repeats once per copy
  double forward_macs() const;      // one forward pass of the whole batch, repeats included
  // Published totals the YAML states (`reference:`), for the tests; 0 when not given.
  std::int64_t reference_params = 0;
  double reference_gmacs = 0;       // per sample, at the YAML's reference seq (or image size)
  std::string reference_source;     // where those totals are published
};

}  // namespace tcsim::workload
