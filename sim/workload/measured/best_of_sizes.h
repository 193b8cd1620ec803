#pragma once
// Leaderboards of a matmul benchmark's best rate over several sizes: per board and data type, the
// highest TFLOP/s of square products N x N x N over the sizes it ran (the community table of
// github.com/zzc0721/torch-performance-test-data, database.md: test.py's torch.mm loops over N =
// 1024 .. 10240, the best kept). validation/published/torch_matmul/best_of_sizes.csv holds the rows
// for boards tcsim ships a config for; engine/validation/best_of_sizes.h compares them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numerics/formats/format_id.h"

namespace tcsim::workload {

struct BestOfSizesRow {
  std::string device;               // as the source names it ("NVIDIA L40S")
  std::string dtype;                // fp32, tf32 (fp32 tensors, TF32 matmuls allowed), fp16, bf16
  FormatId a = FormatId::fp32;      // operands
  FormatId acc = FormatId::fp32;    // accumulator (fp32 for every dtype: cuBLAS's default for torch.mm)
  FormatId d = FormatId::fp32;      // output, the dtype's storage
  double best_tflops = 0;           // the best over `sizes`
  std::vector<std::int64_t> sizes;  // N of each square product
  std::string environment;          // the contributor's note (cloud container, physical machine, ...)
  std::string origin;               // file:line
};

// True when the file's CSV header has a best_tflops column.
bool is_best_of_sizes_csv(const std::string& file);
// Columns device, dtype, best_tflops, sizes (N values separated by spaces), environment; '#' lines
// are comments. InputError (file:line: column) for a missing column, an unknown dtype, a rate that is
// not a positive number, a size outside [1, 65536], or no sizes.
std::vector<BestOfSizesRow> read_best_of_sizes(const std::string& file);

}  // namespace tcsim::workload
