// Speed of `tcsim validate` / `tcsim replay` on a PyTorch profiler trace: a generated Kineto trace
// of 100,000 kernel launches (training steps of a ResNet-like stack: convolutions forward and
// backward on tensor cores, batch norm, ReLU, a classifier GEMM and the fused Adam step) is read,
// mapped and simulated on one thread from a cold model. The target: at most 10 s.
// Repeated shapes are simulated once (counter distinct_kernels).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "engine/load_accelerator.h"
#include "engine/profile/profile_estimate.h"
#include "workload/profile/readers/kineto_trace.h"

namespace {

using namespace tcsim;

struct TraceWriter {
  std::string out = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  long ext = 0, corr = 0;
  double cpu_ts = 0, gpu_ts = 0;
  long kernels = 0;
  bool first = true;

  void event(const std::string& e) {
    if (!first) out += ",\n";
    first = false;
    out += e;
  }
  // An op call with its args, launching the given kernels (each `dur` us).
  void op(const std::string& name, const std::string& args, const std::vector<std::string>& kernel_names, double dur, int tid = 1) {
    const long id = ++ext;
    event("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
          ", \"ts\": " + std::to_string(cpu_ts) + ", \"dur\": 8, \"args\": {\"External id\": " + std::to_string(id) + ", " +
          args + "}}");
    for (const auto& k : kernel_names) {
      const long c = ++corr;
      event("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": " +
            std::to_string(tid) + ", \"ts\": " + std::to_string(cpu_ts + 1) + ", \"dur\": 3, \"args\": {\"External id\": " +
            std::to_string(id) + ", \"correlation\": " + std::to_string(c) + "}}");
      event("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + k + "\", \"pid\": 0, \"tid\": 7, \"ts\": " +
            std::to_string(gpu_ts) + ", \"dur\": " + std::to_string(dur) + ", \"args\": {\"External id\": " +
            std::to_string(id) + ", \"correlation\": " + std::to_string(c) + ", \"device\": 0, \"stream\": 7}}");
      gpu_ts += dur + 1;
      ++kernels;
    }
    cpu_ts += 10;
  }
};

std::string dims4(long n, long c, long h, long w) {
  return "[" + std::to_string(n) + ", " + std::to_string(c) + ", " + std::to_string(h) + ", " + std::to_string(w) + "]";
}

// Training steps until `target` kernels: 16 conv blocks of 4 shapes, each forward (conv, batch norm,
// relu) and backward (relu, batch norm, conv dgrad + wgrad), a GEMM head and the Adam step.
std::string generate_trace(long target) {
  TraceWriter w;
  const long shapes[4][3] = {{64, 56, 1}, {128, 28, 2}, {256, 14, 2}, {512, 7, 2}};
  const std::string fprop = "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_kernel";
  const std::string dgrad = "sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_kernel";
  const std::string wgrad = "sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_kernel";
  const std::string ew = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<c10::Half>>(int)";
  while (w.kernels < target) {
    for (int b = 0; b < 16; ++b) {
      const long c = shapes[b % 4][0], hw = shapes[b % 4][1];
      const std::string x = dims4(64, c, hw, hw), wt = dims4(c, c, 3, 3);
      const std::string conv_args = "\"Input Dims\": [" + x + ", " + wt +
                                    ", [], [], [], [], [], [], []], \"Input type\": [\"c10::Half\", \"c10::Half\", \"\", \"ScalarList\", "
                                    "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"], \"Concrete Inputs\": [\"\", "
                                    "\"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]";
      w.op("aten::convolution", conv_args, {fprop}, 40);
      w.op("aten::cudnn_batch_norm", "\"Input Dims\": [" + x + ", [" + std::to_string(c) + "]], \"Input type\": [\"c10::Half\", \"float\"]",
           {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>(cudnnTensorStruct)"}, 12);
      w.op("aten::relu_", "\"Input Dims\": [" + x + "], \"Input type\": [\"c10::Half\"]", {ew}, 6);
    }
    w.op("aten::addmm", "\"Input Dims\": [[1000], [64, 2048], [2048, 1000]], \"Input type\": [\"c10::Half\", \"c10::Half\", \"c10::Half\"]",
         {"ampere_fp16_s16816gemm_fp16_64x64_ldg8_f2f_stages_64x5_tn"}, 10);
    for (int b = 15; b >= 0; --b) {
      const long c = shapes[b % 4][0], hw = shapes[b % 4][1];
      const std::string x = dims4(64, c, hw, hw), wt = dims4(c, c, 3, 3);
      w.op("aten::threshold_backward", "\"Input Dims\": [" + x + ", " + x + ", []], \"Input type\": [\"c10::Half\", \"c10::Half\", \"Scalar\"]", {ew}, 8, 2);
      w.op("aten::cudnn_batch_norm_backward", "\"Input Dims\": [" + x + ", " + x + "], \"Input type\": [\"c10::Half\", \"c10::Half\"]",
           {"void cudnn::bn_bw_1C11_kernel_new<__half, float, float, 512, true, 1>(float)"}, 20, 2);
      w.op("aten::convolution_backward",
           "\"Input Dims\": [" + x + ", " + x + ", " + wt + ", [], [], [], [], [], [], [], []], \"Input type\": [\"c10::Half\", "
           "\"c10::Half\", \"c10::Half\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"[0]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", "
           "\"False\", \"[0, 0]\", \"1\", \"[True, True, False]\"]",
           {dgrad, wgrad}, 45, 2);
    }
    std::string list = "[";
    for (int i = 0; i < 16; ++i) list += std::string(i ? ", " : "") + "[" + std::to_string(shapes[i % 4][0] * shapes[i % 4][0] * 9) + "]";
    list += "]";
    w.op("aten::_fused_adam_", "\"Input Dims\": [" + list + ", " + list + ", " + list + ", " + list + ", [], []], \"Input type\": [\"TensorList\"]",
         {"void at::native::multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>(int)",
          "void at::native::multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>(int)"}, 30);
  }
  w.out += "\n]}\n";
  return w.out;
}

void BM_Replay100kKernelTraceA100(benchmark::State& state) {
  const std::filesystem::path src = TCSIM_SOURCE_DIR;
  static const std::string trace = generate_trace(100000);
  double kernels = 0, distinct = 0, mapped = 0;
  for (auto _ : state) {
    const auto acc = engine::load_accelerator(src / "configs/gpu/a100.yaml");  // cold: nothing cached
    const workload::Profile p = workload::parse_kineto_trace(trace, "generated.json");
    const engine::ProfileEstimate e = engine::estimate_profile(*acc, p, std::nullopt, 1);
    benchmark::DoNotOptimize(e.step_us);
    kernels += double(e.mapping.kernels);
    distinct += double(e.distinct_kernels);
    mapped += e.measured_us > 0 ? 100 * (e.measured_us - e.not_mapped_us) / e.measured_us : 0;
  }
  state.counters["kernels"] = benchmark::Counter(kernels, benchmark::Counter::kAvgIterations);
  state.counters["distinct_kernels"] = benchmark::Counter(distinct, benchmark::Counter::kAvgIterations);
  state.counters["mapped_pct"] = benchmark::Counter(mapped, benchmark::Counter::kAvgIterations);
  state.counters["trace_MB"] = double(trace.size()) / 1e6;
}

}  // namespace

BENCHMARK(BM_Replay100kKernelTraceA100)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_MAIN();
