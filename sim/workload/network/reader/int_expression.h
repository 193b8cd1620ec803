#pragma once
// Integer expressions in network files: "hidden / heads", "4 * hidden", "(seq + past) * 2".
// Numbers, names bound in `names`, + - * / // ( ) and unary minus; `/` must divide exactly, `//`
// rounds down ("(seq * 5 + 31) // 32").
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tcsim::workload {

// Throws ParseError saying what is wrong (syntax, an unknown name, an inexact division, overflow).
std::int64_t evaluate_int_expression(std::string_view text, const std::map<std::string, std::int64_t>& names);

}  // namespace tcsim::workload
