// Held-out accuracy checks against published measurements (validation/published/): the GPU model
// was never fitted to these files.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

TEST_CASE("A100 80GB: LLMCompass fp16 matmuls (>= 100 us) within 10% MAPE") {
  const fs::path root = tcsim::test::source_dir();
  const std::string config = (root / "configs/gpu/a100_80gb.yaml").string();
  const std::string data = (root / "validation/published/llmcompass_a100/gemm.csv").string();
  auto r = run_tcsim("validate -c '" + config + "' '" + data + "' --min-measured-us 100 --max-mape 10 --format csv");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("5 of 20 rows not simulated") != std::string::npos);  // the five rows under 100 us
  CHECK(r.err.find("15 rows on A100-SXM4-80GB") != std::string::npos);
  CHECK(r.out.find("below --min-measured-us 100") != std::string::npos);
}

TEST_CASE("validate --min-measured-us: bad values exit 2") {
  const fs::path root = tcsim::test::source_dir();
  const std::string config = (root / "configs/gpu/a100_80gb.yaml").string();
  const std::string data = (root / "validation/published/llmcompass_a100/gemm.csv").string();
  auto r = run_tcsim("validate -c '" + config + "' '" + data + "' --min-measured-us -1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--min-measured-us") != std::string::npos);
}
