#pragma once
// Internal to the lowering (lowering*.cpp): the state one lowering pass shares between the
// per-layer rules (tensor formats, forward and backward kernel lists, the memory footprint).
#include <cstdint>
#include <string>
#include <vector>

#include "workload/network/lowering/lowering.h"

namespace tcsim::workload::lowering_detail {

struct Context {
  const Network& net;
  const LoweringOptions& opt;
  PrecisionFormats f;
  std::int64_t batch;
  std::vector<FormatId> out_format;        // per layer: the format its output is stored in
  // Per layer: gradient additions where its output feeds several readers (all copies together):
  // readings of the output minus its copies. Copy i+1 of a repeat block reads copy i's output.
  std::vector<std::int64_t> grad_adds;
  std::vector<bool> saved;                 // per layer: its output is kept for the backward pass
  std::vector<LoweredKernel> forward;      // launch order
  std::vector<std::vector<LoweredKernel>> backward;  // per layer, in the order within that layer
  double saved_extra_bytes = 0;            // saved tensors that are no layer's output (masks, casts, P)
  std::int64_t fp8_linear_copies = 0;  // te.Linear copies run in fp8 (PrecisionFormats::fp8_linears)
  double kv_cache_bytes = 0;
  std::vector<std::string> notes;
  // Per layer: the conv/linear whose epilogue runs it (fused epilogues), or -1.
  std::vector<int> epilogue_of;
  // Per layer: a ReLU or residual add run inside a batch norm's kernels (fuse_batch_norm_relu).
  std::vector<bool> in_batch_norm;

  Context(const Network& n, const LoweringOptions& o);

  const Layer& layer(int i) const { return net.layers[static_cast<std::size_t>(i)]; }
  // Per-sample shape and format of input `which` of layer `li` (-1 producer = network input).
  const Shape& input_shape(int li, std::size_t which) const;
  FormatId input_format(int li, std::size_t which) const;
  // Elements of input `which` for the whole batch.
  std::int64_t input_elements(int li, std::size_t which) const;  // batch x the shape's, once for a parameter
  bool reads_parameter(int li, std::size_t which) const;        // input `which` is a parameter layer
  std::int64_t output_elements(int li) const;

  // `host_sync`: the host waits for the GPU before launching it (LoweredKernel::host_sync).
  void emit_forward(int li, Kernel k, bool host_sync = false);
  void emit_backward(int li, Kernel k, bool host_sync = false);  // only when training
  // Marks input `which` of layer li as saved for backward (dedup per producer).
  void save_input(int li, std::size_t which);
  void save_output(int li) { saved[static_cast<std::size_t>(li)] = true; }
  void save_extra(int li, double bytes_per_copy);

  // Casts input `which` of layer li to `target` when it is stored otherwise (autocast and
  // quantization): a forward cast kernel and, when training, its backward; returns true if cast.
  bool cast_input(int li, std::size_t which, FormatId target);
  // Whether input `which` of layer li comes out of a conv/linear epilogue that can quantize it
  // (fused epilogues: gemm_epilogue_root finds one).
  bool quantized_by_producer(int li, std::size_t which) const;
  // The conv/linear layer whose kernel's epilogue writes layer p's output: p itself, or the GEMM
  // that layers run in an epilogue (`epilogue_of`) and identities (inference dropout, views) lead
  // back to, step by step through epilogue_producer. -1 when none does.
  int gemm_epilogue_root(int p) const;
  // The layer before p on that path: a residual add's operand computed last, else its input.
  int epilogue_producer(int p) const;
};

// A memory-bound kernel moving `read_elems` and `write_elems` elements of `format` (plus
// `extra_read_bytes`), doing `flops_per_elem` per output element.
Kernel memory_kernel(const std::string& name, const std::string& op, FormatId format, std::int64_t elements,
                     std::int64_t row_length, double read_elems, double write_elems, double flops_per_elem,
                     std::int64_t count, double extra_read_bytes = 0, double extra_write_bytes = 0);

// The same with its traffic given in bytes (int64 indices, boolean masks, operands of several
// formats); `format` sets the element width the launch assumes.
Kernel bytes_kernel(const std::string& name, const std::string& op, FormatId format, std::int64_t elements,
                    std::int64_t row_length, double read_bytes, double write_bytes, double flops_per_elem,
                    std::int64_t count);

// An inference engine's quantization of `n` activations from `from` to the 8-bit `to`.
Kernel quantize_kernel(const std::string& name, FormatId from, FormatId to, std::int64_t n, std::int64_t count);
// A conversion of `n` elements from `from` to `to` (autocast, gradient casts back).
Kernel cast_kernel(const std::string& name, FormatId from, FormatId to, std::int64_t n, std::int64_t count);
// nn.Dropout over n elements of `format`: fused_dropout_kernel forward (the kept values and a 1-byte
// mask per element), masked_scale_kernel backward (the gradient times the mask, no RNG).
Kernel dropout_kernel(const std::string& name, FormatId format, std::int64_t n, std::int64_t count);
Kernel dropout_backward_kernel(const std::string& name, FormatId format, std::int64_t n, std::int64_t count);
// Whether PyTorch copies `from` -> `to` through its dynamic-casting kernels: every cast but fp32 ->
// fp16/bf16, which has its own vectorized kernel (the H100 traces' copy kernels).
bool casts_dynamically(FormatId from, FormatId to);

FormatId storage_of(FormatId f);  // tf32 is stored as fp32
FormatId wider_of(FormatId a, FormatId b);

// A GEMM of the mode (its accumulator and output format) with `batch` independent products.
Kernel gemm(const Context& c, const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k,
            std::int64_t batch, Layout layout, Pass pass, FormatId in);
// Autocast's cast of a layer's `weight_elements` fp32 weights to the GEMM format (and back for the
// gradient); nothing outside autocast.
void cast_weights(Context& c, int li, std::int64_t weight_elements);

// Per-kind rules (lowering_compute.cpp, lowering_memory.cpp, lowering_moe.cpp, lowering_position_bias.cpp,
// lowering_rnn.cpp).
void lower_conv2d(Context& c, int li);
void lower_linear(Context& c, int li);
void lower_matmul(Context& c, int li);
void lower_attention(Context& c, int li);
void lower_memory_layer(Context& c, int li);
void lower_moe(Context& c, int li);
void lower_position_bias(Context& c, int li);
void lower_rnn(Context& c, int li);

}  // namespace tcsim::workload::lowering_detail
