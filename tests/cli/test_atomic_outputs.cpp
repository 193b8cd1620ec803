// Output folders appear only complete (issue 13, class 4): a failed or interrupted run leaves neither
// result files nor its temporary folder; a finished one ends with the marker tcsim.complete.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

namespace {
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string systolic_config() { return q(tcsim::test::source_dir() / "configs" / "systolic" / "scalesim_32x32_os.yaml"); }

// Entries of `dir` whose name starts with `prefix`.
int count_entries(const fs::path& dir, const std::string& prefix) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with(prefix)) ++n;
  return n;
}
}  // namespace

TEST_CASE("atomic outputs: a run that fails after its results are computed leaves no output folder") {
  const fs::path dir = tcsim::test::temp_dir("atomic_fail");
  // The traces budget is checked after summary.csv, the reports and results.h5 were written.
  const auto r = run_tcsim("run -c " + systolic_config() + " --gemm 256x256x256 --traces --traces-max-size 1MB -o " +
                           q(dir / "out"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--traces-max-size: the traces of 1 layers would take about") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
  CHECK(count_entries(dir, ".out.tmp.") == 0);
  fs::remove_all(dir);
}

TEST_CASE("atomic outputs: a finished run writes every file and the completion marker last") {
  const fs::path dir = tcsim::test::temp_dir("atomic_ok");
  REQUIRE(run_tcsim("run -c " + systolic_config() + " --gemm 64x64x64 -o " + q(dir / "out")).exit_code == 0);
  for (const char* f : {"summary.csv", "summary.json", "results.h5", "config.resolved.yaml", "COMPUTE_REPORT.csv",
                        "tcsim.complete"})
    CHECK_MESSAGE(fs::exists(dir / "out" / f), f);
  CHECK(count_entries(dir, ".out.tmp.") == 0);
  // A second run into the same folder replaces the files and keeps the marker.
  REQUIRE(run_tcsim("run -c " + systolic_config() + " --gemm 32x32x32 -o " + q(dir / "out")).exit_code == 0);
  CHECK(tcsim::test::slurp(dir / "out" / "summary.csv").find("gemm_32x32x32") != std::string::npos);
  CHECK(fs::exists(dir / "out" / "tcsim.complete"));
  fs::remove_all(dir);
}

TEST_CASE("atomic outputs: SIGTERM during a run removes the temporary folder") {
  const fs::path dir = tcsim::test::temp_dir("atomic_term");
  // A run long enough to be interrupted while its output is being written: traces of a layer
  // near the per-layer limit (tens of MB of CSV).
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string out = (dir / "out").string();
    std::freopen("/dev/null", "w", stdout);  // the table is not what this test reads
    ::execl(TCSIM_EXE, TCSIM_EXE, "run", "-c",
            (tcsim::test::source_dir() / "configs" / "systolic" / "scalesim_32x32_os.yaml").c_str(), "--gemm",
            "512x512x640", "--traces", "--traces-max-size", "4GB", "-o", out.c_str(), "--format", "csv",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until the temporary folder exists (the traces are being written), then interrupt.
  bool started = false;
  for (int i = 0; i < 400 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    started = count_entries(dir, ".out.tmp.") > 0;
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(started);
  CHECK(WIFSIGNALED(status));
  CHECK(count_entries(dir, ".out.tmp.") == 0);
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}
