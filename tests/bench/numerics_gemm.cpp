// Speed of the GEMM emulation: a 1024x1024x1024 fp16 GEMM with sm_80 mma.m16n8k16 rules (FP32
// accumulate), on one thread and on all, beside a native float GEMM with Eigen on the same sizes.
// Counter "MAC/s": emulated (or native) multiply-adds per second; "MAC/s/thread" divides by the
// threads used. Run: build/bench_numerics_gemm --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <thread>

#include "numerics/gemm/gemm.h"

using namespace tcsim;
using namespace tcsim::num;

namespace {
constexpr int kN = 1024;

struct Operands {
  BitMatrix A, B, C;
  Operands()
      : A(random_matrix(FormatId::fp16, kN, kN, 1)),
        B(random_matrix(FormatId::fp16, kN, kN, 2)),
        C(BitMatrix::Zero(kN, kN)) {}
};
const Operands& operands() {
  static const Operands ops;
  return ops;
}

void set_counters(benchmark::State& state, int threads) {
  const double macs = static_cast<double>(kN) * kN * kN;
  state.counters["MAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MAC/s/thread"] =
      benchmark::Counter(macs / threads, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads_used"] = threads;
}

void BM_emulated_fp16_sm80(benchmark::State& state) {
  const int threads = state.range(0) == 0 ? static_cast<int>(std::thread::hardware_concurrency())
                                          : static_cast<int>(state.range(0));
  const Operands& op = operands();
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  GemmOptions opt;
  opt.threads = threads;
  for (auto _ : state) {
    BitMatrix D = gemm(ins, op.A, op.B, op.C, opt);
    benchmark::DoNotOptimize(D.data());
  }
  set_counters(state, threads);
}

// The same GEMM on the plain integer kernel (GemmOptions::simd = false): the AVX2 block's gain.
void BM_emulated_fp16_sm80_plain(benchmark::State& state) {
  const Operands& op = operands();
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  GemmOptions opt;
  opt.threads = 1;
  opt.simd = false;
  for (auto _ : state) {
    BitMatrix D = gemm(ins, op.A, op.B, op.C, opt);
    benchmark::DoNotOptimize(D.data());
  }
  set_counters(state, 1);
}

// The fp64 reference tcsim mma gemm computes beside the emulation (double GEMM + Dot2 fallback).
void BM_reference_fp16(benchmark::State& state) {
  const Operands& op = operands();
  for (auto _ : state) {
    Eigen::MatrixXd R = reference_gemm(op.A, FormatId::fp16, op.B, FormatId::fp16, op.C, FormatId::fp32, 1);
    benchmark::DoNotOptimize(R.data());
  }
  set_counters(state, 1);
}

void BM_native_float_eigen(benchmark::State& state) {
  const int threads = state.range(0) == 0 ? static_cast<int>(std::thread::hardware_concurrency())
                                          : static_cast<int>(state.range(0));
  Eigen::setNbThreads(threads);  // Eigen is single-threaded here (no OpenMP): nbThreads() is 1
  const Operands& op = operands();
  const Eigen::MatrixXf A = to_double(op.A, FormatId::fp16).cast<float>();
  const Eigen::MatrixXf B = to_double(op.B, FormatId::fp16).cast<float>();
  Eigen::MatrixXf D(kN, kN);
  for (auto _ : state) {
    D.noalias() = A * B;
    benchmark::DoNotOptimize(D.data());
  }
  set_counters(state, Eigen::nbThreads());
}
}  // namespace

// Arg: threads (0 = all hardware threads). Single-threaded runs report rates per CPU second (robust
// on a shared machine); the all-threads run must use wall time (its worker threads' CPU time is
// not counted by the library).
BENCHMARK(BM_emulated_fp16_sm80)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_emulated_fp16_sm80)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_emulated_fp16_sm80_plain)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_reference_fp16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_native_float_eigen)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
