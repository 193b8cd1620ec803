// The memory-bound ops of a profile (elementwise, softmax, norms, reductions, optimizer) as tcsim
// memory kernels with the bytes of their tensors (op_kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "workload/profile/op_kernels_call.h"

namespace tcsim::workload::op_kernels_detail {
namespace {

using lowering_detail::memory_kernel;

// The tensors of the call: (elements, format) of each tensor argument with a known floating format.
struct Tensors {
  std::int64_t largest = 0;   // elements of the largest tensor (the output of a broadcast)
  double read_bytes = 0;      // all tensor inputs, boolean masks (1 byte per element) included
  std::optional<FormatId> format;  // the first tensor's
};

// Whether input i is the `out=` tensor of an out-variant call of an op whose positional arguments
// are one tensor and then scalars (clamp, hardtanh, ...): ATen's schemas put the keyword-only `out`
// last, so a tensor recorded after a Scalar is the result being written, not an operand read (the
// H200 MobileNet-v2 trace's aten::clamp under hardtanh: inputs (Half, Scalar, Scalar, Half)). Ops
// with a tensor after a scalar in their own schema (where.ScalarSelf, pow.Scalar) are not listed.
bool out_argument(const Call& c, const std::string& b, std::size_t i) {
  static const std::unordered_set<std::string> tensor_then_scalars = {
      "clamp", "clamp_min", "clamp_max", "hardtanh", "threshold", "leaky_relu", "elu", "softplus"};
  if (!tensor_then_scalars.count(b)) return false;
  for (std::size_t j = 0; j < i; ++j)
    if (c.type(j) == "Scalar") return true;
  return false;
}

Tensors tensors_of(const Call& c, const std::string& b) {
  Tensors t;
  for (std::size_t i = 0; i < c.op.input_dims.size(); ++i) {
    if (out_argument(c, b, i)) continue;
    if (c.type(i) == "bool" && !c.dims(i).empty()) {  // a mask (dropout's gradient, where, masked_fill)
      t.read_bytes += double(numel(c.dims(i)));
      continue;
    }
    const auto f = format_of_type(c.type(i));
    if (!f || c.type(i).empty()) continue;
    if (c.dims(i).empty() && c.op.input_lists[i].empty()) continue;  // a 0-d tensor: a scalar
    const std::int64_t n = numel(c.dims(i));
    if (!t.format) t.format = *f;
    t.largest = std::max(t.largest, n);
    t.read_bytes += double(n) * bytes_of(*f);
  }
  return t;
}

struct StridedWalk {
  int dims = 0;               // MemoryShape::strided_dims
  double lines_per_warp = 0;  // MemoryShape::lines_per_warp
};

// Distinct 128-byte lines that one warp's accesses (32 consecutive iteration indices) touch, summed
// over the operands and averaged over up to 64 warps spread across the index space. `dims`: the
// iteration's dims from inner to outer; operand offsets from 128-byte aligned bases (PyTorch's
// caching allocator hands out 512-byte aligned blocks).
double lines_per_warp(const Dims& out, const std::vector<std::size_t>& dims,
                      const std::vector<std::vector<std::int64_t>>& strides, const std::vector<double>& element_bytes) {
  std::int64_t total = 1;
  for (auto d : dims) total *= out[d];
  const std::int64_t warps = (total + 31) / 32, samples = std::min<std::int64_t>(warps, 64);
  double lines = 0;
  std::vector<std::int64_t> seen;
  for (std::int64_t s = 0; s < samples; ++s) {
    const std::int64_t first = s * warps / samples * 32;
    for (std::size_t o = 0; o < strides.size(); ++o) {
      seen.clear();
      for (std::int64_t i = first; i < std::min(total, first + 32); ++i) {
        std::int64_t rest = i, offset = 0;
        for (auto d : dims) offset += rest % out[d] * strides[o][d], rest /= out[d];
        seen.push_back(std::int64_t(std::floor(double(offset) * element_bytes[o] / 128.0)));
      }
      std::sort(seen.begin(), seen.end());
      lines += double(std::unique(seen.begin(), seen.end()) - seen.begin());
    }
  }
  return samples > 0 ? lines / double(samples) : 0.0;
}

// The dimensions PyTorch's TensorIterator walks per element (ATen native/cuda/CUDALoops.cuh,
// gpu_kernel_impl; TensorIterator::coalesce_dimensions), 0 when it runs the op as one contiguous
// stream: every floating tensor of the output's shape, dense, and laid out alike (all row-major, or
// all the same permutation: channels-last tensors too). Otherwise (a broadcast operand, a gap, two
// layouts) the dims in the first tensor's layout order, adjacent ones merged where every operand
// steps across them as one (stride of the outer = stride x size of the inner): elementwise_kernel<128,
// 4> divides each element's index by the sizes of what is left. Tensors without recorded strides
// count as row-major. Also the 128-byte lines one warp access of the walk touches (lines_per_warp).
StridedWalk strided_dims(const Call& c, const Dims& out, const std::string& b) {
  const std::size_t n = out.size();
  std::vector<std::vector<std::int64_t>> strides;  // per floating operand, broadcast to out's rank
  std::vector<double> element_bytes;               // per operand
  std::optional<std::vector<std::size_t>> layout;
  bool strided = false;
  for (std::size_t i = 0; i < c.op.input_dims.size(); ++i) {
    // A bool tensor (dropout's mask) is an operand the kernel walks like the others.
    const auto format = format_of_type(c.type(i));
    const bool tensor = format || c.type(i) == "bool";
    if (!tensor || c.dims(i).empty() || numel(c.dims(i)) < 1 || out_argument(c, b, i)) continue;
    const Dims& d = c.dims(i);
    Dims s(d.size(), 1);
    const bool recorded = i < c.op.input_strides.size() && c.op.input_strides[i].size() == d.size();
    if (recorded) s = c.op.input_strides[i];
    else
      for (std::size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * std::max<std::int64_t>(1, d[k]);
    std::vector<std::int64_t> e(n, 0);  // numpy broadcasting: align from the right, size-1 dims stride 0
    for (std::size_t k = 0; k < n; ++k) {
      const std::ptrdiff_t j = std::ptrdiff_t(k) - std::ptrdiff_t(n) + std::ptrdiff_t(d.size());
      if (j >= 0 && d[std::size_t(j)] != 1) e[k] = s[std::size_t(j)];
    }
    strides.push_back(e);
    element_bytes.push_back(format ? bytes_of(*format) : 1.0);  // a bool mask: one byte
    // Broadcast: a dim of the output this operand repeats (size 1 or absent there). Leading size-1
    // dims are not: [4096] times [1, 1, 4096] is one contiguous stream (the H200 decode step's
    // RMSNorm weight, vectorized_elementwise_kernel in all 65 calls).
    bool broadcast = false;
    for (std::size_t k = 0; k < n; ++k) {
      const std::ptrdiff_t j = std::ptrdiff_t(k) - std::ptrdiff_t(n) + std::ptrdiff_t(d.size());
      if (out[k] != 1 && (j < 0 || d[std::size_t(j)] == 1)) broadcast = true;
    }
    if (broadcast || numel(d) != numel(out)) {
      strided = true;
      continue;
    }
    // The output's dims by this operand's falling stride (size-1 dims carry no layout); dense when
    // each stride is the product of the sizes inside it
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < n; ++k)
      if (out[k] != 1) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return e[a] > e[b]; });
    std::int64_t expect = 1;
    for (auto k = order.rbegin(); k != order.rend(); ++k) {
      if (e[*k] != expect) strided = true;
      expect *= out[*k];
    }
    if (layout && *layout != order) strided = true;
    layout = order;
  }
  if (!strided || strides.empty()) return {};
  // Iteration order: the first operand's (the output of copy_ and in-place ops) from inner to outer.
  std::vector<std::size_t> dims;
  for (std::size_t k = 0; k < n; ++k)
    if (out[k] != 1) dims.push_back(k);
  const auto& first = strides.front();
  std::stable_sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });
  int left = dims.empty() ? 0 : 1;
  for (std::size_t k = 1; k < dims.size(); ++k) {
    const std::size_t inner = dims[k - 1], outer = dims[k];
    bool merge = true;
    for (const auto& st : strides) merge = merge && st[outer] == st[inner] * out[inner];
    if (!merge) ++left;
  }
  return {left, lines_per_warp(out, dims, strides, element_bytes)};
}

