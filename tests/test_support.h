#pragma once
// Helpers for tests: where the shared/ data is, and running the tcsim executable.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// A fresh, empty folder under the system temp dir, unique to this process and `tag`.
inline std::filesystem::path temp_dir(const std::string& tag) {
  std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("tcsim_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// A whole text file ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The data lines of a CSV under the source tree (validation/published/*): without blank lines,
// '#' comments and the header line.
inline std::vector<std::string> csv_data_lines(const std::filesystem::path& relative) {
  std::ifstream in(source_dir() / relative);
  std::vector<std::string> out;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) header = false;
    else out.push_back(line);
  }
  return out;
}

// Runs `tcsim <args>` (args is a shell-quoted string) and captures its output and exit code.
inline CommandResult run_tcsim(const std::string& args) {
  static int counter = 0;  // tests run on one thread
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("tcsim_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                               .string();
  const std::string cmd = std::string("'") + TCSIM_EXE + "' " + args + " >'" + base + ".out' 2>'" + base + ".err'";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

}  // namespace tcsim::test
