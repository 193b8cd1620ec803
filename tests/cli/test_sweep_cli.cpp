// `tcsim sweep` and `tcsim merge` end to end: the output folder, determinism across -j, resume
// after a SIGKILL, shards merged equal to one process, and bad input (exit 2, nothing written).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_support.h"

using tcsim::test::run_tcsim;
using tcsim::test::slurp;
using tcsim::test::source_dir;
using tcsim::test::temp_dir;

namespace fs = std::filesystem;

namespace {

// 2 bandwidths x 3 SM counts (one dropped) on A100, ResNet-18 inference and a GEMM trace.
fs::path small_spec(const fs::path& dir, const std::string& extra_axis_value = "") {
  const fs::path f = dir / "spec.yaml";
  std::ofstream(f) << "name: test_sweep\nbase: " << (source_dir() / "configs/gpu/a100.yaml").string() << "\n"
                   << "axes:\n  - path: dram.bandwidth\n    values: [1555GB/s, 3TB/s" << extra_axis_value << "]\n"
                   << "  - path: sm.count\n    range: {from: 27, to: 108, num: 3, scale: log}\n"
                   << "constraints:\n  - \"!(sm.count < 50 && dram.bandwidth > 2TB/s)\"\n"
                   << "workloads:\n  - {model: " << (source_dir() / "models/resnet18.yaml").string()
                   << ", batch: 4, precision: amp-fp16}\n"
                   << "  - {trace: " << (source_dir() / "traces/gemm/square.csv").string() << ", name: gemms}\n"
                   << "detail: layers\n";
  return f;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

void check_same_results(const fs::path& a, const fs::path& b) {
  for (const char* f : {"summary.csv", "results.h5", "spec.resolved.yaml"})
    CHECK_MESSAGE(slurp(a / f) == slurp(b / f), f);
}

std::size_t records(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  if (!fs::is_directory(dir / "points", ec)) return 0;
  for (const auto& e : fs::directory_iterator(dir / "points", ec)) n += e.path().extension() == ".rec" ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("tcsim sweep: results folder, dry run, and the same bytes for any -j") {
  const auto dir = temp_dir("sweep_cli");
  const auto spec = small_spec(dir);
  const auto dry = run_tcsim("sweep " + q(spec) + " --dry-run");
  REQUIRE_MESSAGE(dry.exit_code == 0, dry.err);
  CHECK(dry.out.find("5 points (6 combinations, 1 dropped by constraints) x 2 workloads = 10 runs") != std::string::npos);
  CHECK(dry.out.find("estimated") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));

  const auto r = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "out") + " -j 2");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("1 of 6 combinations dropped") != std::string::npos);
  CHECK(r.err.find("hit rate") != std::string::npos);
  CHECK(r.err.find("100% (10/10 runs)") != std::string::npos);  // not a terminal: one line per 10%
  const std::string csv = slurp(dir / "out" / "summary.csv");
  CHECK(csv.rfind("point,workload,dram.bandwidth,dram.bandwidth_si,sm.count,sm.count_si,status,item,step_time_s,", 0) == 0);
  CHECK(csv.find("energy_j,avg_power_w,energy_per_item_j,items_per_j,tflops_per_w") != std::string::npos);
  CHECK(csv.find("\n4,gemms,3TB/s,3e+12,108,108,ok,trace,") != std::string::npos);
  CHECK(records(dir / "out") == 10);

  const auto r1 = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "j1") + " -j 1");
  REQUIRE(r1.exit_code == 0);
  check_same_results(dir / "out", dir / "j1");
  // Running again in a finished folder simulates nothing and writes the same files.
  const auto again = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "j1"));
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("0 runs") != std::string::npos);
  check_same_results(dir / "out", dir / "j1");
}

