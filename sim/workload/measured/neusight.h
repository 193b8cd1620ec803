#pragma once
// NeuSight's measured PyTorch kernels (../shared/data/neusight/kernels/<GPU>/<op>.csv; sitar-lab/
// NeuSight, ASPLOS 2025): one op call timed with CUDA events around it, in ms, so every time includes
// PyTorch's host dispatch and the launch. All tensors are FP32 and
// run on the CUDA cores (TF32 off). Each row's host_calls is the host work of NeuSight's call path
// (torch function, lambda with a Python scalar, nn.Module) relative to a plain torch.add, a
// calibration of this data set fitted on the V100 floor (neusight.cpp); a conv row's grows with the
// distinct conv shapes above it in the file under PyTorch 2.1 (its cuDNN plan cache walks a list).
//
// Columns: OPName, Latency (ms), Device, ..., then the shape:
//  - bmm    B, M, N, K: torch.bmm(B x M x N, B x N x K): N is the reduction dimension, output
//           B x M x K -> GEMM m = M, n = K, k = N, batch = B, layout NN (row-major, as stored).
//  - linear B, M, N, K: nn.Linear(N, K, bias) on (B, M, N) -> GEMM m = B*M, n = K, k = N with the
//           weight (K x N) transposed: layout NT.
//  - conv   B, Input_Channel, Output_Channel, Kernel_Szie (sic, square), Input_Size (square),
//           Stride, Padding -> a forward NCHW convolution.
//  - softmax, ln, add, mul, div, pow, addu, mulu, divu, powu, relu, gelu, tanh: B, H on an input
//           of shape (B, H) -> a memory kernel (softmax and layer norm over rows of H; the *u ops
//           take a tensor and a scalar; the others two tensors).
// Groups: "bmm fp32", "linear fp32", "conv fwd fp32", "softmax fp32", "layer_norm fp32",
// "elementwise fp32" (binary, tensor-scalar and activation ops together).
#include <string>
#include <string_view>
#include <vector>

#include "workload/measured/measured.h"

namespace tcsim::workload {

// Whether a CSV header is NeuSight's kernel format (OPName and Latency columns).
bool is_neusight_header(const std::vector<std::string>& header);

MeasuredSet read_neusight(const std::filesystem::path& file);
MeasuredSet parse_neusight(std::string_view text, const std::string& file_name);
MeasuredSet neusight_from_table(const CsvText& csv);

}  // namespace tcsim::workload
