#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace tcsim::test {

CommandResult run_tcsim(const std::string& args) {
  static int counter = 0;
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("tcsim_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                               .string();
  const std::string cmd = std::string("'") + TCSIM_EXE + "' " + args + " >'" + base + ".out' 2>'" + base + ".err'";
  int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::remove(path.c_str());
    return ss.str();
  };
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

}  // namespace tcsim::test
