#pragma once
// One profiled op call (an aten op with its input shapes and dtypes, and the GPU kernels it
// launched) to the tcsim Kernels that `tcsim network` and `tcsim run` simulate: GEMMs (mm, addmm,
// bmm, baddbmm, matmul, linear), convolutions (conv2d, convolution, _convolution,
// cudnn_convolution, convolution_backward), fused attention (_scaled_dot_product_flash /
// efficient / cudnn attention and their backward), and memory-bound ops (elementwise, softmax,
// layer and batch norm, reductions, the fused and foreach optimizer ops).
// The kernels' names fix what the shapes cannot: an fp32 GEMM or convolution that ran on tensor
// cores (kernel_name.h) ran in TF32; a channels-last cuDNN kernel ran NHWC.
#include <optional>
#include <string>
#include <vector>

#include "workload/kernel.h"
#include "workload/network/precision.h"
#include "workload/profile/kernel_name.h"
#include "workload/profile/profile.h"

namespace tcsim::workload {

struct OpKernels {
  bool mapped = false;
  std::string family;            // gemm, conv, attention, elementwise, softmax, norm, reduce, optimizer, other
  std::string shape;             // in words, for reports ("m=512 n=1024 k=768 bf16")
  std::string reason;            // when !mapped: why
  std::vector<Kernel> kernels;   // what the op call runs (count folded in)
};

// Whether tcsim knows the op (by its aten name); unknown ops are looked up in their enclosing op.
bool is_known_op(const std::string& name);

// `launched`: the op call's kernel names, classified; `launches`: how many kernels it launched.
// `precision`: when set, the op is re-typed as that precision mode would run it (replay): GEMM-like
// ops take its GEMM formats, memory ops its activation (or kept-fp32 / master) format.
OpKernels op_kernels(const ProfiledOp& op, const std::vector<KernelNameClass>& launched,
                     std::optional<Precision> precision = std::nullopt);

}  // namespace tcsim::workload
