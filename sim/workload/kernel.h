#pragma once
// A Kernel is one lowered unit of work that an Accelerator runs: a GEMM, a convolution (kept as a
// convolution because SCALE-Sim-style systolic models need its geometry and the GPU model chooses
// cuDNN's algorithm from it; gemm_view() gives its implicit GEMM), a fused attention kernel, or a
// memory-bound op.
#include <cstdint>
#include <string>

#include "numerics/formats/format_id.h"

namespace tcsim {

enum class Layout { NN, NT, TN, TT };  // op(A), op(B): N = as stored (row-major M×K / K×N), T = transposed
enum class Pass { forward, data_grad, weight_grad };
enum class TensorLayout { nchw, nhwc };  // activation layout of a convolution (filters follow it)

struct ConvShape {
  std::int64_t batch = 1;
  std::int64_t ifmap_h = 0, ifmap_w = 0;    // input height and width
  std::int64_t filter_h = 0, filter_w = 0;  // R, S
  std::int64_t channels = 0;                // C
  std::int64_t num_filters = 0;             // K (output channels)
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t pad_h = 0, pad_w = 0;        // per side
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t groups = 1;                  // channels and filters split into `groups` independent convs
  TensorLayout layout = TensorLayout::nchw;
  double cudnn_version = 0;                 // cuDNN release the data was measured with; 0: the config's

