#pragma once
// How the GPU will run a kernel's GEMM: the math path (tensor cores or CUDA cores), the MMA
// instruction, padding, and the split-K factors worth trying; with notes saying why.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "gpu/gemm/mapping.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

struct GemmPlan {
  GemmProblem problem;
  MathPath path = MathPath::tensor;
  int mma_row = -1;
  bool empty = false;  // a GEMM with nothing to do (memory kernels are handled elsewhere)
  int max_split_k = 0; // the library kernel splits K at most this many ways (0: as cuBLAS would)
  // CTA tiles (bm, bn) the library ships for this kernel; empty: every candidate of the architecture.
  std::vector<std::pair<int, int>> cta_tiles;
  // The library also ships sliced-K SIMT kernels for this call (cuBLAS's single GEMMs: yes; its
  // strided-batched SGEMM and cuDNN's convolutions: no).
  bool sliced_k = true;
  std::vector<std::string> notes;
};

// The first cuBLAS release that runs fp16 GEMMs whose M, N or K is not a multiple of 8 on the tensor
// cores of sm_70/75 (padded); before it they ran HFMA2 (Kernel::cublas_version, library.cublas_version).
inline constexpr double kCublasPadsUnalignedFp16 = 11.0;

// Throws InputError for dimensions that are zero/negative or formats no unit of this GPU runs.
GemmPlan plan_gemm(const GpuConfig& g, const Kernel& kernel);

// The largest of 16, 8, 4 and 2 bytes that every one of these strides (in bytes) is a multiple of,
// 1 if none: the vector width of a library's copies (CUTLASS's _align<N>); TMA needs 16.
int stride_alignment(std::initializer_list<double> stride_bytes);

// Split-K factors to evaluate for a mapping: 1, and more when the M x N tiles cannot fill the GPU.
std::vector<int> split_options(const GpuConfig& g, const GemmProblem& p, const Mapping& m);

}  // namespace tcsim::gpu
