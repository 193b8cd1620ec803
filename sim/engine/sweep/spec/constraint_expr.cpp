// A small recursive-descent parser and evaluator for sweep constraints (constraint_expr.h).
#include "engine/sweep/spec/constraint_expr.h"

#include <cctype>
#include <vector>

#include "common/error.h"
#include "engine/sweep/spec/sweep_spec.h"

namespace tcsim::engine::sweep {

struct ConstraintExpr::Node {
  std::string op;            // "num", "str", "var", or an operator
  double num = 0;
  std::string str;
  int var = -1;
  std::unique_ptr<Node> a, b;
};

namespace {

using Node = ConstraintExpr::Node;

class Parser {
 public:
  Parser(const std::string& t, const std::string& where, const std::map<std::string, int>& names)
      : t_(t), where_(where), names_(names) {}

  std::unique_ptr<Node> parse() {
    auto n = parse_or();
    skip();
    if (i_ < t_.size()) fail("unexpected '" + t_.substr(i_) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where_, "constraint '" + t_ + "' does not parse: " + what);
  }
  void skip() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  bool eat(const std::string& s, bool word = false) {
    skip();
    if (t_.compare(i_, s.size(), s) != 0) return false;
    if (word && i_ + s.size() < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_ + s.size()])) || t_[i_ + s.size()] == '_'))
      return false;
    i_ += s.size();
    return true;
  }
  static std::unique_ptr<Node> make(std::string op, std::unique_ptr<Node> a, std::unique_ptr<Node> b = nullptr) {
    auto n = std::make_unique<Node>();
    n->op = std::move(op);
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
  }
  std::unique_ptr<Node> parse_or() {
    auto n = parse_and();
    while (eat("||") || eat("or", true)) n = make("||", std::move(n), parse_and());
    return n;
  }
  std::unique_ptr<Node> parse_and() {
    auto n = parse_not();
    while (eat("&&") || eat("and", true)) n = make("&&", std::move(n), parse_not());
    return n;
  }
  std::unique_ptr<Node> parse_not() {
    skip();
    if (t_.compare(i_, 2, "!=") != 0 && eat("!")) return make("!", parse_not());
    if (eat("not", true)) return make("!", parse_not());
    return parse_cmp();
  }
  std::unique_ptr<Node> parse_cmp() {
    auto n = parse_sum();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (eat(op)) return make(op, std::move(n), parse_sum());
    return n;
  }
  std::unique_ptr<Node> parse_sum() {
    auto n = parse_prod();
    for (;;) {
      if (eat("+")) n = make("+", std::move(n), parse_prod());
      else if (eat("-")) n = make("-", std::move(n), parse_prod());
      else return n;
    }
  }
  std::unique_ptr<Node> parse_prod() {
    auto n = parse_unary();
    for (;;) {
      if (eat("*")) n = make("*", std::move(n), parse_unary());
      else if (eat("/")) n = make("/", std::move(n), parse_unary());
      else return n;
    }
  }
  std::unique_ptr<Node> parse_unary() {
    if (eat("-")) return make("neg", parse_unary());
    return parse_primary();
  }
  std::unique_ptr<Node> parse_primary() {
    skip();
    if (i_ >= t_.size()) fail("expected a value at the end");
    const char c = t_[i_];
    if (c == '(') {
      ++i_;
      auto n = parse_or();
      if (!eat(")")) fail("expected ')'");
      return n;
    }
    if (c == '\'' || c == '"') {
      const auto end = t_.find(c, i_ + 1);
      if (end == std::string::npos) fail("unterminated string");
      auto n = std::make_unique<Node>();
      n->op = "str";
      n->str = t_.substr(i_ + 1, end - i_ - 1);
      i_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i_;
      while (j < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[j])) || t_[j] == '_' || t_[j] == '.' || t_[j] == '[' || t_[j] == ']')) ++j;
      const std::string name = t_.substr(i_, j - i_);
      const auto it = names_.find(name);
      if (it == names_.end()) {
        std::string list;
        for (const auto& [k, v] : names_) list += (list.empty() ? "" : ", ") + k;
        fail("'" + name + "' is not an axis (expected one of " + list + ")");
      }
      i_ = j;
      auto n = std::make_unique<Node>();
      n->op = "var";
      n->var = it->second;
      return n;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  // 40MiB, 2TB/s, 1.5e3, 300W: digits, then letters, then "/letters" when a unit continues.
  std::unique_ptr<Node> number() {
    std::size_t j = i_;
    while (j < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[j])) || t_[j] == '.')) ++j;
    if (j < t_.size() && (t_[j] == 'e' || t_[j] == 'E') && j + 1 < t_.size() &&
        (std::isdigit(static_cast<unsigned char>(t_[j + 1])) || ((t_[j + 1] == '-' || t_[j + 1] == '+') && j + 2 < t_.size() && std::isdigit(static_cast<unsigned char>(t_[j + 2]))))) {
      j += 2;
      while (j < t_.size() && std::isdigit(static_cast<unsigned char>(t_[j]))) ++j;
    }
    while (j < t_.size() && std::isalpha(static_cast<unsigned char>(t_[j]))) ++j;
    if (j + 1 < t_.size() && t_[j] == '/' && std::isalpha(static_cast<unsigned char>(t_[j + 1]))) {
      ++j;
      while (j < t_.size() && std::isalpha(static_cast<unsigned char>(t_[j]))) ++j;
    }
    const std::string lit = t_.substr(i_, j - i_);
    const auto v = si_value(lit);
    if (!v) fail("'" + lit + "' is not a number with a known unit");
    i_ = j;
    auto n = std::make_unique<Node>();
    n->op = "num";
    n->num = *v;
    return n;
  }

  const std::string& t_;
  const std::string& where_;
  const std::map<std::string, int>& names_;
  std::size_t i_ = 0;
};

