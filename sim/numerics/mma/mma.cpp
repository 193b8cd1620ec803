#include "numerics/mma/mma.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "numerics/mma/fdpa_core.h"
#include "numerics/formats/round_core.h"

namespace tcsim::num {
namespace {

Bits feed_tf32(Bits bits, Tf32Feed feed) {
  const auto b32 = static_cast<std::uint32_t>(bits);
  switch (feed) {
    case Tf32Feed::truncate: return tf32_truncate(b32);
    case Tf32Feed::rna: return convert(b32, FormatId::fp32, FormatId::tf32, {Rounding::rna});
    case Tf32Feed::rne: return convert(b32, FormatId::fp32, FormatId::tf32, {Rounding::rne});
  }
  return b32;
}

void check_bit(Bits v, char which, int i) {
  if (v > 1)
    throw InputError(std::string(1, which) + "[" + std::to_string(i) + "]",
                     "a b1 (1-bit MMA) operand must be a bit vector of 0 and 1, got the pattern " +
                         std::to_string(v));
}

Bits int_mma(const Instruction& ins, const Bits* a, const Bits* b, int k, Bits c, bool saturate) {
  std::int64_t s = int_value(c, FormatId::int32);
  if (ins.bit_op != BitOp::none) {
    // PTX mma .b1: d = c + popc(a XOR b) or c + popc(a AND b), summed over k bits, exact.
    for (int i = 0; i < k; ++i) {
      check_bit(a[i], 'a', i);
      check_bit(b[i], 'b', i);
      s += ins.bit_op == BitOp::xor_popc ? static_cast<std::int64_t>(a[i] ^ b[i]) : static_cast<std::int64_t>(a[i] & b[i]);
    }
    return detail::finish_int32(s, saturate);
  }
  for (int i = 0; i < k; ++i) s += int_value(a[i], ins.a_fmt) * int_value(b[i], ins.b_fmt);
  return detail::finish_int32(s, saturate);
}

Bits fp64_mma(const Bits* a, const Bits* b, int k, Bits c) {
  double d = std::bit_cast<double>(c);
  for (int i = 0; i < k; ++i)
    d = std::fma(std::bit_cast<double>(a[i]), std::bit_cast<double>(b[i]), d);
  return std::bit_cast<std::uint64_t>(d);
}

// IEEE add of two accumulator values, RNE, subnormals kept, as FADD (fp32) and HADD2 (fp16) do;
// a NaN result is the canonical NaN.
Bits ieee_add(Bits x, Bits y, FormatId acc) {
  if (acc == FormatId::fp32) {
    const float r = std::bit_cast<float>(static_cast<std::uint32_t>(x)) + std::bit_cast<float>(static_cast<std::uint32_t>(y));
    return std::isnan(r) ? canonical_nan(FormatId::fp32) : std::bit_cast<std::uint32_t>(r);
  }
  // Two fp16 values add exactly in double; one RNE rounding into fp16 (overflow -> inf).
  const double r = to_double(x, acc) + to_double(y, acc);
  return std::isnan(r) ? canonical_nan(acc) : from_double(r, acc);
}

float as_f32(Bits v, FormatId f) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(convert(v, f, FormatId::fp32)));
}

Bits f32_result(float r, FormatId acc) {
  if (std::isnan(r)) return canonical_nan(acc);
  const auto bits = std::bit_cast<std::uint32_t>(r);
  return acc == FormatId::fp32 ? Bits{bits} : convert(bits, FormatId::fp32, acc);  // RNE
}

// Lowering::fp8_via_hmma_f16 (arch.h): the fp8 operands become f16 exactly; two f16 blocks (k mod
// 4 in {0,1}, then {2,3}) from a zero accumulator; then c is added (FADD / HADD2).
Bits fp8_via_hmma(const Instruction& ins, const FdpaParams& p, const Bits* a, const Bits* b, Bits c) {
  FdpaParams h = p;
  h.in_a = h.in_b = FormatId::fp16;
  Bits ha[2][64], hb[2][64];
  int n[2] = {0, 0};
  for (int k = 0; k < ins.kept(); ++k) {  // stored order: a sparse A's kept values, increasing k
    const int half = (k % 4) < 2 ? 0 : 1;
    ha[half][n[half]] = convert(a[k], ins.a_fmt, FormatId::fp16);
    hb[half][n[half]++] = convert(b[k], ins.b_fmt, FormatId::fp16);
  }
  Bits d = 0;  // +0 in fp32 and fp16
  for (int half = 0; half < 2; ++half)
    for (int j = 0; j < n[half]; j += h.L) d = tfdpa_block(h, ha[half] + j, hb[half] + j, std::min(h.L, n[half] - j), d);
  return ieee_add(c, d, ins.acc_fmt);
}

// Lowering::ffma_chain (arch.h): mma.m8n8k4 f16 on sm_90, FP32 FFMA/FADD with RNE.
Bits ffma_chain(const Instruction& ins, const Bits* a, const Bits* b, Bits c) {
  float x[4], y[4];
  for (int k = 0; k < 4; ++k) {
    x[k] = as_f32(a[k], ins.a_fmt);
    y[k] = as_f32(b[k], ins.b_fmt);
  }
  const float cf = as_f32(c, ins.acc_fmt);
  if (ins.acc_fmt == FormatId::fp32) {
    float r = 0.0f;
    for (int k = 0; k < 4; ++k) r = std::fma(x[k], y[k], r);
    return f32_result(cf + r, ins.acc_fmt);
  }
  // Each pair starts with a product (FMUL; -0 * 1 stays -0, which the measured all -0 row shows).
  const float lo = std::fma(x[1], y[1], x[0] * y[0]);
  const float hi = std::fma(x[3], y[3], x[2] * y[2]);
  return f32_result((cf + lo) + hi, ins.acc_fmt);
}

