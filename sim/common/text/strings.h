#pragma once
// Small string helpers shared by the readers.
#include <string>
#include <string_view>
#include <vector>

namespace tcsim {

std::string_view trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);  // keeps empty fields
std::string to_lower(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// One number through a printf format ("%.3g", "%+.2f"): what the report lines print.
std::string format_number(const char* printf_format, double v);

// `s` safe to print: control bytes (other than newline and tab) and bytes that are not valid UTF-8
// become \xNN, so a message quoting bad input shows every byte and a NUL cannot cut it short.
std::string printable(std::string_view s);

}  // namespace tcsim
