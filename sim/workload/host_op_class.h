#pragma once
// The class of framework op a kernel launch stands for, as the host pays for it: eager PyTorch's
// dispatch cost differs by op (sim/engine/README.md, "Host cost by op class": on the lent H200 VM an
// elementwise op costs 14-22 us, aten::linear about 3x that, SDPA 6-7x, a norm 54-66 us, a
// cuDNN convolution 49 us in FP32). Configs may give each class its own cost (host.op_overhead.*).
#include <array>
#include <string_view>

#include "workload/kernel.h"

namespace tcsim {

enum class HostOpClass { elementwise, normalization, gemm, attention, convolution };

inline constexpr std::array<HostOpClass, 5> kHostOpClasses = {HostOpClass::elementwise, HostOpClass::normalization,
                                                              HostOpClass::gemm, HostOpClass::attention,
                                                              HostOpClass::convolution};

// GEMMs, convolutions and fused attention by the kernel's kind; a memory kernel is a normalization
// when its op is a batch, layer, RMS, group or instance norm (forward or backward), else elementwise
// (activations, casts, copies, reductions, softmax, embedding lookups, losses).
HostOpClass host_op_class(const Kernel& k);
std::string_view to_string(HostOpClass c);  // "elementwise", ..., as the config keys name them

}  // namespace tcsim
