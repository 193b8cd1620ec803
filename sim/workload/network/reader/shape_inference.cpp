#include "workload/network/reader/shape_inference.h"

#include "common/error.h"

namespace tcsim::workload {

std::string LayerSite::at(const std::string& layer_name, const std::string& field) const {
  const auto it = field_lines.find(field);
  return location(file, it != field_lines.end() ? it->second : line,
                  "layer '" + layer_name + "'" + (field.empty() ? "" : ": " + field));
}

namespace {

class Inference {
 public:
  Inference(Layer& l, const std::vector<Shape>& in, std::int64_t past, const Shape& requested, const LayerSite& site)
      : l_(l), in_(in), past_(past), requested_(requested), site_(site) {}

  void run();

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(site_.at(l_.name, field), what);
  }
  // The field naming the producers: `inputs` when written, else `input`.
  std::string input_field() const { return site_.field_lines.count("inputs") ? "inputs" : "input"; }

  void expect_inputs(std::size_t lo, std::size_t hi) const {
    if (in_.size() >= lo && in_.size() <= hi) return;
    const std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
    fail(input_field(), std::string("a ") + to_string(l_.kind) + " layer takes " + want + " input" +
                            (hi == 1 ? "" : "s") + ", got " + std::to_string(in_.size()));
  }
  void expect_rank(const Shape& s, std::size_t rank, const char* form) const {
    if (s.size() != rank)
      fail(input_field(), std::string("a ") + to_string(l_.kind) + " layer expects an input " + form + ", got " +
                              to_string(s));
  }
  void expect_non_scalar(const Shape& s) const {
    if (s.empty()) fail(input_field(), std::string("a ") + to_string(l_.kind) + " layer needs an input with a last dimension, got []");
  }

  // A KV cache holds the keys and values of earlier tokens for a causal decoder, whose earlier tokens
  // never see the new ones; a layer that attends both ways would recompute them all (an encoder).
  std::string bidirectional_with_cache() const {
    return "a KV cache (past " + std::to_string(past_) + " tokens: --kv-len, a sweep's kv_len or defaults.past) is for causal "
           "self-attention; this layer attends both ways (causal: false), as an encoder does: run it with past 0";
  }

  // Output extent of a window of `kernel` (dilated) sliding over `size` padded by `pad` each side.
  std::int64_t window_out(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                          std::int64_t dilation, const char* axis) const {
    const std::int64_t span = dilation * (kernel - 1) + 1;
    if (span > size + 2 * pad)
      fail("kernel", "the " + std::string(axis) + " kernel spans " + std::to_string(span) + " but the padded input is " +
                         std::to_string(size + 2 * pad) + " (input " + to_string(in_[0]) + ", padding " +
                         std::to_string(pad) + ")");
    return (size + 2 * pad - span) / stride + 1;
  }

  void conv2d();
  void broadcast();
  void concat();
  void pool();
  void linear();
  void matmul();
  void attention();
  void moe();
  void position_bias();
  void rnn();

