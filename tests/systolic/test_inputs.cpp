// SCALE-Sim .cfg and topology readers: valid files and every kind of bad input (InputError naming
// the file, line and field).
#include <doctest/doctest.h>

#include "common/error.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/systolic_model.h"
#include "systolic/config/systolic_schema.h"
#include "workload/csv/scalesim_topology.h"
#include "systolic_test_util.h"

using namespace tcsim;
using namespace tcsim::systolic;
using workload::parse_scalesim_topology;
using workload::TopologyKind;

namespace {

const char* kScaleCfg = R"([general]
run_name = scale_32x32_os

[architecture_presets]
ArrayHeight:    32
ArrayWidth:     32
IfmapSramSzkB:    64
FilterSramSzkB:   64
OfmapSramSzkB:    64
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Dataflow : os
Bandwidth : 10
MemoryBanks: 1

[run_presets]
InterfaceBandwidth: CALC
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

// The message of the InputError thrown by f, or "" when none is thrown.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("SCALE-Sim .cfg: the shipped scale.cfg") {
  const SystolicConfig c = parse_scalesim_cfg(kScaleCfg, "scale.cfg");
  CHECK(c.name == "scale_32x32_os");
  CHECK(c.rows == 32);
  CHECK(c.cols == 32);
  CHECK(c.ifmap_sram_words() == 65536);
  CHECK(c.dataflow == Dataflow::os);
  CHECK(c.bandwidth_mode == BandwidthMode::calc);
  CHECK(c.semantics == Semantics::scalesim_v2);
  const SystolicConfig u = parse_scalesim_cfg(
      replace(replace(kScaleCfg, "CALC", "USER"), "Bandwidth : 10", "Bandwidth : 20,30,40"), "u.cfg");
  CHECK(u.bandwidth_mode == BandwidthMode::user);
  CHECK(u.user_bandwidth_words == 20);  // v2 uses the first value for all operands
}

TEST_CASE("SCALE-Sim .cfg: bad input names file, line and key") {
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "Dataflow : os", "Dataflow : xs"), "a.cfg"); })
            .find("a.cfg:13: architecture_presets.Dataflow") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "ArrayHeight:    32", "ArrayHeight: 0"), "a.cfg"); })
            .find("a.cfg:5: architecture_presets.ArrayHeight") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "ArrayWidth:     32", "ArrayWidth: 3x2"), "a.cfg"); })
            .find("expected an integer") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "MemoryBanks: 1", "MemoryBanx: 1"), "a.cfg"); })
            .find("a.cfg:15: architecture_presets.MemoryBanx") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "Dataflow : os\n", ""), "a.cfg"); })
            .find("architecture_presets.dataflow: missing") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "CALC", "FAST"), "a.cfg"); })
            .find("expected CALC or USER") != std::string::npos);
  CHECK(error_of([] { parse_scalesim_cfg(replace(kScaleCfg, "[run_presets]", "[run_presets"), "a.cfg"); })
            .find("a.cfg:17") != std::string::npos);
  // An SRAM too small for SCALE-Sim's buffers, and one too small for a weight tile.
  const std::string tiny = replace(kScaleCfg, "FilterSramSzkB:   64", "FilterSramSzkB: 1");
  CHECK(error_of([&] { parse_scalesim_cfg(replace(tiny, "Dataflow : os", "Dataflow : ws"), "a.cfg"); })
            .find("a.cfg:8: architecture_presets.FilterSramSzkB: SRAM too small to hold one fold") !=
        std::string::npos);
}

TEST_CASE("topology CSV: conv and GEMM forms, trailing commas, depthwise expansion") {
  const auto conv = parse_scalesim_topology(
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
      "Conv1,224,224,7,7,3,64,2,\n\n"
      "Conv2, 56, 56, 3, 3, 64, 64, 1, 2,\n"
      "Conv3,28,28,3,3,32,32,1\n"
      "DP_conv,14,14,3,3,3,1,1,\n",
      "t.csv");
  REQUIRE(conv.size() == 6);
  CHECK(conv[0].kernel.conv.stride_w == 2);
  CHECK(conv[1].kernel.conv.stride_h == 1);
  CHECK(conv[1].kernel.conv.stride_w == 2);  // optional column stride
  CHECK(conv[1].line == 4);
  CHECK(conv[2].kernel.conv.num_filters == 32);  // no trailing comma: kept (SCALE-Sim would drop it)
  CHECK(conv[3].kernel.name == "DP_convChannel_0");
  CHECK(conv[5].kernel.name == "DP_convChannel_2");
  CHECK(conv[5].kernel.conv.channels == 1);
  const auto gemm = parse_scalesim_topology("Layer,M,N,K,\nFF_A_0,128,512,2048,\n", "g.csv");
  REQUIRE(gemm.size() == 1);
  CHECK(gemm[0].kernel.kind == Kernel::Kind::gemm);
  CHECK(gemm[0].kernel.m == 128);
  CHECK(gemm[0].kernel.n == 512);
  CHECK(gemm[0].kernel.k == 2048);
}

