// The unified L1 left to the cache beside the resident CTAs' shared memory (sim/gpu/sm/l1_carveout.h).
#include <doctest/doctest.h>

#include "gpu/gpu_test_util.h"
#include "gpu/sm/l1_carveout.h"

using namespace tcsim;
using namespace tcsim::gpu;

TEST_CASE("L1 carveout: the smallest shared-memory capacity that holds the resident CTAs, the rest caches") {
  constexpr double KiB = 1024;
  // Two CTAs of 32 KiB (cuDNN's channels-last batch norm): 66 KiB with the 1 KiB each reserves on
  // 8.0+, so the 100 KiB carveout; Volta reserves nothing and fits the 64 KiB one.
  CHECK(l1_cache_bytes(gpu::test::shipped("h100"), 32 * KiB, 2) == (256 - 100) * KiB);
  CHECK(l1_cache_bytes(gpu::test::shipped("a100"), 32 * KiB, 2) == (192 - 100) * KiB);
  CHECK(l1_cache_bytes(gpu::test::shipped("v100"), 32 * KiB, 2) == (128 - 64) * KiB);
  // Turing's carveout is 32 or 64 KiB of its 96 KiB.
  CHECK(l1_cache_bytes(gpu::test::shipped("t4"), 8 * KiB, 1) == (96 - 32) * KiB);
  // Exactly a capacity (no reserve on 7.0) and no shared memory at all.
  CHECK(l1_cache_bytes(gpu::test::shipped("v100"), 96 * KiB, 1) == 32 * KiB);
  CHECK(l1_cache_bytes(gpu::test::shipped("h100"), 0, 4) == 256 * KiB);
  // An architecture without a known list: exactly what the CTAs need.
  GpuConfig other = gpu::test::shipped("h100");
  other.arch = "sm_100";
  CHECK(l1_cache_bytes(other, 32 * KiB, 2) == (256 - 66) * KiB);
  // More than the largest carveout cannot run; the cache is then what is left, never negative.
  CHECK(l1_cache_bytes(gpu::test::shipped("a100"), 100 * KiB, 2) == 0);
}
