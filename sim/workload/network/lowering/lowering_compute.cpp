// Lowering of the GEMM-like layers: conv2d, linear, matmul, attention. Operand layouts follow
// kernel.h (row-major storage; N = stored as used). PyTorch's nn.Linear computes x·Wᵀ with W stored
// [out, in], so its forward GEMM reads B transposed (NT), the data gradient dY·W is NN and the
// weight gradient dYᵀ·X is TN.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload::lowering_detail {

namespace {

// The mode's accumulator, except for the 16-bit GEMMs of a quantized mode (int8 keeps attention in
// fp16): no tensor core adds fp16 products into s32, they accumulate in fp32.
FormatId accumulator_for(const Context& c, FormatId in) {
  return format_is_integer(c.f.gemm_acc) && !format_is_integer(in) ? FormatId::fp32 : c.f.gemm_acc;
}

// The format a GEMM-like layer's activation inputs must be in, and the cast to it.
FormatId gemm_input_format(const Context& c) { return storage_of(c.f.gemm_in); }

// Attention's GEMMs run in the mode's GEMM format, except that quantized modes keep them in 16 bits
// (the activation format) unless the accelerator has no 16-bit GEMMs (quantized_attention).
FormatId attention_gemm_format(const Context& c) {
  return c.f.quantized_inputs && !c.opt.quantized_attention ? storage_of(c.f.activation) : c.f.gemm_in;
}

// A bias added by its own kernel (unless fused into the epilogue), and its gradient (a reduction
// over every output position of each channel/feature).
// A linear layer's bias gradient sums dY over the tokens (outer dims): reduce_kernel's column form;
// an NCHW convolution's sums over N, H and W, whose innermost dim is contiguous.
void bias_kernels(Context& c, int li, std::int64_t channels, bool separate_forward, bool columns) {
  const Layer& l = c.layer(li);
  if (!l.bias) return;
  const std::int64_t out = c.output_elements(li);
  const FormatId fmt = c.out_format[static_cast<std::size_t>(li)];
  if (separate_forward && !c.opt.fuse_epilogues)
    c.emit_forward(li, memory_kernel(l.name + ".bias", "add", fmt, out, 0, double(out), double(out), 1, l.count));
  c.emit_backward(li, memory_kernel(l.name + ".bias_grad", columns ? "reduce_columns" : "reduce", fmt, channels, out / std::max<std::int64_t>(1, channels),
                                    double(out), double(channels), double(out) / double(std::max<std::int64_t>(1, channels)),
                                    l.count));
}

}  // namespace

Kernel gemm(const Context& c, const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
            std::int64_t batch, Layout layout, Pass pass, FormatId in) {
  Kernel g = make_gemm(name, m, n, k, in, accumulator_for(c, in));
  // Quantized GEMMs store the mode's activation format (dequantized in the epilogue).
  g.d_format = c.f.quantized_inputs && format_bits(in) == 8 ? storage_of(c.f.activation)
                                                            : framework_output_format(in, g.c_format);
  g.batch = batch;
  g.layout = layout;
  g.pass = pass;
  return g;
}

// Autocast keeps weights in fp32 and casts them to the GEMM format once per step (the autocast
// cache); the weight gradient comes back in that format and is cast to fp32.
void cast_weights(Context& c, int li, std::int64_t weight_elements) {
  if (!c.f.autocast || weight_elements <= 0) return;
  const Layer& l = c.layer(li);
  const FormatId low = storage_of(c.f.gemm_in), high = c.f.master;
  // The master weights were last written by the previous step's optimizer: read from DRAM.
  Kernel cast = cast_kernel(l.name + ".cast_w", high, low, weight_elements, l.count);
  cast.memory.cold = true;
  c.emit_forward(li, cast);
  c.emit_backward(li, cast_kernel(l.name + ".cast_w.backward", low, high, weight_elements, l.count));
}