TEST_CASE("tcsim sweep: killed mid-way (SIGKILL) and run again, the files equal an uninterrupted run") {
  const auto dir = temp_dir("sweep_kill");
  const auto spec = small_spec(dir);
  REQUIRE(run_tcsim("sweep " + q(spec) + " -o " + q(dir / "full") + " -j 1").exit_code == 0);

  const fs::path out = dir / "killed";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    ::execl(TCSIM_EXE, TCSIM_EXE, "sweep", spec.c_str(), "-o", out.c_str(), "-j", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (records(out) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::size_t done = records(out);
  CHECK(done >= 3);
  if (done == 10) MESSAGE("the sweep finished before it was killed: resume not exercised");
  CHECK_FALSE(fs::exists(out / "summary.csv"));

  const auto resumed = run_tcsim("sweep " + q(spec) + " -o " + q(out) + " -j 2");
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  if (done < 10) {
    CHECK(resumed.err.find("resuming, " + std::to_string(done) + " of 10 runs already done") != std::string::npos);
    CHECK(resumed.err.find(std::to_string(10 - done) + " runs") != std::string::npos);
  }
  check_same_results(dir / "full", out);
}

TEST_CASE("tcsim sweep --shard I/N and tcsim merge: the merged folder equals the single-process sweep") {
  const auto dir = temp_dir("sweep_shards");
  const auto spec = small_spec(dir);
  REQUIRE(run_tcsim("sweep " + q(spec) + " -o " + q(dir / "full") + " -j 2").exit_code == 0);
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const fs::path d = dir / ("shard" + std::to_string(i));
    const auto r = run_tcsim("sweep " + q(spec) + " -o " + q(d) + " --shard " + std::to_string(i) + "/3 -j 1");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    shards += " " + q(d);
  }
  CHECK(records(dir / "shard0") == 4);
  CHECK(records(dir / "shard1") == 3);
  // A shard missing, or a shard of another sweep: exit 2, nothing written.
  const auto missing = run_tcsim("merge " + q(dir / "shard0") + " " + q(dir / "shard1") + " -o " + q(dir / "bad"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("shards missing: 2 of 3") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "bad"));
  const auto other = temp_dir("sweep_shards_other");
  const auto other_spec = small_spec(other, ", 2TB/s");
  REQUIRE(run_tcsim("sweep " + q(other_spec) + " -o " + q(other / "s2") + " --shard 2/3").exit_code == 0);
  const auto mixed = run_tcsim("merge " + q(dir / "shard0") + " " + q(dir / "shard1") + " " + q(other / "s2") + " -o " + q(dir / "bad"));
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("another sweep") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "bad"));

  const auto m = run_tcsim("merge" + shards + " -o " + q(dir / "merged"));
  REQUIRE_MESSAGE(m.exit_code == 0, m.err);
  check_same_results(dir / "full", dir / "merged");
  fs::remove_all(other);
}

TEST_CASE("tcsim sweep: bad input exits 2 with file:line: key and leaves no output folder") {
  const auto dir = temp_dir("sweep_bad");
  const auto spec = small_spec(dir);
  const auto write = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = slurp(spec);
    text.replace(text.find(from), from.size(), to);
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  struct Case {
    fs::path spec;
    std::string expect;
  };
  const Case cases[] = {
      {write("path.yaml", "path: dram.bandwidth", "path: dram.bandwith"), "path.yaml:4: axes: dram.bandwith"},
      {write("unit.yaml", "[1555GB/s, 3TB/s]", "[1555GB/s, 3GHz]"), "unit.yaml:4: axes: dram.bandwidth: value '3GHz'"},
      {write("empty.yaml", "\"!(sm.count < 50 && dram.bandwidth > 2TB/s)\"", "\"sm.count > 1000\""), "no points"},
      {write("parse.yaml", "\"!(sm.count < 50 && dram.bandwidth > 2TB/s)\"", "\"sm.count <<< 2\""),
       "parse.yaml:9: constraints[0]: constraint 'sm.count <<< 2' does not parse"},
  };
  for (const auto& c : cases) {
    const auto r = run_tcsim("sweep " + q(c.spec) + " -o " + q(dir / "out"));
    CHECK_MESSAGE(r.exit_code == 2, c.spec);
    CHECK_MESSAGE(r.err.find(c.expect) != std::string::npos, r.err);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  const auto shard = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "out") + " --shard 3/3");
  CHECK(shard.exit_code == 2);
  CHECK(shard.err.find("--shard") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
  // Another spec in a folder that holds a sweep: an error, the folder untouched.
  REQUIRE(run_tcsim("sweep " + q(spec) + " -o " + q(dir / "out") + " --shard 1/3").exit_code == 0);
  const auto other = run_tcsim("sweep " + q(write("other.yaml", "3TB/s", "2TB/s")) + " -o " + q(dir / "out"));
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("holds another sweep") != std::string::npos);
  const auto wrong_shard = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "out"));
  CHECK(wrong_shard.exit_code == 2);
  CHECK(wrong_shard.err.find("holds shard 1/3") != std::string::npos);
}

TEST_CASE("tcsim sweep over a SCALE-Sim config without a clock: a point says so in status, one with a clock runs") {
  const auto dir = temp_dir("sweep_clockless");
  const fs::path spec = dir / "spec.yaml";
  std::ofstream(spec) << "name: clockless\nbase: " << (source_dir() / "configs/systolic/scalesim_32x32_os.yaml").string()
                      << "\nmode: zip\naxes:\n  - path: array.dataflow\n    values: [os, ws]\n"
                      << "  - name: clock\n    presets:\n      none: {}\n      1GHz: {clock: 1GHz}\n"
                      << "workloads:\n  - {model: " << (source_dir() / "models/resnet18.yaml").string()
                      << ", batch: 1, precision: int8}\n"
                      << "metrics: [step_time_s]\n";
  const auto r = run_tcsim("sweep " + q(spec) + " -o " + q(dir / "out") + " -j 1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string csv = slurp(dir / "out/summary.csv");
  CHECK_MESSAGE(csv.find("0,resnet18,os,none,\"config: clock: none: ") != std::string::npos, csv);
  CHECK(csv.find("1,resnet18,ws,1GHz,ok,") != std::string::npos);
  CHECK(csv.find(",ok,sample,0\n") == std::string::npos);  // no step of 0 s reported as ok
}
