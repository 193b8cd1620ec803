#include "workload/host_op_class.h"

namespace tcsim {

HostOpClass host_op_class(const Kernel& k) {
  switch (k.kind) {
    case Kernel::Kind::gemm: return HostOpClass::gemm;
    case Kernel::Kind::conv: return HostOpClass::convolution;
    case Kernel::Kind::attention: return HostOpClass::attention;
    case Kernel::Kind::memory: break;
  }
  const std::string_view op = k.memory.op;
  for (std::string_view norm : {"batch_norm", "layer_norm", "rms_norm", "group_norm", "instance_norm"})
    if (op.starts_with(norm)) return HostOpClass::normalization;
  return HostOpClass::elementwise;
}

std::string_view to_string(HostOpClass c) {
  switch (c) {
    case HostOpClass::elementwise: return "elementwise";
    case HostOpClass::normalization: return "normalization";
    case HostOpClass::gemm: return "gemm";
    case HostOpClass::attention: return "attention";
    case HostOpClass::convolution: return "convolution";
  }
  return "elementwise";
}

}  // namespace tcsim
