// Faithful semantics counts bytes with each operand's own size: fp16 inputs, fp32 outputs.
#include <doctest/doctest.h>

#include "systolic/schedule/layer.h"
#include "systolic/systolic_model.h"
#include "systolic_test_util.h"

namespace tcsim::systolic {

TEST_CASE("faithful: DRAM/SRAM bytes use the input size for ifmap/filter and the output size for ofmap") {
  SystolicConfig cfg;
  cfg.semantics = Semantics::faithful;
  cfg.rows = cfg.cols = 8;
  cfg.dataflow = Dataflow::os;
  const SystolicModel model(cfg);
  const Kernel k = systolic_test::conv(12, 12, 3, 3, 8, 20, 1);  // fp16 in, fp32 out by default
  const Layer layer = make_layer(k, Semantics::faithful, "bytes");
  REQUIRE(layer.in_bytes == 2);
  REQUIRE(layer.out_bytes == 4);
  const LayerReport r = model.run_layer(layer);
  CHECK(r.word_bytes == 2);
  CHECK(r.out_word_bytes == 4);
  const KernelResult kr = model.run(k);
  REQUIRE(r.dram_ofmap.count > 0);
  CHECK(*kr.get("dram_ofmap_write_bytes") == doctest::Approx(4.0 * static_cast<double>(r.dram_ofmap.count)));
  CHECK(*kr.get("sram_ofmap_write_bytes") == doctest::Approx(4.0 * static_cast<double>(r.sram_ofmap.count)));
  CHECK(*kr.get("dram_ifmap_read_bytes") == doctest::Approx(2.0 * static_cast<double>(r.dram_ifmap.count)));
}

}  // namespace tcsim::systolic
