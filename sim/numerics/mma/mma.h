#pragma once
// One MMA output element: d = c + sum_k a_k*b_k with the bit-exact rules of an instruction
// (spec numerics.md section 2: T-FDPA blocks for floats, exact s32 for integers, fp64 FMA chain).
#include <cstdint>
#include <optional>
#include <string_view>
#include <span>

#include "numerics/mma/arch.h"
#include "numerics/formats/convert.h"
#include "numerics/formats/formats.h"

namespace tcsim::num {

// How fp32 operand bits become tf32 before they reach the tensor core (spec section 6).
enum class Tf32Feed {
  truncate,  // raw feed: the hardware ignores the low 13 bits (default, as on the GPU)
  rna,       // __float_to_tf32 / cvt.rna.tf32.f32: nearest, ties away
  rne,       // nearest even
};
std::string_view tf32_feed_name(Tf32Feed f);

// Blackwell FP8 with an .f16 accumulator (OutMode::rz_fp32_rne_fp16 instructions). The
// Khattak-Mikaitis model B200TC.m forces outformat = 'fp32' for fp8 inputs: the block result is
// an FP32 RZ value that is then rounded (RNE) to the FP16 accumulator. The PTX ISA describes the
// accumulator (and so each block result) as .f16: direct RNE from the exact block sum, as for
// fp16 inputs. Kept both until hardware decides (spec section 8 item 4).
enum class Fp8F16Rule {
  model_fp32_then_fp16,  // B200TC.m (default)
  ptx_direct_fp16,       // PTX ISA reading
};
std::string_view fp8_f16_rule_name(Fp8F16Rule r);
std::optional<Fp8F16Rule> parse_fp8_f16_rule(std::string_view text);  // "model" | "ptx"

// 2:4 sparse (mma.sp) numerics, see numerics/sparse/structured.h: blocks of L kept products
// (default) or the dense instruction's blocks of L consecutive k over the zero-filled A.
enum class SparseBlocks { kept, dense };
std::string_view sparse_blocks_name(SparseBlocks s);

struct MmaOptions {
  Tf32Feed tf32_feed = Tf32Feed::truncate;
  // Integer MMA: false = wrap around modulo 2^32, true = clamp to [INT32_MIN, INT32_MAX]
  // (.satfinite / satf). Applied to each instruction's exact result c + sum(a*b).
  bool int_saturate = false;
  Fp8F16Rule fp8_f16_rule = Fp8F16Rule::model_fp32_then_fp16;
  SparseBlocks sparse_blocks = SparseBlocks::kept;
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
// The same with the options applied (Fp8F16Rule).
FdpaParams fdpa_params(const Instruction& ins, const MmaOptions& opt);

// One T-FDPA block of n <= 64 products plus c (spec section 2 tfdpa()); a, b in in_a/in_b
// (tf32 already fed, i.e. low 13 bits as they reach the core), c and result in acc.
Bits tfdpa_block(const FdpaParams& p, const Bits* a, const Bits* b, int n, Bits c);

// One instruction: a.size() == b.size() == ins.k (throws InputError("K", ...) otherwise).
// b1 operands must be 0 or 1 (InputError otherwise). A sparse (mma.sp) instruction is an
// InputError here: use sparse_mma_element / sparse_dot (sparse.h).
// a/b bit patterns in ins.a_fmt/ins.b_fmt, c and the result in ins.acc_fmt.
Bits mma_element(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
                 const MmaOptions& opt = {});

// Any K: chains ceil(K / ins.k) instructions in increasing k (the last one zero-padded, as a
// kernel pads K), each one's result becoming the next one's c.
Bits dot(const Instruction& ins, std::span<const Bits> a, std::span<const Bits> b, Bits c,
         const MmaOptions& opt = {});

namespace detail {
// One instruction on exactly ins.kept() products (no size checks; sparse.cpp gathers first).
Bits run_products(const Instruction& ins, const FdpaParams& p, const Bits* a, const Bits* b, Bits c,
                  const MmaOptions& opt);
}  // namespace detail

}  // namespace tcsim::num