// Elementwise ops by base name, with their arithmetic per element (a special function counts one).
bool elementwise_flops(const std::string& b, double& flops) {
  static const std::unordered_set<std::string> one = {
      "add", "sub", "mul", "div", "relu", "threshold_backward", "neg", "exp", "sqrt", "rsqrt", "pow", "where",
      "masked_fill", "addcmul", "addcdiv", "lerp", "clamp", "clamp_min", "silu", "sigmoid", "tanh", "tanh_backward",
      "sigmoid_backward", "silu_backward", "hardtanh", "hardtanh_backward", "leaky_relu", "abs", "reciprocal", "fill",
      "zero", "copy", "clone", "to_copy", "contiguous", "native_dropout", "native_dropout_backward", "dropout", "rsub",
      "log", "sin", "cos", "erf", "gelu", "gelu_backward", "square", "maximum", "minimum", "eq", "ne", "gt", "lt", "ge", "le"};
  if (!one.count(b)) return false;
  flops = b == "gelu" || b == "gelu_backward" ? 5 : b == "copy" || b == "clone" || b == "to_copy" || b == "fill" || b == "zero" || b == "contiguous" ? 0 : 1;
  return true;
}

void add_memory(Call& c, const std::string& family, const std::string& op, FormatId stored, std::int64_t elements,
                std::int64_t row, double read_bytes, double write_bytes, double flops, std::int64_t launches) {
  double scale = 1;
  const FormatId fmt = c.memory_format(stored, family, scale);
  launches = std::max<std::int64_t>(1, launches);
  Kernel k = memory_kernel(c.op.name, op, fmt, std::max<std::int64_t>(1, (elements + launches - 1) / launches), row, 0, 0,
                           flops, launches, read_bytes * scale / double(launches), write_bytes * scale / double(launches));
  c.out.kernels.push_back(std::move(k));
  c.out.mapped = true;
  c.out.family = family;
  c.out.shape = std::to_string(elements) + " elements" + (row > 0 ? " rows of " + std::to_string(row) : "") + " " +
                std::string(format_name(fmt));
}

}  // namespace

