#pragma once
// Kernel mappings: the CTA/warp tiles, pipeline stages and split-K a CUTLASS/cuBLAS kernel for
// the architecture would use, and the per-warp program (program.h) each one runs.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_config.h"
#include "gpu/sm/program.h"

namespace tcsim::gpu {

enum class MathPath { tensor, cuda_core };
// Whose CUDA-core (SIMT) GEMM kernels run the problem: their CTA tiles come with the library's own
// thread counts, so the same CTA tile can have a different warp tile (mapping.cpp).
// Whose CUDA-core GEMM kernels (and so CTA tiles and thread counts) run the problem: cuBLAS's sgemm,
// cuDNN's scudnn family (cuDNN <= 8), or cuDNN 9's sm80_xmma_*_ffma convolution kernels (mapping.cpp).
enum class SimtKernels { cublas, cudnn, cudnn_xmma };

// The GEMM as the GPU runs it (after padding), with element sizes in bytes.
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  FormatId ab = FormatId::fp16, acc = FormatId::fp32, out = FormatId::fp32;
  double a_bytes = 2, b_bytes = 2, c_bytes = 4;
  bool a_k_contiguous = false, b_k_contiguous = false;  // K is the operand's contiguous dimension
  // Bytes of an operand in memory per batch instance when it is smaller than its M*K (K*N)
  // elements: an implicit GEMM reads the activation tensor, not its im2col matrix, whose R*S-fold
  // overlap the caches serve. 0: the operand is stored as its GEMM matrix.
  double a_footprint_bytes = 0, b_footprint_bytes = 0;
  // The operands' bytes in memory per batch instance: the footprint, else the GEMM matrix.
  double a_stored_bytes() const { return a_footprint_bytes > 0 ? a_footprint_bytes : double(m) * double(k) * a_bytes; }
  double b_stored_bytes() const { return b_footprint_bytes > 0 ? b_footprint_bytes : double(k) * double(n) * b_bytes; }
  bool sparse_a = false;  // A is 2:4 sparse: a_bytes counts its kept half plus the metadata
  bool l2_warm = false;   // back-to-back calls: operands that fit in L2 are read from L2 (Kernel::l2_warm)
  // An epilogue that transforms the accumulators before the store (fused Winograd's inverse
  // transform): per GEMM output element, the bytes each thread writes to shared memory and reads
  // back (the exchange that gathers the values one output needs) and the FP32 operations. 0: none.
  double epilogue_smem_bytes = 0, epilogue_ops = 0;
  // Bytes per output element the epilogue reads from global memory and adds before the store
  // (Kernel::epilogue_inputs: a residual, beta·C). 0: none.
  double epilogue_read_bytes = 0;
  // Bytes per lane access of the operand copies: the largest vector the leading dimensions allow
  // (CUTLASS's kernel alignment: 16 B, or _align<N> kernels with 8, 4 or 2 B).
  int copy_width = 16;
  SimtKernels simt = SimtKernels::cublas;  // CUDA-core path: cuBLAS's sgemm or cuDNN's scudnn kernels
  // CUDA-core path with 16-bit operands: converted and multiplied in fp32 (FFMA), not HFMA2 pairs.
  bool fp32_math = false;
  // The kernel moves its operands global -> registers -> shared memory (LDG, then STS), two
  // stages, even where cp.async exists: it works on the values in between (fused Winograd's input
  // transform) or predates cp.async (cuDNN's scudnn kernels). false: the architecture's copy engine.
  bool register_staged = false;
  // Register-staged with one shared-memory stage and no prefetch. Each k-tile is loaded, stored,
  // synced and only then multiplied, so the load's latency is not hidden behind the math (cuDNN's
  // legacy dgrad_engine: 3328 B of shared memory, one 64x8 + 32x8 fp32 tile; conv_lowering.cpp).
  bool single_stage = false;
  // A split-K run first launches a one-thread kernel that sets up its workspace (cuDNN 9's sm_90
  // convolutions, init_device_workspace_kernel: conv_lowering.cpp, lower_conv): one more launch.
  bool split_k_init_kernel = false;
};

struct Mapping {
  MathPath path = MathPath::tensor;
  int mma_row = -1;        // tensor path: row of GpuConfig::mma
  int bm = 128, bn = 128, bk = 32;
  int wm = 64, wn = 64;    // warp tile (tensor wgmma: warpgroup tile is 4 warps' share)
  int warps = 4;
  int stages = 2;
  int split_k = 1;
  int cluster = 1;         // sm_90: CTAs of a cluster along M share (multicast) their B tile
  CopyEngine copy = CopyEngine::ldg_sts;
  int pack = 1;            // CUDA-core path: elements per FMA lane (2 for half2)
  // Sliced-K (cuBLAS *_sgemm_*_sliced1x4): `slices` groups of warps each take bk / slices of the
  // CTA's k-tile for the whole warp tile grid; the partial tiles are summed through shared memory
  // before the store. 1: every warp runs the whole k-tile.
  int slices = 1;
  int regs_per_thread = 128;
  std::uint64_t smem_bytes = 0;

  std::string describe(const GpuConfig& g) const;  // "tensor HMMA.884 128x128x32 warp 64x64 2-stage splitK 1"
};

// sm_90 wgmma reads tf32 operands from shared memory K-major only: its transpose qualifiers are for
// .f16/.bf16 (PTX ISA, wgmma.mma_async; CUTLASS cute's TF32 GMMA atoms are all *_TN, K-major
// descriptors for A and B). A kernel given an M- or N-major tf32 operand transposes it itself: the
// first one through registers (wgmma with A from registers, its fragments read from the stage with
// scalar LDS.32; the library orients the kernel so that operand is the register one), a second one
// through shared memory (each k-tile read and written back K-major into one copy, then a barrier
// before the wgmmas read it; the next k-tile's copy waits until they have). With both, the register
// operand's fragments of the whole k-tile are read in that phase too (build_program).
struct WgmmaTranspose {
  bool registers = false;  // one MN-major operand: register-sourced wgmma
  bool shared = false;     // both MN-major: the other one also through shared memory
};
WgmmaTranspose wgmma_transpose(const GpuConfig& g, const GemmProblem& p, int mma_row);
// Shared memory of the K-major copies (shared): two k-tiles of the N operand.
std::uint64_t wgmma_transpose_smem(const GemmProblem& p, const Mapping& m, const WgmmaTranspose& t);

// Every mapping the architecture's libraries would consider for this problem (split-K unset).
std::vector<Mapping> candidate_mappings(const GpuConfig& g, const GemmProblem& p, MathPath path, int mma_row);

// Resident CTAs per SM for the mapping (0: it does not fit).
int ctas_per_sm(const GpuConfig& g, const Mapping& m);

// The per-warp program of one CTA running `iterations` k-tiles.
// The share of the padded tile grid that is the GEMM's output, in 1/64 steps: edge tiles store only
// their valid rows and columns (the epilogue predicates the rest), so the program's stores carry
// the average tile's bytes.
double store_fill(const GemmProblem& p, const Mapping& m);

WarpProgram build_program(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations);

}  // namespace tcsim::gpu
