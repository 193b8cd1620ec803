#include "gpu/gpu_model.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "gpu/attention_estimate.h"
#include "gpu/conv_model.h"
#include "gpu/gemm_estimate.h"
#include "gpu/gemm_result.h"
#include "gpu/gemm_plan.h"
#include "gpu/kernel_program.h"

namespace tcsim::gpu {

struct GpuModel::Cache {
  SmTimeCache sm;
  AttentionSmCache attention;
};

GpuModel::GpuModel(GpuConfig config) : config_(std::move(config)), cache_(std::make_unique<Cache>()) {
  config_.validate();
}

GpuModel::~GpuModel() = default;

KernelResult GpuModel::run(const Kernel& kernel) const {
  if (kernel.kind == Kernel::Kind::memory) return run_memory(kernel);
  if (kernel.kind == Kernel::Kind::attention) return estimate_attention(config_, kernel, cache_->attention);
  if (kernel.kind == Kernel::Kind::conv) return run_conv(config_, kernel, cache_->sm);
  const GemmPlan plan = plan_gemm(config_, kernel);
  if (plan.empty) {
    KernelResult r;
    r.name = kernel.name;
    r.flops = kernel.flops();
    r.notes = plan.notes;
    r.bound = "latency";
    r.mapping = "none (empty GEMM)";
    r.time_s = config_.launch_overhead_s;
    return r;
  }

  const Estimate best = choose_mapping(config_, plan, cache_->sm);
  KernelResult r = gemm_result(config_, plan, best);
  r.name = kernel.name;
  r.flops = kernel.flops();
  return r;
}

// A memory-bound kernel (elementwise, softmax, ...): its bytes at the achievable DRAM bandwidth,
// its flops at the CUDA-core rate, whichever is longer, plus one launch.
KernelResult GpuModel::run_memory(const Kernel& kernel) const {
  const GpuConfig& g = config_;
  KernelResult r;
  r.name = kernel.name;
  r.flops = kernel.flops();
  const double bytes = double(kernel.bytes_read) + double(kernel.bytes_written);
  const double dram_cycles = bytes / (g.dram_bytes_per_clk() * g.dram_efficiency);
  const double math_cycles = kernel.flops_nontensor / (2.0 * g.peak_ffma_per_clk() * g.sm_count);
  r.cycles = std::max({dram_cycles, math_cycles, g.dram_latency});
  r.time_s = r.cycles / g.clock_hz + g.launch_overhead_s;
  r.bound = dram_cycles >= math_cycles && dram_cycles > g.dram_latency ? "dram"
            : math_cycles > g.dram_latency                            ? "cuda_core"
                                                                      : "latency";
  r.mapping = "streaming kernel";
  r.set("dram_read_bytes", double(kernel.bytes_read));
  r.set("dram_write_bytes", double(kernel.bytes_written));
  r.set("dram_util_pct", 100 * bytes / (g.dram_bytes_per_clk() * r.cycles));
  r.set("launch_overhead_us", g.launch_overhead_s * 1e6);
  return r;
}

}  // namespace tcsim::gpu