  // One filter per channel (groups == channels; num_filters may be a multiple of it).
  bool depthwise() const { return groups > 1 && groups == channels; }
  std::int64_t span_h() const { return dilation_h * (filter_h - 1) + 1; }  // the filter's reach
  std::int64_t span_w() const { return dilation_w * (filter_w - 1) + 1; }
  std::int64_t out_h() const { return (ifmap_h + 2 * pad_h - span_h()) / stride_h + 1; }
  std::int64_t out_w() const { return (ifmap_w + 2 * pad_w - span_w()) / stride_w + 1; }
};

// Scaled dot-product attention, softmax(Q·Kᵀ·scale + mask)·V, as one fused kernel
// (FlashAttention-style: S and P never reach memory). Q is [batch, heads, q_len, head_dim];
// K and V are [batch, kv_heads, kv_len, head_dim] (kv_heads < heads: grouped-query attention).
// q_len == 1 against a long kv_len is decode attention over a KV cache.
// Kernel::pass: forward = the forward kernel (O and the row log-sum-exp); data_grad = the WHOLE
// backward kernel (dQ, dK and dV from dO, recomputing S and P; its macs() count the five
// products, 2.5x the forward); weight_grad is invalid (attention has no weights).
// Formats: a_format is Q, K, V and O (fp16, bf16; e4m3 forward on sm_90), c_format the fp32 accumulator.
struct AttentionShape {
  std::int64_t batch = 1, heads = 1, kv_heads = 1;
  std::int64_t q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = false;  // a query sees only keys at or before its position (prefix of kv_len - q_len)
  // Training's dropout on the attention probabilities, inside the fused kernel (0: none): the
  // kernels draw a random number per score element, forward and backward (sim/gpu/README.md,
  // "Dropout inside fused attention").
  double dropout = 0;
};

// The shape of a memory-bound kernel, for the model's choice of kernel and its occupancy.
// `op` names it (elementwise ops by name: "relu", "add", ...; "softmax", "layer_norm", "rms_norm",
// "batch_norm", "batch_norm_nchw" / "batch_norm_nchw_backward" (cuDNN's per-channel training
// kernels: row_length = the channel's elements), "batch_norm_nhwc" / "batch_norm_nhwc_backward"
// (cuDNN's persistent channels-last kernels, the same row_length), "max_pool", "avg_pool", "embedding", "rope", "dropout", "cross_entropy",
// "adam", "sgd", "reduce", "reduce_columns" (a sum over outer dims: a bias gradient),
// "layer_norm_backward" (the input gradient, row-wise like "layer_norm"),
// "layer_norm_gamma_beta" (layer-norm weight gradients: elements = features, row_length = rows),
// "transpose", ...).
// A 2-D pooling window over an [n, c, h, w] input giving [n, c, p, q] (PyTorch's
// max_pool2d_with_indices and its backward): the geometry that picks the library's kernel, its
// launch and its loops (sim/gpu/memory/max_pool_launch.h).
struct PoolShape {
  std::int64_t n = 0, c = 0, h = 0, w = 0;  // input; n == 0: not given
  std::int64_t p = 0, q = 0;                // output height and width
  int kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  bool channels_last = false;  // the tensors' memory format (torch.channels_last)
  bool backward = false;       // the input gradient from the output gradient and the indices
  bool operator==(const PoolShape&) const = default;
};

struct MemoryShape {
  std::string op = "elementwise";
  std::int64_t elements = 0;    // output elements (the threads' work items)
  std::int64_t row_length = 0;  // row-wise ops (softmax, norms, loss): elements reduced per row; 0 = none
  // Elementwise ops whose operands PyTorch cannot vectorize. strided_dims > 0: not all contiguous:
  // elementwise_kernel<128, 4> computes each element's offsets by dividing its index by the sizes
  // of this many dimensions (TensorIterator's, after coalescing); 0: one contiguous stream.
  // cast: an input in another format than the output (contiguous: a casting copy,
  // unrolled_elementwise_kernel, one element per lane per access; strided: the operands go through
  // dynamic casts).
  int strided_dims = 0;
  // The strided path's 128-byte lines per warp access: distinct lines that 32 consecutive
  // elements touch, summed over the operands read and written (a coalesced 2-byte operand 0.5-1.5,
  // a channels-last tensor read in NCHW order with 32 channels 16). 0: not known.
  double lines_per_warp = 0;
  bool cast = false;
  // Tensors a contiguous casting op loads or stores per element: its tensor inputs and its output
  // (a mixed-dtype add three, a casting copy two); 0: two.
  int operands = 0;
  // rope: elements of each row that are query heads, rotated by the kernel's first loop (the rest,
  // key heads, by its second); 0: the row is one tensor (a separate rope per tensor).
  std::int64_t rope_query = 0;
  // Inputs read from DRAM however small they are: a training step's parameters, last written by the
  // previous step's optimizer (AMP's casts of the fp32 weights). Otherwise a footprint that fits in
  // L2 is taken as there (back-to-back runs).
  bool cold = false;
  // Bytes of other data written just before this op (a benchmark's L2 flush: a 256 MiB zero_
  // between calls); inputs are read from DRAM when this exceeds the L2. 0: none seen.
  double evicted_bytes = 0;
  // Bytes of its reads that other kernels' traffic has evicted from L2 since they were written (in a
  // layer timed as a whole: Vidur's residual, written several kernels and a layer's weights
  // earlier): read from DRAM however small the footprint, and then its writes go to DRAM too, as
  // a gather's do (the L2 is full of the earlier kernels' lines). The rest of its reads decide
  // whether the footprint stays in L2. 0: none.
  double cold_read_bytes = 0;
  // max_pool: the window and tensors (PoolShape::n == 0: one thread per output, the generic path).
  PoolShape pool{};
};

// The MemoryShape op of a training batch norm run by cuDNN as PyTorch calls it: the per-channel
// kernels for channels-first tensors ("batch_norm_nchw[_backward]"), the persistent channels-last
// kernels ("batch_norm_nhwc[_backward]"); other frameworks' element-parallel "batch_norm".
inline const char* training_batch_norm_op(bool cudnn, bool backward, bool channels_last = false) {
  if (!cudnn) return "batch_norm";
  if (channels_last) return backward ? "batch_norm_nhwc_backward" : "batch_norm_nhwc";
  return backward ? "batch_norm_nchw_backward" : "batch_norm_nchw";
}

// Whether a training batch norm op reads its input once (the kernel's own re-reads are the
// launch's business): the channels-last persistent kernels keep the data on chip.
inline bool batch_norm_reads_once(const std::string& op) {
  return op == "batch_norm_nhwc" || op == "batch_norm_nhwc_backward";
}

struct Kernel {
  enum class Kind { gemm, conv, attention, memory };
  Kind kind = Kind::gemm;
  std::string name;

  // GEMM D[M×N] = A[M×K]·B[K×N] + C, `batch` independent instances.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  ConvShape conv;            // kind == conv
  AttentionShape attention;  // kind == attention

