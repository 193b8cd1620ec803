#include "workload/kernel.h"

#include <algorithm>
#include <string>

#include "common/text/strings.h"

namespace tcsim {

double Kernel::macs() const {
  if (kind == Kind::memory) return 0;
  if (kind == Kind::attention) {
    const AttentionShape& a = attention;
    // Unmasked (query, key) pairs: all of them, or under a causal mask the prefix (kv_len - q_len)
    // plus the triangle of the new positions.
    double pairs = double(a.q_len) * double(a.kv_len);
    if (a.causal) {
      const double prefix = double(std::max<std::int64_t>(0, a.kv_len - a.q_len));
      const double q = double(std::min(a.q_len, a.kv_len));
      pairs = double(a.q_len) * prefix + q * (q + 1) / 2;
    }
    // Forward: Q·Kᵀ and P·V. Backward (pass data_grad): S = Q·Kᵀ recomputed, dP = dO·Vᵀ, dV = Pᵀ·dO,
    // dK = dSᵀ·Q, dQ = dS·K: five products, 2.5x the forward (FlashAttention-2's count).
    const double products = pass == Pass::data_grad ? 5.0 : 2.0;
    return products * pairs * double(a.head_dim) * double(a.heads) * double(a.batch);
  }
  if (kind == Kind::conv) {
    // Every pass does the forward's multiply-adds: one per (output pixel, filter tap, channel pair).
    // Not gemm_view's m*n*k: a strided data gradient's implicit GEMM runs over every input pixel,
    // stride_h x stride_w times the useful work (the zeros between the outputs' taps).
    const ConvShape& c = conv;
    const std::int64_t groups = std::max<std::int64_t>(1, c.groups);
    return double(c.batch) * double(c.out_h()) * double(c.out_w()) * double(c.num_filters) *
           double(c.channels / groups) * double(c.filter_h) * double(c.filter_w);
  }
  return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
}

Kernel gemm_view(const Kernel& kernel) {
  if (kernel.kind != Kernel::Kind::conv) return kernel;
  Kernel g = kernel;
  g.kind = Kernel::Kind::gemm;
  const ConvShape& c = kernel.conv;
  const std::int64_t groups = std::max<std::int64_t>(1, c.groups);
  const std::int64_t cg = c.channels / groups, kg = c.num_filters / groups, rs = c.filter_h * c.filter_w;
  switch (kernel.pass) {
    case Pass::forward: g.m = c.batch * c.out_h() * c.out_w(), g.n = kg, g.k = cg * rs; break;
    case Pass::data_grad: g.m = c.batch * c.ifmap_h * c.ifmap_w, g.n = cg, g.k = kg * rs; break;
    case Pass::weight_grad: g.m = kg, g.n = cg * rs, g.k = c.batch * c.out_h() * c.out_w(); break;
  }
  g.batch = groups;
  return g;
}

std::string kernel_size_problem(const Kernel& kernel) {
  if (kernel.kind == Kernel::Kind::memory) {
    const double bytes = double(kernel.bytes_read) + double(kernel.bytes_written);
    return bytes > kMaxKernelElements * 8 ? "moves " + format_number("%.3g", bytes) + " bytes; at most 2^43 (8.8e12)" : "";
  }
  double m = double(kernel.m), n = double(kernel.n), k = double(kernel.k), batch = double(kernel.batch);
  if (kernel.kind == Kernel::Kind::conv) {  // gemm_view in double: its int64 products may overflow
    const ConvShape& c = kernel.conv;
    if (c.stride_h <= 0 || c.stride_w <= 0) return "";  // invalid shapes are the model's to report
    const double groups = double(std::max<std::int64_t>(1, c.groups));
    const double cg = double(c.channels) / groups, kg = double(c.num_filters) / groups,
                 rs = double(c.filter_h) * double(c.filter_w);
    const double out = double(c.batch) * double(c.out_h()) * double(c.out_w());
    const double in = double(c.batch) * double(c.ifmap_h) * double(c.ifmap_w);
    switch (kernel.pass) {
      case Pass::forward: m = out, n = kg, k = cg * rs; break;
      case Pass::data_grad: m = in, n = cg, k = kg * rs; break;
      case Pass::weight_grad: m = kg, n = cg * rs, k = out; break;
    }
    batch = groups;
  }
  double elements = std::max({m * k, k * n, m * n}) * batch;
  double macs = m * n * k * batch;
  if (kernel.kind == Kernel::Kind::attention) {
    const AttentionShape& a = kernel.attention;
    elements = std::max(double(a.q_len), double(a.kv_len)) * double(a.head_dim) * double(a.heads) * double(a.batch);
    macs = kernel.macs();
  }
  if (!(elements <= kMaxKernelElements))
    return "an operand of " + format_number("%.3g", elements) + " elements; at most 2^40 (1.1e12) per operand";
  if (!(macs <= kMaxKernelMacs)) return format_number("%.3g", macs) + " multiply-adds; at most 2^60 (1.15e18)";
  return "";
}

FormatId framework_output_format(FormatId in, FormatId acc) { return format_bits(in) == 16 ? in : acc; }

Kernel make_gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, FormatId ab, FormatId cd) {
  Kernel g;
  g.kind = Kernel::Kind::gemm;
  g.name = std::move(name);
  g.m = m;
  g.n = n;
  g.k = k;
  g.a_format = g.b_format = ab;
  g.c_format = g.d_format = cd;
  return g;
}

}  // namespace tcsim
