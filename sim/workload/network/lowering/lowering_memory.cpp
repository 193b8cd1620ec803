// Lowering of the memory-bound layers: each becomes the kernel(s) PyTorch launches for it, with the
// elements it reads and writes (forward, and backward when training), and what autograd keeps.
#include <algorithm>
#include <limits>

#include "common/error.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload::lowering_detail {

namespace {

// Arithmetic per element (FP32 operations; transcendental functions counted as a handful), used
// only to tell when a kernel is bound by the CUDA cores rather than by memory.
double flops_per_element(LayerKind k) {
  switch (k) {
    case LayerKind::relu: return 1;
    case LayerKind::gelu: return 20;   // erf form
    case LayerKind::silu: return 8;    // x / (1 + exp(-x))
    case LayerKind::tanh: return 8;
    case LayerKind::sigmoid: return 8;
    case LayerKind::add:
    case LayerKind::mul: return 1;
    case LayerKind::batch_norm: return 6;
    case LayerKind::layer_norm: return 8;
    case LayerKind::rms_norm: return 5;
    case LayerKind::softmax: return 5;
    case LayerKind::rope: return 3;
    default: return 1;
  }
}

bool is_kept_fp32(LayerKind k) {  // on autocast's fp32 list
  return k == LayerKind::layer_norm || k == LayerKind::rms_norm || k == LayerKind::softmax ||
         k == LayerKind::cross_entropy;
}

// With fused epilogues (inference engines, cuDNN/cuBLASLt fused kernels), an activation or an
// inference batch norm that only post-processes a convolution's or linear layer's output runs inside
// that kernel's epilogue: no kernel of its own (a batch norm folds into the weights).
bool folds_into_epilogue(const Context& c, int li) {
  const Layer& l = c.layer(li);
  if (!c.opt.fuse_epilogues || l.inputs.size() != 1 || l.inputs[0] < 0) return false;
  const int p = l.inputs[0];
  const Layer& prod = c.layer(p);
  // The producer is the conv/linear itself, or a layer already folded into its epilogue (conv+bn+relu).
  const bool fused_producer = c.epilogue_of[std::size_t(p)] >= 0;
  if (prod.kind != LayerKind::conv2d && prod.kind != LayerKind::linear && !fused_producer) return false;
  if (c.grad_adds[std::size_t(p)] > 0 || prod.count != l.count) return false;  // its output has other readers
  switch (l.kind) {
    case LayerKind::relu:
    case LayerKind::gelu:
    case LayerKind::silu:
    case LayerKind::tanh:
    case LayerKind::sigmoid: return true;
    case LayerKind::batch_norm: return !c.opt.training;
    default: return false;
  }
}

// The one layer that reads layer p's output (every copy of it), or -1 when none or several do.
int sole_reader(const Context& c, int p) {
  if (c.grad_adds[std::size_t(p)] > 0) return -1;  // read more often than it has copies
  int found = -1;
  for (int j = p + 1; j < int(c.net.layers.size()); ++j)
    for (int q : c.layer(j).inputs)
      if (q == p) {
        if (found >= 0 && found != j) return -1;
        found = j;
      }
  return found >= 0 && c.layer(found).count == c.layer(p).count ? found : -1;
}

// With fused epilogues at inference, a residual add runs in the epilogue of the conv/linear layer
// that computes one of its operands last, the other operand read there (cuDNN's
// cudnnConvolutionBiasActivationForward: y = act(conv(x) + z + bias); TensorRT's conv + eltwise
// fusion). That operand's producer must be the GEMM-like kernel (or a layer folded into its
// epilogue, or an identity after it: inference dropout), each tensor on the way read only by the
// next, and both operands the output's size. Returns the index of the conv/linear layer whose
// kernel takes it, or -1.
int residual_add_host(const Context& c, int li) {
  const Layer& l = c.layer(li);
  if (!c.opt.fuse_epilogues || !c.opt.fuse_residual_adds || c.opt.training || l.kind != LayerKind::add ||
      l.inputs.size() != 2)
    return -1;
  const std::int64_t out = c.output_elements(li);
  if (c.input_elements(li, 0) != out || c.input_elements(li, 1) != out) return -1;
  const int p = c.epilogue_producer(li);
  if (p < 0 || l.inputs[0] == l.inputs[1]) return -1;
  const int root = c.gemm_epilogue_root(p);
  if (root < 0 || c.layer(root).count != l.count) return -1;
  // Every tensor from the GEMM's output to the add has one reader: the epilogue may change it.
  for (int q = p, next = li;; next = q, q = c.epilogue_producer(q)) {
    if (sole_reader(c, q) != next) return -1;
    if (q == root) return root;
  }
}

// An add or mul whose inputs differ in shape (one broadcast to the other, layer shape inference):
// PyTorch's TensorIterator cannot run it as one contiguous stream. Its dims after coalescing
// (memory order, batch first: [N, C, H, W], or [N, H, W, C] for channels-last images) merge where
// the small operand is broadcast alike, so [N, C, H, W] x [N, C, 1, 1] walks 2 dims channels-first
// and 3 channels-last. Returns 0 when the shapes are equal.
// The format a learned table or tensor is read in (embeddings, parameter layers): fp32 under autocast,
// which leaves them alone; 16-bit beside a quantized mode's 8-bit GEMM weights; else the weights'.
FormatId learned_tensor_format(const Context& c) {
  return c.f.autocast ? c.f.master : c.f.quantized_inputs ? storage_of(c.f.activation) : storage_of(c.f.weights);
}

int broadcast_dims(const Context& c, int li, std::size_t small) {
  const Shape& out = c.layer(li).output;
  const Shape& s = c.input_shape(li, small);
  const int batch_flag = c.reads_parameter(li, small) ? 1 : 0;  // a parameter is broadcast over the batch
  if (s == out && !batch_flag) return 0;
  std::vector<int> flags = {batch_flag};
  std::vector<std::size_t> order(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) order[k] = k;
  if (out.size() == 3 && c.opt.conv_layout == TensorLayout::nhwc) order = {1, 2, 0};  // [H, W, C]
  for (std::size_t k : order) {
    if (out[k] == 1) continue;  // no layout
    const std::ptrdiff_t j = std::ptrdiff_t(k) - std::ptrdiff_t(out.size()) + std::ptrdiff_t(s.size());
    flags.push_back(j < 0 || s[std::size_t(j)] == 1 ? 1 : 0);
  }
  int dims = 1;
  for (std::size_t k = 1; k < flags.size(); ++k) dims += flags[k] != flags[k - 1] ? 1 : 0;
  return dims;
}

// LoweringOptions::fuse_batch_norm_relu: the layers a batch norm's kernels take in. `relu`: the
// ReLU applied to its output (BatchNorm with act_type 'relu'); with `add`, the residual add between
// them (BatchNormAddRelu: the other operand is read in the forward kernel, its gradient written by
// the backward one). -1: not fused.
struct BatchNormFusion {
  int relu = -1, add = -1;
};
BatchNormFusion batch_norm_fusion(const Context& c, int li, FormatId fmt) {
  if (!c.opt.fuse_batch_norm_relu) return {};
  const int r = sole_reader(c, li);
  if (r < 0) return {};
  const Layer& rl = c.layer(r);
  if (rl.kind == LayerKind::relu) return {r, -1};
  if (rl.kind != LayerKind::add || rl.inputs.size() != 2 || rl.inputs[0] == rl.inputs[1]) return {};
  const std::size_t other = rl.inputs[0] == li ? 1 : 0;
  if (c.input_format(r, other) != fmt || c.input_elements(r, other) != c.output_elements(li)) return {};
  const int r2 = sole_reader(c, r);
  if (r2 < 0 || c.layer(r2).kind != LayerKind::relu) return {};
  return {r2, r};
}

// A binary elementwise op over operands of two formats (bf16 x fp32): PyTorch's unrolled kernel with
// its dynamic casts (CUDALoops.cuh; memory_launch.cpp's `cast` path), written in the wider format.
Kernel mixed_kernel(const std::string& name, const char* op, FormatId narrow, FormatId wide, std::int64_t n,
                    double flops, std::int64_t count) {
  Kernel k = memory_kernel(name, op, wide, n, 0, 0, 0, flops, count, double(n) * (bytes_of(narrow) + bytes_of(wide)),
                           double(n) * bytes_of(wide));
  k.memory.cast = true;
  k.memory.operands = 3;
  return k;
}

// Hugging Face's tanh GELU (lower_gelu_tanh_eager) under autocast (the H200 GPT-2 AMP traces,
// validation/measured/H200/networks): torch.pow is on autocast's fp32 list, so x is cast up for it
// and type promotion carries fp32 from there: a + x^3's sum with x, the scaling, tanh, 1 + t and the
// product with h = 0.5 x (bf16) are fp32, and so is the output (the next linear casts it back down).
// Forward: mul (bf16), cast, pow, mul, add (bf16 + fp32), mul, tanh, add, mul (bf16 x fp32).
// Backward, as autograd runs it: the product's two gradients (dy x h mixed, dy x v) and h's cast
// down, tanh_backward, the scaling, x's cast down from the sum, the scaling, pow_backward's pow and
// three multiplies, the cast's gradient down, an accumulate, h's scaling and a second accumulate
// (bf16).
void lower_gelu_tanh_eager_autocast(Context& c, int li, FormatId half) {
  const Layer& l = c.layer(li);
  const std::int64_t out = c.output_elements(li);
  const double n = double(out);
  const FormatId wide = c.f.kept_fp32;
  const double th = flops_per_element(LayerKind::tanh);
  const std::string& name = l.name;
  auto plain = [&](const std::string& suffix, const char* op, FormatId f, double reads, double flops) {
    return memory_kernel(name + suffix, op, f, out, 0, reads * n, n, flops, l.count);
  };
  c.emit_forward(li, plain(".mul", "mul", half, 1, 1));
  c.emit_forward(li, cast_kernel(name + ".pow.cast_in", half, wide, out, l.count));
  c.emit_forward(li, plain(".pow", "pow", wide, 1, 1));
  c.emit_forward(li, plain(".mul_1", "mul", wide, 1, 1));
  c.emit_forward(li, mixed_kernel(name + ".add", "add", half, wide, out, 1, l.count));
  c.emit_forward(li, plain(".mul_2", "mul", wide, 1, 1));
  c.emit_forward(li, plain(".tanh", "tanh", wide, 1, th));
  c.emit_forward(li, plain(".add_1", "add", wide, 1, 1));
  c.emit_forward(li, mixed_kernel(name + ".mul_3", "mul", half, wide, out, 1, l.count));
  c.emit_backward(li, mixed_kernel(name + ".mul_3.backward_v", "mul", half, wide, out, 1, l.count));
  c.emit_backward(li, plain(".mul_3.backward_h", "mul", wide, 2, 1));
  c.emit_backward(li, cast_kernel(name + ".mul_3.backward_h.cast", wide, half, out, l.count));
  c.emit_backward(li, plain(".tanh.backward", "tanh", wide, 2, th));
  c.emit_backward(li, plain(".mul_2.backward", "mul", wide, 1, 1));
  c.emit_backward(li, cast_kernel(name + ".add.backward_x.cast", wide, half, out, l.count));
  c.emit_backward(li, plain(".mul_1.backward", "mul", wide, 1, 1));
  c.emit_backward(li, plain(".pow.backward_pow", "pow", wide, 1, 1));
  c.emit_backward(li, plain(".pow.backward_scale", "mul", wide, 1, 1));
  c.emit_backward(li, plain(".pow.backward_scale_1", "mul", wide, 1, 1));
  c.emit_backward(li, plain(".pow.backward", "mul", wide, 2, 1));
  c.emit_backward(li, cast_kernel(name + ".pow.cast_in.backward", wide, half, out, l.count));
  c.emit_backward(li, plain(".grad_add", "add", half, 2, 1));
  c.emit_backward(li, plain(".mul.backward", "mul", half, 1, 1));
  c.emit_backward(li, plain(".grad_add_1", "add", half, 2, 1));
  c.out_format[static_cast<std::size_t>(li)] = wide;
  c.save_input(li, 0);
  c.save_extra(li, n * (bytes_of(half) + 3 * bytes_of(wide)));  // h, and x^3's fp32 input, v and t
}

// Hugging Face's NewGELUActivation, y = 0.5 x (1 + tanh(c (x + a x^3))), run eagerly: one kernel
// per op (NeuSight's GPT-2 traces list mul, pow, mul, add, mul, tanh, add, mul, forward and
// backward). Forward: h = 0.5 x, p = x^3, q = a p, s = x + q, u = c s, t = tanh(u), v = 1 + t,
// y = h v. Backward (autograd): y's two products, tanh_backward, the two scalings, pow_backward
// (x^2, times 3, times the gradient), 0.5 times the gradient, and two adds that sum x's three
// gradients. Autograd keeps x, h, v and t. Under autocast: lower_gelu_tanh_eager_autocast.
void lower_gelu_tanh_eager(Context& c, int li, FormatId fmt) {
  if (c.f.autocast) return lower_gelu_tanh_eager_autocast(c, li, fmt);
  const Layer& l = c.layer(li);
  const std::int64_t out = c.output_elements(li);
  const double n = double(out);
  struct Op {
    const char* suffix;
    const char* op;
    double reads;  // elements read per output element (writes: one)
    double flops;  // per element
  };
  const double th = flops_per_element(LayerKind::tanh);
  const Op forward[] = {{".mul", "mul", 1, 1},   {".pow", "pow", 1, 1},   {".mul_1", "mul", 1, 1},
                        {".add", "add", 2, 1},   {".mul_2", "mul", 1, 1}, {".tanh", "tanh", 1, th},
                        {".add_1", "add", 1, 1}, {".mul_3", "mul", 2, 1}};
  const Op backward[] = {{".mul_3.backward_a", "mul", 2, 1}, {".mul_3.backward_b", "mul", 2, 1},
                         {".tanh.backward", "tanh", 2, th},  {".mul_2.backward", "mul", 1, 1},
                         {".mul_1.backward", "mul", 1, 1},   {".pow.backward_pow", "pow", 1, 1},
                         {".pow.backward_scale", "mul", 1, 1}, {".pow.backward", "mul", 2, 1},
                         {".mul.backward", "mul", 1, 1},     {".grad_add", "add", 2, 1},
                         {".grad_add_1", "add", 2, 1}};
  for (const Op& o : forward)
    c.emit_forward(li, memory_kernel(l.name + o.suffix, o.op, fmt, out, 0, o.reads * n, n, o.flops, l.count));
  for (const Op& o : backward)
    c.emit_backward(li, memory_kernel(l.name + o.suffix, o.op, fmt, out, 0, o.reads * n, n, o.flops, l.count));
  c.save_input(li, 0);
  c.save_extra(li, 3 * n * bytes_of(fmt));  // h, v and t
}

// Hugging Face's eager RMSNorm (T5LayerNorm, LlamaRMSNorm): x.to(fp32), variance = x.pow(2).mean(-1),
// x * rsqrt(variance + eps), then weight * that (after a cast back to the input's format). One
// kernel per op: pow, mean (a row reduction), add and rsqrt on the per-row values, the broadcast
// multiply, the weight's. Backward, as autograd runs it: the weight product's two gradients (dY x w,
// and dY x xn summed over the rows), the normalizing product's two (the gradient times the per-row
// factor, and its product with x summed per row), rsqrt's gradient (three ops on the row values),
// mean's (expanded and divided: a kernel of the input's size), pow's (x^1, times 2, times the
// gradient) and the sum of x's two gradients.
void lower_rms_norm_eager(Context& c, int li, FormatId fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t n = c.output_elements(li), d = l.output.back(), r = n / std::max<std::int64_t>(1, d);
  const double N = double(n), R = double(r), D = double(d);
  const FormatId w = FormatId::fp32;  // the statistics run in fp32
  const double xb = bytes_of(fmt), wb = bytes_of(w);
  auto k = [&](const std::string& suffix, const char* op, std::int64_t elements, std::int64_t row, double rd,
               double wr) { return bytes_kernel(l.name + suffix, op, w, elements, row, rd, wr, 1, l.count); };
  const bool cast = fmt != w;
  if (cast) c.emit_forward(li, cast_kernel(l.name + ".to_fp32", fmt, w, n, l.count));
  c.emit_forward(li, k(".pow", "pow", n, 0, N * wb, N * wb));
  c.emit_forward(li, k(".mean", "mean", r, d, N * wb, R * wb));
  c.emit_forward(li, k(".add", "add", r, 0, R * wb, R * wb));
  c.emit_forward(li, k(".rsqrt", "rsqrt", r, 0, R * wb, R * wb));
  Kernel norm = k(".mul", "mul", n, 0, N * wb + R * wb, N * wb);
  norm.memory.strided_dims = 2;
  c.emit_forward(li, norm);
  if (cast) c.emit_forward(li, cast_kernel(l.name + ".to_input", w, fmt, n, l.count));
  Kernel scale = bytes_kernel(l.name + ".mul_weight", "mul", fmt, n, 0, N * xb + D * xb, N * xb, 1, l.count);
  scale.memory.strided_dims = 2;
  c.emit_forward(li, scale);
  c.out_format[static_cast<std::size_t>(li)] = fmt;

  Kernel g_norm = scale;
  g_norm.name = l.name + ".mul_weight.backward_input";
  c.emit_backward(li, g_norm);
  c.emit_backward(li, bytes_kernel(l.name + ".mul_weight.backward_weight", "mul", fmt, n, 0, 2 * N * xb, N * xb, 1, l.count));
  c.emit_backward(li, bytes_kernel(l.name + ".weight_grad", "reduce_columns", fmt, d, r, N * xb, D * xb, R, l.count));
  if (cast) c.emit_backward(li, cast_kernel(l.name + ".to_input.backward", fmt, w, n, l.count));
  Kernel g_x = norm;
  g_x.name = l.name + ".mul.backward_input";
  c.emit_backward(li, g_x);
  c.emit_backward(li, k(".mul.backward_factor", "mul", n, 0, 2 * N * wb, N * wb));
  c.emit_backward(li, k(".mul.backward_reduce", "sum", r, d, N * wb, R * wb));
  c.emit_backward(li, k(".rsqrt.backward_pow", "pow", r, 0, R * wb, R * wb));
  c.emit_backward(li, k(".rsqrt.backward_mul", "mul", r, 0, R * wb, R * wb));
  c.emit_backward(li, k(".rsqrt.backward", "mul", r, 0, 2 * R * wb, R * wb));
  Kernel mean_g = k(".mean.backward", "div", n, 0, R * wb, N * wb);
  mean_g.memory.strided_dims = 2;
  c.emit_backward(li, mean_g);
  c.emit_backward(li, k(".pow.backward_pow", "pow", n, 0, N * wb, N * wb));
  c.emit_backward(li, k(".pow.backward_scale", "mul", n, 0, N * wb, N * wb));
  c.emit_backward(li, k(".pow.backward", "mul", n, 0, 2 * N * wb, N * wb));
  c.emit_backward(li, k(".grad_add", "add", n, 0, 2 * N * wb, N * wb));
  if (cast) c.emit_backward(li, cast_kernel(l.name + ".to_fp32.backward", w, fmt, n, l.count));
  // Kept: x (fp32), the per-row factor, the normalized x (the weight's gradient).
  c.save_input(li, 0);
  c.save_extra(li, R * wb + N * wb + (cast ? N * wb : 0));
}

// Hugging Face's eager rotary embedding (apply_rotary_pos_emb): x * cos + rotate_half(x) * sin, with
// rotate_half(x) = cat(-x2, x1) of x's two halves (slices: views). One kernel per op: neg (of one
// half), cat, the two products with cos and sin (broadcast over the heads: [B, 1, S, D] tables in
// x's format) and the add. Backward, as autograd runs it: the two products' gradients (dY x cos,
// dY x sin), cat's (views), neg's, each slice's (a zeroed tensor of x's size and the half copied
// in), and the three gradients of x summed (two adds).
void lower_rope_eager(Context& c, int li, FormatId fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t n = c.output_elements(li);
  const double N = double(n);
  // strided: the cos and sin tables broadcast over the heads, the halves' slices (a row stride).
  // The tables themselves ([B, S, head_dim], a heads-th of x) are not counted.
  auto k = [&](const std::string& suffix, const char* op, std::int64_t elements, double reads, double writes,
               int strided) {
    Kernel kernel = memory_kernel(l.name + suffix, op, fmt, elements, 0, reads, writes, 1, l.count);
    kernel.memory.strided_dims = strided;
    return kernel;
  };
  c.emit_forward(li, k(".neg", "neg", n / 2, N / 2, N / 2, 2));
  c.emit_forward(li, k(".cat", "copy", n, N, N, 0));
  c.emit_forward(li, k(".mul_cos", "mul", n, N, N, 2));
  c.emit_forward(li, k(".mul_sin", "mul", n, N, N, 2));
  c.emit_forward(li, k(".add", "add", n, 2 * N, N, 0));
  c.emit_backward(li, k(".mul_cos.backward", "mul", n, N, N, 2));
  c.emit_backward(li, k(".mul_sin.backward", "mul", n, N, N, 2));
  c.emit_backward(li, k(".neg.backward", "neg", n / 2, N / 2, N / 2, 2));
  for (const char* half : {".slice_x1.backward", ".slice_x2.backward"}) {
    c.emit_backward(li, k(std::string(half) + "_zero", "fill", n, 0, N, 0));
    c.emit_backward(li, k(std::string(half) + "_copy", "copy", n / 2, N / 2, N / 2, 2));
  }
  c.emit_backward(li, k(".grad_add", "add", n, 2 * N, N, 0));
  c.emit_backward(li, k(".grad_add_1", "add", n, 2 * N, N, 0));
}

}  // namespace

