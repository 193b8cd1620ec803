// Speed of `tcsim sweep`: the 1,000-point sweep (tests/bench/sweep_a100_1000.yaml:
// ResNet-50 training step, batch 256, amp-fp16, on A100 variants) in at most 2 minutes on the
// 2-core development machine. BM_Sweep/N runs the first N points (a constraint on the point
// index would change the spec, so N < 1000 keeps the first N/100 DRAM bandwidths); reports points
// per second and the kernel cache's hit rate.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/files/atomic_file.h"
#include "engine/sweep/sweep_runner.h"

namespace {

using namespace tcsim;
namespace fs = std::filesystem;

void BM_Sweep(benchmark::State& state) {
  const fs::path src = TCSIM_SOURCE_DIR;
  const fs::path tmp = fs::temp_directory_path() / ("tcsim_bench_sweep_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  // The spec with the first axis cut to points/100 values (paths made absolute).
  std::string spec = read_file(src / "tests/bench/sweep_a100_1000.yaml");
  const int bandwidths = int(state.range(0)) / 100;
  spec.replace(spec.find("{from: 1.2TB/s, to: 3.35TB/s, num: 10}"), 38,
               bandwidths == 1 ? "{from: 1.2TB/s, to: 1.2TB/s, num: 1}"
                               : "{from: 1.2TB/s, to: " + std::to_string(1.2 + (3.35 - 1.2) / 9 * (bandwidths - 1)) +
                                     "TB/s, num: " + std::to_string(bandwidths) + "}");
  for (const char* rel : {"../../configs/gpu/a100.yaml", "../../models/resnet50.yaml"})
    spec.replace(spec.find(rel), std::string(rel).size(), (src / (rel + 6)).string());
  const fs::path spec_file = tmp / "spec.yaml";
  std::ofstream(spec_file) << spec;

  double points = 0, lookups = 0, simulated = 0;
  for (auto _ : state) {
    fs::remove_all(tmp / "out");
    const auto p = engine::sweep::prepare_sweep(spec_file);  // counted: checking every point is part of the run
    engine::sweep::SweepOptions o;
    o.out_dir = tmp / "out";
    o.jobs = 2;
    const auto st = engine::sweep::run_sweep(p, o);
    points += double(st.ran);
    lookups += double(st.kernel_lookups);
    simulated += double(st.model_calls - st.model_hits);
  }
  state.counters["points_per_s"] = benchmark::Counter(points, benchmark::Counter::kIsRate);
  state.counters["points"] = benchmark::Counter(points, benchmark::Counter::kAvgIterations);
  state.counters["kernel_hit_rate_pct"] = lookups > 0 ? 100.0 * (1.0 - simulated / lookups) : 0;
  fs::remove_all(tmp);
}

}  // namespace

BENCHMARK(BM_Sweep)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_MAIN();
