#pragma once
// Shared by the systolic benchmarks: SCALE-Sim's ResNet-18 (conv_nets/Resnet18.csv, 21 layers)
// and a config from shared/data/scalesim/inputs, loaded once outside the timed loop, and the
// per-network counters (seconds per network, ratio to SCALE-Sim's own time).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "../test_support.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/systolic_model.h"
#include "workload/csv/scalesim_topology.h"

namespace tcsim::bench {

inline std::filesystem::path scalesim_dir() {
  const std::filesystem::path shared = test::shared_dir();  // empty when absent
  return shared.empty() ? shared : shared / "data" / "scalesim";
}

struct SystolicNetwork {
  systolic::SystolicModel model;
  std::vector<systolic::Layer> layers;  // depthwise kernels already expanded (SCALE-Sim's layers)
  std::size_t topology_rows = 0;
};

// ResNet-18 on SCALE-Sim config `cfg_name` (a file in shared/data/scalesim/inputs); null (and the
// benchmark marked skipped with a reason) when the shared data is absent.
inline std::unique_ptr<SystolicNetwork> load_resnet18(benchmark::State& state, const char* cfg_name) {
  const std::filesystem::path dir = scalesim_dir();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    state.SkipWithError("shared/data/scalesim not found (set TCSIM_SHARED)");
    return nullptr;
  }
  auto net = std::make_unique<SystolicNetwork>(
      SystolicNetwork{systolic::SystolicModel(systolic::read_scalesim_cfg(dir / "inputs" / cfg_name)), {}, 0});
  const auto topo = workload::read_scalesim_topology(dir / "inputs/topologies/conv_nets/Resnet18.csv");
  net->topology_rows = topo.size();
  for (const auto& row : topo)
    for (auto& l : net->model.layers_of(row.kernel, row.kernel.name)) net->layers.push_back(std::move(l));
  return net;
}

// seconds_per_network, and vs_scalesim = SCALE-Sim's time / ours (skipped when unknown: <= 0).
inline void set_network_counters(benchmark::State& state, double scalesim_seconds) {
  const double it = static_cast<double>(state.iterations());
  state.counters["seconds_per_network"] =
      benchmark::Counter(it, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (scalesim_seconds > 0)
    state.counters["vs_scalesim"] = benchmark::Counter(it * scalesim_seconds, benchmark::Counter::kIsRate);
}

}  // namespace tcsim::bench
