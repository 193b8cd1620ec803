#pragma once
// Internal to op_kernels*.cpp: one op call being mapped (its arguments, kernels and target
// precision) and the helpers the GEMM/convolution/attention rules (op_kernels_compute.cpp) and the
// memory-bound rules (op_kernels_memory.cpp) share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/text/strings.h"
#include "workload/network/lowering/lowering_context.h"
#include "workload/profile/op_kernels.h"

namespace tcsim::workload::op_kernels_detail {

bool has_true(std::string_view s);
// Sizes are checked before any mapping (op_kernels.cpp): every dimension in [0, 2^31] and every
// tensor at most 2^48 elements, so products of sizes cannot overflow.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
constexpr double kMaxElements = 281474976710656.0;  // 2^48, as the network lowering's limit
std::int64_t numel(const Dims& d);
std::string dims_text(const Dims& d);
// Kineto's "Input type" names: float, c10::Half, c10::BFloat16, double, Float8, signed char, int.
std::optional<FormatId> format_of_type(const std::string& t);
// "[1, 2]" -> {1, 2}; "3" -> {3}; empty on anything else (or values beyond 2^31).
Dims int_list(const std::string& text);

struct Call {
  const ProfiledOp& op;
  const std::vector<KernelNameClass>& launched;
  std::optional<Precision> precision;
  OpKernels out;

  const Dims& dims(std::size_t i) const {
    static const Dims kNone;
    return i < op.input_dims.size() ? op.input_dims[i] : kNone;
  }
  std::string type(std::size_t i) const { return i < op.input_types.size() ? op.input_types[i] : std::string(); }
  std::string concrete(std::size_t i) const { return i < op.concrete.size() ? op.concrete[i] : std::string(); }
  bool flag(std::size_t i) const { return trim(concrete(i)) == "True"; }
  bool any_tensor_core() const {
    for (const auto& c : launched)
      if (c.path == MathPath::tensor_core) return true;
    return false;
  }
  // The library memsets among the launches (KernelNameClass::memset): kernels of their own, not
  // sharers of the op's work.
  std::int64_t memsets() const {
    std::int64_t n = 0;
    for (const auto& c : launched) n += c.memset ? 1 : 0;
    return n;
  }
  // Whether a launched kernel's name says `flag` (e.g. &KernelNameClass::per_channel_batch_norm).
  bool any_launched(bool KernelNameClass::*flag) const {
    for (const auto& c : launched)
      if (c.*flag) return true;
    return false;
  }
  // A channels-last convolution: an nhwc kernel and no layout transpose (cuDNN transposes NCHW
  // tensors for its nhwc kernels).
  bool any_nhwc() const {
    bool nhwc = false;
    for (const auto& c : launched) {
      if (c.layout_transpose) return false;
      nhwc = nhwc || c.nhwc;
    }
    return nhwc;
  }
  OpKernels& fail(const std::string& family, const std::string& why) {
    out.mapped = false;
    out.family = family;
    out.reason = why;
    out.kernels.clear();
    return out;
  }
  // The formats of a GEMM-like op whose inputs are stored in `stored`.
  bool gemm_formats(Kernel& k, std::size_t type_index) {
    const auto f = format_of_type(type(type_index));
    if (!f) return false;
    FormatId in = *f;
    if (in == FormatId::fp32 && any_tensor_core()) in = FormatId::tf32;  // allow_tf32: the kernel name says
    FormatId acc = format_is_integer(in) ? FormatId::int32 : FormatId::fp32;
    if (precision) {
      const PrecisionFormats pf = formats_of(*precision);
      in = pf.gemm_in, acc = pf.gemm_acc;
    }
    k.a_format = k.b_format = in;
    k.c_format = acc;
    k.d_format = framework_output_format(in, acc);
    return true;
  }
  // The format a memory op runs in, and the factor its bytes scale by under `precision`.
  FormatId memory_format(FormatId stored, const std::string& family, double& scale) const {
    scale = 1;
    if (!precision) return stored;
    const PrecisionFormats pf = formats_of(*precision);
    FormatId to = family == "optimizer" ? pf.master : (family == "softmax" || family == "norm") ? pf.kept_fp32 : pf.activation;
    to = lowering_detail::storage_of(to);
    scale = bytes_of(to) / bytes_of(stored);
    return to;
  }
};

void map_gemm(Call& c, const std::string& base);       // mm, addmm, bmm, baddbmm, matmul, linear
void map_conv(Call& c, const std::string& base);       // conv2d, convolution, cudnn_convolution, convolution_backward
void map_attention(Call& c, const std::string& base);  // _scaled_dot_product_*_attention (and backward)
void map_memory(Call& c, const std::string& base);     // everything else: memory-bound or not mapped
bool is_memory_op(const std::string& base);

}  // namespace tcsim::workload::op_kernels_detail
