// Held-out accuracy checks against published measurements (validation/published/): the GPU model
// was never fitted to these files.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
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

TEST_CASE("community torch.mm benchmarks (>= 100 us): H100, A100 PCIe 40GB, L4 within their documented bounds") {
  // validation/published/torch_matmul/README.md: H100 5.3% and A100 PCIe 12.5% MAPE with the shipped
  // configs; L4 30.9% (its FP32 rows are 54-99% slow: the power model's known miss on the 72 W board).
  const fs::path root = tcsim::test::source_dir();
  struct Case {
    const char* board;
    const char* max_mape;
    const char* rows;
  };
  for (const Case& c : {Case{"h100", "8", "13 rows on H100-SXM5"}, Case{"a100_pcie_40gb", "15", "16 rows on A100-PCIE-40GB"},
                        Case{"l4", "35", "18 rows on L4"}}) {
    const std::string config = (root / "configs/gpu" / (std::string(c.board) + ".yaml")).string();
    const std::string data = (root / "validation/published/torch_matmul" / c.board / "gemm.csv").string();
    auto r = run_tcsim("validate -j 2 -c '" + config + "' '" + data + "' --min-measured-us 100 --max-mape " + c.max_mape +
                       " --format csv");
    INFO(c.board);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find(c.rows) != std::string::npos);
  }
}

TEST_CASE("tcsim validate on the torch.mm leaderboard's best rates over sizes: the config's board only, --max-mape, -o") {
  const fs::path root = tcsim::test::source_dir();
  const std::string config = (root / "configs/gpu/h100.yaml").string();
  const std::string data = (root / "validation/published/torch_matmul/best_of_sizes.csv").string();
  const fs::path out = tcsim::test::temp_dir("best_of_sizes_cli") / "o";
  auto r = run_tcsim("validate -c '" + config + "' '" + data + "' --max-mape 5 -o '" + out.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("tcsim validate: 6 rows on H100-SXM5 (best rates over sizes; 51 of 57 rows other boards or not comparable): "
                   "MAPE 2.") != std::string::npos);
  // The H100's tf32 row is compared (the table pads the device column to the longest name of the file).
  bool tf32_row = false;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    tf32_row |= line.rfind("NVIDIA H100 80GB HBM3 ", 0) == 0 && line.find(" tf32 ") != std::string::npos &&
                line.find("the config is") == std::string::npos;
  CHECK(tf32_row);
  CHECK(r.out.find("measured on NVIDIA L40S, the config is H100-SXM5") != std::string::npos);
  CHECK(fs::exists(out / "summary.csv"));
  CHECK(fs::exists(out / "tcsim.complete"));
  auto strict = run_tcsim("validate -c '" + config + "' '" + data + "' --max-mape 1");
  CHECK(strict.exit_code == 3);
  CHECK(strict.err.find("exceeds --max-mape 1%") != std::string::npos);
  // A board the leaderboard does not have: said, not a MAPE over no rows; --max-mape then fails.
  const std::string a10 = (root / "configs/gpu/a10.yaml").string();
  auto none = run_tcsim("validate -c '" + a10 + "' '" + data + "'");
  CHECK(none.exit_code == 0);
  CHECK_MESSAGE(none.err.find("tcsim validate: no row of the input is on A10 (best rates over sizes; 57 rows of other boards "
                              "or not comparable): nothing compared") != std::string::npos, none.err);
  CHECK(none.err.find("MAPE") == std::string::npos);
  CHECK(run_tcsim("validate -c '" + a10 + "' '" + data + "' --max-mape 5").exit_code == 3);
  // Mixed with a kernel measurement: refused, naming the file.
  auto mixed = run_tcsim("validate -c '" + config + "' '" + data + "' '" + (root / "validation/published/torch_matmul/h100/gemm.csv").string() + "'");
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("h100/gemm.csv: not a best-of-sizes leaderboard") != std::string::npos);
}
