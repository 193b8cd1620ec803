// A recursive-descent evaluator: expr = term {(+|-) term}; term = unary {(*|/|//) unary};
// unary = [-] atom; atom = number | name | ( expr ).
#include "workload/network/reader/int_expression.h"

#include <cctype>
#include <cstdint>

#include "common/error.h"

namespace tcsim::workload {
namespace {

class Evaluator {
 public:
  Evaluator(std::string_view text, const std::map<std::string, std::int64_t>& names) : s_(text), names_(names) {}

  std::int64_t run() {
    const std::int64_t v = expr();
    skip_space();
    if (pos_ < s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError("in the expression '" + std::string(s_) + "': " + what);
  }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // The next character, with no space before it (the second '/' of "//").
  bool take_now(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      if (take('+')) {
        if (__builtin_add_overflow(v, term(), &v)) fail("the value overflows a 64-bit integer");
      } else if (take('-')) {
        if (__builtin_sub_overflow(v, term(), &v)) fail("the value overflows a 64-bit integer");
      } else {
        return v;
      }
    }
  }

  std::int64_t term() {
    std::int64_t v = unary();
    for (;;) {
      if (take('*')) {
        if (__builtin_mul_overflow(v, unary(), &v)) fail("the value overflows a 64-bit integer");
      } else if (take('/')) {
        const bool floor_div = take_now('/');  // "//": rounds down, like Python's
        const std::int64_t d = unary();
        if (d == 0) fail("division by zero");
        if (d == -1 && v == INT64_MIN) fail("the value overflows a 64-bit integer");
        if (!floor_div && v % d != 0)
          fail(std::to_string(v) + " / " + std::to_string(d) + " is not a whole number (// rounds down)");
        const std::int64_t q = v / d;
        v = (v % d != 0 && ((v < 0) != (d < 0))) ? q - 1 : q;
      } else {
        return v;
      }
    }
  }

  std::int64_t unary() {
    if (take('-')) {
      std::int64_t v = 0;
      if (__builtin_sub_overflow(std::int64_t{0}, unary(), &v)) fail("the value overflows a 64-bit integer");
      return v;
    }
    return atom();
  }

  std::int64_t atom() {
    skip_space();
    if (pos_ >= s_.size()) fail("expected a number, a name or '(' at the end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t v = expr();
      if (!take(')')) fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v))
          fail("the number overflows a 64-bit integer");
        ++pos_;
      }
      if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.'))
        fail("expected an integer (no units or decimals)");
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name(s_.substr(b, pos_ - b));
      const auto it = names_.find(name);
      if (it == names_.end()) {
        std::string known;
        for (const auto& [n, _] : names_) known += (known.empty() ? "" : ", ") + n;
        fail(known.empty() ? "expected an integer, got the name '" + name + "' (no names are defined here)"
                           : "unknown name '" + name + "' (known: " + known + ")");
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view s_;
  const std::map<std::string, std::int64_t>& names_;
  std::size_t pos_ = 0;
};

}  // namespace

std::int64_t evaluate_int_expression(std::string_view text, const std::map<std::string, std::int64_t>& names) {
  return Evaluator(text, names).run();
}

}  // namespace tcsim::workload
