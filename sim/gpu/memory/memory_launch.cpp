#include "gpu/memory/memory_launch.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/text/strings.h"
#include "gpu/int_math.h"
#include "gpu/memory/max_pool_launch.h"
#include "gpu/sm/cta_rounds.h"
#include "workload/kernel.h"

namespace tcsim::gpu {
namespace {

// The inputs a reduction may read: the size bound of one kernel operand (workload/kernel.h).
constexpr auto kMaxReductionInputs = static_cast<std::int64_t>(kMaxKernelElements);

bool is_one_of(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (op == n) return true;
  return false;
}

bool is_reduction(const std::string& op) {
  return is_one_of(op, {"reduce", "sum", "mean", "reduce_columns", "layer_norm_gamma_beta"});
}

// Thread instructions per element of kernels bound by instruction issue. The Sarathi loop kernels
// and index_select are counted in the SASS that nvcc 13.0 emits for sm_80 (-O3 device code; their
// public sources, the Sarathi ones with a replica of c10::Half, the type their dispatch macro gives:
// every operation converts to float and back): the instructions of the loop body per iteration,
// read from the cubin by scripts/sass_loops.py (this toolkit has no disassembler: a backward BRA
// closes the loop; a forward BRA over a slow path, IEEE division's subroutine call or a device
// assert, leaves that block out). The compiler keeps loop-invariant work, such as the reciprocal of
// a runtime divisor, out of the loop: the PTX counts these replaced (a division's whole expansion
// per iteration) were 84 per rope pair, 82 per gathered element, 49 and 30.
//  - silu_and_mul_kernel (Sarathi/vLLM csrc/activation_kernels.cu): one element per thread per loop
//    iteration (64-bit index arithmetic, two 2-byte loads, accurate expf, IEEE division, a store): 47.
//  - rotary_embedding_kernel (csrc/pos_encoding_kernels.cu), per rotated (x, y) pair (a division
//    and remainder of the pair index by rot_dim / 2, four 2-byte loads, two stores, six half
//    operations through float): 64.
//  - rms_norm_kernel (csrc/layernorm_kernels.cu): 9 per element in the sum-of-squares loop, 18 in
//    the normalising loop (re-load, scale, weight, store).
//  - indexSelectLargeIndex (ATen native/cuda/Indexing.cu, 32-bit indexing, 2-D tensors: <2, 2, -2,
//    true>), per element: 100 on the hot path (119 in the loop, 19 of them the index assert's call):
//    the index load, the output's and the table's IndexToOffset, divisions by runtime sizes.
// The others in the PTX of the same compiler, without register moves, negations (operand
// modifiers in SASS) and parameter loads, a 64-bit integer add or shift counted twice (IADD3 +
// IADD3.X), plus the SASS expansion of subroutine PTX instructions (div.rn.f32 +8; div.s32 about
// +20; div.u32 and rem.u32 about +13 each):
//  - PyTorch's GELU (erf form, native/cuda/ActivationGeluKernel.cu) in vectorized_elementwise_kernel<4>:
//    erff is a branch-free polynomial with selects (CUDA math library): 125 + 3 per 4-element vector
//    (a replica's SASS, 4 GELUs between a vector load and store: 130 for the thread, the same).
//  - cunn_SoftMaxForward<4, float> (ATen native/cuda/SoftMax.cu, v2.1), per 4-element vector: the max
//    pass 11 + 2 (64-bit), the sum-of-exp pass 47 + 2 (expf: range reduction, ex2, scale), the write
//    pass 53 + 3 + 4 x 8 (expf again, an IEEE division by the sum per element): 150 per 4 elements.
//  - vectorized_layer_norm_kernel<float> (native/cuda/layer_norm_kernel.cu, v2.1): the Welford pass
//    32 + 1 (64-bit) per 4-element vector plus 4 x 4 for the rcp.rn.f32 of each update (MUFU.RCP and
//    its Newton step and range check [assumed +4, the SASS is not available here]); the normalising
//    pass (x, gamma, beta loads, 4 x (sub, mul, fma), the store) 87 + 17 (64-bit) per 16 elements
//    (unrolled 4x): 12.25 + 6.5 per element.
constexpr double kSoftmaxBlockInstructions = (11 + 2 + 47 + 2 + 53 + 3 + 4 * 8) / 4.0;
//  - the same kernel with LogSoftMaxForwardEpilogue (log_softmax): the max and sum-of-exp passes are
//    the same; the write pass is x - max - log(sum), 17 + 3 (64-bit) per 4-element vector (no expf,
//    no division; counted the same way, nvcc 13.0 -O2 -arch=sm_80 on a replica of the write loop).
constexpr double kLogSoftmaxBlockInstructions = (11 + 2 + 47 + 2 + 17 + 3) / 4.0;
constexpr double kLayerNormInstructions = (32 + 1 + 4 * 4) / 4.0 + (87 + 17) / 16.0;
// Counted by Nsight Compute on the lent H200 (validation/measured/H200/ncu, BERT-base's 4096 rows
// of 768 fp32, PyTorch 2.11; issued warp instructions = issue rate x active cycles x schedulers):
//  - vectorized_layer_norm_kernel: 519 per warp for the 6 elements each thread owns, 4.6 x the
//    per-element count above. The rest is per row: the Welford combines of the warp-shuffle and
//    CTA-wide reductions (five shuffle steps each, an IEEE division per combine) and the mean and
//    rstd broadcast: 519 - 6 x 18.75 = 406 per thread per row (how much of the measured total is
//    per row and how much per element is the PTX count's split, one row length measured).
//  - layer_norm_grad_input_kernel_vectorized (the input gradient): 261 per warp, 43.4 per element;
//    its two sums' reductions are plain adds, the split is not measured: all counted per element.
//  - GammaBetaBackwardCUDAKernelTemplate<float, float, 32, 32, 256>: 17.3 per (row, feature).
//  - vectorized_elementwise_kernel<8, GeluBackwardCUDAKernelImpl> (erf form, fp16 under AMP):
//    43.9 per element, issue-bound at 0.78 warp instructions per scheduler per cycle (90 us for
//    50M elements on the H200, where its 302 MB take 68 us at the DRAM rate).
//  - unrolled_elementwise_kernel's casting copy: 52 per element for its two operands, 26 each
//    (the dynamic casts of the strided path, launch_for).
// Issued instructions of every kind: they are charged at the issue rate (MemoryLaunch::
// issue_instructions_per_element); only the PTX counts say which are FP32 lane work.
constexpr double kLayerNormRowInstructionsPerThread = 519 - 6 * kLayerNormInstructions;
// Counted by Nsight Compute on the lent H200 (validation/measured/H200/ncu/ncu_llm_ops*.csv.xz:
// validation/gpu/op_profile.py's llm_ops, rows of 2560, 4096 and 8192 fp16, PyTorch 2.11; each
// row length at 1 and 4096 rows, the same per row). Per thread per row, against the elements a
// thread owns, each a straight line through the three row lengths:
//  - vectorized_layer_norm_kernel<c10::Half, float, false> (128 threads): 862.75, 1207.75, 2127.75
//    for 20, 32, 64 elements = 287.75 + 28.75 per element (2-byte inputs; the fp32 count above,
//    one row length measured, stays for 4-byte ones);
//  - the same kernel with its RMS flag (F.rms_norm, aten::_fused_rms_norm): 339.5, 468.5, 812.5
//    = 124.5 + 10.75 per element;
//  - cunn_SoftMaxForwardReg (1024 threads, rows of fewer than 10 elements per thread, PyTorch
//    2.7+): 234.4, 317.9, 618.9 for 2.5, 4, 8 elements = 47 + 71 per element (least squares,
//    within 4%); of the 71 the PTX count above is the FP32 lane work. Its registers: 28, 30, 37
//    per thread: from 8 elements a thread on (37 > 32) one 1024-thread CTA fits an SM, not two.
constexpr double kLayerNormHalfRowInstructionsPerThread = 287.75, kLayerNormHalfInstructions = 28.75;
constexpr double kRmsNormRowInstructionsPerThread = 124.5, kRmsNormLayerKernelInstructions = 10.75;
constexpr double kSoftmaxRegRowInstructionsPerThread = 47, kSoftmaxRegInstructions = 71;
constexpr int kSoftmaxRegOneCtaElements = 8;  // measured at 8 (37 registers) and 4 (30): [assumed] from 5 to 7 as at 4
constexpr double kLayerNormGradInputInstructions = 43.4;
constexpr double kGammaBetaInstructionsPerInput = 17.3;
constexpr double kGeluBackwardInstructions = 43.9;
constexpr double kDynamicCastInstructionsPerOperand = 52 / 2.0;
// fused_dropout_kernel_vec: PTX of a replica (launch_for), 160 per 4-element vector.
constexpr double kDropoutInstructions = 160 / 4.0;
// Its registers per thread as allocated (the H200 traces' 51 for fp32 data and 56 for fp16 round to 56).
constexpr int kDropoutRegistersPerThread = 56;
// vectorized_layer_norm_kernel<float, float> of PyTorch 2.11: 39 registers per thread (the H100/H200
// traces' profiler and Nsight Compute on the H200), 1280 per warp as allocated: 12 of its 128-thread
// CTAs fit an SM's registers, not 16. Its fp16/bf16 form takes 32 (no limit); 2.1's count is not known.
constexpr int kLayerNormFloatRegistersPerThread = 39;
constexpr int kLayerNormRegistersKnownFrom = 211;  // library.pytorch_version
constexpr double kSiluAndMulInstructions = 47;
// PyTorch's silu_kernel in vectorized_elementwise_kernel<8> (fp16): 23.75 issued instructions per
// element, Nsight Compute on the H200 (validation/measured/H200/ncu/ncu_llm_ops.csv.xz, 16M elements).
constexpr double kSiluInstructions = 23.75;
constexpr double kIndexSelectLargeInstructions = 100;
constexpr double kRopeInstructionsPerPair = 64;
constexpr double kRmsNormInstructions = 9 + 18;
// Sarathi's rms_norm_kernel beyond its two loops, per thread per row: its blockReduceSum (two warp
// reductions of five SHFL.BFLY + FADD, the shared-memory exchange, two barriers), the rsqrt, the
// index set-up and parameter loads. Nsight Compute on the H200 counts 169.7 warp instructions per
// warp for rows of 4096 with 1024 threads (every one of its 36 calls at 1-4096 tokens,
// validation/measured/H200/vidur_layer/ncu_llm_layer.csv.xz), 4 x 27 of them the loops' own.
constexpr double kRmsNormRowInstructionsPerThreadSarathi = 169.7 - 4 * kRmsNormInstructions;
// PyTorch's erf GELU (GeluCUDAKernelImpl, GeluType::None), per element: Nsight Compute on the lent
// H200 counts 29.6 thread instructions of vectorized_elementwise_kernel<8> in fp16 (phi-2's 1024 x
// 10240; sass__inst_executed_per_opcode, validation/measured/H200/vidur_layer/
// ncu_llm_layer_opcodes.csv.xz): 14 on the FMA pipe (FFMA 7, FMUL 4, FADD 2, IMAD 1), 11.5 on the
// integer/logic pipe (FSEL 9, FSETP 1, LOP3 1, shifts, compares, adds and moves 0.5), and 4.1 that
// take issue slots only (MUFU 1, HADD2/HFMA2 1.25, F2FP 0.5, loads, stores, constants, branches).
// The logic pipe's 16 lanes after the FP32 pipe's 32 give sm_90 (14/32 + 11.5/16) / (29.6/32) =
// 1.25 cycles per instruction, 80% of the issue rate; Nsight Compute measured 72% (2.87 warp
// instructions per SM-cycle, 54.8 us at 4096 tokens: the issue-only instructions' own pipes are
// the rest). The PTX count it replaces, 128 per 4-element vector all as FP32 lane work, made
// phi-2's GELU 22-29% slow on Vidur's A100 from 512 tokens on.
constexpr double kGeluErfFmaInstructions = 14, kGeluErfLogicInstructions = 11.5, kGeluErfIssueInstructions = 4.125;
// Sarathi's rotary_embedding_kernel beyond its two loops, per thread per row: the position load,
// the cos/sin row's pointer, the loops' bounds and preambles (a reciprocal of rot_dim / 2 each).
// Nsight Compute on the H200 counts 591 warp instructions per warp for Llama-2 at TP 1 (8 pairs per
// thread) and 195 for phi-2 (2 pairs), both 63 beyond the restated kernel's 66-instruction loop
// body (validation/measured/H200/vidur_layer: ncu_llm_layer.csv.xz, sass.txt.xz); Llama-3 at TP 8,
// where 6 of 8 warps skip the key loop and its preamble: 132, 50 beyond the loops.
constexpr double kRopeRowInstructionsPerThread = 63;

// The CTAs of `threads` threads an SM holds when each thread takes `registers` (as allocated per
// warp); a kernel whose register count sets its occupancy caps MemoryLaunch::max_resident with it.
int register_limited_ctas(const GpuConfig& g, int threads, int registers) {
  return std::max(1, resident_ctas(g, threads / 32, registers, 0));
}

// MUFU results per element of the elementwise ops whose CUDA math routine uses the special-function
// unit (PTX ISA ex2/lg2/rcp/rsqrt .approx; libdevice builds expf on ex2): exp one ex2; tanh an ex2
// and a reciprocal; division a reciprocal and its FCHK range check (2); sigmoid and silu, x / (1 +
// expf(-x)), 3: Nsight Compute on the H200 has SiLU's XU pipe as busy as its issue slots at 23.75
// instructions per element (3 per element at 16 lanes; sim/gpu/README.md, "SiLU's special-function
// pipe"); powf an lg2 and an ex2. erf-based gelu is a polynomial (FP32 lanes only) [assumed from the
// libdevice sources' structure, not timed].
double sfu_per_element(const std::string& op) {
  if (is_one_of(op, {"sigmoid", "silu", "swiglu", "silu_and_mul"})) return 3;
  if (is_one_of(op, {"exp", "gelu_tanh", "softplus", "elu"})) return 1;
  if (is_one_of(op, {"tanh", "pow", "div", "reciprocal", "log_sigmoid"})) return 2;
  if (is_one_of(op, {"log", "sqrt", "rsqrt"})) return 1;
  return 0;
}

// PyTorch's vectorized_elementwise_kernel<4> (ATen native/cuda/CUDALoops.cuh, v2.1): 128 threads
// (num_threads()), each loads one 4-element vector of every input (thread_work_size 4), so one CTA
// covers block_work_size = 512 elements and the grid is ceil(N / 512), no grid-stride loop.
MemoryLaunch elementwise(const Kernel& k, std::int64_t elements, int threads, int per_thread, const char* name) {
  MemoryLaunch l;
  l.independent_chains = per_thread;
  l.threads_per_cta = threads;
  l.ctas = std::max<std::int64_t>(1, ceil_div(elements, std::int64_t(threads) * per_thread));
  l.kernel = std::string(name) + " (" + std::to_string(threads) + " threads x " + std::to_string(per_thread) +
             " elements, " + std::to_string(l.ctas) + " CTAs)";
  const std::string op = to_lower(k.memory.op);
  l.sfu_per_element = sfu_per_element(op);
  if (op == "gelu") {
    l.instructions_per_element = kGeluErfFmaInstructions;
    l.logic_instructions_per_element = kGeluErfLogicInstructions;
    l.issue_instructions_per_element = kGeluErfIssueInstructions;
  }
  if (op == "gelu_backward") l.issue_instructions_per_element = kGeluBackwardInstructions;
  if (op == "silu") l.issue_instructions_per_element = kSiluInstructions;
  return l;
}

// Which softmax kernel: the forward pass or the gradient, of softmax or log-softmax.
struct SoftmaxOp {
  bool backward = false, log = false;
};

// Softmax over rows of R elements (ATen native/cuda/SoftMax.cu and PersistentSoftmax.cuh, v2.1), and
// its gradient (host_softmax_backward), which launches the same geometry.
MemoryLaunch softmax(const GpuConfig& g, const Kernel& k, std::int64_t rows, std::int64_t r, SoftmaxOp op) {
  MemoryLaunch l;
  // expf: one MUFU.EX2 per element; softmax's gradient, Y * (dY - sum), has none.
  l.sfu_per_element = op.backward && !op.log ? 0 : 1;
  const std::string direction = op.backward ? "backward" : "forward";
  if (r <= 1024) {
    // softmax_warp_forward/backward: the row padded to a power of two is spread over a warp (rows
    // shorter than 32 over a narrower warp) and held in registers; rows <= 128 pack two rows per
    // warp; 128 threads per block. One load round trip; two warp reductions (max, sum) forward,
    // one (of dY or dY * Y) backward.
    const std::int64_t p2 = next_pow2(r);
    const std::int64_t warp = std::min<std::int64_t>(p2, 32);
    const std::int64_t rows_per_warp = p2 <= 128 ? 2 : 1;
    const std::int64_t rows_per_cta = 128 / warp * rows_per_warp;
    l.threads_per_cta = 128;
    l.ctas = ceil_div(rows, rows_per_cta);
    l.warp_reductions = op.backward ? 1 : 2;
    l.kernel = "softmax_warp_" + direction + " (a warp per row, " + std::to_string(rows_per_cta) +
               " rows per 128-thread CTA, " + std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  // cunn_SoftMaxForward/Backward: a CTA per row; ILP = 16 B / element. PyTorch 2.1: threads = the
  // power of two >= min(R / ILP, 1024) / 2 (at least a warp) (SoftMax_getBlockSize; NeuSight's A100
  // listings: 256/512 threads). Forward: three passes over the row (max, sum of exp, write), the
  // first from memory, the other two re-reading it, with the counted instructions above. Gradient:
  // two passes, the sum of dY over the row, then dX = dY - exp(Y) * sum (log-softmax) or
  // Y * (dY - sum) (softmax) re-reading dY and reading Y; no exponential before the sum and no
  // division, so the forward's count does not apply (not counted).
  // Later releases launch the forward with min(R, 1024) threads rounded up to a warp
  // (SoftMaxForward_getBlockSize; present in pytorch/pytorch#128468, 2.4's tree: the H100 traces'
  // PyTorch 2.11 runs 1024 threads for rows of 50257) and keep a row that fits in the 48 KiB of
  // shared memory a CTA gets without opting in there (cunn_SoftMaxForwardSmem: one read from
  // memory, the passes re-read shared memory); 2.7's tree first tries registers when a thread
  // holds fewer than 10 elements (cunn_SoftMaxForwardReg). The gradient kept the 2.1 rule (the
  // traces: 512 threads).
  const int ilp = std::max(1, int(16 / std::max(1.0, memory_element_bytes(k))));
  const bool later_forward = !op.backward && g.pytorch_version >= 204;
  const std::int64_t threads =
      later_forward ? ceil_div(std::min<std::int64_t>(r, g.max_threads_per_cta), 32) * 32
                    : std::max<std::int64_t>(32, next_pow2(std::min<std::int64_t>(r / ilp, g.max_threads_per_cta) / 2));
  l.threads_per_cta = int(std::min<std::int64_t>(threads, g.max_threads_per_cta));
  l.ctas = rows;
  l.dependent_loads = double(ceil_div(r, std::int64_t(l.threads_per_cta) * ilp));
  const int rereads = op.backward ? 1 : 2;  // passes after the first, each after a CTA-wide reduction
  constexpr double kSharedMemoryPerCta = 48 * 1024;  // cudaDeviceProp::sharedMemPerBlock, without opting in
  const bool in_registers = later_forward && g.pytorch_version >= 207 && ceil_div(r, std::int64_t(l.threads_per_cta)) < 10;
  const bool in_shared = later_forward && !in_registers && r % ilp == 0 &&
                         double(r) * memory_element_bytes(k) < kSharedMemoryPerCta - double(l.threads_per_cta / 32) * 4;
  const char* variant = in_registers ? "Reg" : in_shared ? "Smem" : "";
  if (in_registers || in_shared) {
    // The later passes run on the CTA's own copy of the row: no memory traffic, no round trips.
    l.reread_trips = 0, l.reread_passes = 0;
  } else {
    l.reread_trips = rereads * l.dependent_loads;
    l.reread_passes = rereads;
    if (op.backward) l.reread_share = 0.5;  // dY again, not Y (same size and format)
  }
  l.block_reductions = rereads;
  if (!op.backward) l.instructions_per_element = op.log ? kLogSoftmaxBlockInstructions : kSoftmaxBlockInstructions;
  if (in_registers && !op.log) {
    l.issue_instructions_per_element = kSoftmaxRegInstructions - kSoftmaxBlockInstructions +
                                       kSoftmaxRegRowInstructionsPerThread * double(l.threads_per_cta) / double(r);
    if (ceil_div(r, std::int64_t(l.threads_per_cta)) >= kSoftmaxRegOneCtaElements) l.max_resident = 1;
  }
  l.kernel = std::string(op.backward ? "cunn_SoftMaxBackward" : "cunn_SoftMaxForward") + variant + " (a CTA of " +
             std::to_string(l.threads_per_cta) + " threads per row, " + std::to_string(l.ctas) + " CTAs)";
  return l;
}

// A CTA per row that reads the row, reduces it across the CTA (statistics), then re-reads it to
// write the result: PyTorch's vectorized_layer_norm_kernel (native/cuda/layer_norm_kernel.cu,
// v2.1: 128 threads as 32x4, 4-element vectors, Welford over the row, then a second pass);
// Sarathi/vLLM's rms_norm_kernel (csrc/layernorm_kernels.cu: a CTA of min(R, 1024) threads per
// row, one element per thread per iteration, blockReduceSum, a second pass that re-reads x and
// reads the weight) has the same structure.
// PyTorch's own RMS norm (F.rms_norm, 2.7+) is the layer-norm kernel with its RMS flag
// ("layer_norm_rms": the same geometry, its own instruction count).
MemoryLaunch row_norm(const GpuConfig& g, const Kernel& k, std::int64_t rows, std::int64_t r, bool rms, bool backward,
                      bool rms_flag = false) {
  MemoryLaunch l;
  l.ctas = rows;
  if (rms) {
    l.threads_per_cta = int(std::min<std::int64_t>(r, g.max_threads_per_cta));
    l.dependent_loads = double(ceil_div(r, l.threads_per_cta));
    l.instructions_per_element = kRmsNormInstructions;
    l.issue_instructions_per_element = kRmsNormRowInstructionsPerThreadSarathi * double(l.threads_per_cta) / double(r);
    l.scalar_loop = true;
    l.kernel = "rms_norm_kernel (a CTA of " + std::to_string(l.threads_per_cta) + " threads per row, " +
               std::to_string(l.ctas) + " CTAs)";
  } else {
    const bool vec = r % 4 == 0;
    l.threads_per_cta = 128;
    l.dependent_loads = double(ceil_div(r, vec ? 512 : 128));
    if (backward)
      l.issue_instructions_per_element = kLayerNormGradInputInstructions;
    else if (rms_flag)
      l.issue_instructions_per_element = kRmsNormLayerKernelInstructions + kRmsNormRowInstructionsPerThread * 128.0 / double(r);
    else if (vec) {
      l.instructions_per_element = kLayerNormInstructions;
      l.issue_instructions_per_element =
          memory_element_bytes(k) <= 2
              ? kLayerNormHalfInstructions - kLayerNormInstructions + kLayerNormHalfRowInstructionsPerThread * 128.0 / double(r)
              : kLayerNormRowInstructionsPerThread * 128.0 / double(r);
      if (memory_element_bytes(k) >= 4 && g.pytorch_version >= kLayerNormRegistersKnownFrom)
        l.max_resident = register_limited_ctas(g, 128, kLayerNormFloatRegistersPerThread);
    }
    l.kernel = std::string(backward ? (vec ? "layer_norm_grad_input_kernel_vectorized" : "layer_norm_grad_input_kernel")
                                    : (vec ? "vectorized_layer_norm_kernel" : "layer_norm_kernel")) +
               " (a CTA of 128 threads per row, " + std::to_string(l.ctas) + " CTAs)";
  }
  l.reread_trips = l.dependent_loads;
  l.reread_passes = 1;
  l.reread_loads_parameters = !backward;  // gamma and beta (RMS: the weight) beside each vector of x
  l.block_reductions = 1;
  l.sfu_per_element = 0;  // one rsqrt per row
  return l;
}

// PyTorch's reduce_kernel over a dimension that is not the input's fastest (a bias gradient:
// dY[tokens, features].sum(0)), as setReduceConfig (native/cuda/Reduce.cuh, v2.1-2.5) configures
// it: each thread owns a vector of up to 4 contiguous outputs (output_vec_size), a warp of lanes
// across the outputs (block_width 32), block_height = 4 threads down the rows (512 / vec threads at
// most), and when each thread would still sum >= 256 values the rows are also split across
// ctas_per_output CTAs (grid.y) to fill the GPU (SMs x CTAs per SM), down to 16 values per thread.
// The CTAs' partial sums then meet in global memory: the last CTA of each output column to finish
// (a semaphore) reads all ctas_per_output partials, block_height at a time, after the others: that
// serial tail is what makes BERT's bias gradients take 30-35 us on the H100 (grids [6, 256],
// [18, 118], [24, 88] of 32 x 4 threads in the profiles, exactly this rule's).
MemoryLaunch reduce_columns(const GpuConfig& g, std::int64_t outputs, std::int64_t inputs, double element_bytes) {
  MemoryLaunch l;
  int vec = 4;
  while (vec > 1 && (outputs % vec != 0 || double(vec) * element_bytes > 16)) vec /= 2;
  const std::int64_t max_threads = 512 / vec;
  const std::int64_t dim0 = std::max<std::int64_t>(1, outputs / vec), dim1 = std::max<std::int64_t>(1, inputs);
  const std::int64_t dim0_pow2 = dim0 < max_threads ? last_pow2(dim0) : max_threads;
  const std::int64_t dim1_pow2 = dim1 < max_threads ? last_pow2(dim1) : max_threads;
  std::int64_t width = std::min<std::int64_t>(dim0_pow2, 32);
  const std::int64_t height = std::min<std::int64_t>(dim1_pow2, max_threads / width);
  width = std::min<std::int64_t>(dim0_pow2, max_threads / height);
  l.threads_per_cta = int(width * height);
  std::int64_t values = inputs;  // per thread
  std::int64_t outputs_per_cta = width * vec;
  const bool split_rows = values >= height * 16 || values >= 256;
  if (split_rows) values = ceil_div(values, height);
  else outputs_per_cta *= height;
  const std::int64_t grid_x = ceil_div(outputs, outputs_per_cta);
  const std::int64_t target = std::int64_t(g.sm_count) * (g.max_warps_per_sm * 32 / l.threads_per_cta);
  std::int64_t ctas_per_output = 1;
  if (split_rows && values >= 256 && grid_x <= target) {
    ctas_per_output = std::max(std::min(ceil_div(target, grid_x), ceil_div(values, 16)), ceil_div(values, 256));
    values = ceil_div(values, ctas_per_output);
  }
  l.ctas = grid_x * ctas_per_output;
  l.dependent_loads = double(ceil_div(values, 4));  // vt0 = 4 loads in flight per thread
  if (split_rows) l.block_reductions = 1;
  if (ctas_per_output > 1) l.tail_trips = 1 + double(ceil_div(ctas_per_output, height));  // semaphore, then partials
  l.kernel = "reduce_kernel (columns: " + std::to_string(width) + " x " + std::to_string(height) + " threads, " +
             std::to_string(vec) + " outputs per thread, grid " + std::to_string(grid_x) + " x " +
             std::to_string(ctas_per_output) + ")";
  return l;
}

// PyTorch's layer-norm weight and bias gradients (native/cuda/layer_norm_kernel.cu, v2.1-2.5;
// the H100 profiles' v2.6+ template <32, 32, 256> launches the same grid for fewer than 64K rows):
// a reduction of dY and X over the M rows for each of the N features, a separate launch after the
// input-gradient kernel. With M >= 128 rows the kernel is GammaBetaBackwardCUDAKernel_32x32 (N and
// M multiples of 32: a CTA of 32 x 32 threads per 32 features) or GammaBetaBackwardCUDAKernel (16 x
// 32 threads per 16 features); each thread row takes 8 rows per loop iteration (unrolled loads),
// so the CTA walks the rows in M / 256 serial trips, then one CTA-wide reduction. BERT-base at
// 16384 tokens: 24 CTAs of 1024 threads, 64 trips each, on an H100 of 132 SMs. Below 128 rows,
// GammaBetaBackwardSimpleCUDAKernel: a thread per feature loops over every row (4 rows per trip:
// the loop's unrolling [assumed]).
MemoryLaunch layer_norm_gamma_beta(std::int64_t features, std::int64_t rows) {
  MemoryLaunch l;
  if (rows < 128) {
    l.threads_per_cta = 256;
    l.ctas = ceil_div(features, 256);
    l.dependent_loads = double(ceil_div(rows, 4));
    l.kernel = "GammaBetaBackwardSimpleCUDAKernel (a thread per feature over " + std::to_string(rows) + " rows, " +
               std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  const bool tile32 = features % 32 == 0 && rows % 32 == 0;
  const int per_cta = tile32 ? 32 : 16;
  l.threads_per_cta = per_cta * 32;
  l.ctas = ceil_div(features, per_cta);
  l.dependent_loads = double(ceil_div(rows, 256));
  l.block_reductions = 1;
  l.issue_instructions_per_element = kGammaBetaInstructionsPerInput * double(rows);
  // Each iteration loads its 8 rows of dY and X (and the rows' mean and rstd) into registers, then
  // a second unrolled loop consumes them; a grid of N / 32 CTAs leaves one per SM. Nsight Compute
  // on the H200 (4096 rows): 2525 cycles per iteration, 1107 of them issue (0.49 warp instructions
  // per scheduler per cycle), the rest the DRAM trip and its 64 KB: nothing overlaps.
  l.serial_trips = true;
  l.kernel = std::string(tile32 ? "GammaBetaBackwardCUDAKernel_32x32" : "GammaBetaBackwardCUDAKernel") + " (a CTA of " +
             std::to_string(l.threads_per_cta) + " threads per " + std::to_string(per_cta) + " features, " +
             std::to_string(ceil_div(rows, 256)) + " trips over " + std::to_string(rows) + " rows, " +
             std::to_string(l.ctas) + " CTAs)";
  return l;
}

// cuDNN's channels-first training batch norm, as PyTorch's cudnn_batch_norm calls it on NCHW tensors
// (bn_fw_tr_1C11_kernel_NCHW forward, bn_bw_1C11_kernel_new backward; the grids the H100 profiles
// in validation/measured/H100/profiles record: one 512-thread CTA per channel). A CTA streams its
// channel's N x H x W elements twice (statistics or gradient sums, a CTA-wide reduction, then the
// output or dx): the kernel's bytes already count both passes, so both are its serial trips here.
// With few channels most SMs idle and one CTA's loads in flight bound each SM (Little's law):
// ResNet-50's 64-channel layers at 112x112 run at a fifth of the DRAM bandwidth.
// Calibration (named): elements per thread per memory round trip, 3 forward and 1 backward, fitted
// to the two 64-channel kernels of the H100 ResNet-50 TF32 batch-128 trace (959.6 and 2411 us:
// 1018 and 2784 us); every other kernel of the H100 traces and the DLE A100/V100 rows are checked,
// not fitted. Refitted in session 56, when the first round's trips began to wait for their burst
// (memory_kernel.cpp): 2 forward gave 1126 us before, 1400 after; 4 gives 831.
constexpr double kBnNchwForwardElementsPerTrip = 3;
constexpr double kBnNchwBackwardElementsPerTrip = 1;

MemoryLaunch batch_norm_nchw(std::int64_t channels, std::int64_t per_channel, bool backward) {
  MemoryLaunch l;
  l.threads_per_cta = 512;
  l.ctas = channels;
  const double per_trip = backward ? kBnNchwBackwardElementsPerTrip : kBnNchwForwardElementsPerTrip;
  l.dependent_loads = 2.0 * std::ceil(double(per_channel) / (512.0 * per_trip));
  l.block_reductions = 1;
  l.kernel = std::string(backward ? "cudnn bn_bw_1C11_kernel_new" : "cudnn bn_fw_tr_1C11_kernel_NCHW") +
             " (a CTA of 512 threads per channel, " + std::to_string(channels) + " CTAs)";
  return l;
}

// cuDNN's channels-last training batch norm (cudnn::batchnorm_fwtr_nhwc_semiPersist /
// batchnorm_bwtr_nhwc_semiPersist<..., 512, 16, 5 or 3, 4, ..., 2>, as PyTorch's cudnn_batch_norm
// calls it on channels-last tensors; the open-source ancestor is apex's groupbn
// nhwc_batch_norm_kernel.h, same template parameters). A persistent grid of 512-thread CTAs, two
// per SM (the template's occupancy), 16 threads per pixel over a block of 64 channels; a CTA keeps
// its first pixels on chip (registers and shared memory): 384 forward, 192 backward (x and dY) —
// the H100 traces' grids, ceil(pixels / 384) and ceil(pixels / 192), e.g. [131, 2] for 50176
// pixels, [66, 4] backward at 12544, fit no other count. Grid: x = ceil(pixels / cached), at most
// 2 x SMs; y = channel blocks at once, min(blocks, 2 x SMs / x); a larger image loops with x = 2 x
// SMs and re-reads the pixels it could not keep. Each round of channel blocks reads, meets the
// other CTAs at a grid-wide barrier (the per-channel sums cross CTAs), then normalises and writes.
// The ResNet-50 AMP traces show the rounds: at equal elements, 1024 channels of 14x14 (8 rounds)
// take 1.33x 64 channels of 56x56 (1 round) though they keep everything on chip.
// CALIBRATION (named): kBnNhwcBarrierCycles, the cost of a round beyond its bytes (the barrier's
// atomics and polling, the slowest CTA, the two passes' pipeline fill), fitted to the 106 batch-norm
// calls of the H100 ResNet-50 AMP b256 trace (validation/measured/H100/profiles); the H200 trace
// and the DeepLearningExamples A100 rows are checked, not fitted (sim/gpu/README.md).
constexpr double kBnNhwcBarrierCycles = 11000;  // 6.0 us at 1830 MHz; scanned 6000-18000: MAPE 7.6% on those calls

MemoryLaunch batch_norm_nhwc(const GpuConfig& g, std::int64_t channels, std::int64_t pixels, bool backward) {
  MemoryLaunch l;
  l.threads_per_cta = 512;
  l.max_resident = 2;
  l.shared_memory_bytes = backward ? 28672 : 32768;
  const std::int64_t cached = backward ? 192 : 384, max_grid = 2 * std::int64_t(g.sm_count);
  const std::int64_t blocks = ceil_div(channels, 64);
  std::int64_t gx = ceil_div(pixels, cached), gy = 1;
  if (gx <= max_grid) gy = std::min(blocks, std::max<std::int64_t>(1, max_grid / gx));
  else gx = max_grid;
  // Every (pixel chunk, channel block) pair is one CTA's round of work; the persistent grid's gx x gy
  // CTAs take ceil(blocks / gy) rounds, which the rounds of 2 resident CTAs per SM reproduce.
  l.ctas = gx * blocks;
  const double per_cta = double(pixels) / double(gx);
  const double kept = std::min(1.0, double(cached) / per_cta);
  l.dependent_loads = 2;  // the registers' pixels, then the shared memory's
  if (kept < 1) {
    l.reread_passes = 1;
    l.reread_share = 1 - kept;
    l.reread_after_whole_input = true;
    l.reread_trips = std::ceil(per_cta * (1 - kept) / 32.0 / double(backward ? 3 : 5));
  }
  l.block_reductions = 1;
  l.barrier_cycles = kBnNhwcBarrierCycles;
  l.kernel = std::string(backward ? "cudnn batchnorm_bwtr_nhwc_semiPersist" : "cudnn batchnorm_fwtr_nhwc_semiPersist") +
             " (grid " + std::to_string(gx) + " x " + std::to_string(gy) + " of 512 threads, " +
             std::to_string(ceil_div(blocks, gy)) + " rounds of 64-channel blocks" +
             (kept < 1 ? ", " + std::to_string(int(std::lround(100 * (1 - kept)))) + "% of the pixels re-read" : "") +
             ")";
  return l;
}

// cuDNN's channels-last inference batch norm (cudnn::bn_fw_inf_1C11_kernel_NHWC<half, float, true,
// true>, what PyTorch's cudnn_batch_norm runs with the running statistics on NHWC tensors; closed
// source). The H200 traces and Nsight Compute of ResNet-50 at batch 1, 32 and 256 (validation/
// measured/H200/networks) show its launch: a grid of N x y CTAs of 512 threads, each CTA walking its
// image's elements 4096 at a time (8 per thread), y = ceil(passes / 2) of the image's 4096-element
// passes, at most 13 (all 42 shapes of the three batches fit; the cap was seen only on the 132-SM
// GH100). 32 registers, 4 CTAs per SM. Nsight Compute counts 1.48-1.58 warp instructions per element
// (47-50 per thread: the per-channel scale and shift rebuilt every pass, conversions, address
// arithmetic), and stalls mostly on long scoreboard: a lone CTA issues on 22% of the cycles, a full
// SM on 61%. The kernel is issue- and latency-bound, far from the memory's bandwidth (1.7 TB/s at
// batch 256): at batch 1 a 64 x 112 x 112 layer runs 13 CTAs for 37 us.
// CALIBRATION (named): kBnInfNhwcTripsPerPass, the dependent memory trips of one pass (its loads and
// the scale/shift loads they wait on), fitted to the 53 batch-norm calls of the batch-1 trace (one
// CTA per SM: latency-bound); the batch-32 and batch-256 traces are checked, not fitted.
constexpr double kBnInfNhwcInstructionsPerElement = 47.4;  // Nsight Compute: 1.48 warp instructions x 32
constexpr double kBnInfNhwcTripsPerPass = 9;  // scanned 1-10: batch 1 norm MAPE 42% (1) ... 2.3% (9), 6.7% (10)
constexpr std::int64_t kBnInfNhwcMaxCtasPerImage = 13;

MemoryLaunch batch_norm_inference_nhwc(std::int64_t images, std::int64_t per_image) {
  MemoryLaunch l;
  l.threads_per_cta = 512;
  l.max_resident = 4;
  const std::int64_t passes = ceil_div(per_image, 4096);
  const std::int64_t y = std::min(kBnInfNhwcMaxCtasPerImage, ceil_div(passes, 2));
  l.ctas = images * y;
  l.dependent_loads = double(ceil_div(passes, y)) * kBnInfNhwcTripsPerPass;
  l.issue_instructions_per_element = kBnInfNhwcInstructionsPerElement;
  l.kernel = "cudnn bn_fw_inf_1C11_kernel_NHWC (grid " + std::to_string(images) + " x " + std::to_string(y) +
             " of 512 threads, " + std::to_string(ceil_div(passes, y)) + " passes of 4096 elements per CTA)";
  return l;
}

// torch.cat along a dimension of 4-D tensors when any input is not contiguous (a KV cache grown by
// Hugging Face's DynamicCache: the new token's keys are a transposed view): ATen's cat_out_cuda
// (native/cuda/Shape.cu, v2.11) takes parallel_cat<T, 64, 64>, which marks every input
// non-contiguous, and launches CatArrayBatchedCopy<OpaqueType<bytes>, unsigned, 4, 64, 64>: 512
// threads, a grid of 2 x SMs per input (blockIdx.y), one element per thread per grid-stride
// iteration, the output's and the input's offsets each by CatArrIndexToOffset (three unsigned
// divisions by runtime sizes). The loop of an sm_80 replica (nvcc 13.0 -O3, scripts/sass_loops.py)
// is 87 instructions per element: 42 ALU, 41 IMAD, 2 memory, the divisors' reciprocals hoisted.
// The big input (the cache) dominates; the new token's CTAs exit after one element each.
constexpr double kCatNonContiguousInstructionsPerElement = 87;

MemoryLaunch cat_non_contiguous(const GpuConfig& g, const Kernel& k, std::int64_t elements) {
  MemoryLaunch l;
  l.threads_per_cta = 512;
  l.ctas = 2 * std::int64_t(g.sm_count);
  l.dependent_loads = double(ceil_div(elements, l.ctas * 512));
  l.scalar_loop = true;
  l.access_bytes = int(memory_element_bytes(k));
  l.accesses_per_element = 2;
  l.integer_instructions_per_element = kCatNonContiguousInstructionsPerElement;
  l.kernel = "CatArrayBatchedCopy (" + std::to_string(l.ctas) + " CTAs of 512 threads, " +
             std::to_string(std::int64_t(l.dependent_loads)) + " elements per thread)";
  return l;
}

// Embedding lookup = index_select(0, indices) (ATen native/cuda/Indexing.cu, index_select_out_cuda_impl,
// v2.1), rows of `slice` elements gathered for `indices` indices. Two kernels by the index count:
//  - indexSelectSmallIndex (<= 16 indices): grid min(ceil(slice / 128), SMs x 8) of min(slice, 128)
//    threads; every thread loops over all the indices, and per index loads it, then its elements of
//    that row (a grid-stride loop over the slice): the indices are serial.
//  - indexSelectLargeIndex: grid min(ceil(N / 128), SMs x 8) of 128 threads, a grid-stride loop over
//    all N output elements in which each element's load waits for its index.
// Either way each step is an index trip then a row trip, and the rows come from DRAM: the table is
// far larger than L2 and the indices pick random rows.
// PyTorch 2.8+ (pytorch/pytorch#151490, IndexKernelUtils.cu) runs more than 16 indices of rows that
// are whole 16-byte vectors as vectorized_gather_kernel<16>: a CTA per index and slice chunk (grid
// indices x ceil(row bytes / 4096), min(256, row bytes / 16 rounded up to a warp) threads), each
// thread loads its index, then copies 16-byte vectors of the row (the H100's llm_ops traces name it).
// The backward (embedding_backward: the rows scattered back into the table's gradient) keeps the
// index_select structure.
MemoryLaunch embedding(const GpuConfig& g, const MemoryShape& s, std::int64_t indices, std::int64_t slice,
                       double element_bytes, bool forward) {
  MemoryLaunch l;
  const std::int64_t max_ctas = std::int64_t(g.sm_count) * 8;
  const double row_bytes = double(slice) * element_bytes;
  if (forward && g.pytorch_version >= 208 && s.row_length > 0 && indices > 16 && std::fmod(row_bytes, 16.0) == 0) {
    const std::int64_t vectors = std::int64_t(row_bytes / 16), chunks = ceil_div(vectors, 256);
    l.threads_per_cta = int(std::min<std::int64_t>(256, ceil_div(vectors, 32) * 32));
    l.ctas = indices * chunks;
    l.dependent_loads = 1 + double(ceil_div(vectors, chunks * l.threads_per_cta));
    l.dram_trips = l.dependent_loads - 1;
    l.dram_trip_bytes = double(indices) * row_bytes;
    l.kernel = "vectorized_gather_kernel<16> (" + std::to_string(l.threads_per_cta) + " threads, " +
               std::to_string(l.ctas) + " CTAs: a CTA per index and 4 KiB of its row)";
    return l;
  }
  double steps = 0;
  if (s.row_length > 0 && indices <= 16) {
    l.threads_per_cta = int(std::min<std::int64_t>(slice, 128));
    l.ctas = std::min<std::int64_t>(ceil_div(slice, 128), max_ctas);
    steps = double(indices * ceil_div(slice, l.ctas * l.threads_per_cta));
    l.kernel = "indexSelectSmallIndex (" + std::to_string(l.threads_per_cta) + " threads, " +
               std::to_string(indices) + " indices in turn, " + std::to_string(l.ctas) + " CTAs)";
  } else {
    l.threads_per_cta = 128;
    l.ctas = std::min<std::int64_t>(ceil_div(s.elements, 128), max_ctas);
    steps = double(ceil_div(s.elements, l.ctas * 128));
    l.instructions_per_element = kIndexSelectLargeInstructions;
    l.kernel = "indexSelectLargeIndex (128 threads, grid-stride, " + std::to_string(l.ctas) + " CTAs)";
  }
  l.dependent_loads = 2 * steps;
  l.dram_trips = steps;
  if (forward) l.dram_trip_bytes = double(indices) * row_bytes;
  l.scalar_loop = true;
  return l;
}

// The kernel PyTorch (or the inference engine) launches for an op of this shape.
MemoryLaunch launch_for(const GpuConfig& g, const Kernel& k, const MemoryShape& s) {
  const std::string op = to_lower(s.op);
  const bool reduction = is_reduction(op);
  // A reduction's elements are its outputs, each the reduction of a row of row_length inputs (0:
  // the whole tensor is one row); a row-wise op's rows partition its elements.
  const std::int64_t r = s.row_length > 0 ? s.row_length : s.elements;
  const std::int64_t rows = reduction && s.row_length > 0 ? s.elements : ceil_div(s.elements, r);

  if (is_one_of(op, {"softmax", "log_softmax", "cross_entropy"})) return softmax(g, k, rows, r, {false, op != "softmax"});
  if (is_one_of(op, {"softmax_backward", "log_softmax_backward"}))
    return softmax(g, k, rows, r, {true, op == "log_softmax_backward"});
  if (is_one_of(op, {"layer_norm", "rms_norm", "layer_norm_backward", "layer_norm_rms"}))
    return row_norm(g, k, rows, r, op == "rms_norm", op == "layer_norm_backward", op == "layer_norm_rms");
  if (is_one_of(op, {"batch_norm_nchw", "batch_norm_nchw_backward"}) && s.row_length > 0)
    return batch_norm_nchw(rows, r, op == "batch_norm_nchw_backward");
  if (is_one_of(op, {"batch_norm_nhwc", "batch_norm_nhwc_backward"}) && s.row_length > 0)
    return batch_norm_nhwc(g, rows, r, op == "batch_norm_nhwc_backward");
  if (op == "batch_norm_inference_nhwc" && s.row_length > 0) return batch_norm_inference_nhwc(rows, r);
  if (op == "cat") return cat_non_contiguous(g, k, s.elements);
  if (op == "embedding" || op == "embedding_backward")
    return embedding(g, s, rows, r, memory_element_bytes(k), op == "embedding");
  if (op == "layer_norm_gamma_beta") return layer_norm_gamma_beta(rows, r);
  if (op == "reduce_columns") return reduce_columns(g, rows, r, memory_element_bytes(k));
  if (is_one_of(op, {"adam", "adamw", "sgd"})) {
    // multi_tensor_apply (ATen native/cuda/MultiTensorApply.cuh): chunks of 65536 elements, one
    // 512-thread CTA per chunk, 4 elements per thread per iteration (ILP 4): 32 serial iterations.
    MemoryLaunch l;
    l.threads_per_cta = 512;
    l.ctas = ceil_div(s.elements, 65536);
    l.dependent_loads = double(ceil_div(std::min<std::int64_t>(s.elements, 65536), 512 * 4));
    l.sfu_per_element = op == "sgd" ? 0 : 1;  // adam: sqrt of the second moment
    l.kernel = "multi_tensor_apply (512 threads x 65536-element chunks, " + std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  if (op == "cumsum" && s.row_length > 0) {
    // ATen's scan along a dimension other than the innermost (native/cuda/ScanUtils.cuh,
    // tensor_kernel_scan_outer_dim): a thread per column walks the scanned dimension alone, and
    // each step's load waits for the step before (its store may alias the next load): row_length
    // dependent round trips, however many columns run beside it.
    const std::int64_t columns = ceil_div(s.elements, r);
    MemoryLaunch l;
    l.threads_per_cta = int(std::min<std::int64_t>(512, columns));
    l.ctas = ceil_div(columns, std::int64_t(l.threads_per_cta));
    l.dependent_loads = double(r);
    l.scalar_loop = true;
    l.kernel = "tensor_kernel_scan_outer_dim (a thread per column, " + std::to_string(r) + " serial steps, " +
               std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  if (reduction) {
    // reduce_kernel (native/cuda/Reduce.cuh): each output's row reduced by up to 512 threads, 4-element
    // vectors, then a block reduction; short rows share a CTA (setReduceConfig's block_height packs
    // outputs into the CTA's 512 threads). A whole-tensor reduction is one row.
    const std::int64_t per_row = std::min<std::int64_t>(g.max_threads_per_cta / 2, std::max<std::int64_t>(32, r / 4));
    const std::int64_t rows_per_cta = std::min<std::int64_t>(rows, std::max<std::int64_t>(1, (g.max_threads_per_cta / 2) / per_row));
    MemoryLaunch l;
    l.threads_per_cta = int(per_row * rows_per_cta);
    l.ctas = ceil_div(rows, rows_per_cta);
    l.dependent_loads = double(ceil_div(r, per_row * 4));
    l.block_reductions = 1;
    l.kernel = "reduce_kernel (" + std::to_string(per_row) + " threads per row, " + std::to_string(rows_per_cta) +
               " rows per CTA, " + std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  if (op == "rope" && s.row_length > 0) {
    // Sarathi/vLLM rotary_embedding_kernel (csrc/pos_encoding_kernels.cu): a CTA per token of
    // min(query heads x rot_dim / 2, 512) threads (the query's pairs size the CTA, the key's do not);
    // the token's position is loaded first, then a loop over the query's pairs and one over the
    // key's, each iteration loading its cos/sin values and one (x, y) pair together and storing the
    // pair: one dependent trip for the position and one per iteration of the two loops.
    const std::int64_t query = s.rope_query > 0 && s.rope_query < r ? s.rope_query : r;
    const std::int64_t q_pairs = std::max<std::int64_t>(1, query / 2), k_pairs = (r - query) / 2;
    MemoryLaunch l;
    l.threads_per_cta = int(std::min<std::int64_t>(q_pairs, 512));
    l.ctas = rows;
    l.dependent_loads = 1.0 + double(ceil_div(q_pairs, l.threads_per_cta) + ceil_div(k_pairs, l.threads_per_cta));
    l.instructions_per_element = kRopeInstructionsPerPair / 2;
    l.issue_instructions_per_element = kRopeRowInstructionsPerThread * double(l.threads_per_cta) / double(r);
    l.scalar_loop = true;
    l.independent_chains = 2;  // a pair's two outputs, x cos - y sin and y cos + x sin
    l.kernel = "rotary_embedding_kernel (a CTA of " + std::to_string(l.threads_per_cta) + " threads per token, " +
               std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  if (s.row_length > 0 && is_one_of(op, {"silu_and_mul", "gelu_and_mul", "gelu_tanh", "gelu_new", "gelu_fast"})) {
    // Sarathi/vLLM activation kernels (csrc/activation_kernels.cu: silu_and_mul_kernel,
    // gelu_new/gelu_fast): a CTA per token of min(d, 1024) threads looping over the row, one element
    // per thread per iteration.
    MemoryLaunch l;
    l.threads_per_cta = int(std::min<std::int64_t>(r, g.max_threads_per_cta));
    l.ctas = rows;
    l.dependent_loads = double(ceil_div(r, l.threads_per_cta));
    // SiLU x up: expf and the division (3); the tanh GELUs: tanh's ex2 (1).
    l.sfu_per_element = op == "silu_and_mul" ? sfu_per_element(op) : 1;
    l.scalar_loop = true;
    if (op == "silu_and_mul") l.instructions_per_element = kSiluAndMulInstructions;
    l.kernel = op + " kernel (a CTA of " + std::to_string(l.threads_per_cta) + " threads per token, " +
               std::to_string(l.ctas) + " CTAs)";
    return l;
  }
  if (is_one_of(op, {"dropout", "native_dropout"})) {
    // fused_dropout_kernel_vec (ATen native/cuda/Dropout.cu): 256-thread CTAs, a 4-element vector
    // per thread and per curand_uniform4 (Philox4x32-10: 10 rounds of two 32x32->64 multiplies and
    // four XORs). PTX of a replica (nvcc 13.0 -O3 sm_90, fp16 data): 160 instructions per vector,
    // 80 of them the Philox rounds, the rest the uniform conversion, mask, scale and stores.
    MemoryLaunch l = elementwise(k, s.elements, 256, 4, "fused_dropout_kernel_vec");
    l.issue_instructions_per_element = kDropoutInstructions;
    // Its grid is persistent: min(SMs x maxThreadsPerMultiProcessor / 256, ceil(n / 256)) CTAs in a
    // grid-stride loop of one vector per thread per iteration, a __syncthreads() ending each (the
    // H100/H200 traces: grid 1056 on 132 SMs whatever n). Its 51-56 registers per thread leave room
    // for 4 such CTAs per SM (the traces' "est. achieved occupancy" 50%): two rounds of CTAs.
    const std::int64_t n = std::max<std::int64_t>(1, s.elements);
    const std::int64_t per_sm = std::int64_t(g.max_warps_per_sm) * 32 / 256;
    l.ctas = std::min<std::int64_t>(std::int64_t(g.sm_count) * per_sm, ceil_div(n, 256));
    l.max_resident = register_limited_ctas(g, 256, kDropoutRegistersPerThread);
    l.dependent_loads = double(ceil_div(n, l.ctas * 256 * 4));
    l.scalar_loop = true;
    l.kernel = "fused_dropout_kernel_vec (256 threads, grid-stride, " + std::to_string(l.ctas) + " CTAs, " +
               std::to_string(std::int64_t(l.dependent_loads)) + " vectors of 4 per thread)";
    return l;
  }
  if (op == "max_pool" && s.pool.n > 0) return max_pool_launch(s.pool);
  if (is_one_of(op, {"max_pool", "avg_pool", "batch_norm", "rope"}))
    // One thread per output element, 256-thread CTAs (max_pool2d_with_indices / avg_pool2d /
    // batch_norm_transform_input launch CUDA_NUM_THREADS-style 256-thread blocks).
    return elementwise(k, s.elements, 256, 1, ("pytorch " + op + " kernel").c_str());
  // A transpose made contiguous is a copy from a permuted view: the strided path, over the four
  // dims of a heads permute ([B, S, H, D] <-> [B, H, S, D]: no two adjacent ones coalesce).
  const int strided_dims = s.strided_dims > 0 ? s.strided_dims : op == "transpose" ? 4 : 0;
  if (strided_dims > 0 || s.cast) {
    // Operands PyTorch cannot vectorize (ATen native/cuda/CUDALoops.cuh, gpu_kernel_impl): a tensor
    // that is not contiguous runs elementwise_kernel<128, 4>, a contiguous op with an input of
    // another dtype unrolled_elementwise_kernel; both 128 threads x 4 elements, one element per
    // lane per access. The accesses per element are the tensors read and written.
    const double elements = double(std::max<std::int64_t>(1, s.elements)), eb = memory_element_bytes(k);
    // The strided path's elements per thread: launch_legacy_kernel<128, unroll_factor>, 4 for 1- and
    // 2-byte outputs, 2 for 4-byte ones (gpu_kernel_impl_nocast); 4 when it also casts.
    const int per_thread = strided_dims > 0 && !s.cast && eb >= 4 ? 2 : 4;
    MemoryLaunch l = elementwise(k, s.elements, 128, per_thread,
                                 strided_dims > 0 ? (per_thread == 2 ? "elementwise_kernel<128, 2>" : "elementwise_kernel<128, 4>")
                                                  : "unrolled_elementwise_kernel");
    // Neither kernel keeps a thread's loads in flight together (sim/gpu/README.md, "Serial loads
    // in PyTorch's strided and casting kernels"):
    // - elementwise_kernel<nt, vt> runs `for i < vt: f(idx); idx += nt`, and f loads its operands
    //   through char* data pointers and stores the result through one: the next element's loads
    //   cannot move above a store that may alias them, so a thread's vt elements are vt round trips.
    // - A casting kernel loads each operand through fetch_and_cast, a switch on the operand's dtype
    //   whose case converts the loaded value: the load completes inside its branch, so every
    //   operand of every element is a round trip of its own (unrolled_elementwise_kernel's four
    //   elements too, although it loads them before computing).
    // H200 decode step (validation/measured/H200/networks): a 4096-element fp16 rotary multiply takes
    // 2.1 us on the strided path against 1.15 us vectorized, the fp16 -> fp32 copy of RMSNorm 2.2 us.
    const double cast_operands = s.operands > 0 ? double(s.operands) : 2.0;  // tensors loaded and stored
    l.dependent_loads = double(per_thread) * (s.cast ? std::max(1.0, cast_operands - 1.0) : 1.0);
    l.independent_chains = 1;
    l.accesses_per_element = s.cast && strided_dims == 0
                                 ? cast_operands
                                 : std::max(1.0, std::round(double(k.bytes_read + k.bytes_written) / (elements * eb)));
    if (strided_dims > 0) {
      // OffsetCalculator::get per element: per dimension an IntDivider divmod (mul.hi, add, shr,
      // mul, sub), one multiply-add per operand and the loop's compare and branch: 7 + n for n
      // operands; then per operand a 64-bit address add (2) and its load or store, the bounds
      // check and the index step: 3 + 3n (PTX of a replica of elementwise_kernel<128, 4> with
      // OffsetCalculator, nvcc 13.0 -O3 sm_90: 9 + 9 per dim for a copy), all on the integer lanes.
      // The element loads are not charged the LDGSTS copies' narrow requests: GammaBetaBackward's
      // 128-byte LDG requests stream at 4.9 cycles per SM on the H100, not 9.5.
      const double n = l.accesses_per_element;
      l.integer_instructions_per_element = 3 + 3 * n + (7 + n) * double(strided_dims);
      l.lines_per_warp = s.lines_per_warp;
      // Operands of mixed dtypes on this path load and store through fetch_and_cast /
      // cast_and_store, a switch on the dtype per operand and element: the contiguous casting
      // copy (unrolled_elementwise_kernel, 2 operands) issues 52 instructions per element against
      // a vectorized copy's 3 (Nsight Compute on the H200): 26 per operand, counted as issue slots.
      if (s.cast) l.issue_instructions_per_element = kDynamicCastInstructionsPerOperand * n;
    } else {
      l.access_bytes = int(eb);
      // The contiguous path's fetch_and_cast / cast_and_store: the 26 issued instructions per operand
      // and element measured on the casting copy, for each tensor the op loads or stores.
      if (s.cast) l.issue_instructions_per_element = kDynamicCastInstructionsPerOperand * l.accesses_per_element;
    }
    return l;
  }
  if (op == "quantize")
    // An inference engine's activation quantization (vLLM's scaled_int8_quant / scaled_fp8_quant,
    // TensorRT's quantize layer): vectorized loads, x / scale rounded and saturated, packed stores.
    return elementwise(k, s.elements, 128, 4, "quantize kernel (vectorized)");
  return elementwise(k, s.elements, 128, 4, "vectorized_elementwise_kernel<4>");
}

}  // namespace

double memory_element_bytes(const Kernel& k) { return std::max(1, format_bits(k.a_format) / 8); }

MemoryLaunch memory_launch(const GpuConfig& g, const Kernel& k) {
  MemoryShape s = k.memory;
  if (s.elements <= 0 && s.row_length == 0 && (k.bytes_written > 0 || k.bytes_read > 0)) {
    // A kernel given only by its bytes: a stream of elements of its format (the larger side).
    s.elements = std::max<std::int64_t>(
        1, std::int64_t(double(std::max(k.bytes_written, k.bytes_read)) / memory_element_bytes(k)));
  }
  if (s.elements <= 0) throw InputError(k.name, "memory kernel without elements (memory.elements must be > 0)");
  if (is_reduction(to_lower(s.op))) {
    // Outputs x row length is the input the kernel reads: it must be a count the model can hold.
    if (s.row_length < 0 || (s.row_length > 0 && s.row_length > kMaxReductionInputs / s.elements))
      throw InputError(k.name, "memory.row_length " + std::to_string(s.row_length) + " must be in [0, " +
                                   std::to_string(kMaxReductionInputs / s.elements) + "] for a reduction of " +
                                   std::to_string(s.elements) + " outputs (at most " +
                                   std::to_string(kMaxReductionInputs) + " inputs)");
  } else if (s.row_length < 0 || s.row_length > s.elements) {
    throw InputError(k.name, "memory.row_length " + std::to_string(s.row_length) + " must be in [0, elements " +
                                 std::to_string(s.elements) + "]");
  }
  MemoryLaunch l = launch_for(g, k, s);
  l.elements = s.elements;
  return l;
}

}  // namespace tcsim::gpu