ExprValue eval(const Node& n, const std::vector<ExprValue>& vars, const std::string& where) {
  auto num = [&](const ExprValue& v) {
    if (const double* d = std::get_if<double>(&v)) return *d;
    throw InputError(where, "expected a number, got the text '" + std::get<std::string>(v) + "'");
  };
  if (n.op == "num") return n.num;
  if (n.op == "str") return n.str;
  if (n.op == "var") return vars.at(std::size_t(n.var));
  if (n.op == "!") return num(eval(*n.a, vars, where)) == 0 ? 1.0 : 0.0;
  if (n.op == "neg") return -num(eval(*n.a, vars, where));
  if (n.op == "&&") return num(eval(*n.a, vars, where)) != 0 && num(eval(*n.b, vars, where)) != 0 ? 1.0 : 0.0;
  if (n.op == "||") return num(eval(*n.a, vars, where)) != 0 || num(eval(*n.b, vars, where)) != 0 ? 1.0 : 0.0;
  const ExprValue a = eval(*n.a, vars, where), b = eval(*n.b, vars, where);
  if (n.op == "==" || n.op == "!=") {
    if (a.index() != b.index())
      throw InputError(where, "cannot compare a number with a text value (quote preset names: tensor_cores == '2x')");
    return (a == b) == (n.op == "==") ? 1.0 : 0.0;
  }
  const double x = num(a), y = num(b);
  if (n.op == "<") return x < y ? 1.0 : 0.0;
  if (n.op == "<=") return x <= y ? 1.0 : 0.0;
  if (n.op == ">") return x > y ? 1.0 : 0.0;
  if (n.op == ">=") return x >= y ? 1.0 : 0.0;
  if (n.op == "+") return x + y;
  if (n.op == "-") return x - y;
  if (n.op == "*") return x * y;
  return x / y;
}

}  // namespace

ConstraintExpr::ConstraintExpr(const std::string& text, const std::string& where, const std::map<std::string, int>& names)
    : root_(Parser(text, where, names).parse()), where_(where) {}
ConstraintExpr::~ConstraintExpr() = default;
ConstraintExpr::ConstraintExpr(ConstraintExpr&&) noexcept = default;

bool ConstraintExpr::holds(const std::vector<ExprValue>& values) const {
  const ExprValue v = eval(*root_, values, where_);
  if (const double* d = std::get_if<double>(&v)) return *d != 0;
  throw InputError(where_, "expected a condition (true or false), got the text '" + std::get<std::string>(v) + "'");
}

}  // namespace tcsim::engine::sweep
