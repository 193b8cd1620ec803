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

Bits int_mma(const Instruction& ins, const Bits* a, const Bits* b, int k, Bits c, bool saturate) {
  std::int64_t s = int_value(c, FormatId::int32);
  for (int i = 0; i < k; ++i) s += int_value(a[i], ins.a_fmt) * int_value(b[i], ins.b_fmt);
  return detail::finish_int32(s, saturate);
}

Bits fp64_mma(const Bits* a, const Bits* b, int k, Bits c) {
  double d = std::bit_cast<double>(c);
  for (int i = 0; i < k; ++i)
    d = std::fma(std::bit_cast<double>(a[i]), std::bit_cast<double>(b[i]), d);
  return std::bit_cast<std::uint64_t>(d);
}

// One instruction on k = ins.k operands (already checked).
Bits run_instruction(const Instruction& ins, const FdpaParams& p, const Bits* a, const Bits* b,
                     Bits c, const MmaOptions& opt) {
  switch (ins.out_mode) {
    case OutMode::int32_exact: return int_mma(ins, a, b, ins.k, c, opt.int_saturate);
    case OutMode::fp64_fma: return fp64_mma(a, b, ins.k, c);
    default: break;
  }
  Bits fa[64], fb[64];
  const Bits* pa = a;
  const Bits* pb = b;
  if (ins.tf32_truncate) {
    for (int i = 0; i < ins.k; ++i) {
      fa[i] = ins.a_fmt == FormatId::tf32 ? feed_tf32(a[i], opt.tf32_feed) : a[i];
      fb[i] = ins.b_fmt == FormatId::tf32 ? feed_tf32(b[i], opt.tf32_feed) : b[i];
    }
    pa = fa;
    pb = fb;
  }
  Bits d = c;
  for (int j = 0; j < ins.k; j += p.L) d = tfdpa_block(p, pa + j, pb + j, p.L, d);
  return d;
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
  return run_instruction(ins, fdpa_params(ins), a.data(), b.data(), c, opt);
}

Bits dot(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
         const MmaOptions& opt) {
  if (a.size() != b.size())
    throw InputError("K", "a has " + std::to_string(a.size()) + " values but b has " +
                              std::to_string(b.size()));
  const FdpaParams p = fdpa_params(ins);
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
