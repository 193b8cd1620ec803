// validation/gpu/torch_profile.py, conv_profile.py and kernel_floor.py only run on a GPU machine;
// here they must at least parse, and conv_profile.py read its shapes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <string>

#include "test_support.h"

TEST_CASE("validation/gpu/torch_profile.py is valid Python") {
  const std::string script = (tcsim::test::source_dir() / "validation/gpu/torch_profile.py").string();
  const std::string cmd = "python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])\" '" + script + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("validation/gpu/conv_profile.py is valid Python and reads DeepBench's convolution shapes") {
  const std::string script = (tcsim::test::source_dir() / "validation/gpu/conv_profile.py").string();
  const std::string parse = "python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])\" '" + script + "'";
  CHECK(std::system(parse.c_str()) == 0);
  // read_shapes needs no GPU: the output size of DeepSpeech's first layer is DeepBench's P x Q (79 x 341).
  const auto dir = std::filesystem::temp_directory_path() / "tcsim_conv_profile_test";
  std::filesystem::create_directories(dir);
  const auto csv = dir / "conv.csv";
  {
    std::ofstream f(csv);
    f << "source,W,H,C,N,K,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,Vertical stride\n"
         "DeepSpeech,700,161,1,4,32,20,5,0,0,2,2\n";
  }
  const std::string read = "cd '" + script.substr(0, script.rfind('/')) +
                           "' && python3 -c \"import conv_profile as c; s = c.read_shapes('" + csv.string() +
                           "')[0]; raise SystemExit(0 if (s['P'], s['Q'], s['R'], s['S']) == (79, 341, 5, 20) else 1)\"";
  CHECK(std::system(read.c_str()) == 0);
  {
    std::ofstream f(csv);
    f << "source,W,H\nx,1,2\n";  // columns missing: exit 2 with the file named
  }
  const std::string bad = "cd '" + script.substr(0, script.rfind('/')) + "' && python3 -c \"import conv_profile as c; c.read_shapes('" +
                          csv.string() + "')\" 2>/dev/null";
  const int rc = std::system(bad.c_str());
  CHECK(WIFEXITED(rc));
  CHECK(WEXITSTATUS(rc) == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("validation/gpu/kernel_floor.py is valid Python") {
  const std::string script = (tcsim::test::source_dir() / "validation/gpu/kernel_floor.py").string();
  const std::string cmd = "python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])\" '" + script + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}
