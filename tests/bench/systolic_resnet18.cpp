// ResNet-18 (SCALE-Sim's conv_nets/Resnet18.csv, 21 layers) through the systolic model in
// scalesim_v2 semantics with every counter (cycles, utilisations, SRAM and DRAM counts and their
// start/stop cycles), on SCALE-Sim's 256x256 WS ("google") and 32x32 OS/WS/IS ("scale") arrays.
// SCALE-Sim v2 itself takes about 80 s, 221 s, 220 s and 343 s for these
// (shared/specs/systolic.md section 9); the `vs_scalesim` counter is that time divided by ours.
//   ./build/bench_systolic_resnet18 --benchmark_min_time=1
#include "systolic_bench_util.h"

using namespace tcsim;

namespace {

void run_network(benchmark::State& state, const char* cfg_name, double scalesim_seconds) {
  const auto net = bench::load_resnet18(state, cfg_name);
  if (!net) return;
  double cycles = 0;
  for (auto _ : state) {
    cycles = 0;
    for (const systolic::Layer& l : net->layers) {
      const systolic::LayerReport r = net->model.run_layer(l);
      cycles += static_cast<double>(r.total_cycles);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["layers"] = static_cast<double>(net->topology_rows);
  state.counters["simulated_cycles"] = cycles;
  bench::set_network_counters(state, scalesim_seconds);
}

void BM_Resnet18_256x256_ws(benchmark::State& state) { run_network(state, "google_256x256_ws.cfg", 80); }
void BM_Resnet18_32x32_os(benchmark::State& state) { run_network(state, "scale_32x32_os.cfg", 221); }
void BM_Resnet18_32x32_ws(benchmark::State& state) { run_network(state, "scale_32x32_ws.cfg", 220); }
void BM_Resnet18_32x32_is(benchmark::State& state) { run_network(state, "scale_32x32_is.cfg", 343); }

}  // namespace

BENCHMARK(BM_Resnet18_256x256_ws)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet18_32x32_os)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet18_32x32_ws)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Resnet18_32x32_is)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
