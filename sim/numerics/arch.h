#pragma once
// GPU architectures and their tensor-core instruction table (spec numerics.md section 1).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/format_id.h"

namespace tcsim::num {

enum class Arch { sm70, sm75, sm80, sm90 };
// "sm_70" "sm_75" "sm_80" "sm_90"
std::string_view arch_name(Arch a);
// "V100" "T4" "A100" "H100"
std::string_view arch_gpu_name(Arch a);
// Accepts sm_70/sm70/70/v100/volta, sm_75/t4/turing, sm_80/a100/ampere, sm_90/sm_90a/h100/hopper
// (case-insensitive).
std::optional<Arch> parse_arch(std::string_view text);
// Same; throws InputError(where, "expected one of sm_70 (v100), ...") for an unknown name.
Arch parse_arch_or_throw(std::string_view text, const std::string& where);
std::vector<Arch> all_archs();

// How one block result becomes the accumulator (spec section 2, step 6), plus the exact paths.
enum class OutMode {
  rz_fp32,     // FP32 result, truncated (RZ), |v| >= 2^128 -> inf
  rz_e8m13,    // FP32 storage with 13 fraction bits, RZ (H100 FP8)
  rne_fp16,    // FP16 result, round to nearest even
  int32_exact, // integer MMA: exact sum into s32 (wrap, or clamp with satfinite)
  fp64_fma,    // DMMA: chain of IEEE fp64 FMAs (RNE)
};
std::string_view out_mode_name(OutMode m);

enum class InstrFamily { mma, wmma, wgmma };

// One instruction variant (one combination of input and accumulator formats) with its numerics.
struct Instruction {
  Arch arch = Arch::sm80;
  InstrFamily family = InstrFamily::mma;
  std::string name;        // "mma.m16n8k16", "wmma.m16n16k16", "wgmma.m64nNk16"
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
  std::string note;        // e.g. "chain of 4 m8n8k4 blocks", "not measured: rests on MMA-Sim"

  int blocks() const { return L > 0 ? k / L : k; }
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
