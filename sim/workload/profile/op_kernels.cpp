#include "workload/profile/op_kernels.h"

#include <unordered_set>

#include "workload/profile/op_kernels_call.h"

namespace tcsim::workload {
namespace {

using namespace op_kernels_detail;

bool dims_in_range(const Dims& d) {
  double n = 1;
  for (auto v : d) {
    if (v < 0 || v > kMaxDim) return false;
    n *= double(v);
  }
  return n <= kMaxElements;
}

bool sizes_in_range(const ProfiledOp& op) {
  for (const Dims& d : op.input_dims)
    if (!dims_in_range(d)) return false;
  for (const auto& list : op.input_lists)
    for (const Dims& d : list)
      if (!dims_in_range(d)) return false;
  return true;
}

// "aten::add_" -> "add"
std::string base_name(const std::string& name) {
  std::string s = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  while (!s.empty() && s.back() == '_') s.pop_back();
  while (!s.empty() && s.front() == '_') s.erase(s.begin());
  return s;
}

const std::unordered_set<std::string>& gemm_ops() {
  static const std::unordered_set<std::string> s = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear"};
  return s;
}
const std::unordered_set<std::string>& conv_ops() {
  static const std::unordered_set<std::string> s = {"conv2d", "convolution", "convolution", "cudnn_convolution",
                                                   "convolution_backward"};
  return s;
}
bool is_attention(const std::string& b) {
  // The public op too, for traces that give its kernels to the outer op (the inner one wins when known).
  return b.rfind("scaled_dot_product_", 0) == 0 && b.find("attention") != std::string::npos;
}

}  // namespace

bool is_known_op(const std::string& name) {
  const std::string b = base_name(name);
  return gemm_ops().count(b) || conv_ops().count(b) || is_attention(b) || is_memory_op(b);
}

OpKernels op_kernels(const ProfiledOp& op, const std::vector<KernelNameClass>& launched, std::optional<Precision> precision) {
  Call c{op, launched, precision, {}};
  const std::string b = base_name(op.name);
  if (!sizes_in_range(op)) {
    c.fail("other", "input sizes out of range (a dimension above 2^31 or a tensor above 2^48 elements)");
    return c.out;
  }
  if (gemm_ops().count(b)) map_gemm(c, b);
  else if (conv_ops().count(b)) map_conv(c, b);
  else if (is_attention(b)) map_attention(c, b);
  else map_memory(c, b);
  if (c.out.mapped) {
    for (Kernel& k : c.out.kernels)
      if (k.kind != Kernel::Kind::memory && k.count < 1) k.count = 1;
    // The libraries' workspace memsets the op launched beside its kernels (cuBLAS, cuDNN, ATen's
    // reductions): each a zeroing of a few bytes, costed as the empty kernel it is (memory_kernel.cpp's
    // fixed cost of a profiled kernel). The traces show 0.7-2.0 us each on the lent H100/H200. An op
    // that launched memsets only is its own mapping's work.
    const std::int64_t memsets = c.memsets();
    if (memsets > 0 && memsets < std::int64_t(launched.size()))
      c.out.kernels.push_back(lowering_detail::memory_kernel(op.name + ".memset", "fill", FormatId::fp32, 1, 0, 0, 4, 0, memsets));
  }
  return c.out;
}

}  // namespace tcsim::workload