void reject_sparse(const Instruction& ins) {
  if (ins.sparse)
    throw InputError("instruction", ins.describe() +
                                        " is a 2:4 sparse instruction: it takes compressed A values and "
                                        "metadata (tcsim mma gemm --sparse 2:4, or sparse_dot)");
}
}  // namespace

namespace detail {
// One instruction on n = ins.kept() products (already checked).
Bits run_products(const Instruction& ins, const FdpaParams& p, const Bits* a, const Bits* b,
                  Bits c, const MmaOptions& opt) {
  const int n = ins.kept();
  switch (ins.lowering) {
    case Lowering::fp8_via_hmma_f16: return fp8_via_hmma(ins, p, a, b, c);
    case Lowering::ffma_chain: return ffma_chain(ins, a, b, c);
    case Lowering::none: break;
  }
  switch (ins.out_mode) {
    case OutMode::int32_exact: return int_mma(ins, a, b, n, c, opt.int_saturate);
    case OutMode::fp64_fma: return fp64_mma(a, b, n, c);
    default: break;
  }
  Bits fa[256], fb[256];
  const Bits* pa = a;
  const Bits* pb = b;
  if (ins.tf32_truncate) {
    for (int i = 0; i < n; ++i) {
      fa[i] = ins.a_fmt == FormatId::tf32 ? feed_tf32(a[i], opt.tf32_feed) : a[i];
      fb[i] = ins.b_fmt == FormatId::tf32 ? feed_tf32(b[i], opt.tf32_feed) : b[i];
    }
    pa = fa;
    pb = fb;
  }
  Bits d = c;
  for (int j = 0; j < n; j += p.L) d = tfdpa_block(p, pa + j, pb + j, p.L, d);
  return d;
}
}  // namespace detail

namespace {
Bits run_instruction(const Instruction& ins, const FdpaParams& p, const Bits* a, const Bits* b,
                     Bits c, const MmaOptions& opt) {
  return detail::run_products(ins, p, a, b, c, opt);
}
}  // namespace

std::string_view tf32_feed_name(Tf32Feed f) {
  switch (f) {
    case Tf32Feed::truncate: return "truncate";
    case Tf32Feed::rna: return "rna";
    case Tf32Feed::rne: return "rne";
  }
  return "?";
}

std::string_view sparse_blocks_name(SparseBlocks s) { return s == SparseBlocks::kept ? "kept" : "dense"; }

std::string_view fp8_f16_rule_name(Fp8F16Rule r) {
  return r == Fp8F16Rule::ptx_direct_fp16 ? "ptx" : "model";
}

std::optional<Fp8F16Rule> parse_fp8_f16_rule(std::string_view text) {
  if (text == "model") return Fp8F16Rule::model_fp32_then_fp16;
  if (text == "ptx") return Fp8F16Rule::ptx_direct_fp16;
  return std::nullopt;
}

FdpaParams fdpa_params(const Instruction& ins, const MmaOptions& opt) {
  FdpaParams p = fdpa_params(ins);
  if (p.out == OutMode::rz_fp32_rne_fp16 && opt.fp8_f16_rule == Fp8F16Rule::ptx_direct_fp16)
    p.out = OutMode::rne_fp16;
  return p;
}

FdpaParams fdpa_params(const Instruction& ins) {
  FdpaParams p;
  p.in_a = ins.a_fmt;
  p.in_b = ins.b_fmt;
  p.acc = ins.acc_fmt;
  p.F = ins.F;
  p.L = ins.L;
  p.e_zero = ins.e_zero;
  p.out = ins.out_mode;
  return p;
}

Bits tfdpa_block(const FdpaParams& p, const Bits* a, const Bits* b, int n, Bits c) {
  return detail::tfdpa_generic(p, a, b, n, c);
}

Bits mma_element(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
                 const MmaOptions& opt) {
  if (a.size() != static_cast<std::size_t>(ins.k) || b.size() != static_cast<std::size_t>(ins.k))
    throw InputError("K", ins.describe() + " takes K = " + std::to_string(ins.k) + " values of a and b, got " +
                              std::to_string(a.size()) + " and " + std::to_string(b.size()));
  reject_sparse(ins);
  return run_instruction(ins, fdpa_params(ins, opt), a.data(), b.data(), c, opt);
}

Bits dot(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
         const MmaOptions& opt) {
  if (a.size() != b.size())
    throw InputError("K", "a has " + std::to_string(a.size()) + " values but b has " +
                              std::to_string(b.size()));
  reject_sparse(ins);
  const FdpaParams p = fdpa_params(ins, opt);
  const std::size_t k = static_cast<std::size_t>(ins.k);
  std::vector<Bits> pa(k), pb(k);
  Bits d = c;
  for (std::size_t k0 = 0; k0 < a.size() || (k0 == 0 && a.empty()); k0 += k) {
    for (std::size_t i = 0; i < k; ++i) {
      pa[i] = k0 + i < a.size() ? a[k0 + i] : 0;
      pb[i] = k0 + i < b.size() ? b[k0 + i] : 0;
    }
    d = run_instruction(ins, p, pa.data(), pb.data(), d, opt);
    if (a.empty()) break;
  }
  return d;
}

}  // namespace tcsim::num
