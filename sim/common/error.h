#pragma once
// Errors a user can fix (bad input) versus bugs. The CLI prints an InputError as
//   tcsim: error: <where>: <what was expected>
// and exits with code 2; anything else is an internal error (exit code 1).
#include <stdexcept>
#include <string>

namespace tcsim {

class InputError : public std::runtime_error {
 public:
  // where: "file:line: key.path", "--option", "file:line" ...; what: what was expected / wrong.
  InputError(std::string where, std::string what);
  const std::string& where() const { return where_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string where_;
  std::string detail_;
};

// "file:line: key.path", leaving out the parts that are empty or zero.
std::string location(const std::string& file, long line = 0, const std::string& key_path = "");

// Thrown by low-level parsers (units, numbers) that do not know where their text came from;
// callers catch it and rethrow as InputError with the location.
class ParseError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace tcsim
