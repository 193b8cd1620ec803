// ResNet-18 (SCALE-Sim's conv_nets/Resnet18.csv) through the systolic model in scalesim_v2
// semantics with USER interface bandwidth (10 words/cycle): the row-by-row prefetch/stall replay
// of sim/systolic/memory/user_bandwidth.h. SCALE-Sim v2 itself took 277 s for the 32x32 os run
// (shared/data/scalesim/README.md); `vs_scalesim` is that time divided by ours.
//   ./build/bench_systolic_user_bandwidth --benchmark_min_time=1
#include "systolic_bench_util.h"

using namespace tcsim;

namespace {

void run_network(benchmark::State& state, const char* cfg_name, double scalesim_seconds) {
  const auto net = bench::load_resnet18(state, cfg_name);
  if (!net) return;
  double stalls = 0;
  for (auto _ : state) {
    stalls = 0;
    for (const systolic::Layer& l : net->layers) {
      const systolic::LayerReport r = net->model.run_layer(l);
      stalls += static_cast<double>(r.stall_cycles);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["stall_cycles"] = stalls;
  bench::set_network_counters(state, scalesim_seconds);
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
