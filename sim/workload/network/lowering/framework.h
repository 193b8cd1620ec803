#pragma once
// The framework that runs a network step, for the layers whose kernels differ between frameworks.
#include <string>

#include "workload/kernel.h"

namespace tcsim::workload {

// The framework that runs the step, for the layers whose kernels differ between frameworks:
// - pytorch: training batch norm runs cuDNN's kernels as cudnn_batch_norm calls them (per-channel
//   kernels on channels-first tensors, a CTA per channel; persistent ones on channels-last tensors)
//   after its num_batches_tracked counter op; max pooling runs ATen's own four kernels
//   (sim/gpu/memory/max_pool_launch.h).
// - mxnet: BatchNorm on channels-first tensors calls cuDNN too (src/operator/nn/batch_norm.cu:
//   axis 1 goes to CuDNNBatchNormOp, mode CUDNN_BATCHNORM_SPATIAL_PERSISTENT), so the same
//   per-channel kernels; on channels-last tensors NGC's own NHWC kernels (nhwc_batch_norm*.h),
//   element-parallel; pooling through cuDNN, element-parallel.
// - tensorflow (with XLA, as NVIDIA's ResNet-50 runs): XLA expands batch norm into its fusions,
//   element-parallel; pooling element-parallel.
enum class Framework { pytorch, mxnet, tensorflow };
const char* to_string(Framework f);
// Parses "pytorch", "mxnet", "tensorflow" (any case); false if unknown.
bool parse_framework(const std::string& text, Framework& f);
// Whether training batch norm runs cuDNN's kernels under this framework and layout.
bool cudnn_batch_norm(Framework f, TensorLayout layout);

}  // namespace tcsim::workload
