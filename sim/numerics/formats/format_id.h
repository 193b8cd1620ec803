#pragma once
// The names of the number formats tcsim knows, shared by every module (workloads name operand
// formats with these; the numerics library gives each one its bit-level behaviour).
#include <optional>
#include <string>
#include <string_view>

namespace tcsim {

enum class FormatId { fp64, fp32, tf32, bf16, fp16, e4m3, e5m2, int32, int8, uint8, int4, uint4, b1 };

// Canonical short names: "fp64","fp32","tf32","bf16","fp16","e4m3","e5m2","s32","s8","u8","s4","u4","b1"
// (b1: one bit, 0 or 1, the operand of the 1-bit MMA).
// Aliases accepted by parse: f64 f32 f16 half float double bfloat16 fp8e4m3 fp8e5m2 int8 uint8 int4
// uint4 int32 i8 int1 u1 bit (case-insensitive).
std::string_view format_name(FormatId f);
std::optional<FormatId> parse_format(std::string_view name);
int format_bits(FormatId f);          // storage bits per element (tf32 is stored in 32 bits)
bool format_is_integer(FormatId f);

}  // namespace tcsim
