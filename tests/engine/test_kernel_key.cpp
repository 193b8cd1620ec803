// The key that identical kernels share (engine/kernel_key.h): networks, profiles and sweeps simulate
// each distinct key once, so every field that changes a kernel's cost must be in it.
#include <doctest/doctest.h>

#include "engine/kernel_key.h"

using namespace tcsim;

TEST_CASE("kernel key: a 2:4 sparse GEMM and an L2-warm one are not their dense / cold twins") {
  const Kernel dense = make_gemm("g", 4096, 4096, 4096);
  Kernel sparse = dense;
  sparse.sparse_a = true;
  Kernel warm = dense;
  warm.l2_warm = true;
  CHECK(engine::kernel_key(dense) != engine::kernel_key(sparse));
  CHECK(engine::kernel_key(dense) != engine::kernel_key(warm));
  CHECK(engine::kernel_key(sparse) != engine::kernel_key(warm));
  // The name is not part of it: the same work under two names is simulated once.
  Kernel renamed = dense;
  renamed.name = "other";
  CHECK(engine::kernel_key(dense) == engine::kernel_key(renamed));
}
