// ResNet-18 (SCALE-Sim's conv_nets/Resnet18.csv, 21 layers) through the systolic model in
// scalesim_v2 semantics with every counter (cycles, utilisations, SRAM and DRAM counts and their
// start/stop cycles), on SCALE-Sim's 256x256 WS ("google") and 32x32 OS ("scale") arrays.
// SCALE-Sim v2 itself takes about 80 s and 221 s for these (shared/data/scalesim/README.md);
// the `vs_scalesim` counter is that time divided by ours.
//   ./build/bench_systolic_resnet18 --benchmark_min_time=1
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
  double cycles = 0;
  for (auto _ : state) {
    cycles = 0;
    for (const auto& layer : topo) {
      for (const auto& l : model.layers_of(layer.kernel, layer.kernel.name)) {
        const systolic::LayerReport r = model.run_layer(l);
        cycles += static_cast<double>(r.total_cycles);
        benchmark::DoNotOptimize(r);
      }
    }
  }
  state.counters["layers"] = static_cast<double>(topo.size());
  state.counters["simulated_cycles"] = cycles;
  state.counters["seconds_per_network"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["vs_scalesim"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * scalesim_seconds, benchmark::Counter::kIsRate);
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
