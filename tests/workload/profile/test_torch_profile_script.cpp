// validation/gpu/torch_profile.py only runs on a GPU machine; here it must at least parse.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "test_support.h"

TEST_CASE("validation/gpu/torch_profile.py is valid Python") {
  const std::string script = (tcsim::test::source_dir() / "validation/gpu/torch_profile.py").string();
  const std::string cmd = "python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])\" '" + script + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}
