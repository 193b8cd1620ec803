#pragma once
// Baidu DeepBench result rows (../shared/data/deepbench: CSV exports of the sheets of
// results/train/DeepBench_NV_V100.xlsx, one file per section) as Kernels with their measured time.
//
// Precision follows the sheet:
//  - fp16 ("Results - FP16 ip, Mixed math"): fp16 inputs, fp32 accumulation, tensor-op math. Since
//    DeepBench commit 30c5115 half GEMMs/convs are padded to multiples of 8, so the Kernel carries
//    the padded M, N, K (GEMM) or channels/filters (conv); the name keeps the sheet's shape.
//  - fp32 ("Results FP32"): fp32 in and out, CUDA cores.
// The precision is taken from the file name ("fp16"/"half" or "fp32"/"float"); pass it explicitly
// when the name does not say.
//
// Layout: DeepBench's "A Transpose"/"B Transpose" are cuBLAS op letters on COLUMN-major storage.
// tcsim's Layout letters describe row-major storage (workload/kernel.h), where a column-major
// M×K matrix is a row-major K×M one: DeepBench (N, N) is tcsim TT, (N, T) is TN, (T, N) is NT.
// (So cuBLAS's fast "TN" case, both operands K-contiguous, is tcsim's NT.)
//
// Conv rows (W, H, C, N, K, S, R, pad_w, pad_h, strides, three times): one Kernel per measured
// pass (forward, data_grad = "wrt Inputs", weight_grad = "wrt Parameters"); "N/A*" times are
// not measurements and produce no row.
//
// The xlsx itself is not read: use the CSV export (one CSV per sheet section, header as in the
// sheet), as in ../shared/data/deepbench.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workload/measured/measured.h"

namespace tcsim::workload {

enum class DeepBenchPrecision { fp16_mixed, fp32 };
enum class DeepBenchSection { gemm, conv, unknown };

// Which section a CSV header belongs to (by its column names).
DeepBenchSection deepbench_section(const std::vector<std::string>& header);
// The precision named by a file name, if any.
std::optional<DeepBenchPrecision> deepbench_precision_from_name(std::string_view file_name);

// Reads a DeepBench GEMM or convolution CSV. Bad rows: InputError("file:line: column", ...).
MeasuredSet read_deepbench(const std::filesystem::path& file,
                           std::optional<DeepBenchPrecision> precision = std::nullopt);
MeasuredSet parse_deepbench(std::string_view text, const std::string& file_name,
                            std::optional<DeepBenchPrecision> precision = std::nullopt);

}  // namespace tcsim::workload