void lower_conv2d(Context& c, int li) {
  const Layer& l = c.layer(li);
  const Shape& in = c.input_shape(li, 0);
  if (in.size() != 3)
    throw InputError(l.where, "layer '" + l.name + "': conv2d needs a [C, H, W] input, got " + to_string(in));
  c.cast_input(li, 0, gemm_input_format(c));
  cast_weights(c, li, l.params());
  c.out_format[static_cast<std::size_t>(li)] = storage_of(c.f.activation);

  Kernel k;
  k.kind = Kernel::Kind::conv;
  k.name = l.name;
  ConvShape& s = k.conv;
  s.batch = c.batch;
  s.channels = in[0];
  s.ifmap_h = in[1];
  s.ifmap_w = in[2];
  s.num_filters = l.out_channels;
  s.filter_h = l.kernel_h;
  s.filter_w = l.kernel_w;
  s.stride_h = l.stride_h;
  s.stride_w = l.stride_w;
  s.pad_h = l.pad_h;
  s.pad_w = l.pad_w;
  s.dilation_h = l.dilation_h;
  s.dilation_w = l.dilation_w;
  s.groups = l.groups;
  s.layout = c.opt.conv_layout;
  k.a_format = k.b_format = c.f.gemm_in;
  k.c_format = k.d_format = c.f.gemm_acc;
  k.pass = Pass::forward;
  c.emit_forward(li, k);
  bias_kernels(c, li, l.out_channels, true, c.opt.conv_layout == TensorLayout::nhwc);

  Kernel w = k;
  w.name = l.name + ".wgrad";
  w.pass = Pass::weight_grad;
  c.emit_backward(li, w);
  if (!l.inputs.empty() && l.inputs[0] >= 0) {  // no gradient for the network's input images
    Kernel d = k;
    d.name = l.name + ".dgrad";
    d.pass = Pass::data_grad;
    c.emit_backward(li, d);
  }
  c.save_input(li, 0);
}

// A linear layer as Transformer Engine's te.Linear runs it in an fp8 training step (PrecisionFormats::
// fp8_linears; TE's `_Linear` autograd function, DelayedScaling with Format.HYBRID). fp8 tensor-core
// GEMMs take both operands K-major, so each operand is written twice, as it is and transposed, by
// TE's fused cast-transpose kernels (which also record the tensor's amax):
// - forward: the input cast to e4m3 (x and xᵀ), the fp32 master weight to e4m3 (W and Wᵀ, once per
//   step: the master was last written by the optimizer), and x·Wᵀ in e4m3 writing bf16, the bias in
//   its epilogue;
// - backward: dY cast to e5m2 (dY and dYᵀ, the bias gradient fused: cast_transpose_dbias), the data
//   gradient dY·W (e5m2 x e4m3 from Wᵀ, bf16 out) and the weight gradient dYᵀ·X (e5m2 x e4m3 from
//   xᵀ) written in fp32, the master's format: no cast back.
// Backward keeps xᵀ in e4m3 (one byte an element) instead of the bf16 input. An input in another
// format than bf16 (an fp32 output of autocast) gets its gradient cast back to that format.
// TE runs fp8 GEMMs only on sizes its kernels take (the weight's rows a multiple of 8 and its
// columns of 16, the input's rows of 8); other linears stay in bf16.