void lower_memory_layer(Context& c, int li) {
  const Layer& l = c.layer(li);
  const LayerKind kind = l.kind;
  const std::size_t L = static_cast<std::size_t>(li);
  if (c.in_batch_norm[L]) {  // runs inside the batch norm that feeds it (fuse_batch_norm_relu)
    c.out_format[L] = c.input_format(li, 0);
    return;
  }
  if (const int host = residual_add_host(c, li); host >= 0) {
    // The GEMM's epilogue reads the other operand: one more tensor of the output's size.
    for (auto it = c.forward.rbegin(); it != c.forward.rend(); ++it)
      if (it->layer == host && (it->kernel.kind == Kernel::Kind::conv || it->kernel.kind == Kernel::Kind::gemm)) {
        ++it->kernel.epilogue_inputs;
        break;
      }
    c.out_format[L] = c.out_format[std::size_t(c.epilogue_producer(li))];
    c.epilogue_of[L] = host;
    return;
  }
  if (folds_into_epilogue(c, li)) {
    c.out_format[L] = c.input_format(li, 0);
    c.epilogue_of[L] = c.gemm_epilogue_root(l.inputs[0]);
    if (kind != LayerKind::batch_norm && c.opt.training) {  // the gradient still needs its own kernel
      const double n = double(c.output_elements(li));
      c.emit_backward(li, memory_kernel(l.name + ".backward", to_string(kind), c.out_format[L], c.output_elements(li), 0,
                                        2 * n, n, flops_per_element(kind), l.count));
      c.save_output(li);
    }
    return;
  }
  // Autocast casts the inputs of its fp32-list ops up to fp32 (a cast kernel when they are not).
  // PyTorch's autocast runs softmax as fp32_set_opt_dtype instead: softmax(x, dtype=float) reads x
  // as it is (TensorFlow's mixed precision casts it: softmax is on its deny list).
  const bool reads_as_is = kind == LayerKind::softmax && c.opt.framework == Framework::pytorch;
  if (c.f.autocast && is_kept_fp32(kind) && !reads_as_is) c.cast_input(li, 0, c.f.kept_fp32);
  FormatId fmt = c.input_format(li, 0);
  if (c.f.autocast && is_kept_fp32(kind)) fmt = c.f.kept_fp32;
  if ((kind == LayerKind::add || kind == LayerKind::mul) && l.inputs.size() == 2)
    fmt = wider_of(c.input_format(li, 0), c.input_format(li, 1));  // type promotion
  // Max pooling commutes with quantization: an engine pools the 8-bit tensor a quantizing conv
  // epilogue wrote, and the convolutions after it read that.
  if (kind == LayerKind::max_pool && c.f.quantized_inputs && c.quantized_by_producer(li, 0))
    fmt = storage_of(c.f.gemm_in);
  c.out_format[L] = fmt;

  const std::int64_t out = c.output_elements(li);
  const std::int64_t in = c.input_elements(li, 0);
  const double fpe = flops_per_element(kind);
  const std::string& n = l.name;
  const std::int64_t cnt = l.count;
  auto fwd = [&](const std::string& suffix, const char* op, std::int64_t elems, std::int64_t row, double rd, double wr,
                 double flops, double extra_rd = 0, double extra_wr = 0) {
    c.emit_forward(li, memory_kernel(n + suffix, op, fmt, elems, row, rd, wr, flops, cnt, extra_rd, extra_wr));
  };
  auto bwd = [&](const std::string& suffix, const char* op, std::int64_t elems, std::int64_t row, double rd, double wr,
                 double flops, double extra_rd = 0, double extra_wr = 0) {
    c.emit_backward(li, memory_kernel(n + suffix, op, fmt, elems, row, rd, wr, flops, cnt, extra_rd, extra_wr));
  };
  const std::int64_t last = l.output.empty() ? 1 : l.output.back();
  const double dout = double(out);

  switch (kind) {
    case LayerKind::flatten:
    case LayerKind::reshape:
      return;  // views: no data moves
    case LayerKind::parameter:
      // A learned tensor, stored as the weights are (fp32 under autocast, whose type promotion
      // makes its readers fp32; 16-bit beside a quantized mode's 8-bit GEMM weights). No kernel:
      // its readers broadcast it, and their backward sums its gradient over the batch.
      c.out_format[L] = learned_tensor_format(c);
      return;
    case LayerKind::gelu:
      if (l.gelu_form == GeluForm::tanh_eager) {
        lower_gelu_tanh_eager(c, li, fmt);
        return;
      }
      [[fallthrough]];
    case LayerKind::relu:
    case LayerKind::silu:
    case LayerKind::tanh:
    case LayerKind::sigmoid:
      fwd("", to_string(kind), out, 0, dout, dout, fpe);
      bwd(".backward", kind == LayerKind::gelu ? "gelu_backward" : to_string(kind), out, 0, 2 * dout, dout, fpe);
      // ReLU, tanh and sigmoid differentiate from their output, GELU and SiLU from their input.
      if (kind == LayerKind::relu || kind == LayerKind::tanh || kind == LayerKind::sigmoid) c.save_output(li);
      else c.save_input(li, 0);
      return;
    case LayerKind::add:
    case LayerKind::mul:
      if (c.input_elements(li, 0) != c.input_elements(li, 1)) {
        // A broadcast operand (a squeeze-and-excitation scale, a per-channel bias): the strided
        // elementwise kernel. Backward, its gradient sums over the broadcast dimensions (a
        // reduction; for mul of dY times the other input first), the other's passes through (add)
        // or is dY times the broadcast operand (mul).
        const std::size_t small = c.input_elements(li, 0) < c.input_elements(li, 1) ? 0 : 1;
        const std::int64_t ns = c.input_elements(li, small);
        Kernel f = memory_kernel(n, kind == LayerKind::add ? "add" : "mul", fmt, out, 0, dout + double(ns), dout, 1, cnt);
        f.memory.strided_dims = broadcast_dims(c, li, small);
        c.emit_forward(li, f);
        if (kind == LayerKind::mul) {
          Kernel g = f;
          g.name = n + ".backward_a";
          c.emit_backward(li, g);
          bwd(".backward_b", "mul", out, 0, 2 * dout, dout, 1);
          c.save_input(li, 0);
          c.save_input(li, 1);
        }
        // A parameter's gradient sums over the batch, the outer dimension: a column reduction.
        const bool columns = (c.layer(li).output.size() == 3 && c.opt.conv_layout == TensorLayout::nhwc) ||
                             c.reads_parameter(li, small);
        bwd(".backward_reduce", columns ? "reduce_columns" : "reduce", ns, out / std::max<std::int64_t>(1, ns), dout,
            double(ns), 1);
        return;
      }
      if (l.has_scalar) {  // x * scalar: the gradient is dY * scalar
        fwd("", "mul", out, 0, dout, dout, 1);
        bwd(".backward", "mul", out, 0, dout, dout, 1);
        return;
      }
      if (kind == LayerKind::mul) {
        fwd("", "mul", out, 0, 2 * dout, dout, 1);
        bwd(".backward_a", "mul", out, 0, 2 * dout, dout, 1);
        bwd(".backward_b", "mul", out, 0, 2 * dout, dout, 1);
        c.save_input(li, 0);
        c.save_input(li, 1);
        return;
      }
      if (const FormatId a = c.input_format(li, 0), b = c.input_format(li, 1); a != b && c.input_elements(li, 1) == out) {
        // Operands of two formats (an fp32 residual stream plus a bf16 branch under autocast): the
        // unrolled casting kernel; autograd casts the gradient down for the narrower operand.
        const FormatId narrow = bytes_of(a) < bytes_of(b) ? a : b;
        c.emit_forward(li, mixed_kernel(n, "add", narrow, fmt, out, 1, cnt));
        c.emit_backward(li, cast_kernel(n + ".backward_cast", fmt, narrow, out, cnt));
        return;
      }
      fwd("", "add", out, 0, 2 * dout, dout, 1);
      return;  // the gradient passes through unchanged
    case LayerKind::concat: {
      // torch.cat of contiguous tensors: ATen's batched copy (CatArrayBatchedCopy, vectorized when
      // the inputs are contiguous: a copy), each input read once, the output written once, in the
      // widest input format (type promotion). Its gradient is a view of each input's slice; the
      // slices are made contiguous for their consumers (cuDNN and cuBLAS take contiguous tensors):
      // one copy of the output's size.
      double read = 0;
      for (std::size_t i = 0; i < l.inputs.size(); ++i) {
        fmt = wider_of(fmt, c.input_format(li, i));
        read += double(c.input_elements(li, i));
      }
      c.out_format[L] = fmt;
      fwd("", "copy", out, 0, read, dout, 0);
      bwd(".backward", "copy", out, 0, dout, dout, 0);
      return;
    }
    case LayerKind::dropout:
      if (!c.opt.training) return;  // identity at inference
      c.emit_forward(li, dropout_kernel(n, fmt, out, cnt));
      c.emit_backward(li, dropout_backward_kernel(n + ".backward", fmt, out, cnt));
      c.save_extra(li, dout);
      return;
    case LayerKind::batch_norm: {
      const std::int64_t ch = l.output.empty() ? 1 : l.output[0];
      const std::int64_t per_channel = out / std::max<std::int64_t>(1, ch);
      // Inference: one pass with the running statistics (channels-last in PyTorch: cuDNN's
      // bn_fw_inf_1C11_kernel_NHWC and its per-image grid). Training with cuDNN's kernels
      // (cudnn_batch_norm: PyTorch, MXNet on channels-first tensors): channels-first, the
      // per-channel kernels over two passes; channels-last, the persistent kernels that read the
      // input once (sim/gpu/memory); other frameworks' element-parallel kernels: two passes.
      const bool cudnn = cudnn_batch_norm(c.opt.framework, c.opt.conv_layout);
      const bool pytorch = c.opt.framework == Framework::pytorch;
      const bool nhwc = cudnn && c.opt.conv_layout == TensorLayout::nhwc;
      const char* fwd_op = training_batch_norm_op(cudnn, false, nhwc);
      const double passes = batch_norm_reads_once(fwd_op) ? 1 : 2;
      // A fused ReLU costs no traffic (the backward kernel recomputes its mask from x); a fused add
      // reads the residual, keeps a one-bit-per-element ReLU mask and writes the residual's gradient.
      const BatchNormFusion fused = batch_norm_fusion(c, li, fmt);
      if (fused.relu >= 0) c.in_batch_norm[std::size_t(fused.relu)] = true;
      if (fused.add >= 0) c.in_batch_norm[std::size_t(fused.add)] = true;
      const double addend = fused.add >= 0 ? dout : 0, mask_bytes = fused.add >= 0 ? dout / 8 : 0;
      if (fused.add >= 0) c.save_extra(li, mask_bytes);
      if (c.opt.training) {
        fwd("", fwd_op, out, per_channel, passes * dout + addend, dout, fpe, 0, mask_bytes);
        // PyTorch's _BatchNorm.forward in training counts its batches first,
        // `self.num_batches_tracked.add_(1)`: an op of its own (host time and a one-thread kernel
        // on an int64; the H200 traces' add<long> kernels, one per batch-norm layer and step).
        if (pytorch)
          c.emit_forward(li, memory_kernel(n + ".num_batches_tracked", "add", FormatId::fp32, 1, 0, 0, 0, 1, cnt, 8, 8));
      } else if (nhwc) {
        // cuDNN's channels-last inference kernel runs a grid per image (sim/gpu/memory/memory_launch.cpp)
        fwd("", "batch_norm_inference_nhwc", out, out / std::max<std::int64_t>(1, c.batch), dout + addend, dout, 2);
      } else
        fwd("", "batch_norm", out, 0, dout + addend, dout, 2);
      bwd(".backward", training_batch_norm_op(cudnn, true, nhwc), out, per_channel, 2 * passes * dout, dout + addend,
          2 * fpe, mask_bytes);
      c.save_input(li, 0);
      return;
    }
    case LayerKind::rms_norm:
      if (l.rms_form == RmsNormForm::eager) {
        lower_rms_norm_eager(c, li, fmt);
        return;
      }
      [[fallthrough]];
    case LayerKind::layer_norm: {
      const char* op = kind == LayerKind::layer_norm ? "layer_norm" : "rms_norm";
      fwd("", op, out, last, dout, dout, fpe);
      // PyTorch's layer-norm backward: the input gradient (row-wise) and the weight and bias
      // gradients (GammaBetaBackward: a few CTAs walk all the rows, sim/gpu/memory/memory_launch.cpp);
      // an RMSNorm module's weight gradient is autograd's sum over the rows (reduce_kernel).
      bwd(".backward", kind == LayerKind::layer_norm ? "layer_norm_backward" : op, out, last, 2 * dout, dout, 2 * fpe);
      bwd(".weight_grad", kind == LayerKind::layer_norm ? "layer_norm_gamma_beta" : "reduce", last,
          out / std::max<std::int64_t>(1, last), 2 * dout, kind == LayerKind::layer_norm ? 2.0 * double(last) : double(last),
          2);
      c.save_input(li, 0);
      return;
    }
    case LayerKind::softmax: {
      // The input is read, and its gradient written, in the format the op takes it in: the 16-bit
      // input as it is under PyTorch's autocast (reads_as_is), else fmt (a cast-up input's fp32).
      const double in_bytes = dout * bytes_of(reads_as_is ? c.input_format(li, 0) : fmt);
      fwd("", "softmax", out, last, 0, dout, fpe, in_bytes);
      bwd(".backward", "softmax_backward", out, last, 2 * dout, 0, 4, 0, in_bytes);
      c.save_output(li);
      return;
    }
    case LayerKind::max_pool:
    case LayerKind::avg_pool: {
      const bool mx = kind == LayerKind::max_pool;
      const double window = double(l.kernel_h * l.kernel_w);
      if (!mx) {
        fwd("", "avg_pool", out, 0, double(in), dout, window);
        bwd(".backward", "avg_pool", in, 0, dout, double(in), window);
        return;
      }
      // PyTorch's max_pool2d_with_indices: its kernels follow the memory format and the window
      // (sim/gpu/memory/max_pool_launch.h); with autograd it writes int64 indices, and its backward
      // zeroes the input gradient (a fill) before the kernel adds each output's gradient at its argmax.
      const Shape& is = c.input_shape(li, 0);
      PoolShape pool;
      constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
      const bool pytorch = c.opt.framework == Framework::pytorch;
      if (pytorch && is.size() == 3 && l.output.size() == 3 && l.kernel_h <= kMaxInt &&
          l.kernel_w <= kMaxInt && l.stride_h <= kMaxInt && l.stride_w <= kMaxInt && l.pad_h <= kMaxInt && l.pad_w <= kMaxInt) {
        pool.n = c.net.batch, pool.c = is[0], pool.h = is[1], pool.w = is[2], pool.p = l.output[1], pool.q = l.output[2];
        pool.kernel_h = int(l.kernel_h), pool.kernel_w = int(l.kernel_w), pool.stride_h = int(l.stride_h);
        pool.stride_w = int(l.stride_w), pool.pad_h = int(l.pad_h), pool.pad_w = int(l.pad_w);
        pool.channels_last = c.opt.conv_layout == TensorLayout::nhwc;
      }
      Kernel f = memory_kernel(n, "max_pool", fmt, out, 0, double(in), dout, window, cnt, 0, c.opt.training ? 8 * dout : 0);
      f.memory.pool = pool;
      c.emit_forward(li, f);
      if (pytorch) bwd(".backward_zero", "fill", in, 0, 0, double(in), 0);
      Kernel b = memory_kernel(n + ".backward", "max_pool", fmt, in, 0, dout, double(in), window, cnt, 8 * dout);
      b.memory.pool = pool;
      b.memory.pool.backward = true;
      c.emit_backward(li, b);
      c.save_input(li, 0);
      c.save_extra(li, 8 * dout);
      return;
    }
    case LayerKind::global_avg_pool:
      fwd("", "reduce", out, in / std::max<std::int64_t>(1, out), double(in), dout, double(in) / std::max(1.0, dout));
      bwd(".backward", "avg_pool", in, 0, dout, double(in), 1);
      return;
    case LayerKind::embedding: {
      // A gather of rows; the token ids are int64. Autocast leaves embeddings in fp32.
      fmt = learned_tensor_format(c);
      c.out_format[L] = fmt;
      const std::int64_t tokens = in;
      fwd("", "embedding", out, last, dout, dout, 0, 8.0 * double(tokens));
      // embedding_dense_backward: zero the whole table's gradient, then scatter-add the rows.
      const std::int64_t table = l.vocab * last;
      bwd(".grad_zero", "fill", table, 0, 0, double(table), 0);
      bwd(".backward", "embedding_backward", out, last, dout, dout, 1, 8.0 * double(tokens));
      c.save_extra(li, 8.0 * double(tokens));
      return;
    }
    case LayerKind::rope:
      if (l.rope_form == RopeForm::eager) {
        lower_rope_eager(c, li, fmt);
        return;
      }
      fwd("", "rope", out, last, dout, dout, fpe);
      bwd(".backward", "rope", out, last, dout, dout, fpe);
      return;
    case LayerKind::cross_entropy: {
      if (!c.opt.training && !c.opt.eval_metrics) return;  // the loss exists only in training and evaluation steps
      const std::int64_t classes = c.input_shape(li, 0).empty() ? 1 : c.input_shape(li, 0).back();
      const std::int64_t rows = in / std::max<std::int64_t>(1, classes);
      // log_softmax over the classes, then nll_loss; backward: nll_loss's scatter into zeros and
      // log_softmax's gradient.
      fwd(".log_softmax", "log_softmax", in, classes, double(in), double(in), 5);
      fwd(".nll_loss", "reduce", rows, 0, double(rows), 1, 1);
      bwd(".nll_loss.backward", "fill", in, 0, 0, double(in), 0);
      bwd(".log_softmax.backward", "log_softmax_backward", in, classes, 2 * double(in), double(in), 4);
      c.save_extra(li, double(in) * bytes_of(fmt));
      return;
    }
    default:
      throw InputError(l.where, "layer '" + l.name + "': internal: kind " + to_string(kind) +
                                    " is not a memory-bound layer");
  }
}

}  // namespace tcsim::workload::lowering_detail
