#pragma once
// Helpers for tests: where the shared/ data is, and running the tcsim executable.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tcsim::test {

// The shared/ folder: $TCSIM_SHARED, else the CMake default (../shared beside the checkout).
// Returns an empty path when it does not exist; tests then skip with a visible MESSAGE.
inline std::filesystem::path shared_dir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("TCSIM_SHARED"); env && *env) p = env;
  else p = TCSIM_SHARED_DIR_DEFAULT;
  std::error_code ec;
  return std::filesystem::is_directory(p, ec) ? p : std::filesystem::path{};
}

inline std::filesystem::path source_dir() { return TCSIM_SOURCE_DIR; }

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `tcsim <args>` (args is a shell-quoted string) and captures its output and exit code.
CommandResult run_tcsim(const std::string& args);

}  // namespace tcsim::test
