// End-to-end `tcsim validate` (sim/cli/validate/verb_validate.cpp) on the shipped V100 config.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

namespace {
std::string v100() { return (tcsim::test::source_dir() / "configs/gpu/v100.yaml").string(); }
bool have_v100() {
  if (fs::exists(v100())) return true;
  MESSAGE("configs/gpu/v100.yaml not found: skipping");
  return false;
}
fs::path temp_dir(const std::string& tag) { return tcsim::test::temp_dir("validate_" + tag); }
using tcsim::test::slurp;
const std::string kHeader = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,tflops,repeats,kernel\n";
}  // namespace

TEST_CASE("tcsim validate: our measured schema, metrics, --max-mape and -o") {
  if (!have_v100()) return;
  const fs::path d = temp_dir("ours");
  // Times are made up for the test (this checks the plumbing, not the model).
  std::ofstream(d / "gemm.csv") << kHeader << "a,4096,4096,4096,1,fp16,fp16,fp32,fp32,NT,1300,,10,k1\n"
                                << "b,1024,1024,1024,1,fp16,fp16,fp32,fp32,NT,40,,10,k2\n"
                                << "c,1024,1024,1024,1,fp16,fp16,fp32,fp32,NT,,,0,\n";
  std::ofstream(d / "meta.yaml") << "gpu: test\n";
  const std::string base = "validate -c '" + v100() + "' '" + (d / "gemm.csv").string() + "'";
  auto r = run_tcsim(base + " -o '" + (d / "o").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("measured_us") != std::string::npos);
  CHECK(r.out.find("predicted_us") != std::string::npos);
  CHECK(r.out.find("error_pct") != std::string::npos);
  CHECK(r.out.find("mape_pct") != std::string::npos);
  CHECK(r.err.find("tcsim validate: 2 rows on ") != std::string::npos);
  CHECK(r.err.find("MAPE ") != std::string::npos);
  CHECK(r.err.find("pearson") != std::string::npos);
  for (const char* f : {"summary.csv", "metrics.csv", "summary.json", "results.h5", "config.resolved.yaml"})
    CHECK_MESSAGE(fs::exists(d / "o" / f), f);
  CHECK(slurp(d / "o/summary.csv").starts_with("name,group,m,n,k,batch,layout,measured_us,"));
  CHECK(slurp(d / "o/metrics.csv").starts_with("group,rows,mape_pct,median_ape_pct"));
  CHECK(slurp(d / "o/summary.json").find("\"measured.gpu\": \"test\"") != std::string::npos);

  auto strict = run_tcsim(base + " --max-mape 0");
  CHECK(strict.exit_code == 3);
  CHECK(strict.err.find("exceeds --max-mape 0%") != std::string::npos);
  auto loose = run_tcsim(base + " --max-mape 1e9 --format csv");
  CHECK(loose.exit_code == 0);
  CHECK(loose.out.starts_with("name,group,"));
  fs::remove_all(d);
}

TEST_CASE("tcsim validate: DeepBench V100 GEMMs (detected by header)") {
  if (!have_v100()) return;
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: skipping DeepBench");
    return;
  }
  const auto file = shared / "data/deepbench/v100_train_fp16_dense_matrix_multiplication.csv";
  auto r = run_tcsim("validate -c '" + v100() + "' '" + file.string() + "' --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  int lines = 0;
  for (char c : r.out) lines += c == '\n';
  CHECK(lines == 161);
  CHECK(r.err.find("tcsim validate: 160 rows on ") != std::string::npos);
  // A DeepBench file whose name does not say the precision needs --precision.
  const fs::path d = temp_dir("db");
  fs::copy_file(file, d / "gemm.csv");
  auto unnamed = run_tcsim("validate -c '" + v100() + "' '" + (d / "gemm.csv").string() + "'");
  CHECK(unnamed.exit_code == 2);
  CHECK(unnamed.err.find("cannot tell the DeepBench precision") != std::string::npos);
  fs::remove_all(d);
}

TEST_CASE("tcsim validate: NeuSight kernel tables (detected by header, not as an ncu export)") {
  if (!have_v100()) return;
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: skipping NeuSight");
    return;
  }
  // NeuSight's tables have a "Kernel Name" column, as ncu's CSV pages do.
  const auto file = shared / "data/neusight/kernels/V100-PCIE-32GB/ln.csv";
  const auto config = tcsim::test::source_dir() / "configs/gpu/v100_pcie.yaml";
  auto r = run_tcsim("validate -j 2 -c '" + config.string() + "' '" + file.string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("tcsim validate: 1400 rows on ") != std::string::npos);
}

TEST_CASE("tcsim validate: a Vidur profile of whole microseconds is compared as its profiler truncated it") {
  if (!have_v100()) return;
  const fs::path d = temp_dir("vidur") / "model";
  fs::create_directories(d);
  // Two ops, one row; times made up (whole microseconds: 12 and 3 us).
  std::ofstream(d / "mlp.csv") << "time_stats.attn_pre_proj.min,time_stats.attn_pre_proj.median,time_stats.add.min,"
                                  "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,"
                                  "num_tokens,num_tensor_parallel_workers\n"
                               << "0.012,0.012,0.003,0.003,32,32,4096,11008,32000,True,64,1\n";
  auto r = run_tcsim("validate -c '" + v100() + "' '" + (d / "mlp.csv").string() + "' -o '" + (d / "o").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("tcsim validate: 2 rows compared as their profiler reported them") != std::string::npos);
  CHECK(slurp(d / "o/summary.csv").find("as the profiler reports it") != std::string::npos);
  CHECK(slurp(d / "o/summary.json").find("truncated per kernel by the profiler") != std::string::npos);
  fs::remove_all(d.parent_path());
}

TEST_CASE("tcsim validate: bad input exits 2") {
  if (!have_v100()) return;
  const fs::path d = temp_dir("bad");
  auto missing = run_tcsim("validate -c '" + v100() + "' /nonexistent/m.csv");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "tcsim: error: /nonexistent/m.csv: file not found\n");
  std::ofstream(d / "neg.csv") << kHeader << "a,64,64,64,1,fp16,fp16,fp32,fp32,NN,-5,,1,k\n";
  auto neg = run_tcsim("validate -c '" + v100() + "' '" + (d / "neg.csv").string() + "'");
  CHECK(neg.exit_code == 2);
  CHECK(neg.err.find("neg.csv:2: time_us: expected a positive number") != std::string::npos);
  std::ofstream(d / "other.csv") << "x,y\n1,2\n";
  auto other = run_tcsim("validate -c '" + v100() + "' '" + (d / "other.csv").string() + "'");
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("unknown measured-data format") != std::string::npos);
  auto nofile = run_tcsim("validate -c '" + v100() + "'");
  CHECK(nofile.exit_code == 2);
  auto badmape = run_tcsim("validate -c '" + v100() + "' '" + (d / "neg.csv").string() + "' --max-mape -1");
  CHECK(badmape.exit_code == 2);
  fs::remove_all(d);
}
