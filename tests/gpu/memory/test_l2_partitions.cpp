// L2 partitions: a hit in a far partition costs l2.far_latency; addresses interleave over the
// partitions, so the load-to-use latency the SM sees is the average over them.
#include <doctest/doctest.h>

#include "common/error.h"
#include "config/config.h"
#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {

TEST_CASE("L2 hit latency is averaged over near and far partitions") {
  const GpuConfig a100 = test::shipped("a100");
  CHECK(a100.l2_partitions == 2);
  CHECK(a100.l2_latency == 200);
  CHECK(a100.l2_far_latency == 350);
  CHECK(a100.l2_hit_latency() == 275);
  const GpuConfig v100 = test::shipped("v100");  // one partition: no far hits
  CHECK(v100.l2_hit_latency() == v100.l2_latency);
  const GpuConfig h100 = test::shipped("h100");  // far latency not measured: 0 means "as near"
  CHECK(h100.l2_far_latency == h100.l2_latency);
  CHECK(h100.l2_hit_latency() == h100.l2_latency);
}

TEST_CASE("a latency-bound GEMM slows down when far-partition hits get slower; bad values are errors") {
  const auto path = tcsim::test::source_dir() / "configs" / "gpu" / "a100.yaml";
  const GpuModel near(GpuConfig::from(config::Config::load(path, config_schema(), {"l2.far_latency=200cycles"})));
  const GpuModel far(GpuConfig::from(config::Config::load(path, config_schema(), {"l2.far_latency=2000cycles"})));
  // One small tile per SM: nothing hides the global latency.
  const Kernel k = make_gemm("small", 128, 128, 4096);
  const KernelResult rn = near.run(k), rf = far.run(k);
  CHECK(*rf.get("global_latency_cycles") > *rn.get("global_latency_cycles"));
  CHECK(rf.cycles > rn.cycles);
  try {
    GpuConfig::from(config::Config::load(path, config_schema(), {"l2.far_latency=100cycles"}));
    FAIL("a far partition nearer than the near one was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("l2.far_latency") != std::string::npos);
  }
}

}  // namespace tcsim::gpu
