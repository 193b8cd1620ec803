#pragma once
// Shared helper of the convolution tests: a conv Kernel from its shape.
#include <cstdint>
#include <string>

#include "workload/kernel.h"

namespace tcsim::gpu::test {

struct ConvArgs {
  std::int64_t n = 8, h = 28, w = 28, c = 64, k = 64, r = 3, s = 3, stride = 1, pad = 1, groups = 1, dilation = 1;
  Pass pass = Pass::forward;
  FormatId format = FormatId::fp16;
  TensorLayout layout = TensorLayout::nchw;
};

inline Kernel conv_kernel(const ConvArgs& a) {
  Kernel k;
  k.kind = Kernel::Kind::conv;
  k.name = "conv";
  k.pass = a.pass;
  k.a_format = k.b_format = a.format;
  k.c_format = k.d_format = FormatId::fp32;
  ConvShape& c = k.conv;
  c.batch = a.n, c.ifmap_h = a.h, c.ifmap_w = a.w, c.channels = a.c, c.num_filters = a.k;
  c.filter_h = a.r, c.filter_w = a.s, c.stride_h = c.stride_w = a.stride, c.pad_h = c.pad_w = a.pad;
  c.groups = a.groups, c.dilation_h = c.dilation_w = a.dilation, c.layout = a.layout;
  return k;
}

}  // namespace tcsim::gpu::test