  Layer& l_;
  const std::vector<Shape>& in_;
  std::int64_t past_;
  const Shape& requested_;
  const LayerSite& site_;
};

void Inference::conv2d() {
  expect_inputs(1, 1);
  expect_rank(in_[0], 3, "[C, H, W]");
  const std::int64_t c = in_[0][0];
  if (c % l_.groups != 0)
    fail("groups", "groups " + std::to_string(l_.groups) + " does not divide the " + std::to_string(c) + " input channels");
  if (l_.out_channels % l_.groups != 0)
    fail("groups", "groups " + std::to_string(l_.groups) + " does not divide out_channels " + std::to_string(l_.out_channels));
  const std::int64_t p = window_out(in_[0][1], l_.kernel_h, l_.stride_h, l_.pad_h, l_.dilation_h, "height");
  const std::int64_t q = window_out(in_[0][2], l_.kernel_w, l_.stride_w, l_.pad_w, l_.dilation_w, "width");
  l_.output = {l_.out_channels, p, q};
}

void Inference::pool() {
  expect_inputs(1, 1);
  expect_rank(in_[0], 3, "[C, H, W]");
  const std::int64_t p = window_out(in_[0][1], l_.kernel_h, l_.stride_h, l_.pad_h, 1, "height");
  const std::int64_t q = window_out(in_[0][2], l_.kernel_w, l_.stride_w, l_.pad_w, 1, "width");
  l_.output = {in_[0][0], p, q};
}

void Inference::linear() {
  expect_inputs(1, 1);
  if (l_.first_token) {
    if (in_[0].size() < 2)
      fail("first_token", "first_token reads the first row of a [tokens, ...] input, got " + to_string(in_[0]));
    l_.input = Shape(in_[0].begin() + 1, in_[0].end());
  } else if (l_.tokens > 0) {
    if (in_[0].size() != 2)
      fail("tokens", "tokens reads rows of a [tokens, features] input, got " + to_string(in_[0]));
    if (l_.tokens > in_[0][0])
      fail("tokens", "reads " + std::to_string(l_.tokens) + " rows of an input of " + std::to_string(in_[0][0]));
    l_.input = {l_.tokens, in_[0][1]};
  }
  expect_non_scalar(l_.input);
  l_.output = l_.input;
  l_.output.back() = l_.out_features;
}

void Inference::matmul() {
  expect_inputs(1, 2);
  const std::int64_t a = l_.matmul_batch * l_.m * l_.k;
  if (elements(in_[0]) != a)
    fail(input_field(), "operand A of batch " + std::to_string(l_.matmul_batch) + " x m " + std::to_string(l_.m) +
                            " x k " + std::to_string(l_.k) + " needs " + std::to_string(a) + " elements, its input " +
                            to_string(in_[0]) + " has " + std::to_string(elements(in_[0])));
  if (in_.size() == 2) {
    const std::int64_t b = l_.matmul_batch * l_.k * l_.n;
    if (elements(in_[1]) != b)
      fail("inputs", "operand B of batch " + std::to_string(l_.matmul_batch) + " x k " + std::to_string(l_.k) +
                         " x n " + std::to_string(l_.n) + " needs " + std::to_string(b) + " elements, its input " +
                         to_string(in_[1]) + " has " + std::to_string(elements(in_[1])));
  }
  l_.output = l_.matmul_batch == 1 ? Shape{l_.m, l_.n} : Shape{l_.matmul_batch, l_.m, l_.n};
}

void Inference::attention() {
  expect_inputs(1, 4);
  if (in_.size() == 2) fail("inputs", "attention takes one input (fused QKV), three (q, k, v) or four (q, k, v, score bias), got 2");
  expect_rank(in_[0], 2, "[tokens, features]");
  if (l_.heads % l_.kv_heads != 0)
    fail("kv_heads", "kv_heads " + std::to_string(l_.kv_heads) + " does not divide heads " + std::to_string(l_.heads));
  const std::int64_t q_width = l_.heads * l_.head_dim, kv_width = l_.kv_heads * l_.head_dim;
  const std::int64_t tokens = in_[0][0];
  std::int64_t kv_tokens = tokens;
  if (in_.size() == 1) {
    if (l_.cross) fail("cross", "cross-attention reads q, k and v from separate inputs: give inputs [q, k, v]");
    const std::int64_t fused = q_width + 2 * kv_width;
    if (in_[0][1] != fused)
      fail(input_field(), "a fused QKV input needs (heads + 2 kv_heads) * head_dim = " + std::to_string(fused) +
                              " features, got " + to_string(in_[0]));
  } else {
    // Cross-attention: the keys and values have their own sequence's tokens.
    if (l_.cross && in_[1].size() == 2) kv_tokens = in_[1][0];
    const Shape want_q{tokens, q_width}, want_kv{kv_tokens, kv_width};
    if (in_[0] != want_q)
      fail("inputs", "q needs [tokens, heads * head_dim] = " + to_string(want_q) + ", got " + to_string(in_[0]));
    if (in_[1] != want_kv || in_[2] != want_kv)
      fail("inputs", "k and v need [" + std::string(l_.cross ? "their tokens" : "tokens") + ", kv_heads * head_dim] = " +
                         to_string(want_kv) + ", got " + to_string(in_[1]) + " and " + to_string(in_[2]) +
                         (l_.cross ? "" : " (cross: true lets keys and values have another sequence's tokens)"));
  }
  l_.q_len = tokens;
  if (!l_.cross && !l_.causal && past_ > 0) fail("causal", bidirectional_with_cache());
  if (l_.cross) l_.kv_len = kv_tokens;
  else if (__builtin_add_overflow(past_, tokens, &l_.kv_len)) fail("past", "past + tokens overflows a 64-bit integer");
  if (in_.size() == 4) {
    const Shape want_bias{l_.heads, l_.q_len, l_.kv_len};
    if (in_[3] != want_bias)
      fail("inputs", "the score bias (fourth input) needs [heads, q tokens, kv tokens] = " + to_string(want_bias) +
                         ", got " + to_string(in_[3]) + " (a position_bias layer's output)");
  }
  l_.output = {tokens, q_width};
}

// A mixture of experts keeps its input's shape; the default capacity is one expert's even share of
// the tokens (Switch Transformer's capacity factor 1).
void Inference::moe() {
  expect_inputs(1, 1);
  expect_rank(in_[0], 2, "[tokens, features]");
  l_.q_len = in_[0][0];
  if (l_.capacity == 0 && l_.router == MoeRouter::switch_top1) l_.capacity = (l_.q_len + l_.experts - 1) / l_.experts;
  l_.output = in_[0];
}

// T5's relative position bias with the mask added: [heads, q, kv] per sample from the token ids
// [seq] (or any [tokens, ...] tensor: its token count).
void Inference::position_bias() {
  expect_inputs(1, 1);
  expect_non_scalar(in_[0]);
  l_.q_len = in_[0][0];
  // T5's cross-attention bias (buckets 0) reads the encoder's tokens, not a cache: it has no past
  // either, and a decode step of an encoder-decoder file would rerun its encoder.
  if (!l_.causal && past_ > 0) fail("causal", bidirectional_with_cache());
  if (__builtin_add_overflow(past_, l_.q_len, &l_.kv_len)) fail("past", "past + tokens overflows a 64-bit integer");
  l_.output = {l_.heads, l_.q_len, l_.kv_len};
}

// A recurrent layer reads [seq, features] and writes every step's hidden state, both directions'
// side by side. cuDNN's skip-input mode adds the input to the gates as it is: it must be hidden wide.
void Inference::rnn() {
  expect_inputs(1, 1);
  expect_rank(in_[0], 2, "[seq, features]");
  if (l_.skip_input && in_[0][1] != l_.hidden)
    fail("input_mode", "input_mode: skip adds the input to the gates as it is: its " + std::to_string(in_[0][1]) +
                           " features must equal hidden " + std::to_string(l_.hidden));
  l_.q_len = in_[0][0];
  l_.output = {in_[0][0], l_.rnn_directions() * l_.hidden};
}

// add and mul: the same shape, or one input broadcast to the other's (numpy's rules on the
// per-sample shapes, aligned from the right: a squeeze-and-excitation scale [C, 1, 1] times
// [C, H, W]). The output is the larger input's shape: an op that would enlarge both is an error.
void Inference::broadcast() {
  const Shape &a = in_[0], &b = in_[1];
  const Shape& big = elements(a) >= elements(b) ? a : b;
  const Shape& small = &big == &a ? b : a;
  bool ok = small.size() <= big.size();
  for (std::size_t k = 0; ok && k < small.size(); ++k) {
    const std::int64_t s = small[small.size() - 1 - k], g = big[big.size() - 1 - k];
    ok = s == g || s == 1;
  }
  if (!ok)
    fail("inputs", std::string("the inputs of ") + to_string(l_.kind) +
                       " must have the same shape, or one must broadcast to the other (numpy's rules, aligned from "
                       "the right), got " + to_string(a) + " and " + to_string(b));
  l_.output = big;
}

// torch.cat: the inputs agree on every dimension but the axis, the output's is their sum.
void Inference::concat() {
  expect_inputs(2, in_.size() < 2 ? 2 : in_.size());
  const std::int64_t rank = std::int64_t(in_[0].size());
  if (rank == 0) fail(input_field(), "a concat layer needs inputs with dimensions, got []");
  const std::int64_t axis = l_.axis < 0 ? l_.axis + rank : l_.axis;
  if (axis < 0 || axis >= rank)
    fail("axis", "expected an axis in [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for inputs " +
                     to_string(in_[0]) + ", got " + std::to_string(l_.axis));
  l_.axis = axis;
  Shape out = in_[0];
  for (std::size_t i = 1; i < in_.size(); ++i) {
    const Shape& s = in_[i];
    bool same = s.size() == in_[0].size();
    for (std::int64_t d = 0; same && d < rank; ++d) same = d == axis || s[std::size_t(d)] == in_[0][std::size_t(d)];
    if (!same)
      fail(input_field(), "the inputs of concat must agree on every dimension but axis " + std::to_string(axis) +
                              ", got " + to_string(in_[0]) + " and " + to_string(s));
    if (__builtin_add_overflow(out[std::size_t(axis)], s[std::size_t(axis)], &out[std::size_t(axis)]))
      fail(input_field(), "the concatenated dimension overflows a 64-bit integer");
  }
  l_.output = out;
}

void Inference::run() {
  if (!in_.empty()) l_.input = in_[0];
  switch (l_.kind) {
    case LayerKind::conv2d: return conv2d();
    case LayerKind::max_pool:
    case LayerKind::avg_pool: return pool();
    case LayerKind::linear: return linear();
    case LayerKind::matmul: return matmul();
    case LayerKind::attention: return attention();
    case LayerKind::moe: return moe();
    case LayerKind::position_bias: return position_bias();
    case LayerKind::rnn: return rnn();
    case LayerKind::mul:
      if (l_.has_scalar) {  // x * scalar
        expect_inputs(1, 1);
        l_.output = in_[0];
        return;
      }
      expect_inputs(2, 2);
      return broadcast();
    case LayerKind::add:
      expect_inputs(2, 2);
      return broadcast();
    case LayerKind::batch_norm:
      expect_inputs(1, 1);
      expect_non_scalar(in_[0]);
      l_.output = in_[0];
      return;
    case LayerKind::layer_norm:
    case LayerKind::rms_norm:
    case LayerKind::softmax:
      expect_inputs(1, 1);
      expect_non_scalar(in_[0]);
      l_.output = in_[0];
      return;
    case LayerKind::rope:
      expect_inputs(1, 1);
      expect_rank(in_[0], 2, "[tokens, features]");
      l_.output = in_[0];
      return;
    case LayerKind::global_avg_pool:
      expect_inputs(1, 1);
      expect_rank(in_[0], 3, "[C, H, W]");
      l_.output = {in_[0][0]};
      return;
    case LayerKind::flatten:
      expect_inputs(1, 1);
      l_.output = {elements(in_[0])};
      return;
    case LayerKind::parameter:
      expect_inputs(0, 0);
      l_.output = requested_;
      return;
    case LayerKind::reshape: {
      expect_inputs(1, 1);
      const Shape& want = requested_;
      if (elements(want) != elements(in_[0]))
        fail("shape", "reshape to " + to_string(want) + " (" + std::to_string(elements(want)) +
                          " elements) from " + to_string(in_[0]) + " (" + std::to_string(elements(in_[0])) +
                          " elements): the element count must not change");
      l_.output = want;
      return;
    }
    case LayerKind::concat: return concat();
    case LayerKind::embedding:
      expect_inputs(1, 1);
      expect_rank(in_[0], 1, "[tokens] of token ids");
      if (l_.first_position >= 0) {
        // The rows first_position + past .. first_position + past + tokens - 1: PyTorch raises an
        // index error past the table's end.
        const std::int64_t held = l_.vocab - l_.first_position;
        std::int64_t needed = 0;
        if (__builtin_add_overflow(past_, in_[0][0], &needed) || needed > held)
          fail("vocab", "a table of " + std::to_string(held) + " learned positions cannot hold past " + std::to_string(past_) +
                            " + seq " + std::to_string(in_[0][0]) + " tokens: give past + seq <= " + std::to_string(held));
      }
      l_.output = {in_[0][0], requested_.at(0)};
      return;
    case LayerKind::cross_entropy:
      expect_inputs(1, 1);
      expect_non_scalar(in_[0]);
      l_.output = {1};
      return;
    case LayerKind::relu:
    case LayerKind::gelu:
    case LayerKind::silu:
    case LayerKind::tanh:
    case LayerKind::sigmoid:
    case LayerKind::dropout:
      expect_inputs(1, 1);
      l_.output = in_[0];
      return;
  }
}

}  // namespace

void infer_shape(Layer& layer, const std::vector<Shape>& inputs, std::int64_t past, const Shape& requested,
                 const LayerSite& site) {
  Inference(layer, inputs, past, requested, site).run();
}

}  // namespace tcsim::workload
