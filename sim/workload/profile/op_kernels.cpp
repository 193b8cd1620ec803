#include "workload/profile/op_kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "common/strings.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload {
namespace {

using lowering_detail::memory_kernel;

bool has_true(std::string_view s) { return s.find("True") != std::string_view::npos || s.find("true") != std::string_view::npos; }

// Sizes are checked before any mapping (sizes_in_range): every dimension in [0, 2^31] and every
// tensor at most 2^48 elements, so these products cannot overflow.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
constexpr double kMaxElements = 281474976710656.0;  // 2^48, as the network lowering's limit

std::int64_t numel(const Dims& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= std::max<std::int64_t>(0, v);
  return n;
}

bool dims_in_range(const Dims& d) {
  double n = 1;
  for (auto v : d) {
    if (v < 0 || v > kMaxDim) return false;
    n *= double(v);
  }
  return n <= kMaxElements;
}

bool sizes_in_range(const ProfiledOp& op) {
  for (const Dims& d : op.input_dims)
    if (!dims_in_range(d)) return false;
  for (const auto& list : op.input_lists)
    for (const Dims& d : list)
      if (!dims_in_range(d)) return false;
  return true;
}

std::string dims_text(const Dims& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s.empty() ? "scalar" : s;
}

std::optional<FormatId> format_of_type(const std::string& t) {
  if (t == "float") return FormatId::fp32;
  if (t == "c10::Half") return FormatId::fp16;
  if (t == "c10::BFloat16") return FormatId::bf16;
  if (t == "double") return FormatId::fp64;
  if (t == "c10::Float8_e4m3fn") return FormatId::e4m3;
  if (t == "c10::Float8_e5m2") return FormatId::e5m2;
  if (t == "signed char") return FormatId::int8;
  if (t == "unsigned char") return FormatId::uint8;
  if (t == "int") return FormatId::int32;
  return std::nullopt;
}

// "aten::add_" -> "add"
std::string base_name(const std::string& name) {
  std::string s = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  while (!s.empty() && s.back() == '_') s.pop_back();
  while (!s.empty() && s.front() == '_') s.erase(s.begin());
  return s;
}

// "[1, 2]" -> {1, 2}; "3" -> {3}; empty on anything else.
Dims int_list(const std::string& text) {
  Dims out;
  std::string t(trim(text));
  if (t.empty()) return out;
  if (t.front() == '[') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
  for (const auto& part : split(t, ',')) {
    const std::string p(trim(part));
    if (p.empty()) continue;
    char* end = nullptr;
    const long long v = std::strtoll(p.c_str(), &end, 10);
    if (end == p.c_str() || *end || v < -kMaxDim || v > kMaxDim) return {};
    out.push_back(v);
  }
  return out;
}

struct Call {
  const ProfiledOp& op;
  const std::vector<KernelNameClass>& launched;
  std::optional<Precision> precision;
  OpKernels out;

