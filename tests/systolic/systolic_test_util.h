#pragma once
// Helpers shared by the systolic tests.
#include <cstdint>

#include "workload/kernel.h"

namespace tcsim::systolic_test {

// A convolution layer in SCALE-Sim's terms: ifmap h×w, filter fh×fw, c channels, n filters, stride s.
inline Kernel conv(std::int64_t h, std::int64_t w, std::int64_t fh, std::int64_t fw, std::int64_t c,
                   std::int64_t n, std::int64_t s) {
  Kernel k;
  k.kind = Kernel::Kind::conv;
  k.name = "conv";
  k.conv.ifmap_h = h;
  k.conv.ifmap_w = w;
  k.conv.filter_h = fh;
  k.conv.filter_w = fw;
  k.conv.channels = c;
  k.conv.num_filters = n;
  k.conv.stride_h = k.conv.stride_w = s;
  return k;
}

}  // namespace tcsim::systolic_test
