#include "numerics/formats/format_id.h"

#include <array>

#include "common/text/strings.h"

namespace tcsim {
namespace {
struct Entry {
  FormatId id;
  std::string_view name;
  int bits;
  bool integer;
};
constexpr std::array<Entry, 13> kFormats = {{
    {FormatId::fp64, "fp64", 64, false}, {FormatId::fp32, "fp32", 32, false},
    {FormatId::tf32, "tf32", 32, false}, {FormatId::bf16, "bf16", 16, false},
    {FormatId::fp16, "fp16", 16, false}, {FormatId::e4m3, "e4m3", 8, false},
    {FormatId::e5m2, "e5m2", 8, false},  {FormatId::int32, "s32", 32, true},
    {FormatId::int8, "s8", 8, true},     {FormatId::uint8, "u8", 8, true},
    {FormatId::int4, "s4", 4, true},     {FormatId::uint4, "u4", 4, true},
    {FormatId::b1, "b1", 1, true},
}};
const Entry& entry(FormatId f) { return kFormats[static_cast<std::size_t>(f)]; }
}  // namespace

std::string_view format_name(FormatId f) { return entry(f).name; }
int format_bits(FormatId f) { return entry(f).bits; }
bool format_is_integer(FormatId f) { return entry(f).integer; }

std::optional<FormatId> parse_format(std::string_view name) {
  std::string n = to_lower(trim(name));
  for (const auto& e : kFormats)
    if (n == e.name) return e.id;
  struct Alias {
    std::string_view alias;
    FormatId id;
  };
  static constexpr Alias aliases[] = {
      {"f64", FormatId::fp64},     {"double", FormatId::fp64},   {"f32", FormatId::fp32},
      {"float", FormatId::fp32},   {"f16", FormatId::fp16},      {"half", FormatId::fp16},
      {"bfloat16", FormatId::bf16}, {"fp8e4m3", FormatId::e4m3}, {"fp8e5m2", FormatId::e5m2},
      {"fp8_e4m3", FormatId::e4m3}, {"fp8_e5m2", FormatId::e5m2}, {"int32", FormatId::int32},
      {"i32", FormatId::int32},    {"int8", FormatId::int8},     {"i8", FormatId::int8},
      {"uint8", FormatId::uint8},  {"int4", FormatId::int4},     {"i4", FormatId::int4},
      {"uint4", FormatId::uint4}, {"int1", FormatId::b1},    {"u1", FormatId::b1},
      {"bit", FormatId::b1}};
  for (const auto& a : aliases)
    if (n == a.alias) return a.id;
  return std::nullopt;
}

}  // namespace tcsim
