#pragma once
// What one run of a kernel did, in events the energy model prices: instructions, lane operations,
// tensor-core MACs, register-file reads, and bytes at each memory level. Counts do not depend on
// the clock. The timing code (gemm_result, attention, memory and conv kernels) records them as
// KernelResult metrics under these names, so a kernel made of several (a conv with its helper
// kernels) adds them like any other metric.
#include "workload/kernel_result.h"

namespace tcsim::gpu {

struct Activity {
  // Warp instructions issued, MMAs excepted: a tensor-core MAC's energy includes its instruction's
  // issue and operand delivery (the measured per-MAC figures do), an FFMA's lane op does not.
  double warp_instructions = 0;
  double ffma = 0;               // thread FP32 lane ops on the CUDA cores
  double mufu = 0;               // thread special-function results
  double rf_reads = 0;           // warp-register reads
  double tensor_fma = 0;         // tensor-core MACs executed (padding included)
  double smem_bytes = 0;
  double l1_bytes = 0;
  double l2_bytes = 0;           // reads and writes
  double dram_bytes = 0;         // reads and writes

  // Metric names (counts carry `_ops`/`_bytes`; the l2/dram reads and writes are the timing metrics).
  static constexpr const char* kWarpInstructions = "warp_instructions";
  static constexpr const char* kFfma = "ffma_ops";
  static constexpr const char* kMufu = "mufu_ops";
  static constexpr const char* kRfReads = "rf_reads";
  static constexpr const char* kTensorFma = "tensor_fma_ops";
  static constexpr const char* kSmem = "smem_bytes";
  static constexpr const char* kL1 = "l1_bytes";

  void add(const Activity& o);
  // Reads the counts from a result's metrics (missing ones are 0).
  static Activity of(const KernelResult& r);
  // Records the counts this struct owns (not the l2/dram metrics, which the timing code sets).
  void record(KernelResult& r) const;
};

}  // namespace tcsim::gpu
