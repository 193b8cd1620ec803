#include <algorithm>

#include "workload/profile/op_kernels_call.h"

namespace tcsim::workload::op_kernels_detail {

bool has_true(std::string_view s) { return s.find("True") != std::string_view::npos || s.find("true") != std::string_view::npos; }

std::int64_t numel(const Dims& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= std::max<std::int64_t>(0, v);
  return n;
}

std::string dims_text(const Dims& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s.empty() ? "scalar" : s;
}

std::optional<FormatId> format_of_type(const std::string& t) {
  if (t == "float") return FormatId::fp32;
  if (t == "c10::Half") return FormatId::fp16;
  if (t == "c10::BFloat16") return FormatId::bf16;
  if (t == "double") return FormatId::fp64;
  if (t == "c10::Float8_e4m3fn") return FormatId::e4m3;
  if (t == "c10::Float8_e5m2") return FormatId::e5m2;
  if (t == "signed char") return FormatId::int8;
  if (t == "unsigned char") return FormatId::uint8;
  if (t == "int") return FormatId::int32;
  return std::nullopt;
}

// "[1, 2]" -> {1, 2}; "3" -> {3}; empty on anything else.
Dims int_list(const std::string& text) {
  Dims out;
  std::string t(trim(text));
  if (t.empty()) return out;
  if (t.front() == '[') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
  for (const auto& part : split(t, ',')) {
    const std::string p(trim(part));
    if (p.empty()) continue;
    char* end = nullptr;
    const long long v = std::strtoll(p.c_str(), &end, 10);
    if (end == p.c_str() || *end || v < -kMaxDim || v > kMaxDim) return {};
    out.push_back(v);
  }
  return out;
}

}  // namespace tcsim::workload::op_kernels_detail