  FormatId a_format = FormatId::fp16, b_format = FormatId::fp16;
  // c_format: the accumulator; d_format: the stored output (its bytes are the epilogue's writes:
  // PyTorch's 16-bit GEMMs return 16-bit values, a benchmark may store fp32).
  FormatId c_format = FormatId::fp32, d_format = FormatId::fp32;
  Layout layout = Layout::NN;
  Pass pass = Pass::forward;
  std::int64_t count = 1;  // how many times the kernel runs (totals multiply by this)
  // GEMMs and forward convolutions: tensors of the output's shape and format that the epilogue
  // reads and adds before the store (a residual z of cuDNN's fused conv-bias-add-activation, cuBLAS's
  // beta·C). 0: the epilogue reads nothing.
  int epilogue_inputs = 0;
  // GEMMs: the cuBLAS release the data was measured with (DeepBench's V100 sheets: CUDA 10.1's
  // cuBLAS 10.2); 0: the config's library.cublas_version. Before 11, cuBLAS ran fp16 GEMMs whose
  // M, N or K is not a multiple of 8 without tensor cores on sm_70/75 (gpu/gemm/gemm_plan.cpp).
  double cublas_version = 0;
  // GEMMs: A is 2:4 structured sparse (cuSPARSELt / mma.sp: two kept values and their 2-bit
  // indices per group of four along K); m, n, k stay the dense shape.
  bool sparse_a = false;
  // Timed back to back (benchmark loops: DeepBench, NeuSight): operands that fit in L2 are still
  // there from the previous call, so they are read from L2, not DRAM (sim/gpu/README.md).
  bool l2_warm = false;
  // The same kernel, with the same shapes, ran just before on the stream (a benchmark loop's
  // repeats): its code and launch state are still cached on the GPU. A memory kernel then costs the
  // measured back-to-back duration of an empty kernel (kernel.empty_duration), not a launch after
  // another kernel (kernel.launch_overhead); GEMMs keep the launch (GpuConfig::kernel_fixed_s). Set
  // by the profile mapping (workload/profile/profile_mapping.cpp).
  bool follows_itself = false;
  // The measurement is a profiler's kernel duration (CUPTI: torch.profiler traces, Vidur), not a
  // launch interval (host timing, a training step's throughput). A memory kernel after a different
  // kernel then costs the empty kernel's duration plus a DRAM trip for its code and parameters,
  // which the kernels before evicted (GpuConfig::kernel_fixed_s). Set by the profile mapping and the
  // Vidur reader.
  bool profiled = false;
  // Profiled traces: the bytes the kernel launched just before this one wrote (-1: not known). Its
  // dirty lines are what this kernel's first misses (its code, parameters and data) queue behind
  // (GpuConfig::kernel_fixed_s). Set by the profile mapping.
  double written_before = -1;

  // kind == memory: bytes moved, (non-tensor) flops and the op's shape. a_format is the data format.
  std::uint64_t bytes_read = 0, bytes_written = 0;
  double flops_nontensor = 0;
  MemoryShape memory;

  // Useful multiply-adds of one run (a GEMM counts M*N*K*batch; a conv, in every pass, the
  // forward's N*P*Q*K*(C/groups)*R*S; attention its two products, Q·Kᵀ and P·V, over the unmasked positions; five for data_grad).
  double macs() const;
  double flops() const { return kind == Kind::memory ? flops_nontensor : 2.0 * macs(); }
};

// The implicit-GEMM view of a convolution for its pass, per group (batch = groups):
//   forward      M = N*P*Q, N = K/g, K = C/g*R*S
//   data_grad    M = N*H*W, N = C/g, K = K/g*R*S
//   weight_grad  M = K/g,   N = C/g*R*S, K = N*P*Q
// For a GEMM kernel it returns the kernel unchanged.
Kernel gemm_view(const Kernel& k);

// Upper bounds of any kernel a model accepts (README "Bounds"): every operand (batch included) at
// most 2^40 elements and at most 2^60 multiply-adds, so that tile, CTA and wave counts stay exact in
// int64 and double. kernel_size_problem says what exceeds them ("" when nothing does).
inline constexpr double kMaxKernelElements = 1099511627776.0;     // 2^40
inline constexpr double kMaxKernelMacs = 1152921504606846976.0;  // 2^60
std::string kernel_size_problem(const Kernel& kernel);

// The format a framework's GEMM stores (Kernel::d_format) for inputs `in` accumulated in `acc`:
// 16-bit GEMMs return their inputs' format (PyTorch's fp16/bf16 mm, cuBLAS with a 16-bit C),
// the others the accumulator's.
FormatId framework_output_format(FormatId in, FormatId acc);

Kernel make_gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, FormatId ab = FormatId::fp16,
                 FormatId cd = FormatId::fp32);

}  // namespace tcsim
