#include "io/cell_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tcsim::io {

std::string human_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e15 || a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3e", v);
    return buf;
  }
  if (v == std::floor(v) || a >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const int decimals = 3 - static_cast<int>(std::floor(std::log10(a)));
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') == std::string::npos) return s;  // decimals == 0 (e.g. 3879.99 -> "3880"): no zeros to drop
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string exact_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 64 characters always suffice for a double
  return std::string(buf, end);
}

bool is_number(const Cell& c) {
  return std::holds_alternative<std::int64_t>(c) || std::holds_alternative<double>(c);
}

std::string exact_text(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&c)) return exact_number(*d);
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return "";
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && len > 1) {  // reject overlong forms, surrogates and values above U+10FFFF
      std::uint32_t cp = c & (0xFF >> (len + 1));
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      static const std::uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= min_cp[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (char ch : s)
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace tcsim::io

#include <stdexcept>

namespace tcsim::io {
void check_table_name(const std::string& name) {
  bool ok = !name.empty() && name.front() != '.';
  for (char ch : name)
    ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                ch == '-' || ch == '.');
  if (!ok) throw std::invalid_argument("table name '" + name + "': expected letters, digits, '_', '-' or '.'");
}
}  // namespace tcsim::io
