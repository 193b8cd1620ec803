// The GEMM, convolution and attention ops of a profile as tcsim kernels (op_kernels.h).
#include <algorithm>
#include <cstdlib>

#include "workload/profile/op_kernels_call.h"

namespace tcsim::workload::op_kernels_detail {
namespace {

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

}  // namespace

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
  // Which gradients a backward call computes, so summaries split by pass (convolution_backward
  // runs the data and the weight gradient as separate kernels, one or both per call).
  if (b == "convolution_backward") {
    std::string which;
    for (Pass p : passes) which += std::string(which.empty() ? " " : "+") + (p == Pass::data_grad ? "dgrad" : "wgrad");
    c.out.shape += which;
  }
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
  // The backward ops: _scaled_dot_product_flash_attention_backward(grad_out, query, key, value, out,
  // logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, ...) and
  // _efficient_attention_backward(grad_out, query, key, value, bias, out, logsumexp, philox_seed,
  // philox_offset, dropout_p, grad_input_mask, is_causal, ...): 11;
  // _scaled_dot_product_cudnn_attention_backward(grad_out, query, key, value, out, logsumexp,
  // philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
  // scale): 14.
  if (backward) causal_at = b.find("cudnn") != std::string::npos ? 14 : 11;
  // dropout_p sits just before is_causal in the forward schemas (flash: query, key, value,
  // dropout_p, is_causal; efficient and cudnn: ..., compute_log_sumexp, dropout_p, is_causal;
  // scaled_dot_product_attention: ..., attn_mask, dropout_p, is_causal) and in the backward ones
  // but efficient's (dropout_p, grad_input_mask, is_causal).
  const std::size_t dropout_at = backward && b.find("efficient") != std::string::npos ? causal_at - 2 : causal_at - 1;
  const double dropout = std::strtod(std::string(trim(c.concrete(dropout_at))).c_str(), nullptr);
  Kernel k;
  k.kind = Kernel::Kind::attention;
  k.name = c.op.name;
  k.attention = {Q[0], Q[1], K[1], Q[2], K[2], Q[3], c.flag(causal_at), dropout > 0 && dropout < 1 ? dropout : 0.0};
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
                std::to_string(K[2]) + " d=" + std::to_string(Q[3]) + (k.attention.causal ? " causal" : "") +
                (k.attention.dropout > 0 ? " dropout " : " ") +
                std::string(format_name(k.a_format));
}

}  // namespace tcsim::workload::op_kernels_detail
