#pragma once
// The constraint expressions of a sweep spec: a point is kept when every constraint is true.
//   names:     axis names (dotted config paths or preset axis names): the point's value, a number
//              in SI units when the value has a unit ("2TB/s" -> 2e12), else its text
//   literals:  numbers with optional units (40MiB, 2TB/s, 300W), 'text' or "text"
//   operators: + - * / ( ), < <= > >= == !=, ! && || (also not, and, or)
// Comparisons and logic give 1 or 0; a number is true when non-zero.
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tcsim::engine::sweep {

using ExprValue = std::variant<double, std::string>;

class ConstraintExpr {
 public:
  // Parses `text`; InputError(where, what) when it does not parse or names something that is not
  // in `names` (the axes).
  ConstraintExpr(const std::string& text, const std::string& where, const std::map<std::string, int>& names);
  ~ConstraintExpr();
  ConstraintExpr(ConstraintExpr&&) noexcept;
  // values[i] is the value of the name that maps to i. InputError(where, ...) on a type mismatch.
  bool holds(const std::vector<ExprValue>& values) const;

  struct Node;

 private:
  std::unique_ptr<Node> root_;
  std::string where_;
};

}  // namespace tcsim::engine::sweep
