#pragma once
// A small PyTorch profiler trace in Kineto's Chrome-trace format (traces/README.md), written by
// hand after what torch.profiler(record_shapes=True).export_chrome_trace() writes: one training
// step's worth of op kinds. Durations are made up for the tests (they check the plumbing).
#include <string>

namespace tcsim::test {

inline std::string small_kineto_trace() {
  return R"TRACE({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8, "computeMinor": 0}],
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 100, "dur": 30,
   "args": {"External id": 1, "Input Dims": [[64, 512], [1024, 512], [1024]], "Input type": ["c10::Half", "c10::Half", "c10::Half"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 105, "dur": 20,
   "args": {"External id": 2, "Input Dims": [[1024], [64, 512], [512, 1024]], "Input type": ["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"],
            "Input Strides": [[1], [512, 1], [1, 512]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
   "args": {"External id": 2, "correlation": 100}},
  {"ph": "X", "cat": "kernel", "name": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", "pid": 0, "tid": 7, "ts": 200, "dur": 50,
   "args": {"External id": 2, "correlation": 100, "device": 0, "stream": 7, "grid": [8, 1, 1], "block": [256, 1, 1]}},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 100, "pid": 1, "tid": 1, "ts": 110},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 100, "pid": 0, "tid": 7, "ts": 200, "bp": "e"},

  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 140, "dur": 10,
   "args": {"External id": 3, "Input Dims": [[64, 1024]], "Input type": ["c10::Half"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 142, "dur": 4,
   "args": {"External id": 3, "correlation": 101}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>(int, at::native::(anonymous namespace)::launch_clamp_scalar, at::detail::Array<char*, 2>)", "pid": 0, "tid": 7, "ts": 260, "dur": 4,
   "args": {"correlation": 101, "device": 0, "stream": 7}},

  {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 160, "dur": 40,
   "args": {"External id": 4, "Input Dims": [[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::cudnn_convolution", "pid": 1, "tid": 1, "ts": 165, "dur": 30,
   "args": {"External id": 5, "Input Dims": [[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []],
            "Input type": ["float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
            "Concrete Inputs": ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "False", "True"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 170, "dur": 5,
   "args": {"External id": 5, "correlation": 102}},
  {"ph": "X", "cat": "kernel", "name": "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel", "pid": 0, "tid": 7, "ts": 270, "dur": 300,
   "args": {"External id": 5, "correlation": 102, "device": 0, "stream": 7}},

  {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: ConvolutionBackward0", "pid": 1, "tid": 2, "ts": 300, "dur": 60,
   "args": {"External id": 6}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::convolution_backward", "pid": 1, "tid": 2, "ts": 305, "dur": 50,
   "args": {"External id": 7, "Input Dims": [[32, 64, 56, 56], [32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], [], []],
            "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"],
            "Concrete Inputs": ["", "", "", "[64]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"]}},
  {"ph": "X", "cat": "kernel", "name": "sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_kernel", "pid": 0, "tid": 7, "ts": 600, "dur": 320,
   "args": {"External id": 7, "correlation": 103, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_kernel", "pid": 0, "tid": 7, "ts": 930, "dur": 310,
   "args": {"External id": 7, "correlation": 104, "device": 0, "stream": 7}},

  {"ph": "X", "cat": "cpu_op", "name": "Optimizer.step#Adam.step", "pid": 1, "tid": 1, "ts": 400, "dur": 100, "args": {"External id": 8}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::_fused_adam_", "pid": 1, "tid": 1, "ts": 410, "dur": 80,
   "args": {"External id": 9, "Input Dims": [[[1024, 512], [1024], [64, 64, 3, 3]], [[1024, 512], [1024], [64, 64, 3, 3]], [[1024, 512], [1024], [64, 64, 3, 3]], [[1024, 512], [1024], [64, 64, 3, 3]], [], [[], [], []], [], [], [], [], [], [], [], [], []],
            "Input type": ["TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", ""]}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>>", "pid": 0, "tid": 7, "ts": 1300, "dur": 20,
   "args": {"External id": 9, "correlation": 105, "device": 0, "stream": 7}},

  {"ph": "X", "cat": "cpu_op", "name": "aten::my_custom_op", "pid": 1, "tid": 1, "ts": 520, "dur": 10,
   "args": {"External id": 10, "Input Dims": [[64, 1024]], "Input type": ["float"]}},
  {"ph": "X", "cat": "kernel", "name": "my_custom_kernel", "pid": 0, "tid": 7, "ts": 1330, "dur": 15,
   "args": {"External id": 10, "correlation": 106, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 8, "ts": 1350, "dur": 40,
   "args": {"device": 0, "stream": 8}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 150, "dur": 6,
   "args": {"device": 0, "stream": 7, "bytes": 4096}}
  ]
})TRACE";
}

}  // namespace tcsim::test