  const Dims& dims(std::size_t i) const {
    static const Dims kNone;
    return i < op.input_dims.size() ? op.input_dims[i] : kNone;
  }
  std::string type(std::size_t i) const { return i < op.input_types.size() ? op.input_types[i] : std::string(); }
  std::string concrete(std::size_t i) const { return i < op.concrete.size() ? op.concrete[i] : std::string(); }
  bool flag(std::size_t i) const { return trim(concrete(i)) == "True"; }
  bool any_tensor_core() const {
    for (const auto& c : launched)
      if (c.path == MathPath::tensor_core) return true;
    return false;
  }
  bool any_nhwc() const {
    for (const auto& c : launched)
      if (c.nhwc) return true;
    return false;
  }
  OpKernels& fail(const std::string& family, const std::string& why) {
    out.mapped = false;
    out.family = family;
    out.reason = why;
    out.kernels.clear();
    return out;
  }
  // The formats of a GEMM-like op whose inputs are stored in `stored`.
  bool gemm_formats(Kernel& k, std::size_t type_index) {
    const auto f = format_of_type(type(type_index));
    if (!f) return false;
    FormatId in = *f;
    if (in == FormatId::fp32 && any_tensor_core()) in = FormatId::tf32;  // allow_tf32: the kernel name says
    FormatId acc = format_is_integer(in) ? FormatId::int32 : FormatId::fp32;
    if (precision) {
      const PrecisionFormats pf = formats_of(*precision);
      in = pf.gemm_in, acc = pf.gemm_acc;
    }
    k.a_format = k.b_format = in;
    k.c_format = k.d_format = acc;
    return true;
  }
  // The format a memory op runs in, and the factor its bytes scale by under `precision`.
  FormatId memory_format(FormatId stored, const std::string& family, double& scale) const {
    scale = 1;
    if (!precision) return stored;
    const PrecisionFormats pf = formats_of(*precision);
    FormatId to = family == "optimizer" ? pf.master : (family == "softmax" || family == "norm") ? pf.kept_fp32 : pf.activation;
    to = lowering_detail::storage_of(to);
    scale = bytes_of(to) / bytes_of(stored);
    return to;
  }
};

void add_gemm(Call& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, Layout layout,
              std::size_t type_index, const Dims* weight) {
  Kernel g;
  g.kind = Kernel::Kind::gemm;
  g.name = c.op.name;
  g.m = m, g.n = n, g.k = k, g.batch = batch;
  g.layout = layout;
  if (!c.gemm_formats(g, type_index)) {
    c.fail("gemm", c.type(type_index).empty() ? "no dtype recorded for its inputs (nor in its kernels' names)"
                                               : "input type '" + c.type(type_index) + "' is not a GEMM format");
    return;
  }
  c.out.mapped = true;
  c.out.family = "gemm";
  c.out.shape = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                (batch > 1 ? " batch=" + std::to_string(batch) : "") + " " + std::string(format_name(g.a_format));
  // Autocast in the replay: the fp32 weight is cast once per call (lowering's rule, precision.h).
  if (c.precision && weight && formats_of(*c.precision).autocast && format_of_type(c.type(type_index)) == FormatId::fp32)
    c.out.kernels.push_back(lowering_detail::cast_kernel(c.op.name + ".weight_cast", FormatId::fp32,
                                                         formats_of(*c.precision).gemm_in, numel(*weight), 1));
  c.out.kernels.push_back(std::move(g));
}

// op(X) from its strides: a row-major [rows x cols] matrix has stride [cols, 1]; [1, rows] is its transpose.
bool transposed(const Call& c, std::size_t i) {
  if (i >= c.op.input_strides.size()) return false;
  const Dims& s = c.op.input_strides[i];
  const Dims& d = c.dims(i);
  if (s.size() < 2 || d.size() < 2) return false;
  return s[s.size() - 2] == 1 && s.back() != 1;
}

Layout layout_of(bool ta, bool tb) {
  return ta ? (tb ? Layout::TT : Layout::TN) : (tb ? Layout::NT : Layout::NN);
}

void map_gemm(Call& c, const std::string& b) {
  auto need = [&](std::size_t i, std::size_t rank) { return c.dims(i).size() == rank; };
  if (b == "mm" || b == "addmm") {
    const std::size_t a = b == "mm" ? 0 : 1;
    if (!need(a, 2) || !need(a + 1, 2)) return (void)c.fail("gemm", "expected two matrices in Input Dims");
    const Dims &A = c.dims(a), &B = c.dims(a + 1);
    if (A[1] != B[0]) return (void)c.fail("gemm", "inner sizes differ: " + dims_text(A) + " . " + dims_text(B));
    return add_gemm(c, A[0], B[1], A[1], 1, layout_of(transposed(c, a), transposed(c, a + 1)), a, &B);
  }
  if (b == "bmm" || b == "baddbmm") {
    const std::size_t a = b == "bmm" ? 0 : 1;
    if (!need(a, 3) || !need(a + 1, 3)) return (void)c.fail("gemm", "expected two batches of matrices in Input Dims");
    const Dims &A = c.dims(a), &B = c.dims(a + 1);
    if (A[2] != B[1] || A[0] != B[0]) return (void)c.fail("gemm", "sizes differ: " + dims_text(A) + " . " + dims_text(B));
    return add_gemm(c, A[1], B[2], A[2], A[0], layout_of(transposed(c, a), transposed(c, a + 1)), a, nullptr);
  }
  if (b == "linear") {
    const Dims &X = c.dims(0), &W = c.dims(1);
    if (X.empty() || W.size() != 2 || X.back() != W[1])
      return (void)c.fail("gemm", "expected input [..., K] and weight [N, K]");
    return add_gemm(c, numel(X) / X.back(), W[0], W[1], 1, Layout::NT, 0, &W);
  }
  // matmul: 2-D x 2-D is mm; N-D x 2-D folds the leading dimensions into M; N-D x N-D is bmm.
  const Dims &A = c.dims(0), &B = c.dims(1);
  if (A.size() < 2 || B.size() < 2) return (void)c.fail("gemm", "matmul with a vector operand is not mapped");
  const std::int64_t K = A.back();
  if (B[B.size() - 2] != K) return (void)c.fail("gemm", "inner sizes differ: " + dims_text(A) + " . " + dims_text(B));
  if (B.size() == 2) return add_gemm(c, numel(A) / K, B[1], K, 1, Layout::NN, 0, &B);
  const std::int64_t batch = numel(A) / (A[A.size() - 2] * K);
  return add_gemm(c, A[A.size() - 2], B.back(), K, batch, Layout::NN, 0, nullptr);
}

// Argument positions of the convolution ops' (input, weight, stride, padding, dilation, transposed, groups).
struct ConvArgs {
  std::size_t input, weight, stride, padding, dilation, transposed, groups;
};

void map_conv(Call& c, const std::string& b) {
  ConvArgs a{0, 1, 3, 4, 5, 6, 8};  // convolution / _convolution
  if (b == "conv2d") a = {0, 1, 3, 4, 5, 99, 6};
  else if (b == "cudnn_convolution") a = {0, 1, 3, 2, 4, 99, 5};  // (self, weight, padding, stride, dilation, groups)
  else if (b == "convolution_backward") a = {1, 2, 4, 5, 6, 7, 9};
  const Dims &X = c.dims(a.input), &W = c.dims(a.weight);
  if (X.size() != 4 || W.size() != 4) return (void)c.fail("conv", "only 2-D convolutions (4-D input and weight) are mapped");
  if (a.transposed != 99 && c.flag(a.transposed)) return (void)c.fail("conv", "transposed convolutions are not mapped");
  const Dims stride = int_list(c.concrete(a.stride)), pad = int_list(c.concrete(a.padding)),
             dil = int_list(c.concrete(a.dilation)), groups = int_list(c.concrete(a.groups));
  if (stride.empty() || pad.empty() || dil.empty() || groups.size() != 1)
    return (void)c.fail("conv", "stride, padding, dilation or groups not recorded (\"Concrete Inputs\" needs PyTorch 2.1 or later)");
  auto pick = [](const Dims& d, std::size_t i) { return d.size() > i ? d[i] : d[0]; };
  ConvShape s;
  s.batch = X[0], s.channels = X[1], s.ifmap_h = X[2], s.ifmap_w = X[3];
  s.num_filters = W[0], s.filter_h = W[2], s.filter_w = W[3];
  s.stride_h = pick(stride, 0), s.stride_w = pick(stride, 1);
  s.pad_h = pick(pad, 0), s.pad_w = pick(pad, 1);
  s.dilation_h = pick(dil, 0), s.dilation_w = pick(dil, 1);
  s.groups = groups[0];
  if (s.groups < 1 || s.channels % s.groups || W[1] * s.groups != s.channels || s.stride_h < 1 || s.stride_w < 1 ||
      s.dilation_h < 1 || s.dilation_w < 1 || s.pad_h < 0 || s.pad_w < 0 || s.span_h() > s.ifmap_h + 2 * s.pad_h ||
      s.span_w() > s.ifmap_w + 2 * s.pad_w)
    return (void)c.fail("conv", "inconsistent convolution arguments: input " + dims_text(X) + ", weight " + dims_text(W));
  bool nhwc = c.any_nhwc();
  if (!nhwc && a.input < c.op.input_strides.size() && c.op.input_strides[a.input].size() == 4)
    nhwc = c.op.input_strides[a.input][1] == 1 && s.channels > 1;  // channels_last: C has stride 1
  s.layout = nhwc ? TensorLayout::nhwc : TensorLayout::nchw;

  std::vector<Pass> passes;
  if (b != "convolution_backward") {
    passes = {Pass::forward};
  } else {
    const std::string mask = c.concrete(10);
    bool dgrad = false, wgrad = false;
    if (!mask.empty()) {
      const auto parts = split(mask.substr(mask.find('[') == std::string::npos ? 0 : mask.find('[') + 1), ',');
      dgrad = parts.size() > 0 && has_true(parts[0]);
      wgrad = parts.size() > 1 && has_true(parts[1]);
    } else {
      for (const auto& k : c.launched) {
        dgrad = dgrad || k.conv_pass == ConvPassHint::dgrad;
        wgrad = wgrad || k.conv_pass == ConvPassHint::wgrad;
      }
      if (!dgrad && !wgrad) dgrad = wgrad = true;
    }
    if (dgrad) passes.push_back(Pass::data_grad);
    if (wgrad) passes.push_back(Pass::weight_grad);
    if (passes.empty()) return (void)c.fail("conv", "convolution_backward computes neither gradient of the input nor of the weight");
  }
  for (Pass p : passes) {
    Kernel k;
    k.kind = Kernel::Kind::conv;
    k.name = c.op.name + (p == Pass::data_grad ? ".dgrad" : p == Pass::weight_grad ? ".wgrad" : "");
    k.conv = s;
    k.pass = p;
    k.layout = Layout::NT;
    if (!c.gemm_formats(k, a.input)) return (void)c.fail("conv", "input type '" + c.type(a.input) + "' is not a convolution format");
    if (p == Pass::forward && c.precision && formats_of(*c.precision).autocast && format_of_type(c.type(a.input)) == FormatId::fp32)
      c.out.kernels.push_back(lowering_detail::cast_kernel(c.op.name + ".weight_cast", FormatId::fp32,
                                                           formats_of(*c.precision).gemm_in, numel(W), 1));
    c.out.kernels.push_back(std::move(k));
  }
  c.out.mapped = true;
  c.out.family = "conv";
  c.out.shape = "n=" + std::to_string(s.batch) + " c=" + std::to_string(s.channels) + " hw=" + std::to_string(s.ifmap_h) +
                "x" + std::to_string(s.ifmap_w) + " k=" + std::to_string(s.num_filters) + " rs=" + std::to_string(s.filter_h) +
                "x" + std::to_string(s.filter_w) + " stride=" + std::to_string(s.stride_h) + " pad=" + std::to_string(s.pad_h) +
                (s.groups > 1 ? " groups=" + std::to_string(s.groups) : "") + (nhwc ? " nhwc " : " nchw ") +
                std::string(format_name(c.out.kernels.back().a_format));
}

void map_attention(Call& c, const std::string& b) {
  const bool backward = b.find("backward") != std::string::npos;
  const std::size_t q = backward ? 1 : 0;
  const Dims &Q = c.dims(q), &K = c.dims(q + 1);
  if (Q.size() != 4 || K.size() != 4) return (void)c.fail("attention", "expected 4-D query and key [batch, heads, len, head_dim]");
  // is_causal's position in each op's schema.
  std::size_t causal_at = 4;  // _scaled_dot_product_flash_attention
  if (b.find("efficient") != std::string::npos || b.find("cudnn") != std::string::npos) causal_at = 6;
  if (b == "scaled_dot_product_attention") causal_at = 5;  // (query, key, value, attn_mask, dropout_p, is_causal)
  if (backward) causal_at = 11;
  Kernel k;
  k.kind = Kernel::Kind::attention;
  k.name = c.op.name;
  k.attention = {Q[0], Q[1], K[1], Q[2], K[2], Q[3], c.flag(causal_at)};
  k.pass = backward ? Pass::data_grad : Pass::forward;
  const auto f = format_of_type(c.type(q));
  if (!f) return (void)c.fail("attention", "input type '" + c.type(q) + "' is not an attention format");
  k.a_format = k.b_format = *f;
  if (c.precision) {
    const PrecisionFormats pf = formats_of(*c.precision);
    k.a_format = k.b_format = pf.quantized_inputs ? pf.activation : pf.gemm_in;
    if (k.a_format == FormatId::fp32 || k.a_format == FormatId::tf32) k.a_format = k.b_format = FormatId::fp32;
  }
  k.c_format = k.d_format = FormatId::fp32;
  c.out.kernels.push_back(k);
  c.out.mapped = true;
  c.out.family = "attention";
  c.out.shape = "b=" + std::to_string(Q[0]) + " h=" + std::to_string(Q[1]) + " q=" + std::to_string(Q[2]) + " kv=" +
                std::to_string(K[2]) + " d=" + std::to_string(Q[3]) + (k.attention.causal ? " causal " : " ") +
                std::string(format_name(k.a_format));
}

// The tensors of the call: (elements, format) of each tensor argument with a known floating format.
struct Tensors {
  std::int64_t largest = 0;   // elements of the largest tensor (the output of a broadcast)
  double read_bytes = 0;      // all tensor inputs
  std::optional<FormatId> format;  // the first tensor's
};

Tensors tensors_of(const Call& c) {
  Tensors t;
  for (std::size_t i = 0; i < c.op.input_dims.size(); ++i) {
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

void map_memory(Call& c, const std::string& b) {
  const Tensors t = tensors_of(c);
  const std::int64_t launches = std::int64_t(c.launched.size());
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
  if (!t.format || t.largest == 0) return (void)c.fail("other", "no floating-point tensor input with recorded sizes");
  const FormatId f = *t.format;
  const double eb = bytes_of(f), n = double(t.largest);
  const Dims& x = c.dims(0);
  if (b == "softmax" || b == "log_softmax") {
    std::int64_t dim = int_list(c.concrete(1)).empty() ? -1 : int_list(c.concrete(1))[0];
    if (dim < 0) dim += std::int64_t(x.size());
    const std::int64_t row = dim >= 0 && dim < std::int64_t(x.size()) ? x[std::size_t(dim)] : x.back();
    return add_memory(c, "softmax", "softmax", f, t.largest, row, n * eb, n * eb, 5, launches);
  }
  if (b == "softmax_backward_data" || b == "log_softmax_backward_data") {
    std::int64_t dim = int_list(c.concrete(2)).empty() ? -1 : int_list(c.concrete(2))[0];
    if (dim < 0) dim += std::int64_t(x.size());
    const std::int64_t row = dim >= 0 && dim < std::int64_t(x.size()) ? x[std::size_t(dim)] : x.back();
    return add_memory(c, "softmax", "softmax", f, t.largest, row, 2 * n * eb, n * eb, 4, launches);
  }
  if (b == "native_layer_norm" || b == "native_layer_norm_backward" || b == "layer_norm") {
    const bool bwd = b.back() == 'd';
    const Dims& w = c.dims(bwd ? 5 : 2);
    const std::int64_t row = !w.empty() ? numel(w) : (x.empty() ? 1 : x.back());
    const double rows = n / double(std::max<std::int64_t>(1, row));
    if (!bwd)  // x, gamma, beta in; y, mean and rstd (fp32) out
      return add_memory(c, "norm", "layer_norm", f, t.largest, row, n * eb + 2.0 * double(row) * eb, n * eb + 8 * rows, 8, launches);
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
    // training: statistics pass and normalise pass (lowering_memory.cpp's batch_norm rule)
    if (!bwd) return add_memory(c, "norm", "batch_norm", f, t.largest, per_channel, 2 * n * eb, n * eb, 6, launches);
    return add_memory(c, "norm", "batch_norm", f, t.largest, per_channel, 4 * n * eb, n * eb, 12, launches);
  }
  if (b == "sum" || b == "mean") {
    const Dims dims = int_list(c.concrete(1));
    std::int64_t reduced = 1;
    for (auto d : dims) {
      const std::int64_t i = d < 0 ? d + std::int64_t(x.size()) : d;
      if (i >= 0 && i < std::int64_t(x.size())) reduced *= x[std::size_t(i)];
    }
    if (dims.empty()) reduced = t.largest;
    const std::int64_t out = std::max<std::int64_t>(1, t.largest / std::max<std::int64_t>(1, reduced));
    return add_memory(c, "reduce", "reduce", f, out, reduced, n * eb, double(out) * eb, double(reduced), launches);
  }
  double flops = 1;
  if (elementwise_flops(b, flops)) {
    // copy_ (dst, src) reads src and writes dst in dst's format; other ops write the largest tensor.
    if (b == "copy" && c.op.input_dims.size() >= 2) {
      const auto fd = format_of_type(c.type(0)), fs = format_of_type(c.type(1));
      if (fd && fs) return add_memory(c, "elementwise", "copy", *fd, numel(c.dims(0)), 0, double(numel(c.dims(1))) * bytes_of(*fs),
                                      double(numel(c.dims(0))) * bytes_of(*fd), 0, launches);
    }
    const bool writes_only = b == "fill" || b == "zero";
    return add_memory(c, "elementwise", b, f, t.largest, 0, writes_only ? 0 : t.read_bytes, n * eb, flops, launches);
  }
  c.fail("other", "op '" + c.op.name + "' is not mapped to a tcsim kernel");
}

const std::unordered_set<std::string>& gemm_ops() {
  static const std::unordered_set<std::string> s = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear"};
  return s;
}
const std::unordered_set<std::string>& conv_ops() {
  static const std::unordered_set<std::string> s = {"conv2d", "convolution", "convolution", "cudnn_convolution",
                                                   "convolution_backward"};
  return s;
}
bool is_attention(const std::string& b) {
  // The public op too, for traces that give its kernels to the outer op (the inner one wins when known).
  return b.rfind("scaled_dot_product_", 0) == 0 && b.find("attention") != std::string::npos;
}
bool is_memory_op(const std::string& b) {
  static const std::unordered_set<std::string> s = {
      "fused_adam", "fused_adamw", "fused_sgd", "softmax", "log_softmax", "softmax_backward_data",
      "log_softmax_backward_data", "native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
      "cudnn_batch_norm", "batch_norm_impl_index", "native_batch_norm_backward", "cudnn_batch_norm_backward",
      "batch_norm_backward", "sum", "mean", "layer_norm", "batch_norm"};
  double f = 0;
  return s.count(b) || b.rfind("foreach_", 0) == 0 || elementwise_flops(b, f);
}

}  // namespace

bool is_known_op(const std::string& name) {
  const std::string b = base_name(name);
  return gemm_ops().count(b) || conv_ops().count(b) || is_attention(b) || is_memory_op(b);
}

OpKernels op_kernels(const ProfiledOp& op, const std::vector<KernelNameClass>& launched, std::optional<Precision> precision) {
  Call c{op, launched, precision, {}};
  const std::string b = base_name(op.name);
  if (!sizes_in_range(op)) {
    c.fail("other", "input sizes out of range (a dimension above 2^31 or a tensor above 2^48 elements)");
    return c.out;
  }
  if (gemm_ops().count(b)) map_gemm(c, b);
  else if (conv_ops().count(b)) map_conv(c, b);
  else if (is_attention(b)) map_attention(c, b);
  else map_memory(c, b);
  if (c.out.mapped)
    for (Kernel& k : c.out.kernels)
      if (k.kind != Kernel::Kind::memory && k.count < 1) k.count = 1;
  return c.out;
}

}  // namespace tcsim::workload
