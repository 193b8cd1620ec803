// validation/gpu/torch_profile.py, conv_profile.py and kernel_floor.py only run on a GPU machine;
// here they must at least parse, and conv_profile.py read its shapes.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.h"

namespace {

const std::filesystem::path kScripts = tcsim::test::source_dir() / "validation/gpu";

bool parses(const std::string& script) {
  const std::string cmd = "python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])\" '" +
                          (kScripts / script).string() + "'";
  return std::system(cmd.c_str()) == 0;
}

// Runs Python code with validation/gpu on the import path (no bytecode written into the source tree).
int python_exit_code(const std::string& code) {
  const std::string cmd = "cd '" + kScripts.string() + "' && PYTHONDONTWRITEBYTECODE=1 python3 -c \"" + code + "\" 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

TEST_CASE("validation/gpu/torch_profile.py is valid Python") { CHECK(parses("torch_profile.py")); }

TEST_CASE("validation/gpu/kernel_floor.py is valid Python") { CHECK(parses("kernel_floor.py")); }

TEST_CASE("validation/gpu/conv_profile.py is valid Python and reads DeepBench's convolution shapes") {
  CHECK(parses("conv_profile.py"));
  // read_shapes needs no GPU: the output size of DeepSpeech's first layer is DeepBench's P x Q (79 x 341).
  const auto dir = std::filesystem::temp_directory_path() / ("tcsim_conv_profile_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "conv.csv").string();
  {
    std::ofstream f(csv);
    f << "source,W,H,C,N,K,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,Vertical stride\n"
         "DeepSpeech,700,161,1,4,32,20,5,0,0,2,2\n";
  }
  CHECK(python_exit_code("import conv_profile as c; s = c.read_shapes('" + csv +
                         "')[0]; raise SystemExit(0 if (s['P'], s['Q'], s['R'], s['S']) == (79, 341, 5, 20) else 1)") == 0);
  {
    std::ofstream f(csv);
    f << "source,W,H\nx,1,2\n";  // columns missing: exit 2, the file named
  }
  CHECK(python_exit_code("import conv_profile as c; c.read_shapes('" + csv + "')") == 2);
  std::filesystem::remove_all(dir);
}
