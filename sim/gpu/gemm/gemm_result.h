#pragma once
// The KernelResult of one planned GEMM (or implicit-GEMM) kernel: time, bound, utilisations and
// byte counts of the chosen mapping. Shared by plain GEMMs and the GEMM steps of convolutions.
#include "gpu/gemm/gemm_estimate.h"
#include "gpu/gemm/gemm_plan.h"
#include "workload/kernel_result.h"

namespace tcsim::gpu {

// `best` must come from choose_mapping(g, plan, ...); flops and name are left to the caller.
KernelResult gemm_result(const GpuConfig& g, const GemmPlan& plan, const Estimate& best);

}  // namespace tcsim::gpu
