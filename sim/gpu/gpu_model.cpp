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
#include "gpu/memory_kernel.h"

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

KernelResult GpuModel::run_memory(const Kernel& kernel) const { return run_memory_kernel(config_, kernel); }

}  // namespace tcsim::gpu