void map_memory(Call& c, const std::string& b) {
  const Tensors t = tensors_of(c, b);
  // The op's own kernels: its memsets (a multi-CTA reduction's semaphores) are added apart (op_kernels.cpp).
  std::int64_t launches = std::int64_t(c.launched.size()) - c.memsets();
  if (b == "fused_adam" || b == "fused_adamw" || b == "fused_sgd" || b.rfind("foreach_", 0) == 0) {
    // TensorList arguments: parameters (or the first list) and the lists read alongside.
    std::int64_t elements = 0, lists = 0;
    for (std::size_t i = 0; i < c.op.input_lists.size(); ++i) {
      if (c.op.input_lists[i].empty()) continue;
      std::int64_t n = 0;
      for (const auto& d : c.op.input_lists[i]) n += numel(d);
      if (lists == 0) elements = n;
      if (n > 0) ++lists;
    }
    if (elements == 0) return (void)c.fail("optimizer", "no tensor lists in Input Dims");
    if (double(elements) > kMaxElements) return (void)c.fail("optimizer", "tensor lists above 2^48 elements");
    const double e = double(elements), fp32 = 4;  // lists carry no dtype: fp32 master state assumed
    if (b == "fused_sgd") return add_memory(c, "optimizer", "sgd", FormatId::fp32, elements, 0, 3 * e * fp32, 2 * e * fp32, 4, launches);
    if (b.rfind("fused_adam", 0) == 0)  // p, grad, exp_avg, exp_avg_sq read; p and both moments written
      return add_memory(c, "optimizer", b == "fused_adam" ? "adam" : "adamw", FormatId::fp32, elements, 0, 4 * e * fp32, 3 * e * fp32, 12, launches);
    return add_memory(c, "optimizer", b.substr(8), FormatId::fp32, elements, 0, double(lists) * e * fp32,
                      e * fp32, 1, launches);
  }
  if (b == "cat") {
    // torch.cat (a TensorList, the dim): every input element read once and written once. The kernel
    // names the path (kernel_name.cpp): ATen's general non-contiguous CatArrayBatchedCopy computes
    // both offsets per element by division (memory_launch.cpp's "cat"); its contiguous and
    // vectorized variants stream like a copy. The list carries no dtype: the kernel's OpaqueType does.
    std::int64_t elements = 0;
    for (const auto& d : c.op.input_lists.empty() ? std::vector<Dims>{} : c.op.input_lists[0]) elements += numel(d);
    int bytes = 0;
    bool general = false;
    for (const auto& k : c.launched) {
      if (k.cat_element_bytes > 0) bytes = k.cat_element_bytes;
      general = general || k.non_contiguous_cat;
    }
    if (elements <= 0 || bytes <= 0)
      return (void)c.fail("other", "cat: expected a TensorList in Input Dims and a CatArrayBatchedCopy kernel naming its element size");
    if (double(elements) > kMaxElements) return (void)c.fail("other", "cat above 2^48 elements");
    const FormatId f = bytes == 1 ? FormatId::int8 : bytes == 2 ? FormatId::fp16 : bytes == 4 ? FormatId::fp32 : FormatId::fp64;
    const double n = double(elements) * bytes;
    return add_memory(c, "elementwise", general ? "cat" : "copy", f, elements, 0, n, n, 0, launches);
  }
  if (b == "embedding") {
    // (weight [V, H], indices [...]): a gather of one H-row per index, int64 ids read beside it.
    // Checked first: the weight table is the largest floating tensor, not what the op moves.
    const Dims& w = c.dims(0);
    const std::int64_t ids = c.op.input_dims.size() > 1 ? numel(c.dims(1)) : 0;
    const auto fw = format_of_type(c.type(0));
    if (w.size() != 2 || ids <= 0 || !fw)
      return (void)c.fail("embedding", "expected a 2-D floating weight and indices in Input Dims");
    const double out = double(ids) * double(w[1]) * bytes_of(*fw);
    return add_memory(c, "embedding", "embedding", *fw, ids * w[1], w[1], out + 8.0 * double(ids), out, 0, launches);
  }
  if (!t.format || t.largest == 0) return (void)c.fail("other", "no floating-point tensor input with recorded sizes");
  const FormatId f = *t.format;
  const double eb = bytes_of(f), n = double(t.largest);
  const Dims& x = c.dims(0);
  if (b == "softmax" || b == "log_softmax") {
    std::int64_t dim = int_list(c.concrete(1)).empty() ? -1 : int_list(c.concrete(1))[0];
    if (dim < 0) dim += std::int64_t(x.size());
    const std::int64_t row = dim >= 0 && dim < std::int64_t(x.size()) ? x[std::size_t(dim)] : x.back();
    // _softmax(self, dim, half_to_float): autocast's softmax(x, dtype=float) reads the 16-bit input
    // and writes fp32 (softmax_warp_forward<Half, float, float> in the H200's eager BERT trace).
    const double out_bytes = c.concrete(2) == "True" ? 4.0 : eb;
    return add_memory(c, "softmax", b, f, t.largest, row, n * eb, n * out_bytes, 5, launches);
  }
  if (b == "softmax_backward_data" || b == "log_softmax_backward_data") {
    std::int64_t dim = int_list(c.concrete(2)).empty() ? -1 : int_list(c.concrete(2))[0];
    if (dim < 0) dim += std::int64_t(x.size());
    const std::int64_t row = dim >= 0 && dim < std::int64_t(x.size()) ? x[std::size_t(dim)] : x.back();
    // _softmax_backward_data(grad, output, dim, input_dtype): the gradient is written in the forward
    // input's dtype (c10::ScalarType: 5 Half, 15 BFloat16, 6 Float), fp16 after a half_to_float softmax.
    const std::string in_dtype = c.concrete(3);
    const double grad_bytes = in_dtype == "5" || in_dtype == "15" ? 2.0 : in_dtype == "6" ? 4.0 : eb;
    return add_memory(c, "softmax", b == "softmax_backward_data" ? "softmax_backward" : "log_softmax_backward", f,
                      t.largest, row, 2 * n * eb, n * grad_bytes, 4, launches);
  }
  // aten::_fused_rms_norm (input, normalized_shape, weight, eps): PyTorch runs it through
  // vectorized_layer_norm_kernel with its RMS flag (the H100's llm_ops traces name that kernel), a
  // CTA per row as layer norm, with gamma only and rstd only (no beta, no mean); 6 lane ops per
  // element (square-accumulate, then x * rstd * gamma, with the two conversions) against layer
  // norm's 8 (Welford's mean and variance).
  if (b == "native_layer_norm" || b == "native_layer_norm_backward" || b == "layer_norm" || b == "fused_rms_norm") {
    const bool bwd = b.back() == 'd', rms = b == "fused_rms_norm";
    const Dims& w = c.dims(bwd ? 5 : 2);
    const std::int64_t row = !w.empty() ? numel(w) : (x.empty() ? 1 : x.back());
    const double rows = n / double(std::max<std::int64_t>(1, row));
    if (!bwd) {  // x and the affine parameters in; y and the fp32 row statistics out
      const double params = rms ? 1 : 2, stats_bytes = rms ? 4 : 8;
      return add_memory(c, "norm", rms ? "layer_norm_rms" : "layer_norm", f, t.largest, row, n * eb + params * double(row) * eb,
                        n * eb + stats_bytes * rows, rms ? 6 : 8, launches);
    }
    // Two launches (PyTorch, native/cuda/layer_norm_kernel.cu): the input gradient, a CTA per row
    // (dy, x, mean, rstd, gamma in; dx out), then the weight and bias gradients, a reduction over
    // the rows of dy and x (GammaBetaBackward: sim/gpu/memory/memory_launch.cpp).
    if (launches >= 2 && row > 0) {
      add_memory(c, "norm", "layer_norm_backward", f, t.largest, row, 2 * n * eb + 8 * rows + double(row) * eb, n * eb, 8, 1);
      const std::string shape = c.out.shape;
      add_memory(c, "norm", "layer_norm_gamma_beta", f, row, std::int64_t(rows), 2 * n * eb + 8 * rows,
                 2.0 * double(row) * eb, 3 * n / double(row), 1);
      c.out.shape = shape;
      return;
    }
    // dy, x, mean, rstd, gamma in; dx, dgamma, dbeta out
    return add_memory(c, "norm", "layer_norm", f, t.largest, row, 2 * n * eb + 8 * rows + double(row) * eb,
                      n * eb + 2.0 * double(row) * eb, 8, launches);
  }
  if (b == "native_batch_norm" || b == "cudnn_batch_norm" || b == "batch_norm_impl_index" || b == "batch_norm" ||
      b == "native_batch_norm_backward" || b == "cudnn_batch_norm_backward" || b == "batch_norm_backward") {
    const bool bwd = b.find("backward") != std::string::npos;
    const Dims& in = c.dims(bwd && b != "cudnn_batch_norm_backward" ? 1 : 0);
    if (in.size() < 2) return (void)c.fail("norm", "expected a batch-norm input of rank >= 2");
    const std::int64_t per_channel = numel(in) / std::max<std::int64_t>(1, in[1]);
    // training: statistics pass and normalise pass (lowering_memory.cpp's batch_norm rule); cuDNN's
    // channels-first kernels (named in the trace) run a CTA per channel, its channels-last ones a
    // persistent grid that reads the input once (its re-reads are the launch's, sim/gpu/memory)
    if (!bwd && c.any_launched(&KernelNameClass::nhwc_inference_batch_norm))
      // Inference with the running statistics, channels-last: cuDNN's per-image grid (sim/gpu/memory)
      return add_memory(c, "norm", "batch_norm_inference_nhwc", f, t.largest, numel(in) / std::max<std::int64_t>(1, in[0]),
                        n * eb, n * eb, 2, launches);
    const bool nhwc = c.any_launched(&KernelNameClass::nhwc_batch_norm);
    const char* op = training_batch_norm_op(c.any_launched(&KernelNameClass::per_channel_batch_norm) || nhwc, bwd, nhwc);
    const double passes = batch_norm_reads_once(op) ? 1 : 2;
    if (nhwc && launches > 1) {
      // The persistent kernel is one launch over all channels; the op's other launches are the
      // running counter's increment (num_batches_tracked += 1: one int64).
      add_memory(c, "norm", "add", FormatId::fp32, launches - 1, 0, 8.0 * double(launches - 1), 8.0 * double(launches - 1),
                 1, launches - 1);
      launches = 1;
    }
    if (!bwd) return add_memory(c, "norm", op, f, t.largest, per_channel, passes * n * eb, n * eb, 6, launches);
    return add_memory(c, "norm", op, f, t.largest, per_channel, 2 * passes * n * eb, n * eb, 12, launches);
  }
  if (b == "max_pool2d_with_indices" || b == "max_pool2d_with_indices_backward") {
    // (self, kernel_size, stride, padding, dilation, ceil_mode); the backward (grad_output, self,
    // kernel_size, stride, padding, dilation, ceil_mode, indices). The kernel follows the memory
    // format and the window (sim/gpu/memory/max_pool_launch.h); the backward's zero fill of the input
    // gradient is an op of its own in the trace.
    const bool bwd = b.back() == 'd';
    const std::size_t self = bwd ? 1 : 0, arg = bwd ? 2 : 1;
    const Dims& xin = c.dims(self);
    const Dims k = int_list(c.concrete(arg)), st = int_list(c.concrete(arg + 1)), pad = int_list(c.concrete(arg + 2)),
               dil = int_list(c.concrete(arg + 3));
    if (xin.size() != 4 || k.empty()) return (void)c.fail("pool", "expected a 4-D input and the kernel size in Concrete Inputs");
    auto at = [](const Dims& v, std::size_t i, std::int64_t fallback) { return v.empty() ? fallback : v[std::min(i, v.size() - 1)]; };
    const std::int64_t kh = at(k, 0, 1), kw = at(k, 1, kh), sh = at(st, 0, kh), sw = at(st, 1, sh), ph = at(pad, 0, 0),
                       pw = at(pad, 1, ph);
    if (at(dil, 0, 1) != 1 || at(dil, 1, 1) != 1 || c.flag(arg + 4))
      return (void)c.fail("pool", "dilated or ceil-mode max pooling is not modelled");
    // PyTorch's own checks: positive kernel and stride, padding at most half the kernel; and the
    // window within the padded input.
    constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
    if (kh < 1 || kw < 1 || sh < 1 || sw < 1 || ph < 0 || pw < 0 || 2 * ph > kh || 2 * pw > kw || kh > kMaxInt ||
        kw > kMaxInt || sh > kMaxInt || sw > kMaxInt || kh > xin[2] + 2 * ph || kw > xin[3] + 2 * pw)
      return (void)c.fail("pool", "the window does not fit the padded input");
    PoolShape p;
    p.n = xin[0], p.c = xin[1], p.h = xin[2], p.w = xin[3];
    p.kernel_h = int(kh), p.kernel_w = int(kw), p.stride_h = int(sh), p.stride_w = int(sw), p.pad_h = int(ph), p.pad_w = int(pw);
    p.p = (p.h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1, p.q = (p.w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
    p.channels_last = self < c.op.input_strides.size() && c.op.input_strides[self].size() == 4 &&
                      c.op.input_strides[self][1] == 1 && p.c > 1;
    p.backward = bwd;
    const auto fx = format_of_type(c.type(self));
    if (!fx) return (void)c.fail("pool", "no floating-point input");
    const double xe = bytes_of(*fx), in = double(numel(xin)), out = double(p.n) * double(p.c) * double(p.p) * double(p.q);
    const double window = double(p.kernel_h) * double(p.kernel_w);
    if (!bwd) add_memory(c, "pool", "max_pool", *fx, std::int64_t(out), 0, in * xe, out * (xe + 8), window, 1);
    else add_memory(c, "pool", "max_pool", *fx, std::int64_t(in), 0, out * (xe + 8), in * xe, window, 1);
    c.out.kernels.back().memory.pool = p;
    return;
  }
  if (b == "sum" || b == "mean") {
    const Dims dims = int_list(c.concrete(1));
    // The input's innermost dim in memory: the last one, or the one of stride 1 where the trace
    // records strides (a channels-last [N, C, H, W] tensor's C: its bias gradient sums N, H and W,
    // outer dims only).
    std::int64_t innermost = std::int64_t(x.size()) - 1;
    if (!c.op.input_strides.empty() && c.op.input_strides[0].size() == x.size())
      for (std::size_t i = 0; i < x.size(); ++i)
        if (c.op.input_strides[0][i] == 1 && x[i] > 1) innermost = std::int64_t(i);
    std::int64_t reduced = 1;
    bool fastest = dims.empty();  // does the reduction include the input's innermost (contiguous) dim?
    for (auto d : dims) {
      const std::int64_t i = d < 0 ? d + std::int64_t(x.size()) : d;
      if (i >= 0 && i < std::int64_t(x.size())) reduced *= x[std::size_t(i)];
      if (i == innermost) fastest = true;
    }
    if (dims.empty()) reduced = t.largest;
    const std::int64_t out = std::max<std::int64_t>(1, t.largest / std::max<std::int64_t>(1, reduced));
    // A sum over outer dims only (a bias gradient) runs reduce_kernel's column configuration.
    const char* op = fastest || out == 1 ? "reduce" : "reduce_columns";
    return add_memory(c, "reduce", op, f, out, reduced, n * eb, double(out) * eb, double(reduced), launches);
  }
  double flops = 1;
  if (elementwise_flops(b, flops)) {
    // copy_ (dst, src) reads src and writes dst in dst's format; other ops write the largest tensor.
    // The non-vectorized paths of TensorIterator ops (not dropout: its own kernel). Its gradient is
    // one (masked_scale_kernel through gpu_kernel: the BERT-base AMP trace runs it as
    // vectorized_elementwise_kernel<8, masked_scale...> and, with its mask permuted,
    // elementwise_kernel<128, 4, ...masked_scale...>).
    const bool iterator_op = b != "native_dropout" && b != "dropout";
    auto mark = [&](StridedWalk walk, bool cast, int operands) {
      for (auto& k : c.out.kernels) {
        k.memory.strided_dims = iterator_op ? walk.dims : 0, k.memory.cast = iterator_op && cast;
        k.memory.lines_per_warp = iterator_op ? walk.lines_per_warp : 0.0;
        if (k.memory.cast) k.memory.operands = operands;
      }
    };
    if (b == "copy" && c.op.input_dims.size() >= 2) {
      const auto fd = format_of_type(c.type(0)), fs = format_of_type(c.type(1));
      if (fd && fs) {
        add_memory(c, "elementwise", "copy", *fd, numel(c.dims(0)), 0, double(numel(c.dims(1))) * bytes_of(*fs),
                   double(numel(c.dims(0))) * bytes_of(*fd), 0, launches);
        // The H100 traces: float -> Half copies run vectorized_elementwise_kernel<8>, Half -> float
        // ones unrolled_elementwise_kernel.
        return mark(strided_dims(c, c.dims(0), b), lowering_detail::casts_dynamically(*fs, *fd), 2);
      }
    }
    const bool writes_only = b == "fill" || b == "zero";
    // native_dropout writes its boolean mask beside the output (1 byte per element).
    const double mask = b == "native_dropout" ? n : 0.0;
    add_memory(c, "elementwise", b, f, t.largest, 0, writes_only ? 0 : t.read_bytes, n * eb + mask, flops, launches);
    Dims out;
    bool cast = false;
    int tensors = 0;  // tensor inputs the kernel reads per element (0-d and CPU scalars are arguments)
    for (std::size_t i = 0; i < c.op.input_dims.size(); ++i)
      if (const auto fi = format_of_type(c.type(i)); fi && !c.dims(i).empty() && !out_argument(c, b, i)) {
        if (numel(c.dims(i)) == t.largest && out.empty()) out = c.dims(i);
        cast = cast || *fi != f;
        ++tensors;
      }
    return mark(writes_only ? StridedWalk{} : strided_dims(c, out, b), cast, tensors + 1);
  }
  c.fail("other", "op '" + c.op.name + "' is not mapped to a tcsim kernel");
}

bool is_memory_op(const std::string& b) {
  static const std::unordered_set<std::string> s = {
      "fused_adam", "fused_adamw", "fused_sgd", "softmax", "log_softmax", "softmax_backward_data",
      "log_softmax_backward_data", "native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
      "cudnn_batch_norm", "batch_norm_impl_index", "native_batch_norm_backward", "cudnn_batch_norm_backward",
      "batch_norm_backward", "sum", "mean", "layer_norm", "batch_norm", "fused_rms_norm", "embedding", "cat"};
  double f = 0;
  return s.count(b) || b.rfind("foreach_", 0) == 0 || elementwise_flops(b, f);
}

}  // namespace tcsim::workload::op_kernels_detail
