#pragma once
// Shared pieces of `tcsim mma dot|batch|gemm`: option parsing of values, formats, architectures
// and instructions, and the display of bit patterns. The numerics live in sim/numerics/.
#include <string>
#include <string_view>
#include <vector>

#include "numerics/mma/arch.h"
#include "numerics/formats/convert.h"
#include "numerics/formats/format_id.h"
#include "numerics/mma/mma.h"

namespace tcsim::cli::mma {

// The sub-commands (each in sim/cli/mma/mma_<name>.cpp); args are the words after the sub-command.
int run_dot(const std::vector<std::string>& args);
int run_batch(const std::vector<std::string>& args);
int run_gemm(const std::vector<std::string>& args);

// Exit code of `batch --check` when some results differ from the expected ones (2 is bad input).
constexpr int kExitMismatch = 3;

// One value in format f. Accepts everything num::parse_value does (decimal, hex float
// "0x1p-24", a hex bit pattern "0x3c00", inf, nan) plus powers of two "2^-9", "-2^13" and
// "M*2^E" ("3*2^-16", "0.75*2^-10"). Not exactly representable -> InputError(where, "value N
// '...' is not representable in fp16: ...").
num::Bits parse_value(std::string_view text, FormatId f, const std::string& where, std::size_t index = 0,
                      bool allow_inexact = false);
// A comma-separated list of such values; "VALUExN" repeats a value N times ("2^-9x15").
std::vector<num::Bits> parse_value_list(const std::string& text, FormatId f, const std::string& where);

// A format name; `kinds` says what is accepted: "input" (fp16 bf16 tf32 e4m3 e5m2 s8 u8 s4 u4
// b1 fp64), "acc" (fp32 fp16 s32 fp64). InputError(where, ...) otherwise.
FormatId parse_input_format(const std::string& text, const std::string& where);
FormatId parse_acc_format(const std::string& text, const std::string& where);

// --fp8-f16 model|ptx (num::Fp8F16Rule); InputError(where, ...) otherwise.
num::Fp8F16Rule parse_fp8_f16_option(const std::string& text, const std::string& where);

// "all" (every architecture) or a comma list of sm_70/v100/... names.
std::vector<num::Arch> parse_arch_list(const std::string& text, const std::string& where);

// The instruction `dot` and `gemm` use when none is named: the architecture's wmma instruction for
// these formats when there is one (what the tc-golden data used), else default_instruction().
const num::Instruction& default_dot_instruction(num::Arch arch, FormatId a, FormatId b, FormatId acc,
                                                const std::string& where);
// Named (--instr) or default.
const num::Instruction& choose_instruction(num::Arch arch, const std::string& name, FormatId a, FormatId b,
                                           FormatId acc, const std::string& where);

// Display: "0x37c00000", "4.5776367e-05", and the exact form "3*2^-16" (empty when not short).
std::string bits_text(num::Bits bits, FormatId f);
std::string value_text(num::Bits bits, FormatId f);
std::string pow2_text(num::Bits bits, FormatId f);
// "0x37c00000 (4.5776367e-05 = 3*2^-16)"
std::string bits_and_value(num::Bits bits, FormatId f);

// Left/right padding for the text tables.
std::string pad(std::string s, std::size_t width);
std::string rpad(std::string s, std::size_t width);

}  // namespace tcsim::cli::mma
