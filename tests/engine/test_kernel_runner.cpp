#include <doctest/doctest.h>

#include <stdexcept>

#include "common/error.h"
#include "engine/kernel_runner.h"
#include "fake_accelerator.h"

using namespace tcsim;
using namespace tcsim::engine;

namespace {
std::vector<Kernel> many(int n) {
  std::vector<Kernel> ks;
  for (int i = 0; i < n; ++i) ks.push_back(make_gemm("g" + std::to_string(i), 8 + i, 16, 32));
  return ks;
}
}  // namespace

TEST_CASE("runner: results in kernel order, identical for any thread count") {
  const test::FakeAccelerator acc;
  const auto ks = many(203);
  const auto one = run_kernels(acc, ks, 1);
  REQUIRE(one.size() == ks.size());
  for (std::size_t i = 0; i < ks.size(); ++i) CHECK(one[i].name == ks[i].name);
  for (int jobs : {2, 3, 8, 0}) {
    CAPTURE(jobs);
    const auto r = run_kernels(acc, ks, jobs);
    REQUIRE(r.size() == one.size());
    bool same = true;
    for (std::size_t i = 0; i < r.size(); ++i) same = same && r[i].name == one[i].name && r[i].time_s == one[i].time_s;
    CHECK(same);
  }
  CHECK(run_kernels(acc, {}, 4).empty());
  CHECK(resolve_jobs(0) >= 1);
  CHECK(resolve_jobs(5) == 5);
}

TEST_CASE("runner: rejected kernels") {
  const test::FakeAccelerator acc;
  auto ks = many(20);
  ks[7].name = "bad7";
  ks[13].name = "bad13";
  const auto outcomes = run_kernels_collect(acc, ks, 4);
  CHECK(outcomes[6].ok);
  CHECK(!outcomes[7].ok);
  CHECK(outcomes[7].error == "fake: cannot run bad7");
  CHECK(!outcomes[13].ok);
  // run_kernels reports the first rejected kernel, at the caller's location when given
  CHECK_THROWS_WITH_AS(run_kernels(acc, ks, 4), "kernel 'bad7': fake: cannot run bad7", InputError);
  std::vector<std::string> where(20);
  for (int i = 0; i < 20; ++i) where[static_cast<std::size_t>(i)] = "t.csv:" + std::to_string(i + 2);
  CHECK_THROWS_WITH_AS(run_kernels(acc, ks, 2, where), "t.csv:9: fake: cannot run bad7", InputError);
  // anything else is a bug and is rethrown as is
  ks[3].name = "bug";
  CHECK_THROWS_AS(run_kernels_collect(acc, ks, 3), std::logic_error);
}
