#include "gpu/gemm/gemv/gemv_launch.h"

#include <algorithm>

#include "gpu/int_math.h"
#include "numerics/formats/format_id.h"

namespace tcsim::gpu {
namespace {

// Bytes of one global load of a thread: 128-bit vector loads (LDG.128), the widest a thread issues.
constexpr double kAccessBytes = 16;

// Matrix loads a thread issues back to back before it needs the first one's data [assumed]: the
// inner loop unrolled 4 times (cuBLAS's gemv2T_kernel_val instantiations in public profiles carry
// the template arguments <..., 128, 16, 4, 4, ...>; their meaning is not documented). With 1,
// Llama-3-8B's 48-CTA QKV GEMV at tensor parallelism 8 would take 17 us against the 8 us Vidur
// measured (sim/gpu/README.md, "GEMV kernels").
constexpr double kLoadsInFlight = 4;

// CUDA-core lane instructions per multiply-add of a matrix element with its vector element, in the
// fp32 (integer: s32) accumulator cuBLAS's gemv kernels use: FFMA for fp32/tf32; a conversion to
// fp32 and an FFMA for 16-bit formats; FP8 first converts pairs to f16x2 (cvt.f16x2.e4m3x2, one per
// two elements); 8-bit integers multiply-add four at a time (DP4A). [assumed from the PTX these
// operations need; the SASS of the shipped kernels was not inspected]
double math_ops_per_element(FormatId f) {
  switch (f) {
    case FormatId::fp32:
    case FormatId::tf32: return 1;
    case FormatId::fp16:
    case FormatId::bf16: return 2;
    case FormatId::e4m3:
    case FormatId::e5m2: return 2.5;
    case FormatId::int8:
    case FormatId::uint8: return 0.25;
    default: return 1;
  }
}

}  // namespace

int nvjet_gemv_split_k(const GpuConfig& g, std::int64_t rows, std::int64_t k) {
  // cuBLASLt's sm_90 GEMV (nvjet_sm90_hsh_<R>x8_*): one CTA per R rows of the matrix, R = 64-256;
  // `_splitK_` kernels cut K into 2-5 chunks and a second kernel, cublasLt::splitKreduce_kernel
  // (grid rows / 32), sums their fp32 partials (1.5-1.9 us on the H200, 1.8-2.6 on the H100, the
  // traces). Which calls split, learnt from the kernel names of every 16-bit GEMV traced on the lent
  // Hopper GPUs (H200 Vidur layer: Llama-2-7B / Llama-3-8B at TP 1-8, phi-2, 48 shapes; H100
  // op_profile and the H200 decode step: 17 more): K longer than 2560 and at most one 64-row tile
  // per two SMs. (4096 x 4096 split, 2560 x 2560 and 4096 x 2048 not; 6144 x 4096 not, 3072 x 4096
  // split). Every traced call follows the rule but the H100's 4096^2 x @ W (N-major weight; its
  // K-major twin splits). The split count only sizes the partials (rows x splits x 4 bytes, a few
  // hundred KB at most): ceil(SMs / (2 x tiles)), at least 2, as the traces' 2-5.
  constexpr std::int64_t kLongK = 2560, kTileRows = 64;
  const std::int64_t tiles = ceil_div(rows, kTileRows);
  if (k <= kLongK || 2 * tiles > g.sm_count) return 1;
  return int(std::clamp<std::int64_t>(ceil_div(std::int64_t(g.sm_count), 2 * tiles), 2, 8));
}

GemvLaunch gemv_launch(const GpuConfig& g, const Kernel& kernel) {
  GemvLaunch l;
  // D = A.B with N = 1: the matrix is A (M x K), the vector B; with M = 1 the matrix is B (N x K).
  const bool matrix_is_a = kernel.n == 1;
  l.rows = matrix_is_a ? kernel.m : kernel.n;
  l.k = kernel.k;
  l.batch = kernel.batch;
  // Row-major layout letters (workload/kernel.h): A as M x K (N) has K contiguous, B as N x K (T).
  const FormatId mf = matrix_is_a ? kernel.a_format : kernel.b_format;
  const bool k_contiguous = matrix_is_a ? (kernel.layout == Layout::NN || kernel.layout == Layout::NT)
                                        : (kernel.layout == Layout::NT || kernel.layout == Layout::TT);
  // cuBLAS 12+ on sm_90 runs 16-bit matrix-vector products as nvjet tensor-core GEMMs with an
  // 8-wide tile on the vector side (nvjet_sm90_hsh_64x8_*, 128x8, 192x8, 256x8) in every layout
  // (validation/measured/H100/op_profile, gemm_fp16/bf16: the N-major and K-major calls of each
  // shape take the same time); wgmma reads 16-bit operands in either major order, so no gemv2N:
  // costed as the streaming row kernel, plus cuBLASLt's split-K reduce where it splits K (below).
  l.nvjet = g.arch == "sm_90" && format_bits(mf) == 16;
  l.matrix_k_contiguous = k_contiguous || l.nvjet;
  const FormatId vf = matrix_is_a ? kernel.b_format : kernel.a_format;
  l.matrix_bytes = format_bits(mf) / 8.0;
  l.vector_bytes = format_bits(vf) / 8.0;
  l.out_bytes = format_bits(kernel.d_format) / 8.0;
  l.loads_in_flight = kLoadsInFlight;
  const double per_access = kAccessBytes / l.matrix_bytes;  // matrix elements per 16-byte load
  // Per 16-byte matrix load also one load of the vector's matching elements (gemv2T: the same
  // 16 bytes of x; gemv2N: x[k], one per k, broadcast).
  l.math_ops_per_element = math_ops_per_element(mf);
  l.lane_ops_per_element = l.math_ops_per_element + 2.0 / per_access;
  l.threads_per_cta = 128;
  if (l.matrix_k_contiguous) {
    // gemv2T: the threads of a row read consecutive 16-byte pieces of it, 8 threads = one 128-byte
    // line per step (CUTLASS's row-major Gemv derives the same: kThreadsPerRow = min(128 threads /
    // 16 bytes, 16) = 8), 16 rows per 128-thread CTA; a 3-step shuffle sums a row's 8 partials.
    l.threads_per_row = 8;
    l.rows_per_cta = l.threads_per_cta / l.threads_per_row;
    // sm_90's split-K GEMV gives each CTA a K chunk: more CTAs, each with a shorter chain of loads.
    if (l.nvjet) l.split_k = nvjet_gemv_split_k(g, l.rows, l.k);
    l.ctas = ceil_div(l.rows, l.rows_per_cta) * l.batch * l.split_k;
    l.k_per_cta = ceil_div(l.k, std::int64_t(l.split_k));
    l.loads_per_thread = double(ceil_div(l.k_per_cta, std::int64_t(per_access) * l.threads_per_row));
    // A row's 8 threads each issue their loads back to back: one contiguous run of the row.
    l.run_bytes = kAccessBytes * l.threads_per_row * kLoadsInFlight;
    l.kernel = "gemv2T_kernel_val: 128 threads, 16 rows per CTA, 8 threads x 16 B per row";
    if (l.nvjet)
      l.kernel = "nvjet GEMV (8-wide tensor-core tile), streamed as " + l.kernel +
                 (l.split_k > 1 ? "; K split " + std::to_string(l.split_k) + " ways + splitKreduce_kernel" : "");
  } else {
    // gemv2N: each thread owns 16 bytes of consecutive outputs and walks down K (a warp reads 512
    // contiguous bytes per k). So few CTAs cover the rows that K is split over the grid's y axis until
    // every SM has a CTA, and splitKreduce sums the fp32 partials.
    l.threads_per_row = 1;
    l.rows_per_cta = l.threads_per_cta * std::int64_t(per_access);
    const std::int64_t row_ctas = ceil_div(l.rows, l.rows_per_cta) * l.batch;
    const std::int64_t max_split = std::max<std::int64_t>(1, l.k / 64);
    l.split_k = int(std::clamp<std::int64_t>(ceil_div(g.sm_count, row_ctas), 1, std::min<std::int64_t>(max_split, 128)));
    l.ctas = row_ctas * l.split_k;
    l.k_per_cta = ceil_div(l.k, l.split_k);
    l.loads_per_thread = double(l.k_per_cta);
    l.run_bytes = kAccessBytes * 32;
    l.kernel = "gemv2N_kernel: 128 threads x 16 B of outputs each, " +
               (l.split_k > 1 ? "K split " + std::to_string(l.split_k) + " ways + splitKreduce_kernel"
                              : std::string("no K split"));
  }
  return l;
}

}  // namespace tcsim::gpu
