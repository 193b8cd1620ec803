#include "gpu/gemm/gemm_plan.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "gpu/gemm/gemm_estimate.h"
#include "gpu/int_math.h"

namespace tcsim::gpu {
namespace {

// The stride_alignment of the operands' strides (in A's element size): cuBLAS picks its kernel's
// vector width by it (CUTLASS's _align<N>), and its TMA (sm_90) kernels need 16 (a TMA descriptor's
// strides must be multiples of 16 bytes). A GEMM's strides are its operands' leading dimensions
// (row-major A: K, or M when transposed; B: N, or K when transposed; C: N) and, batched, their
// matrix sizes; a convolution's implicit GEMM reads its tensors along all three extents. The rule
// holds for every one of the 232 tensor-core cuBLASLt choices measured on the H100
// (validation/measured/H100/gemm_*: 16 B -> algo 66/21 TMA kernels, 8 or 4 B -> algo 23, 2 B ->
// algo 24; DeepSpeech's 5124x9124 rows: C's leading dimension 9124, algo 23), and for the decode
// GEMMs of 2-7 tokens (an extent that is no stride) that PyTorch 2.11's cuBLAS runs as nvjet_sm90
// TMA kernels on the H100 and H200 (validation/measured/H200/vidur_layer).
int leading_alignment(const Kernel& k, bool implicit_gemm) {
  const double eb = format_bits(k.a_format) / 8.0;
  if (implicit_gemm) return stride_alignment({double(k.m) * eb, double(k.n) * eb, double(k.k) * eb});
  const bool a_t = k.layout == Layout::TN || k.layout == Layout::TT;
  const bool b_t = k.layout == Layout::NT || k.layout == Layout::TT;
  const double a = double(a_t ? k.m : k.k) * eb, b = double(b_t ? k.k : k.n) * eb, c = double(k.n) * eb;
  if (k.batch <= 1) return stride_alignment({a, b, c});
  return stride_alignment({a, b, c, double(k.m) * double(k.k) * eb, double(k.k) * double(k.n) * eb,
                           double(k.m) * double(k.n) * eb});
}

}  // namespace

int stride_alignment(std::initializer_list<double> stride_bytes) {
  for (int a : {16, 8, 4, 2})
    if (std::all_of(stride_bytes.begin(), stride_bytes.end(), [&](double b) { return std::fmod(b, double(a)) == 0.0; }))
      return a;
  return 1;
}

GemmPlan plan_gemm(const GpuConfig& g, const Kernel& kernel) {
  const Kernel k = gemm_view(kernel);
  const std::string where = "kernel " + (kernel.name.empty() ? std::string("<unnamed>") : kernel.name);
  if (k.m <= 0 || k.n <= 0 || k.k <= 0 || k.batch <= 0)
    throw InputError(where, "expected positive M, N, K and batch, got " + std::to_string(k.m) + "x" +
                                std::to_string(k.n) + "x" + std::to_string(k.k) + " batch " + std::to_string(k.batch));
  GemmPlan plan;
  GemmProblem& p = plan.problem;
  p.m = k.m, p.n = k.n, p.k = k.k, p.batch = k.batch;
  p.ab = k.a_format, p.acc = k.c_format, p.out = k.d_format;
  const MmaInstr* row = g.find_mma(k.a_format, k.c_format, k.sparse_a);
  if (k.sparse_a && !row)
    throw InputError(where, "2:4 sparse A: no sparse tensor-core instruction (mma.sp) of " + g.name + " takes " +
                                std::string(format_name(k.a_format)) + " operands with a " +
                                std::string(format_name(k.c_format)) +
                                " accumulator (see the config's mma table; sparse rows need sm_80 or later)");
  if (k.a_format != k.b_format && !(format_bits(k.a_format) == 8 && format_bits(k.b_format) == 8))
    throw InputError(where, std::string("expected A and B in the same format, got ") +
                                std::string(format_name(k.a_format)) + " and " + std::string(format_name(k.b_format)));
  if (k.a_format == FormatId::fp32) {
    plan.path = MathPath::cuda_core;
    plan.notes.push_back("fp32 GEMM on the CUDA cores (FFMA); ask for tf32 operands to use tensor cores");
  } else if (row) {
    plan.path = MathPath::tensor;
    plan.mma_row = int(row - g.mma.data());
    // TMA describes a global tensor only when its strides are multiples of 16 bytes (CUDA driver
    // API, cuTensorMapEncodeTiled), so an operand whose leading dimension is not cannot feed
    // wgmma's TMA pipeline: cuBLAS runs its sm_80 mma.sync kernels instead (the H100 traces show
    // cutlass_80_tensorop_s1688gemm_128x256_32x3_*_align1 for BERT's 30522-wide vocabulary GEMMs).
    const int alignment = leading_alignment(k, kernel.kind == Kernel::Kind::conv);
    if (row->kind == MmaKind::wgmma && alignment < 16) {
      if (const MmaInstr* sync = g.find_sync_mma(k.a_format, k.c_format, k.sparse_a)) {
        plan.mma_row = int(sync - g.mma.data());
        plan.notes.push_back("a leading dimension is not a multiple of 16 bytes: no TMA, cuBLAS's mma.sync (" +
                             sync->name + ") kernel");
      }
    }
    // The operand copies of an _align<N> kernel move N-byte vectors (cp.async of 4 or 8 B; 2 B
    // through registers), not 16: on the H100 they run at ~11 B/clk per SM (l1.narrow_request_interval).
    if (alignment < 16) {
      p.copy_width = alignment;
      plan.notes.push_back("leading dimensions " + std::to_string(alignment) + "-byte aligned: operand copies of " +
                           std::to_string(p.copy_width) + "-byte vectors (cuBLAS's _align kernels); pad them to " +
                           "multiples of 16 bytes for full-width copies");
    }
    if (k.m % 8 || k.n % 8 || k.k % 8) {
      // cuBLAS before 11 used the tensor cores only for multiples of 8 (fp16); from 11 on it uses
      // them for any size, most efficiently for multiples of 8 (NVIDIA, Matrix Multiplication
      // Background User's Guide, "Tensor Core Requirements": cuBLAS 10.1 against 11.0).
      const double cublas = kernel.cublas_version > 0 ? kernel.cublas_version : g.cublas_version;
      if ((g.arch == "sm_70" || g.arch == "sm_75") && k.a_format == FormatId::fp16 && cublas < kCublasPadsUnalignedFp16) {
        plan.path = MathPath::cuda_core;
        plan.mma_row = -1;
        plan.notes.push_back("M, N or K not a multiple of 8: cuBLAS before 11 on " + g.arch +
                             " runs it without tensor cores (HFMA2); pad to multiples of 8 to use them");
      } else {
        p.m = round_up(p.m, 8), p.n = round_up(p.n, 8), p.k = round_up(p.k, 8);
        plan.notes.push_back("M, N, K padded to multiples of 8 for the tensor cores");
      }
    }
  } else if (k.a_format == FormatId::fp16 && (k.c_format == FormatId::fp16 || k.c_format == FormatId::fp32)) {
    plan.path = MathPath::cuda_core;
    plan.notes.push_back("no tensor-core instruction for these formats on " + g.name + ": HFMA2 on the CUDA cores");
  } else {
    throw InputError(where, "no tensor-core instruction of " + g.name + " takes " +
                                std::string(format_name(k.a_format)) + " operands with a " +
                                std::string(format_name(k.c_format)) + " accumulator (see the config's mma table)");
  }
  p.a_bytes = format_bits(k.a_format) / 8.0;
  if (k.sparse_a) {
    // cuSPARSELt's compressed A: the two kept values of each group of four along K, plus their two
    // 2-bit indices (PTX ISA, "Sparse matrix storage": 4 metadata bits per group of 4 elements; the
    // 4-bit formats pair elements, 4 bits per group of 8). The metadata travels with A's tiles.
    const double metadata_bytes = format_bits(k.a_format) == 4 ? 0.5 / 8 : 1.0 / 8;
    p.a_bytes = p.a_bytes / 2 + metadata_bytes;
    p.sparse_a = true;
    plan.notes.push_back("A 2:4 sparse: " + g.mma[plan.mma_row].name +
                         " at twice the dense rate; A read as its kept half plus 2-bit indices");
  }
  p.l2_warm = k.l2_warm;
  if (p.l2_warm)
    plan.notes.push_back(l2_resident(g, p) ? "timed back to back: A, B and D fit in L2 and stay there (no DRAM reads)"
                                           : "timed back to back, but A, B and D do not fit in L2: read from DRAM as cold");
  p.b_bytes = format_bits(k.b_format) / 8.0;
  p.c_bytes = format_bits(k.d_format) / 8.0;
  p.epilogue_read_bytes = double(k.epilogue_inputs) * p.c_bytes;
  // Row-major Layout letters (workload/kernel.h): A as M x K (N) has K contiguous; B as N x K (T) too.
  p.a_k_contiguous = k.layout == Layout::NN || k.layout == Layout::NT;
  p.b_k_contiguous = k.layout == Layout::NT || k.layout == Layout::TT;
  if (plan.path == MathPath::tensor && format_bits(k.a_format) < 8 && !(p.a_k_contiguous && p.b_k_contiguous)) {
    // mma with .s4/.u4/.b1 operands takes only the .row.col layout, both operands K-major (PTX ISA);
    // libraries (CUTLASS's sub-byte kernels, cuBLASLt) accept only that. Another layout needs a
    // transpose first, which is not charged here.
    p.a_k_contiguous = p.b_k_contiguous = true;
    plan.notes.push_back("sub-byte MMA takes K-major operands only (PTX .row.col): timed as layout NT, transposes not charged");
  }
  if (plan.path == MathPath::cuda_core) p.acc = FormatId::fp32;
  return plan;
}

std::vector<int> split_options(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  std::vector<int> out{1};
  const std::int64_t tiles = ((p.m + m.bm - 1) / m.bm) * ((p.n + m.bn - 1) / m.bn) * p.batch;
  const std::int64_t slots = std::int64_t(g.sm_count) * ctas_per_sm(g, m);
  if (tiles * 2 > slots) return out;
  for (int s : {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
    if (tiles * s > slots) break;
    if (p.k / s < 4 * m.bk) break;
    out.push_back(s);
  }
  return out;
}

}  // namespace tcsim::gpu
