#include "numerics/mma.h"

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "numerics/fdpa_core.h"
#include "numerics/round_core.h"

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
