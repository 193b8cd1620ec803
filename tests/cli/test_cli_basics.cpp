#include <doctest/doctest.h>

#include "test_support.h"

using tcsim::test::run_tcsim;

TEST_CASE("tcsim --version and --help") {
  auto v = run_tcsim("--version");
  CHECK(v.exit_code == 0);
  CHECK(v.out.rfind("tcsim ", 0) == 0);
  auto h = run_tcsim("--help");
  CHECK(h.exit_code == 0);
  CHECK(h.out.find("Verbs:") != std::string::npos);
}

TEST_CASE("an unknown verb is bad input: exit 2 with a clear message") {
  auto r = run_tcsim("frobnicate");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("tcsim: error: frobnicate: unknown verb") != std::string::npos);
  auto none = run_tcsim("");
  CHECK(none.exit_code == 2);
}