// What keeps a linear off TE's fp8 GEMMs and the sizes that would not, or "" when its sizes fit.
std::string fp8_size_fix(std::int64_t rows, std::int64_t in_f, std::int64_t out_f) {
  auto up = [](std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; };
  std::string fix;
  auto add = [&](const char* what, std::int64_t v, std::int64_t m) {
    if (v % m == 0) return;
    fix += (fix.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(v) + " -> " + std::to_string(up(v, m));
  };
  add("out_features", out_f, 8);
  add("in_features", in_f, 16);
  add("rows (batch x tokens)", rows, 8);
  if (fix.empty()) return "";
  return "Transformer Engine's fp8 GEMMs take weights of rows a multiple of 8 and columns of 16, inputs of rows a "
         "multiple of 8; fix: " + fix;
}

void lower_linear_fp8(Context& c, int li, std::int64_t rows, std::int64_t in_f, std::int64_t out_f) {
  const Layer& l = c.layer(li);
  const FormatId act = storage_of(c.f.activation), from = c.input_format(li, 0);
  c.out_format[static_cast<std::size_t>(li)] = act;
  c.fp8_linear_copies += l.count;
  const double x = double(rows) * double(in_f), dy = double(rows) * double(out_f);
  c.emit_forward(li, memory_kernel(l.name + ".cast_transpose", "quantize", FormatId::e4m3, rows * in_f, 0, 0, 2 * x, 2,
                                   l.count, bytes_of(from) * x));
  const std::int64_t w = in_f * out_f;
  Kernel cw = memory_kernel(l.name + ".cast_transpose_w", "quantize", FormatId::e4m3, w, 0, 0, 2.0 * double(w), 2, l.count,
                            bytes_of(c.f.master) * double(w));
  cw.memory.cold = true;
  c.emit_forward(li, cw);
  Kernel f = gemm(c, l.name, rows, out_f, in_f, 1, Layout::NT, Pass::forward, FormatId::e4m3);
  f.d_format = act;
  c.emit_forward(li, f);

  c.emit_backward(li, memory_kernel(l.name + (l.bias ? ".cast_transpose_dbias" : ".grad_cast_transpose"), "quantize",
                                    FormatId::e5m2, rows * out_f, 0, 0, 2 * dy, l.bias ? 3 : 2, l.count,
                                    bytes_of(act) * dy, l.bias ? bytes_of(c.f.master) * double(out_f) : 0));
  Kernel wg = gemm(c, l.name + ".wgrad", out_f, in_f, rows, 1, Layout::NT, Pass::weight_grad, FormatId::e5m2);
  wg.b_format = FormatId::e4m3;
  wg.d_format = c.f.master;
  c.emit_backward(li, wg);
  if (!l.inputs.empty() && l.inputs[0] >= 0) {
    Kernel d = gemm(c, l.name + ".dgrad", rows, in_f, out_f, 1, Layout::NT, Pass::data_grad, FormatId::e5m2);
    d.b_format = FormatId::e4m3;
    d.d_format = act;
    c.emit_backward(li, d);
    if (from != act) c.emit_backward(li, cast_kernel(l.name + ".cast_in.backward", act, from, rows * in_f, l.count));
  }
  c.save_extra(li, x * bytes_of(FormatId::e4m3));
}

void lower_linear(Context& c, int li) {
  const Layer& l = c.layer(li);
  const Shape& in = c.input_shape(li, 0);
  if (in.empty()) throw InputError(l.where, "layer '" + l.name + "': linear needs an input with a feature dimension");
  const std::int64_t in_f = in.back(), out_f = l.out_features;
  const std::int64_t rows = c.input_elements(li, 0) / in_f;
  if (c.f.fp8_linears) {
    const std::string fix = fp8_size_fix(rows, in_f, out_f);
    if (fix.empty()) return lower_linear_fp8(c, li, rows, in_f, out_f);
    c.notes.push_back("layer '" + l.name + "' runs in bf16, not fp8: " + fix);
  }
  const bool cast = c.cast_input(li, 0, gemm_input_format(c));
  cast_weights(c, li, in_f * out_f + (l.bias ? out_f : 0));
  c.out_format[static_cast<std::size_t>(li)] = storage_of(c.f.activation);

  const FormatId g = c.f.gemm_in;
  // Eager PyTorch folds the bias into the GEMM (addmm / cuBLASLt bias epilogue).
  c.emit_forward(li, gemm(c, l.name, rows, out_f, in_f, 1, Layout::NT, Pass::forward, g));
  bias_kernels(c, li, out_f, false, true);
  c.emit_backward(li, gemm(c, l.name + ".wgrad", out_f, in_f, rows, 1, Layout::TN, Pass::weight_grad, g));
  if (!l.inputs.empty() && l.inputs[0] >= 0)
    c.emit_backward(li, gemm(c, l.name + ".dgrad", rows, in_f, out_f, 1, Layout::NN, Pass::data_grad, g));
  if (cast) c.save_extra(li, double(c.input_elements(li, 0)) * bytes_of(gemm_input_format(c)));
  else c.save_input(li, 0);
}

void lower_matmul(Context& c, int li) {
  const Layer& l = c.layer(li);
  const std::int64_t bt = l.matmul_batch * c.batch;
  const FormatId g = c.f.gemm_in;
  const bool cast_a = c.cast_input(li, 0, gemm_input_format(c));
  const bool b_is_weight = l.inputs.size() < 2;
  bool cast_b = false;
  if (b_is_weight) cast_weights(c, li, l.k * l.n);
  else cast_b = c.cast_input(li, 1, gemm_input_format(c));
  c.out_format[static_cast<std::size_t>(li)] = storage_of(c.f.activation);

  c.emit_forward(li, gemm(c, l.name, l.m, l.n, l.k, bt, Layout::NN, Pass::forward, g));
  if (b_is_weight)  // the weight is shared by every product: one GEMM over all their rows
    c.emit_backward(li, gemm(c, l.name + ".wgrad", l.k, l.n, l.m * bt, 1, Layout::TN, Pass::weight_grad, g));
  else
    c.emit_backward(li, gemm(c, l.name + ".grad_b", l.k, l.n, l.m, bt, Layout::TN, Pass::data_grad, g));
  if (!l.inputs.empty() && l.inputs[0] >= 0)
    c.emit_backward(li, gemm(c, l.name + ".grad_a", l.m, l.k, l.n, bt, Layout::NT, Pass::data_grad, g));
  const double gb = bytes_of(gemm_input_format(c));
  if (cast_a) c.save_extra(li, double(c.input_elements(li, 0)) * gb);
  else c.save_input(li, 0);
  if (!b_is_weight) {
    if (cast_b) c.save_extra(li, double(c.input_elements(li, 1)) * gb);
    else c.save_input(li, 1);
  }
}

namespace {

// Causal self-attention of a token model: the attention that keeps a KV cache (an encoder such as
// BERT attends over its whole input in one pass).
bool keeps_kv_cache(const Context& c, const Layer& l) { return c.net.task == "tokens" && l.causal && !l.cross; }

// torch.matmul flattens 4-D operands to [B·H, rows, cols] with reshape before bmm (ATen's matmul,
// LinearAlgebra.cpp). A head split of a token-major [B, S, H·D] projection (view + permute, or
// transpose) cannot be flattened so: reshape copies it (a 4-D strided copy), unless one sample or one
// token makes the flattening a view. Backward, the gradient comes out of bmm as [B·H, S, D] and is
// permuted back: reshaping it to [B, S, H·D] for the projection's GEMMs copies it whatever the batch.
// Exempt: rotary outputs (contiguous [B, H, S, D]), the keys and values of a KV cache (the cache is
// contiguous) and repeat_kv's expansion (a copy already). The H200's eager BERT-base step
// (validation/measured/H200/networks) has these 8 copies per layer, forward and backward.
// `backward`: the gradients' copies (after Q·Kᵀ's and P·V's gradient GEMMs), else the forward's.
void emit_head_split_copies(Context& c, int li, FormatId in_fmt, bool backward) {
  const Layer& l = c.layer(li);
  const std::int64_t B = c.batch, h = l.heads, kvh = l.kv_heads, q = l.q_len, kv = l.kv_len, d = l.head_dim;
  const FormatId act = storage_of(c.f.activation);
  const bool cached = keeps_kv_cache(c, l) && !c.opt.training && (c.opt.kv_cache_concat || kv > q);
  static const char* const names[] = {".split_heads_q", ".split_heads_k", ".split_heads_v"};
  for (int which = 0; which < 3; ++which) {
    const std::int64_t rows = which == 0 ? q : kv, heads = which == 0 ? h : kvh;
    if (rows == 1 || heads == 1) continue;
    if (which > 0 && (cached || kvh < h)) continue;
    const std::size_t input = l.inputs.size() >= 3 ? std::size_t(which) : 0;  // one input: a fused QKV
    const int producer = input < l.inputs.size() ? l.inputs[input] : -1;
    if (producer >= 0 && c.layer(producer).kind == LayerKind::rope) continue;
    const std::int64_t n = B * rows * heads * d;
    // Kᵀ ([B·H, D, S]) swaps the innermost dim: 32 consecutive elements of the contiguous side are a
    // head row apart on the other, 32 lines per warp access (the H200's BERT-base: the key's copies
    // take 74 and 80 us against 37 for the query's and the value's).
    auto copy = [&](const std::string& name, FormatId fmt) {
      Kernel k = memory_kernel(l.name + name, "transpose", fmt, n, 0, double(n), double(n), 0, l.count);
      if (which == 1) k.memory.lines_per_warp = 32.0 + 32.0 * bytes_of(fmt) / 128.0;
      return k;
    };
    if (backward) c.emit_backward(li, copy(std::string(names[which]) + ".backward", act));
    else if (B > 1) c.emit_forward(li, copy(names[which], in_fmt));
  }
}

// softmax(Q·Kᵀ/sqrt(d) + mask)·V as the separate kernels eager PyTorch launches (Hugging Face's
// "eager" attention): K/V expansion for grouped-query attention, two batched GEMMs, the scale,
// the mask, a softmax (autocast runs it in fp32), in training the dropout on the probabilities
// (the layer's `dropout`: nn.Dropout on attention_probs, in the softmax's output format: dropout
// is on no autocast list), the cast back, and the head merge.
void lower_unfused_attention(Context& c, int li, FormatId in_fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t B = c.batch, h = l.heads, kvh = l.kv_heads, q = l.q_len, kv = l.kv_len, d = l.head_dim;
  const FormatId gin = attention_gemm_format(c);
  const FormatId act = storage_of(c.f.activation);
  const std::int64_t scores = B * h * q * kv;
  // rd and wr: passes over the n elements.
  auto mem = [&](const std::string& suffix, const char* op, FormatId fmt, std::int64_t n, std::int64_t row,
                 double rd, double wr, double flops) {
    return memory_kernel(l.name + suffix, op, fmt, n, row, rd * double(n), wr * double(n), flops, l.count);
  };
  if (kvh < h) {  // repeat_kv: keys and values copied out to every query head
    const std::int64_t n = 2 * B * h * kv * d;
    const std::int64_t src = 2 * B * kvh * kv * d;
    // expand + reshape: a copy from a broadcast view (PyTorch's elementwise_kernel<128, 4>) over
    // three coalesced dims: (seq x head_dim), the repeats (stride 0), (batch x kv heads)
    Kernel repeat = memory_kernel(l.name + ".repeat_kv", "copy", in_fmt, n, 0, double(src), double(n), 0, l.count);
    repeat.memory.strided_dims = 3;
    c.emit_forward(li, repeat);
    c.emit_backward(li, memory_kernel(l.name + ".repeat_kv.backward", "reduce", in_fmt, src, h / kvh, double(n),
                                      double(src), double(h / kvh), l.count));
  }
  // PyTorch's own behaviour (torch.matmul, TensorIterator, autocast) below: TensorFlow and MXNet as
  // DeepLearningExamples runs them (XLA, graph executors) keep the kernels they had before.
  const bool torch = c.opt.framework == Framework::pytorch;
  if (torch) emit_head_split_copies(c, li, in_fmt, false);
  c.emit_forward(li, gemm(c, l.name + ".scores", q, kv, d, B * h, Layout::NT, Pass::forward, gin));
  // T5 adds a score bias of the scores' size (position bias plus mask: the fourth input) in place
  // of the scale and the mask; its gradient is the scores' own (autograd adds the bias's readers').
  const bool score_bias = l.inputs.size() == 4;
  if (score_bias) {  // the bias in its own format (a T5 table's: fp32 under autocast)
    const double bias_bytes = double(scores) * bytes_of(c.input_format(li, 3));
    c.emit_forward(li, memory_kernel(l.name + ".score_bias", "add", act, scores, 0, double(scores), double(scores), 1,
                                     l.count, bias_bytes));
  } else {
    c.emit_forward(li, mem(".scale", "div", act, scores, 0, 1, 1, 1));
    // The mask ([B, 1, 1, kv] padding or [B, 1, q, kv] causal) is broadcast over the heads: the
    // strided elementwise kernel over three coalesced dims (batch, heads x rows, columns).
    if (torch) {
      Kernel mask = memory_kernel(l.name + ".mask", "add", act, scores, 0, double(scores) + double(B * kv),
                                  double(scores), 1, l.count);
      mask.memory.strided_dims = 3;
      c.emit_forward(li, mask);
    } else {
      c.emit_forward(li, mem(".mask", "add", act, scores, 0, 1, 1, 1));
    }
  }
  // Autocast runs softmax as fp32_set_opt_dtype (ATen's autocast_mode.cpp): softmax(x, dtype=float)
  // reads the 16-bit scores and writes fp32 probabilities, no cast kernel; its backward writes the
  // scores' gradient in their own format (the H200's eager BERT-base: softmax_warp_forward<Half,
  // float, float>, softmax_warp_backward<float, Half, float>).
  // A graph framework's mixed precision casts the softmax's input up (TensorFlow's deny list).
  const FormatId p_fmt = c.f.autocast ? c.f.kept_fp32 : act;
  const bool cast_up = c.f.autocast && !torch;
  if (cast_up) c.emit_forward(li, cast_kernel(l.name + ".softmax.cast", act, p_fmt, scores, l.count));
  const double score_bytes = double(scores) * bytes_of(cast_up ? p_fmt : act);
  c.emit_forward(li, memory_kernel(l.name + ".softmax", "softmax", p_fmt, scores, kv, 0, double(scores), 5, l.count,
                                   score_bytes));
  const bool dropout = c.opt.training && l.probability > 0;
  if (dropout) c.emit_forward(li, dropout_kernel(l.name + ".dropout", p_fmt, scores, l.count));
  if (p_fmt != storage_of(gin))  // quantized attention quantizes the probabilities (an inference engine's kernel)
    c.emit_forward(li, c.f.quantized_inputs && format_bits(gin) == 8
                           ? quantize_kernel(l.name + ".probs.quantize", p_fmt, storage_of(gin), scores, l.count)
                           : cast_kernel(l.name + ".probs.cast", p_fmt, storage_of(gin), scores, l.count));
  c.emit_forward(li, gemm(c, l.name + ".context", q, d, kv, B * h, Layout::NN, Pass::forward, gin));
  c.emit_forward(li, mem(".merge_heads", "transpose", act, B * q * h * d, 0, 1, 1, 0));

  if (!c.opt.training) return;
  // Backward, in the reverse order of the forward kernels.
  c.emit_backward(li, mem(".merge_heads.backward", "transpose", act, B * q * h * d, 0, 1, 1, 0));
  c.emit_backward(li, gemm(c, l.name + ".context.grad_probs", q, kv, d, B * h, Layout::NT, Pass::data_grad, gin));
  c.emit_backward(li, gemm(c, l.name + ".context.grad_v", kv, d, q, B * h, Layout::TN, Pass::data_grad, gin));
  if (p_fmt != storage_of(gin))
    c.emit_backward(li, cast_kernel(l.name + ".probs.cast.backward", storage_of(gin), p_fmt, scores, l.count));
  if (dropout) c.emit_backward(li, dropout_backward_kernel(l.name + ".dropout.backward", p_fmt, scores, l.count));
  c.emit_backward(li, memory_kernel(l.name + ".softmax.backward", "softmax_backward", p_fmt, scores, kv,
                                    2.0 * double(scores), 0, 4, l.count, 0, score_bytes));
  if (cast_up) c.emit_backward(li, cast_kernel(l.name + ".softmax.cast.backward", p_fmt, act, scores, l.count));
  if (!score_bias) c.emit_backward(li, mem(".scale.backward", "div", act, scores, 0, 1, 1, 1));
  c.emit_backward(li, gemm(c, l.name + ".scores.grad_q", q, d, kv, B * h, Layout::NN, Pass::data_grad, gin));
  c.emit_backward(li, gemm(c, l.name + ".scores.grad_k", kv, d, q, B * h, Layout::TN, Pass::data_grad, gin));
  if (torch) emit_head_split_copies(c, li, in_fmt, true);
  c.save_extra(li, double(scores) * bytes_of(p_fmt));  // the probabilities P, kept for P·V's gradient
  // With dropout P·V reads the dropped probabilities: autograd keeps them, P (for the softmax's
  // gradient) and the mask.
  if (dropout) c.save_extra(li, double(scores) * (bytes_of(p_fmt) + 1));
}

}  // namespace

void lower_attention(Context& c, int li) {
  const Layer& l = c.layer(li);
  bool fused = c.opt.fused_attention;
  if (l.impl == AttentionImpl::unfused) fused = false;
  const bool score_bias = l.inputs.size() == 4;
  if (score_bias && l.impl == AttentionImpl::fused)
    throw InputError(l.where, "layer '" + l.name + "': impl: fused, but FlashAttention takes no score bias (the fourth "
                              "input); use impl: auto or unfused");
  if (score_bias) fused = false;  // eager PyTorch adds the bias to the written-out scores
  if (l.impl == AttentionImpl::fused && !c.opt.fused_attention)
    throw InputError(l.where, "layer '" + l.name + "': impl: fused, but this accelerator has no fused attention "
                              "kernel in " + std::string(to_string(c.opt.precision)) +
                              " (FlashAttention needs sm_80+ and fp16/bf16); use impl: auto or unfused");
  const FormatId in_fmt = storage_of(attention_gemm_format(c));
  const std::size_t qkv = std::min<std::size_t>(3, std::max<std::size_t>(1, l.inputs.size()));  // not the bias
  bool cast[3] = {false, false, false};
  for (std::size_t i = 0; i < qkv; ++i) cast[i] = c.cast_input(li, i, in_fmt);
  c.out_format[static_cast<std::size_t>(li)] = storage_of(c.f.activation);
  const std::int64_t B = c.batch;

  const bool decoder = keeps_kv_cache(c, l);
  const std::int64_t cache = B * l.kv_heads * l.kv_len * l.head_dim;  // keys (or values) of the cache
  if (decoder && !c.opt.training) c.kv_cache_bytes += 2.0 * double(cache) * bytes_of(in_fmt) * double(l.count);
  if (decoder && c.opt.kv_cache_concat) {
    // Hugging Face's DynamicCache: torch.cat of the cache and the new tokens, for keys and for values,
    // the whole cache copied (training too: the models build the cache whenever use_cache is on).
    // One new token is a contiguous tensor (ATen's vectorized cat: a copy); several are the
    // projection's transposed view, and a cropped cache is a view of a longer tensor: both take the
    // general per-element kernel (sim/gpu/memory).
    const char* op = l.q_len == 1 && !c.opt.kv_cache_cropped ? "copy" : "cat";
    for (const char* which : {".kv_cache_cat_k", ".kv_cache_cat_v"})
      c.emit_forward(li, memory_kernel(l.name + which, op, in_fmt, cache, 0, double(cache), double(cache), 0, l.count));
  } else if (decoder && !c.opt.training) {
    // Serving engines write the new tokens' keys and values into the cache.
    const std::int64_t n = 2 * B * l.kv_heads * l.q_len * l.head_dim;
    c.emit_forward(li, memory_kernel(l.name + ".kv_cache_write", "copy", in_fmt, n, 0, double(n), double(n), 0, l.count));
  }
  if (fused) {
    Kernel k;
    k.kind = Kernel::Kind::attention;
    k.name = l.name;
    // The layer's dropout on the probabilities runs inside the fused kernels in training.
    k.attention = {B, l.heads, l.kv_heads, l.q_len, l.kv_len, l.head_dim, l.causal,
                   c.opt.training && l.probability > 0 ? l.probability : 0.0};
    k.a_format = k.b_format = in_fmt;
    k.c_format = k.d_format = FormatId::fp32;
    c.emit_forward(li, k);
    Kernel b = k;
    b.name = l.name + ".backward";
    b.pass = Pass::data_grad;  // the fused backward kernel: dQ, dK, dV (S and P recomputed)
    c.emit_backward(li, b);
    // Kept: the output and the softmax log-sum-exp per query row (fp32).
    c.save_output(li);
    c.save_extra(li, 4.0 * double(B * l.heads * l.q_len));
  } else {
    lower_unfused_attention(c, li, in_fmt);
  }
  const double ib = bytes_of(in_fmt);
  for (std::size_t i = 0; i < qkv; ++i) {
    if (cast[i]) c.save_extra(li, double(c.input_elements(li, i)) * ib);
    else c.save_input(li, i);
  }
}

}  // namespace tcsim::workload::lowering_detail
