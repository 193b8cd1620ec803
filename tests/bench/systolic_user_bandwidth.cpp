// ResNet-18 (SCALE-Sim's conv_nets/Resnet18.csv) through the systolic model in scalesim_v2
// semantics with USER interface bandwidth (10 words/cycle): the row-by-row prefetch/stall replay
// of sim/systolic/user_bandwidth.h. SCALE-Sim v2 itself took 277 s for the 32x32 os run
// (shared/data/scalesim/README.md); `vs_scalesim` is that time divided by ours.
//   ./build/bench_systolic_user_bandwidth --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "systolic/scalesim_cfg.h"
#include "systolic/systolic_model.h"
#include "workload/scalesim_topology.h"

namespace fs = std::filesystem;
using namespace tcsim;

namespace {

fs::path scalesim_dir() {
  fs::path p;
  if (const char* env = std::getenv("TCSIM_SHARED"); env && *env) p = env;
  else p = TCSIM_SHARED_DIR_DEFAULT;
  return p / "data" / "scalesim";
}

void run_network(benchmark::State& state, const char* cfg_name, double scalesim_seconds) {
  const fs::path dir = scalesim_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    state.SkipWithError("shared/data/scalesim not found (set TCSIM_SHARED)");
    return;
  }
  const systolic::SystolicModel model(systolic::read_scalesim_cfg(dir / "inputs" / cfg_name));
  const auto topo = workload::read_scalesim_topology(dir / "inputs/topologies/conv_nets/Resnet18.csv");
  double stalls = 0;
  for (auto _ : state) {
    stalls = 0;
    for (const auto& layer : topo)
      for (const auto& l : model.layers_of(layer.kernel, layer.kernel.name)) {
        const systolic::LayerReport r = model.run_layer(l);
        stalls += static_cast<double>(r.stall_cycles);
        benchmark::DoNotOptimize(r);
      }
  }
  state.counters["stall_cycles"] = stalls;
  state.counters["seconds_per_network"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (scalesim_seconds > 0)
    state.counters["vs_scalesim"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * scalesim_seconds, benchmark::Counter::kIsRate);
}

void BM_Resnet18_32x32_os_user10(benchmark::State& state) { run_network(state, "scale_32x32_os_userbw10.cfg", 277); }
// No finished SCALE-Sim time for these (the 32x32 ws run was stopped after 22 minutes).
void BM_Resnet18_32x32_ws_user10(benchmark::State& state) { run_network(state, "scale_32x32_ws_userbw10.cfg", 0); }
void BM_Resnet18_256x256_ws_user10(benchmark::State& state) {
  run_network(state, "google_256x256_ws_userbw10.cfg", 0);
}

}  // namespace

BENCHMARK(BM_Resnet18_32x32_os_user10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet18_32x32_ws_user10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet18_256x256_ws_user10)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
