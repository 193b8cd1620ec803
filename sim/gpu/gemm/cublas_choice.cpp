#include "gpu/gemm/cublas_choice.h"

namespace tcsim::gpu {

namespace {

std::int64_t padded(std::int64_t x, std::int64_t tile) { return (x + tile - 1) / tile * tile; }

}  // namespace

std::pair<int, int> volta_batched_sgemm_tile(const GpuConfig& g, const GemmProblem& p, bool row_major_caller) {
  // PyTorch passes a row-major C = A B to cuBLAS as C^T = B^T A^T: cuBLAS's M is our N, its N our M
  // (cuDNN's nonfused Winograd calls it column-major: M is our M); its kernels are named M tile x N
  // tile. Learnt from NeuSight's V100 bmm listings (the Kernels column, 17,621
  // rows; a two-level tree on the grid of 64x64 tiles and the padding, then rounded to this rule):
  // a grid under 0.6 waves of 64x64 CTAs takes 128x32 (more CTAs), a grid of 3 waves or more takes
  // 32x128 where it pads less than 64x64, and 64x64 otherwise. It names cuBLAS's kernel in 82% of the
  // rows (81.9% on the half it was not fitted on); the waves are counted in SMs of this GPU.
  const std::int64_t cm = row_major_caller ? p.n : p.m, cn = row_major_caller ? p.m : p.n;
  const double ctas64 = double(padded(cm, 64) / 64) * double(padded(cn, 64) / 64) * double(p.batch);
  const double sms = g.sm_count;
  auto ours = [&](int tile_cm, int tile_cn) {
    return row_major_caller ? std::pair<int, int>{tile_cn, tile_cm} : std::pair<int, int>{tile_cm, tile_cn};
  };
  if (ctas64 < 0.6 * sms) return ours(128, 32);
  if (ctas64 >= 3 * sms && padded(cm, 32) * padded(cn, 128) < padded(cm, 64) * padded(cn, 64)) return ours(32, 128);
  return ours(64, 64);
}

void apply_cublas_choice(const GpuConfig& g, GemmPlan& plan, bool row_major_caller) {
  const GemmProblem& p = plan.problem;
  if (plan.path == MathPath::tensor && plan.mma_row >= 0 && g.mma[plan.mma_row].kind == MmaKind::wgmma &&
      cublas_sm90_tf32_runs_sm80_kernel(p)) {
    if (const MmaInstr* sync = g.find_sync_mma(p.ab, p.acc)) {
      plan.mma_row = int(sync - g.mma.data());
      plan.notes.push_back("a small TF32 GEMM: cuBLAS runs its sm_80 kernel (cutlass_80_tensorop_s1688gemm_*, " +
                           sync->name + "), not a wgmma one");
    }
    return;
  }
  // cuBLAS 13 on sm_90 has no sliced-K SGEMM: none of the 2592 FP32 GEMM launches of the H100 and
  // H200 single-op profiles (validation/measured/H*/op_profile, gemm_fp32) is one; they run
  // sm80_xmma_gemm_f32f32_f32f32_f32_*_tilesize<M>x<N>x8_*, cutlass_80_simt_sgemm_* and gemv kernels
  // (NeuSight's A100 listings, cuBLAS 12.1 on sm_80, do have ampere_sgemm_*_sliced1x4).
  if (plan.path == MathPath::cuda_core && p.ab == FormatId::fp32 && g.arch == "sm_90") plan.sliced_k = false;
  // Strided-batched SGEMM (torch.bmm in FP32): cuBLAS 12 launches one kernel with the batch on the
  // grid's z axis and no split-K. On sm_80 it runs ampere_sgemm_128x128_nn for every batched shape
  // (NeuSight's A100-PCIE-40GB bmm kernels, cuBLAS 12.1: 16,588 of 16,661 rows), even where one
  // dimension is a few elements and most of the tile is padding; on sm_70 it picks among
  // volta_sgemm_64x64 / 32x128 / 128x32 (NeuSight V100: 17,621 of 17,694 rows). The other chips that
  // run sm_80's kernels (runs_sm80_kernels: no trace of their own) are taken as sm_80.
  if (plan.path != MathPath::cuda_core || p.batch <= 1 || p.ab != FormatId::fp32) return;
  if (runs_sm80_kernels(g)) {
    plan.cta_tiles = {{128, 128}};
    plan.notes.push_back("batched SGEMM: cuBLAS runs its 128x128 kernel for every batched shape on " + g.arch);
  } else if (g.arch == "sm_70" || g.arch == "sm_75") {
    const auto tile = volta_batched_sgemm_tile(g, p, row_major_caller);
    plan.cta_tiles = {tile};
    const auto named = row_major_caller ? std::pair<int, int>{tile.second, tile.first} : tile;
    plan.notes.push_back("batched SGEMM: cuBLAS's volta_sgemm_" + std::to_string(named.first) + "x" +
                         std::to_string(named.second) + "_nn (its choice among 64x64, 32x128, 128x32)");
  } else {
    return;
  }
  plan.max_split_k = 1;
  plan.sliced_k = false;
}

bool cublas_sm90_tf32_runs_sm80_kernel(const GemmProblem& p) {
  // validation/measured/H100/op_profile (cuBLAS 13.1 through PyTorch 2.11; 2232 torch.mm calls in TF32
  // over the linear layers of BERT, GPT-2, phi-2 and Llama-2 at 16-4096 tokens, every layout): 546 of
  // the tiled ones run cutlass_80_tensorop_s1688gemm_{64x64_16x6,64x64_32x6,128x64_32x6,128x128_*,
  // 256x64_32x3,128x256_16x3}_*_align4, the rest sm90_xmma_gemm_f32f32_tf32f32_*. The output's size
  // separates them at a threshold that depends on the operands' layout: in 128 x 128 tiles of M x N,
  // the sm_80 kernel below 7 with A and B K-major (x @ W^T), 14 with A M-major and B K-major, 32 with
  // A K-major and B N-major (x @ W) and 112 with both M/N-major (X^T @ dY); that names the kernel
  // family of 95-97% of each layout's calls (the others sit near the thresholds). cuBLASLt's own
  // heuristic agrees on the measured squares (gemm_h100_timing: 256^3, both K-major, runs algo 21,
  // tile 64x64, stages 32x6; 512^3 an sm_90 one). Strided-batched calls keep the wgmma kernels (24 of
  // 30 bmm calls). Learnt from the kernel names, a discrete choice like volta_batched_sgemm_tile;
  // no time was fitted.
  if (p.batch != 1 || p.ab != FormatId::tf32 || p.sparse_a) return false;
  const double tiles = double(p.m) * double(p.n) / (128.0 * 128.0);
  if (p.a_k_contiguous && p.b_k_contiguous) return tiles < 7;
  if (!p.a_k_contiguous && p.b_k_contiguous) return tiles < 14;
  if (p.a_k_contiguous) return tiles < 32;
  return tiles < 112;
}

std::optional<GemvLaunch> cublas_gemv(const GpuConfig& g, const Kernel& kernel) {
  // cuBLAS dispatches a GEMM with one side of 1 to its gemv kernels (gemv2T_kernel_val,
  // gemv2N_kernel, gemvx in the profiles of PyTorch decode steps, fp32 and fp16 alike), while
  // batch 2-16 runs tiled kernels (sgemm 32x32 / 64x32 sliced, cutlass 16x16 / 64x64 tensor-op
  // tiles with splitKreduce): the tile machinery with its split-K. For 8-bit operands cuBLASLt has
  // tensor-core kernels only; inference engines run CUDA-core GEMVs there (TensorRT-LLM's
  // cudaCoreGemm, 16-byte loads, for M <= 4 in FP8), the same structure as cuBLAS's gemv2T.
  // Not here: 2:4-sparse A (cuSPARSELt's tensor-core kernels) and sub-byte operands (their MMAs).
  if (kernel.kind != Kernel::Kind::gemm || (kernel.m != 1 && kernel.n != 1) || kernel.sparse_a) return std::nullopt;
  if (format_bits(kernel.a_format) < 8 || format_bits(kernel.b_format) < 8) return std::nullopt;
  return gemv_launch(g, kernel);
}

}  // namespace tcsim::gpu
