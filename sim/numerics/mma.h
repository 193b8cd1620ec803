#pragma once
// One MMA output element: d = c + sum_k a_k*b_k with the bit-exact rules of an instruction
// (spec numerics.md section 2: T-FDPA blocks for floats, exact s32 for integers, fp64 FMA chain).
#include <cstdint>
#include <span>

#include "numerics/arch.h"
#include "numerics/convert.h"
#include "numerics/formats.h"

namespace tcsim::num {

// How fp32 operand bits become tf32 before they reach the tensor core (spec section 6).
enum class Tf32Feed {
  truncate,  // raw feed: the hardware ignores the low 13 bits (default, as on the GPU)
  rna,       // __float_to_tf32 / cvt.rna.tf32.f32: nearest, ties away
  rne,       // nearest even
};
std::string_view tf32_feed_name(Tf32Feed f);

struct MmaOptions {
  Tf32Feed tf32_feed = Tf32Feed::truncate;
  // Integer MMA: false = wrap around modulo 2^32, true = clamp to [INT32_MIN, INT32_MAX]
  // (.satfinite / satf). Applied to each instruction's exact result c + sum(a*b).
  bool int_saturate = false;
};

// The numeric parameters of a T-FDPA block (from an Instruction).
struct FdpaParams {
  FormatId in_a = FormatId::fp16, in_b = FormatId::fp16;
  FormatId acc = FormatId::fp32;   // fp32 or fp16
  int F = 24;
  int L = 8;
  int e_zero = -132;
  OutMode out = OutMode::rz_fp32;
};
FdpaParams fdpa_params(const Instruction& ins);

// One T-FDPA block of n <= 64 products plus c (spec section 2 tfdpa()); a, b in in_a/in_b
// (tf32 already fed, i.e. low 13 bits as they reach the core), c and result in acc.
Bits tfdpa_block(const FdpaParams& p, const Bits* a, const Bits* b, int n, Bits c);

// One instruction: a.size() == b.size() == ins.k (throws InputError("K", ...) otherwise).
// a/b bit patterns in ins.a_fmt/ins.b_fmt, c and the result in ins.acc_fmt.
Bits mma_element(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
                 const MmaOptions& opt = {});

// Any K: chains ceil(K / ins.k) instructions in increasing k (the last one zero-padded, as a
// kernel pads K), each one's result becoming the next one's c.
Bits dot(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
         const MmaOptions& opt = {});

}  // namespace tcsim::num
