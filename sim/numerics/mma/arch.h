#pragma once
// GPU architectures and their tensor-core instruction table (spec numerics.md section 1).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/formats/format_id.h"

namespace tcsim::num {

enum class Arch { sm70, sm75, sm80, sm86, sm89, sm90, sm100, sm120 };
// "sm_70" "sm_75" "sm_80" "sm_86" "sm_89" "sm_90" "sm_100" "sm_120"
std::string_view arch_name(Arch a);
// "V100" "T4" "A100" "A10" "L40S" "H100" "B200" "RTX PRO 6000"
std::string_view arch_gpu_name(Arch a);
// Accepts an sm name (sm_86, sm86, 86, sm_90a, sm_100a, ...), a generation (volta, turing,
// ampere = sm_80, ada, hopper, blackwell = sm_100) or a GPU name, case-insensitive, spaces and
// dashes ignored, vendor words (NVIDIA, Tesla, GeForce, Quadro) dropped, memory suffixes allowed
// ("NVIDIA A100-SXM4-40GB", "RTX PRO 6000", "GeForce RTX 4090"): V100; T4, RTX 20xx; A100, A30;
// A10, A10G, A2, A16, A40, RTX 30xx, RTX A6000 (sm_86); L4, L40, L40S, RTX 40xx, RTX 6000 Ada
// (sm_89); H100, H200, H800, H20, GH200; B200, B100, GB200 (sm_100); RTX PRO 6000, RTX 50xx
// (sm_120).
std::optional<Arch> parse_arch(std::string_view text);
// Same; throws InputError(where, "expected one of sm_70 (v100), ...") for an unknown name.
Arch parse_arch_or_throw(std::string_view text, const std::string& where);
std::vector<Arch> all_archs();

// How one block result becomes the accumulator (spec section 2, step 6), plus the exact paths.
enum class OutMode {
  rz_fp32,     // FP32 result, truncated (RZ), |v| >= 2^128 -> inf
  rz_e8m13,    // FP32 storage with 13 fraction bits, RZ (H100 FP8)
  rne_fp16,    // FP16 result, round to nearest even
  rz_fp32_rne_fp16,  // FP16 accumulator fed from an FP32 RZ block result, then RNE to FP16
                     // (Blackwell FP8 with an .f16 accumulator as B200TC.m models it; see
                     // MmaOptions::fp8_f16_rule for the PTX-ISA reading)
  int32_exact, // integer MMA: exact sum into s32 (wrap, or clamp with satfinite)
  fp64_fma,    // DMMA: chain of IEEE fp64 FMAs (RNE)
};
std::string_view out_mode_name(OutMode m);

enum class InstrFamily { mma, wmma, wgmma, tcgen05 };

// The 1-bit MMA's bit operation (PTX mma .b1 .xor.popc / .and.popc): d = c + sum popc(a op b).
enum class BitOp { none, xor_popc, and_popc };

// How an instruction runs when its architecture has no datapath of its own for it: ptxas then
// lowers it into other instructions, whose rounding the result follows (read off the SASS of
// CUDA 13.0's ptxas and measured bit for bit on an H100, validation/measured/H100/mma/).
enum class Lowering {
  none,
  // sm_90 mma.m16n8k32 e4m3/e5m2: F2FP.F16.E4M3/E5M2.UNPACK_B (fp8 -> f16, exact), HMMA.16816
  // over the k with k mod 4 in {0, 1} from a zero accumulator, HMMA.16816 over k mod 4 in {2, 3}
  // onto it (each one block of the sm_90 f16 instruction: F, L = 16, e_zero, out_mode of this
  // Instruction), then FADD (fp32) or HADD2 (fp16) of c and that, RNE. The sparse
  // mma.sp.m16n8k64 the same over its 32 kept values: stored index mod 4 in {0, 1} (the even
  // groups of four k) to the first HMMA.SP.16832, {2, 3} to the second (measured, .f32).
  fp8_via_hmma_f16,
  // sm_90 mma.m8n8k4 f16 (Volta's shape; Hopper has no HMMA.884): CUDA-core FP32 arithmetic, RNE.
  // .f32: r = fma(a3,b3, fma(a2,b2, fma(a1,b1, a0*b0))), d = c + r.
  // .f16: d = f16_rne((c + fma(a1,b1, a0*b0)) + fma(a3,b3, a2*b2)), every step in FP32 (the
  // .f32 chain starts from FFMA with +0, the .f16 pairs from a product: -0 sums differ).
  ffma_chain,
};
std::string_view lowering_name(Lowering l);

// One instruction variant (one combination of input and accumulator formats) with its numerics.
struct Instruction {
  Arch arch = Arch::sm80;
  InstrFamily family = InstrFamily::mma;
  std::string name;        // "mma.m16n8k16", "wmma.m16n16k16", "wgmma.m64nNk16",
                           // "tcgen05.mma.kind::f16", "mma.sp.m16n8k32", "mma.m8n8k128.xor.popc"
  int m = 0, n = 0, k = 0; // wgmma: n = 0 means any N in 8..256, step 8
  FormatId a_fmt = FormatId::fp16;
  FormatId b_fmt = FormatId::fp16;
  FormatId acc_fmt = FormatId::fp32;   // c and d
  // Numeric parameters (section 1). For int32_exact / fp64_fma, F and e_zero are unused (0).
  int F = 0;               // fraction bits kept below 2^Emax
  int L = 0;               // block length in products (k is a multiple of L)
  int e_zero = 0;          // alignment exponent of an exactly-zero term
  OutMode out_mode = OutMode::rz_fp32;
  bool tf32_truncate = false;  // tf32 operands: the hardware ignores the low 13 bits
  BitOp bit_op = BitOp::none;  // b1 instructions only
  // mma.sp: A is 2:4 structured sparse; k is the logical (dense) K, a holds k/2 kept values
  // per row and instruction, L counts kept products per block (see sparse.h).
  bool sparse = false;
  int dense_L = 0;         // mma.sp: the block length of the dense reading (L over k positions)
  Lowering lowering = Lowering::none;  // none: the tensor core runs it as one T-FDPA instruction
  std::string note;        // e.g. "chain of 4 m8n8k4 blocks", "not measured: rests on MMA-Sim"

