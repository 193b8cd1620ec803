// Speed of the GPU model: all 160 DeepBench GEMMs (V100 fp16 sheet shapes) on the V100 config,
// from a fresh model each iteration (no warm cache). Reports simulated GPU cycles per wall second
// and the time per GEMM (CPU time of the one thread that runs the model).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "config/config.h"
#include "gpu/gpu_model.h"
#include "workload/measured/deepbench.h"

namespace {

std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("TCSIM_SHARED"); env && *env) return env;
  return TCSIM_SHARED_DIR_DEFAULT;
}

// fixed_clock: power.mode fixed, the model without the boost governor (its cost is the difference).
void run_sheet(benchmark::State& state, const char* file, bool fixed_clock = false) {
  using namespace tcsim;
  const auto csv = shared_dir() / "data" / "deepbench" / file;
  if (!std::filesystem::exists(csv)) {
    state.SkipWithError("shared/data/deepbench not found (set TCSIM_SHARED)");
    return;
  }
  const workload::MeasuredSet set = workload::read_deepbench(csv);
  const auto cfg = config::Config::load(std::filesystem::path(TCSIM_SOURCE_DIR) / "configs/gpu/v100.yaml",
                                        gpu::config_schema());
  gpu::GpuConfig g = gpu::GpuConfig::from(cfg);
  if (fixed_clock) g.power.mode = gpu::PowerConfig::Mode::fixed;
  double cycles = 0;
  std::int64_t gemms = 0;
  for (auto _ : state) {
    gpu::GpuModel model(g);  // fresh cache: every GEMM is simulated
    for (const auto& row : set.rows) {
      const KernelResult r = model.run(row.kernel);
      cycles += r.cycles;
      benchmark::DoNotOptimize(r.time_s);
      ++gemms;
    }
  }
  state.counters["simulated_cycles_per_s"] = benchmark::Counter(cycles, benchmark::Counter::kIsRate);
  state.counters["gemms_per_s"] = benchmark::Counter(double(gemms), benchmark::Counter::kIsRate);
  // Rates use the CPU time of the benchmark thread (the model is single-threaded here).
  state.counters["s_per_gemm"] =
      benchmark::Counter(double(gemms), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(gemms);
}

void BM_DeepBenchFp16GemmsV100(benchmark::State& state) { run_sheet(state, "v100_train_fp16_dense_matrix_multiplication.csv"); }
void BM_DeepBenchFp32GemmsV100(benchmark::State& state) { run_sheet(state, "v100_train_fp32_dense_matrix_multiplication.csv"); }
void BM_DeepBenchFp16GemmsV100FixedClock(benchmark::State& state) {
  run_sheet(state, "v100_train_fp16_dense_matrix_multiplication.csv", true);
}
void BM_DeepBenchFp32GemmsV100FixedClock(benchmark::State& state) {
  run_sheet(state, "v100_train_fp32_dense_matrix_multiplication.csv", true);
}

}  // namespace

BENCHMARK(BM_DeepBenchFp16GemmsV100)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_DeepBenchFp32GemmsV100)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_DeepBenchFp16GemmsV100FixedClock)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_DeepBenchFp32GemmsV100FixedClock)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
