#include "gpu/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "gpu/attention/attention_estimate.h"
#include "gpu/gemm/cublas_choice.h"
#include "gpu/conv/conv_model.h"
#include "gpu/gemm/gemm_estimate.h"
#include "gpu/gemm/gemm_result.h"
#include "gpu/gemm/gemm_plan.h"
#include "gpu/gemm/gemv/gemv_estimate.h"
#include "gpu/kernel_program.h"
#include "gpu/memory/memory_kernel.h"
#include "gpu/power/activity.h"
#include "gpu/power/clock_governor.h"
#include "gpu/power/energy_model.h"

namespace tcsim::gpu {

namespace {

KernelResult empty_gemm(const GpuConfig& g, const Kernel& kernel, const GemmPlan& plan) {
  KernelResult r;
  r.name = kernel.name;
  r.flops = kernel.flops();
  r.notes = plan.notes;
  r.bound = "latency";
  r.mapping = "none (empty GEMM)";
  r.time_s = g.launch_overhead_s;
  return r;
}

KernelResult gemm_kernel(const GpuConfig& g, const Kernel& kernel, const GemmPlan& plan, const Estimate& e) {
  KernelResult r = gemm_result(g, plan, e);
  r.name = kernel.name;
  r.flops = kernel.flops();
  return r;
}

}  // namespace

struct GpuModel::Cache {
  SmTimeCache sm;
  AttentionSmCache attention;
};

GpuModel::GpuModel(GpuConfig config) : config_(std::move(config)), cache_(std::make_unique<Cache>()) {
  config_.validate();
}

GpuModel::~GpuModel() = default;

KernelResult GpuModel::run(const Kernel& kernel) const { return run_clocked(kernel, 0); }

KernelResult GpuModel::run_fixed_clock(const Kernel& kernel, double clock_hz) const {
  return run_clocked(kernel, clock_hz > 0 ? clock_hz : config_.clock_hz);
}

std::vector<double> GpuModel::power_capped_clocks() const {
  if (config_.power.mode != PowerConfig::Mode::boost) return {};
  return config_.power.clock_steps(config_.clock_hz);
}

KernelResult GpuModel::run_clocked(const Kernel& kernel, double fixed_hz) const {
  if (const std::string problem = kernel_size_problem(kernel); !problem.empty())
    throw InputError(kernel.name, "too large for the model: " + problem);
  const double boost = config_.clock_hz;
  auto at_clock = [&](double hz) {
    GpuConfig g = config_;
    g.clock_hz = hz;
    return g;
  };
  // A GEMM keeps the kernel the library picks at boost, a convolution the algorithm and kernel cuDNN
  // picks: the libraries choose by shape, not by clock (and re-costing one choice is cheaper than
  // choosing again at every candidate clock). Memory-bound and attention kernels are re-run.
  RunAtClock run_at = [&](double hz) { return run_at_clock(hz == boost ? config_ : at_clock(hz), kernel); };
  GemmPlan plan;
  Estimate best;
  ConvPick conv;
  if (kernel.kind == Kernel::Kind::gemm) {
    plan = plan_gemm(config_, kernel);
    apply_cublas_choice(config_, plan);
    if (plan.empty) return empty_gemm(config_, kernel, plan);
    if (const auto gemv = cublas_gemv(config_, kernel)) {
      // M or N is 1: the library's matrix-vector kernel (gemm/gemv/), not a tile.
      run_at = [&, launch = *gemv](double hz) { return run_gemv(hz == boost ? config_ : at_clock(hz), kernel, launch); };
    } else {
      best = choose_mapping(config_, plan, cache_->sm);
      run_at = [&](double hz) {
        if (hz == boost) return gemm_kernel(config_, kernel, plan, best);
        const GpuConfig g = at_clock(hz);
        return gemm_kernel(g, kernel, plan, estimate(g, plan.problem, best.mapping, cache_->sm));
      };
    }
  } else if (kernel.kind == Kernel::Kind::conv) {
    conv = run_conv(config_, kernel, cache_->sm);
    run_at = [&](double hz) { return hz == boost ? conv.result : run_conv_pick(at_clock(hz), kernel, conv, cache_->sm); };
  }
  ClockChoice c;
  if (fixed_hz > 0) {  // the caller's clock (a step's shared clock): no per-kernel cap
    c.result = run_at(fixed_hz);
    c.clock_hz = fixed_hz;
    c.busy_power_w = busy_power_w(config_.power, Activity::of(c.result), kernel.a_format,
                                  config_.power.voltage_ratio(fixed_hz), c.result.cycles / fixed_hz);
  } else {
    c = choose_clock(config_.power, boost, kernel.a_format, run_at);
  }
  KernelResult r = c.result;
  const double ratio = config_.power.voltage_ratio(c.clock_hz);
  const double busy_s = r.cycles / c.clock_hz;
  const EnergyBreakdown e = kernel_energy(config_.power, Activity::of(r), kernel.a_format, ratio, busy_s, r.time_s);
  const double total = e.total_j();
  r.set("clock_mhz", c.clock_hz / 1e6);
  r.set("power_bound", c.power_bound ? 1 : 0);
  r.set("energy_j", total);
  r.set("avg_power_w", r.time_s > 0 ? total / r.time_s : 0);
  r.set("busy_power_w", c.busy_power_w);
  for (const auto& [unit, j] : e.parts) r.set(std::string("energy_") + unit + "_pct", total > 0 ? 100 * j / total : 0);
  if (c.power_bound) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "power-limited: %.0f MHz instead of %.0f MHz (%.0f W at the %.0f W limit)",
                  c.clock_hz / 1e6, boost / 1e6, c.busy_power_w, config_.power.limit_w);
    r.notes.push_back(buf);
  }
  return r;
}

KernelResult GpuModel::run_at_clock(const GpuConfig& g, const Kernel& kernel) const {
  if (kernel.kind == Kernel::Kind::memory) return run_memory_kernel(g, kernel);
  return estimate_attention(g, kernel, cache_->attention);
}

}  // namespace tcsim::gpu
