#include "common/error.h"

namespace tcsim {

InputError::InputError(std::string where, std::string what)
    : std::runtime_error(where.empty() ? what : where + ": " + what),
      where_(std::move(where)),
      detail_(std::move(what)) {}

std::string location(const std::string& file, long line, const std::string& key_path) {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  if (!key_path.empty()) out += (out.empty() ? "" : ": ") + key_path;
  return out;
}

}  // namespace tcsim
