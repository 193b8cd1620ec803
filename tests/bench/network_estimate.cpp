// Speed of `tcsim network`: one step of a whole network on a GPU config, from a cold start (a
// fresh model each iteration: every distinct kernel is simulated), on one thread. The issue's
// targets: at most 1 s each for ResNet-50 training (batch 256, amp-fp16) on A100, BERT-large
// training, and a 32-layer Llama decode step. Reports distinct kernels simulated per second.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "engine/load_accelerator.h"
#include "engine/network/network_estimate.h"
#include "workload/network/reader/network_reader.h"

namespace {

using namespace tcsim;

void run_network(benchmark::State& state, const char* config, const char* model, workload::NetworkVariables vars,
                 workload::Precision precision, bool training) {
  const std::filesystem::path src = TCSIM_SOURCE_DIR;
  const workload::Network net = workload::read_network(src / model, vars);
  engine::NetworkRunOptions opt;
  opt.precision = precision;
  opt.training = training;
  opt.jobs = 1;
  double kernels = 0, launches = 0;
  for (auto _ : state) {
    const auto acc = engine::load_accelerator(src / config);  // cold: no cached kernel results
    const engine::NetworkEstimate e = engine::estimate_network(*acc, net, opt);
    benchmark::DoNotOptimize(e.step_time_s);
    kernels += double(e.distinct_kernels);
    launches += double(e.launches);
  }
  state.counters["distinct_kernels_per_s"] = benchmark::Counter(kernels, benchmark::Counter::kIsRate);
  state.counters["launches_per_step"] = benchmark::Counter(launches, benchmark::Counter::kAvgIterations);
}

void BM_ResNet50TrainAmpA100(benchmark::State& s) {
  workload::NetworkVariables v;
  v.batch = 256;
  run_network(s, "configs/gpu/a100.yaml", "models/resnet50.yaml", v, workload::Precision::amp_fp16, true);
}
void BM_BertLargeTrainAmpA100(benchmark::State& s) {
  workload::NetworkVariables v;
  v.batch = 8;
  v.seq = 512;
  run_network(s, "configs/gpu/a100.yaml", "models/bert_large.yaml", v, workload::Precision::amp_fp16, true);
}
void BM_Llama2DecodeH100(benchmark::State& s) {
  workload::NetworkVariables v;
  v.batch = 16;
  v.seq = 1;
  v.past = 4096;
  run_network(s, "configs/gpu/h100.yaml", "models/llama2_7b.yaml", v, workload::Precision::fp16, false);
}

}  // namespace

BENCHMARK(BM_ResNet50TrainAmpA100)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_BertLargeTrainAmpA100)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Llama2DecodeH100)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
