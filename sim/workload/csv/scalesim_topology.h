#pragma once
// SCALE-Sim topology CSVs (spec/systolic.md section 2), read into Kernels.
//   conv form: header, then `name, IFMAP H, IFMAP W, Filter H, Filter W, Channels, Num Filter,
//              Stride[, Col stride],` -> Kernel::Kind::conv (no padding, batch 1)
//   GEMM form: header, then `name, M, N, K,` -> Kernel::Kind::gemm
// SCALE-Sim drops the last comma-separated field of every row (rows end in a comma); we drop it
// when it is empty and, unlike SCALE-Sim, keep it when it holds a value. Empty lines are skipped.
// A conv layer whose name contains "DP" is depthwise: SCALE-Sim expands it into `Channels` layers
// of one channel each, named "<name>Channel_<i>"; so do we. Operands are 1-byte words (int8 in,
// int32 out), as in SCALE-Sim.
// Errors (InputError "file:line: field"): non-integer, non-positive or values above 2^31 (as every
// CSV dimension, workload/csv/csv_text.h), too few or too many columns, a filter larger than the input,
// a depthwise layer of more than kMaxDepthwiseChannels channels, an empty file.
#include <filesystem>
#include <string>
#include <vector>

#include "workload/kernel.h"

namespace tcsim::workload {

inline constexpr std::int64_t kMaxDepthwiseChannels = 65536;

enum class TopologyKind { detect, conv, gemm };

struct TopologyLayer {
  Kernel kernel;
  long line = 0;  // 1-based line in the file
};

// `kind` detect: GEMM form when the header's second column is "M" (case-insensitive), else conv.
std::vector<TopologyLayer> read_scalesim_topology(const std::filesystem::path& file,
                                                  TopologyKind kind = TopologyKind::detect);
std::vector<TopologyLayer> parse_scalesim_topology(const std::string& text, const std::string& name,
                                                   TopologyKind kind = TopologyKind::detect);

}  // namespace tcsim::workload
