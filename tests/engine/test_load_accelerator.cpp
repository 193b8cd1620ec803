#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "common/error.h"
#include "engine/load_accelerator.h"
#include "test_support.h"

using namespace tcsim;
using namespace tcsim::engine;
namespace fs = std::filesystem;

namespace {
fs::path temp_file(const std::string& name, const std::string& text) {
  fs::path d = fs::temp_directory_path() / ("tcsim_load_acc_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / name) << text;
  return d / name;
}
}  // namespace

TEST_CASE("load_accelerator: kind detection and errors") {
  CHECK_THROWS_WITH_AS(config_kind("/nonexistent/x.yaml"), "/nonexistent/x.yaml: config file not found", InputError);
  const auto nokind = temp_file("nokind.yaml", "version: 1\nname: x\n");
  CHECK_THROWS_WITH_AS(config_kind(nokind), doctest::Contains(":1: kind: expected a YAML map with a top-level `kind:`"), InputError);
  const auto bad = temp_file("bad.yaml", "version: 1\nkind: [unclosed\n");
  CHECK_THROWS_WITH_AS(config_kind(bad), doctest::Contains("not valid YAML"), InputError);
  const auto other = temp_file("other.yaml", "version: 1\nkind: fpga\n");
  CHECK(config_kind(other) == "fpga");
  CHECK_THROWS_WITH_AS(load_accelerator(other), doctest::Contains("no model for kind 'fpga'"), InputError);
  CHECK(config_kind(temp_file("x.cfg", "[general]\n")) == "scalesim_cfg");
  fs::remove_all(nokind.parent_path());
}

TEST_CASE("load_accelerator: the shipped V100 config builds the GPU model") {
  const fs::path v100 = test::source_dir() / "configs/gpu/v100.yaml";
  if (!fs::exists(v100)) {
    MESSAGE("configs/gpu/v100.yaml not found: skipping");
    return;
  }
  const LoadedAccelerator a = load_accelerator_with_config(v100);
  CHECK(a.kind == "gpu");
  REQUIRE(a.accelerator);
  CHECK(a.accelerator->name() == "V100-SXM2");
  CHECK(a.accelerator->clock_hz() > 0);
  CHECK(a.resolved_yaml.find("kind: gpu") != std::string::npos);
  // --set overrides reach the model; an unknown key is an error
  CHECK_NOTHROW(load_accelerator(v100, {"sm.count=40"}));
  CHECK_THROWS_AS(load_accelerator(v100, {"sm.cuont=40"}), InputError);
}

TEST_CASE("load_accelerator: systolic YAML configs build the systolic model") {
  const fs::path cfg = test::source_dir() / "configs/systolic/scalesim_32x32_os.yaml";
  if (!fs::exists(cfg)) {
    MESSAGE("configs/systolic/scalesim_32x32_os.yaml not found: skipping");
    return;
  }
  const LoadedAccelerator a = load_accelerator_with_config(cfg);
  CHECK(a.kind == "systolic");
  REQUIRE(a.accelerator);
  CHECK(a.resolved_yaml.find("kind: systolic") != std::string::npos);
  // The same kernel through the interface gives a positive cycle count.
  const KernelResult r = a.accelerator->run(make_gemm("g", 64, 64, 64));
  CHECK(r.cycles > 0);
}
