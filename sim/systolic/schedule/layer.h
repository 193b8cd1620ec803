#pragma once
// One layer as the systolic array sees it: SCALE-Sim's convolution geometry (a GEMM row is a
// convolution with IFMAP M x K, a 1 x K filter and N filters), the GEMM dimensions M, N, K, and the
// word address of every im2col element. Built from a tcsim Kernel under a Semantics.
#include <cstdint>
#include <string>

#include "systolic/config/systolic_config.h"
#include "workload/kernel.h"

namespace tcsim::systolic {

struct Layer {
  std::string name;
  std::int64_t ifmap_h = 0, ifmap_w = 0;    // H, W
  std::int64_t filter_h = 0, filter_w = 0;  // Fh, Fw
  std::int64_t channels = 0;                // C_in
  std::int64_t num_filters = 0;             // N
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t pad_h = 0, pad_w = 0;        // faithful semantics only (SCALE-Sim has no padding)
  std::int64_t out_h = 0, out_w = 0;        // E_h, E_w
  std::int64_t in_bytes = 1, out_bytes = 1; // bytes per operand / output word (faithful semantics)
  std::int64_t mac_cycles = 1;              // cycles per MAC step (array.formats' /N; faithful semantics)

  std::int64_t m() const { return out_h * out_w; }
  std::int64_t n() const { return num_filters; }
  std::int64_t k() const { return filter_h * filter_w * channels; }
  double macs() const { return static_cast<double>(m()) * static_cast<double>(n()) * static_cast<double>(k()); }

  // Address (in words, without the operand base offset) of im2col element (m, k), or -1 when the
  // window position lies outside the input (SCALE-Sim's overhang) or in the padding.
  std::int64_t ifmap_address(std::int64_t m, std::int64_t k) const;
  std::int64_t ifmap_words() const { return ifmap_h * ifmap_w * channels; }
};

// Bounds checked by make_layer (README "Bounds"): every dimension at most 2^31 (as the CSV readers'),
// every operand at most 2^40 words and at most 2^60 MACs, so that sizes, SRAM counts (folds x
// operand words) and trace addresses (offset + index) are exact in int64.
inline constexpr double kMaxOperandWords = 1099511627776.0;  // 2^40
inline constexpr double kMaxLayerMacs = 1152921504606846976.0;  // 2^60

// SCALE-Sim's output size: ceil((H - F + S) / S), i.e. the last window may overhang the input.
std::int64_t scalesim_out_size(std::int64_t in, std::int64_t filter, std::int64_t stride);

// The layer a kernel describes. Throws InputError(where, ...) for shapes the array cannot run
// (zero or negative sizes, a filter larger than the (padded) input, memory kernels).
// scalesim_v2 ignores padding (SCALE-Sim has none) and uses ceil output sizes; faithful uses the
// kernel's padding and floor((H + 2p - F) / S) + 1. Depthwise kernels must be expanded by the
// caller (one layer per channel), as SCALE-Sim does.
Layer make_layer(const Kernel& kernel, Semantics semantics, const std::string& where);

}  // namespace tcsim::systolic
