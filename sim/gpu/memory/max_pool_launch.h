#pragma once
// PyTorch's max-pooling kernels (ATen native/cuda/DilatedMaxPool2d.cu, v2.11), forward and input
// gradient, channels-first and channels-last: their launch geometry, as the library computes it,
// and the work of their loops, counted in the SASS of replicas (sim/gpu/README.md, "Max pooling").
#include "gpu/memory/memory_launch.h"

namespace tcsim::gpu {

// The launch of a max_pool kernel whose MemoryShape::pool is given (pool.n > 0).
MemoryLaunch max_pool_launch(const PoolShape& p);

// Mean number of pooling windows that cover one input coordinate along a dimension of `size`
// inputs and `pooled` outputs (a window of `kernel` taps every `stride`, `pad` before the first).
double windows_per_input(std::int64_t size, std::int64_t pooled, int kernel, int stride, int pad);

}  // namespace tcsim::gpu
