#pragma once
// The matrix-vector kernel a library launches for a GEMM whose M or N is 1 (a decode step's
// projections, batch-1 inference): its grid, its CTA and each thread's loads. cuBLAS runs
// `gemv2T_kernel_val` when the matrix's rows run along K (PyTorch's nn.Linear weight) and
// `gemv2N_kernel` + `splitKreduce_kernel` when they run along the output; which GEMMs go here is
// decided in cublas_choice.cpp. Sources and the structure assumed: sim/gpu/README.md, "GEMV kernels".
#include <cstdint>
#include <string>

#include "gpu/gpu_config.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

struct GemvLaunch {
  std::string kernel;              // "gemv2T_kernel_val: 128 threads, 16 rows per CTA, 8 threads per row"
  std::int64_t rows = 0;           // output elements of one instance: the GEMM's other side (M or N)
  std::int64_t k = 0, batch = 1;
  bool matrix_k_contiguous = true; // gemv2T (each row of the matrix is K contiguous elements) or gemv2N
  bool nvjet = false;              // sm_90 16-bit: cuBLASLt's 8-wide tensor-core tile, costed as the gemv2T stream
  double matrix_bytes = 2, vector_bytes = 2, out_bytes = 4;  // per element
  int threads_per_cta = 128;
  int threads_per_row = 8;         // gemv2T: threads sharing one output row (1 for gemv2N)
  std::int64_t rows_per_cta = 16;
  std::int64_t ctas = 1;           // every instance and K chunk
  int split_k = 1;                 // K chunks summed by splitKreduce (gemv2N: on the grid's y axis)
  std::int64_t k_per_cta = 0;      // K elements one CTA reduces over
  double loads_per_thread = 1;     // 16-byte matrix loads one thread issues over its K range
  double loads_in_flight = 4;      // of those, issued back to back before the first is used
  double run_bytes = 128;          // contiguous matrix bytes one row (DRAM page) access serves
  // CUDA-core lane instructions per matrix element: the multiply-add with its conversions, plus
  // the element's share of the 16-byte loads of the matrix and the vector.
  double lane_ops_per_element = 1;
  double math_ops_per_element = 1; // of which arithmetic (conversions, FMA, DP4A), not loads
};

// The launch for `kernel` (a GEMM with M or N equal to 1, operands of 8 bits or more).
GemvLaunch gemv_launch(const GpuConfig& g, const Kernel& kernel);

// sm_90's cuBLASLt GEMV of a `rows` x `k` 16-bit matrix: how many ways it splits K (1: no split,
// else a splitKreduce_kernel follows). The rule and its evidence: gemv_launch.cpp.
int nvjet_gemv_split_k(const GpuConfig& g, std::int64_t rows, std::int64_t k);

}  // namespace tcsim::gpu