TEST_CASE("topology CSV: bad rows") {
  const std::string h = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";
  CHECK(error_of([&] { parse_scalesim_topology(h + "c,7,7,9,3,3,8,1,\n", "t.csv"); })
            .find("t.csv:2: Filter Height: the filter height (9) is larger than the IFMAP height (7)") !=
        std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology(h + "c,7,7,3,3,0,8,1,\n", "t.csv"); })
            .find("t.csv:2: Channels: expected a positive integer") != std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology(h + "c,7,7,3,3,-4,8,1,\n", "t.csv"); })
            .find("t.csv:2: Channels") != std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology(h + "ok,7,7,3,3,4,8,1,\nc,7,seven,3,3,4,8,1,\n", "t.csv"); })
            .find("t.csv:3: IFMAP Width: expected a positive integer, got 'seven'") != std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology(h + "c,7,7,3,3,4,\n", "t.csv"); })
            .find("t.csv:2: expected 8 fields") != std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology("Layer,M,N,K,\nx,1,2,\n", "g.csv"); })
            .find("g.csv:2: expected 4 fields") != std::string::npos);
  CHECK(error_of([&] { parse_scalesim_topology(h, "t.csv"); }).find("no layers") != std::string::npos);
}

TEST_CASE("YAML schema: scalesim_v2 needs 1-byte words; SRAM too small for a fold") {
  const std::string base = "version: 1\nkind: systolic\narray:\n  rows: 32\n  cols: 32\n  dataflow: ws\n";
  CHECK(error_of([&] { config_from(config::Config::from_yaml_text(base + "sram:\n  word_size: 2B\n", config_schema(), "y.yaml")); })
            .find("y.yaml:8: sram.word_size") != std::string::npos);
  CHECK(error_of([&] { config_from(config::Config::from_yaml_text(base + "sram:\n  filter: 1KiB\n", config_schema(), "y.yaml")); })
            .find("y.yaml:8: sram.filter: SRAM too small to hold one fold") != std::string::npos);
  CHECK(error_of([&] { config::Config::from_yaml_text(base + "array2: 1\n", config_schema(), "y.yaml"); }) != "");
  // A resolved .cfg loads back as YAML to the same config.
  const SystolicConfig c = parse_scalesim_cfg(kScaleCfg, "scale.cfg");
  const SystolicConfig back = config_from(config::Config::from_yaml_text(format_systolic_yaml(c), config_schema()));
  CHECK(back.rows == c.rows);
  CHECK(back.ifmap_sram_bytes == c.ifmap_sram_bytes);
  CHECK(back.dataflow == c.dataflow);
  CHECK(back.semantics == Semantics::scalesim_v2);
}

TEST_CASE("model: kernels the array cannot run") {
  const SystolicModel model(parse_scalesim_cfg(kScaleCfg, "scale.cfg"));
  Kernel m;
  m.kind = Kernel::Kind::memory;
  m.name = "copy";
  CHECK(error_of([&] { model.run(m); }).find("no vector unit (vector.lanes in the config)") != std::string::npos);
  Kernel g = make_gemm("g", 0, 4, 4);
  CHECK(error_of([&] { model.run(g); }).find("M must be a positive integer") != std::string::npos);
  Kernel ok = make_gemm("g", 64, 64, 64);
  const KernelResult r = model.run(ok);
  CHECK(r.cycles == 2 * 2 * (64 + 62) - 1);
  CHECK(r.flops == 2.0 * 64 * 64 * 64);
}

TEST_CASE("work limit: a depthwise conv's identical channels count once where one is simulated and scaled") {
  // 16384 channels of a 3x3 depthwise conv on 112x112: 392 folds each on 32x32 os, 6.4M in all. run()
  // simulates one channel and scales it (MobileNet-v2's training step on this array was refused);
  // `tcsim run`'s per-layer reports simulate every channel and keep the limit.
  const SystolicModel model(parse_scalesim_cfg(kScaleCfg, "scale.cfg"));
  Kernel dw = systolic_test::conv(114, 114, 3, 3, 16384, 16384, 1);
  dw.conv.groups = 16384;
  CHECK_THROWS_AS(model.layers_of(dw, "dw"), InputError);
  CHECK(model.layers_of(dw, "dw", false).size() == 16384);
  const KernelResult r = model.run(dw);
  Kernel one = systolic_test::conv(114, 114, 3, 3, 1, 1, 1);
  CHECK(r.cycles == doctest::Approx(16384 * model.run(one).cycles));
}
