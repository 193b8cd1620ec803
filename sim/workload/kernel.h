#pragma once
// A Kernel is one lowered unit of work that an Accelerator runs: a GEMM, a convolution (kept as a
// convolution because SCALE-Sim-style systolic models need its geometry; the GPU lowers it to an
// implicit GEMM through gemm_view()), or a memory-bound op.
#include <cstdint>
#include <string>

#include "numerics/format_id.h"

namespace tcsim {

enum class Layout { NN, NT, TN, TT };  // op(A), op(B): N = as stored (row-major M×K / K×N), T = transposed
enum class Pass { forward, data_grad, weight_grad };

struct ConvShape {
  std::int64_t batch = 1;
  std::int64_t ifmap_h = 0, ifmap_w = 0;    // input height and width
  std::int64_t filter_h = 0, filter_w = 0;  // R, S
  std::int64_t channels = 0;                // C
  std::int64_t num_filters = 0;             // K (output channels)
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t pad_h = 0, pad_w = 0;        // per side
  bool depthwise = false;                   // one filter per channel (groups == channels)

  std::int64_t out_h() const { return (ifmap_h + 2 * pad_h - filter_h) / stride_h + 1; }
  std::int64_t out_w() const { return (ifmap_w + 2 * pad_w - filter_w) / stride_w + 1; }
};

struct Kernel {
  enum class Kind { gemm, conv, memory };
  Kind kind = Kind::gemm;
  std::string name;

  // GEMM D[M×N] = A[M×K]·B[K×N] + C, `batch` independent instances.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  ConvShape conv;  // kind == conv

  FormatId a_format = FormatId::fp16, b_format = FormatId::fp16;
  FormatId c_format = FormatId::fp32, d_format = FormatId::fp32;  // c/d: the accumulator
  Layout layout = Layout::NN;
  Pass pass = Pass::forward;
  std::int64_t count = 1;  // how many times the kernel runs (totals multiply by this)

  // kind == memory: bytes moved and (non-tensor) flops.
  std::uint64_t bytes_read = 0, bytes_written = 0;
  double flops_nontensor = 0;

  // Useful multiply-adds of one run (a GEMM counts M*N*K*batch; a conv its implicit GEMM).
  double macs() const;
  double flops() const { return kind == Kind::memory ? flops_nontensor : 2.0 * macs(); }
};

// The implicit-GEMM view of a convolution (forward pass): M = batch*P*Q, N = filters, K = C*R*S.
// For a GEMM kernel it returns the kernel unchanged.
Kernel gemm_view(const Kernel& k);

Kernel make_gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, FormatId ab = FormatId::fp16,
                 FormatId cd = FormatId::fp32);

}  // namespace tcsim