  int kept() const { return sparse ? k / 2 : k; }   // products per instruction
  int blocks() const { return L > 0 ? kept() / L : kept(); }
  // "sm_80 mma.m16n8k16 f16.f16.f32" (a.b.acc with PTX-style short names)
  std::string describe() const;
};

// Every instruction variant of one architecture / of all.
const std::vector<Instruction>& instructions(Arch a);
std::vector<Instruction> all_instructions();

// Looks an instruction up. `name` is "mma.m16n8k16", "m16n8k16" (= mma.), "wmma.m16n16k16",
// "wgmma.m64nNk16" or a concrete "wgmma.m64n128k16" (any N in 8..256 step 8). b_fmt defaults to
// a_fmt. Throws InputError(where, ...) listing the instructions and format combinations that exist
// for that architecture when there is no match.
const Instruction& find_instruction(Arch a, std::string_view name, FormatId a_fmt,
                                    FormatId acc_fmt, const std::string& where = "instruction");
const Instruction& find_instruction(Arch a, std::string_view name, FormatId a_fmt, FormatId b_fmt,
                                    FormatId acc_fmt, const std::string& where = "instruction");
// The instruction a plain GEMM uses on that architecture for these formats (e.g. sm_80 fp16 ->
// mma.m16n8k16, sm_90 fp8 -> wgmma.m64nNk32, sm_70 -> wmma.m16n16k16); throws like above.
const Instruction& default_instruction(Arch a, FormatId in_fmt, FormatId acc_fmt,
                                       const std::string& where = "format");
// Human-readable list of what exists for an architecture (for error messages and --help).
std::string list_instructions(Arch a);

}  // namespace tcsim::num
