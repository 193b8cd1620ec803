#include "gpu/conv/conv_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gpu/gemm/gemm_result.h"
#include "gpu/kernel_program.h"
#include "gpu/power/activity.h"

namespace tcsim::gpu {

namespace {

std::string fmt_us(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
}

// Events of a streaming kernel for the energy model: its flops as FMAs, 16-byte vector loads and
// stores through L1, 2 register sources per instruction.
Activity streaming_activity(const StreamingKernel& k) {
  Activity a;
  const double bytes = k.read_bytes + k.write_bytes;
  a.ffma = k.flops / 2;
  a.warp_instructions = a.ffma / 32 + bytes / (32 * 16);
  a.rf_reads = 2 * a.warp_instructions;
  a.l1_bytes = bytes;
  return a;
}

// L2 bytes one scattered fp32 atomic add costs: the L2 applies it to its own 32-byte sector, read and
// written back (a col2im scatter's lanes rarely share one). At the measured L2 rate (h100.yaml:
// 3887 B/clk x 0.9) that is 54.7 atomics per SM clock; the H100 FP32 dgrad_engine calls bound by
// them (K = 32, 5x20 and 5x5 filters, 6-150 waves) ran 52-61 (validation/measured/H100/conv_deepbench).
constexpr double kAtomicL2Bytes = 2 * 32;

// A GEMM whose epilogue adds its outputs into memory with atomics (ConvLowering::scatter_atomics):
// the atomics stream through the L2 while other CTAs compute, so the kernel takes the longer of its
// GEMM and its atomics at the L2's rate.
void add_scatter_atomics(const GpuConfig& g, double atomics, KernelResult& r) {
  const double bytes = atomics * kAtomicL2Bytes;
  const double cycles = bytes / (g.l2_bytes_per_clk * g.l2_efficiency);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0f fp32 atomic adds at the L2: %.1f us", atomics, cycles / g.clock_hz * 1e6);
  r.notes.push_back(buf);
  if (cycles > r.cycles) {
    r.time_s += (cycles - r.cycles) / g.clock_hz;
    r.cycles = cycles;
    r.bound = "l2_atomics";
  }
  r.set("l2_atomics", atomics);
  r.set("l2_write_bytes", r.get("l2_write_bytes").value_or(0) + bytes);
}

// `pinned`: cost the GEMM with this mapping instead of choosing one (the power governor's re-runs).
KernelResult cost_lowering(const GpuConfig& g, const Kernel& k, const ConvLowering& L, SmTimeCache& cache,
                           const Mapping* pinned = nullptr, Mapping* chosen = nullptr) {
  const std::string algo = "cuDNN " + std::string(cudnn_name(L.choice.algo));
  KernelResult r;
  if (L.has_gemm) {
    const Estimate best = pinned ? estimate(g, L.gemm.problem, *pinned, cache) : choose_mapping(g, L.gemm, cache);
    if (chosen) *chosen = best.mapping;
    r = gemm_result(g, L.gemm, best);
    r.mapping = algo + ": " + r.mapping;
    if (L.scatter_atomics > 0) add_scatter_atomics(g, L.scatter_atomics, r);
    r.cycles += L.fixed_cycles;
    r.time_s += L.fixed_cycles / g.clock_hz;
  } else {
    const StreamingCost c = streaming_cost(g, L.direct);
    r.cycles = c.cycles;
    r.time_s = c.time_s;
    r.bound = c.math_bound ? "cuda_core" : c.in_l2 ? "l2" : "dram";
    r.mapping = algo + ": streaming kernel";
    r.set("dram_read_bytes", L.direct.read_bytes);
    r.set("dram_write_bytes", L.direct.write_bytes);
    r.set("l2_read_bytes", L.direct.read_bytes);
    r.set("l2_write_bytes", L.direct.write_bytes);
    r.set_launches(1, g.launch_overhead_s);
    streaming_activity(L.direct).record(r);
  }
  r.name = k.name;
  r.flops = k.flops();
  r.notes.insert(r.notes.begin(), L.notes.begin(), L.notes.end());

  double helper_cycles = 0, helper_read = 0, helper_write = 0;
  std::string names;
  // Repeated calls find a helper's input in L2 only if the whole convolution's bytes fit there: the
  // GEMM's operands and output and every helper's.
  double footprint = 0;
  for (const auto& h : L.helpers) footprint += h.read_bytes + h.write_bytes;
  if (L.has_gemm) {
    const GemmProblem& p = L.gemm.problem;
    footprint += double(p.batch) * (p.a_stored_bytes() + p.b_stored_bytes() + double(p.m) * double(p.n) * p.c_bytes);
  }
  for (StreamingKernel h : L.helpers) {
    h.footprint_bytes = footprint;
    const StreamingCost c = streaming_cost(g, h);
    helper_cycles += c.cycles, helper_read += h.read_bytes, helper_write += h.write_bytes;
    names += (names.empty() ? "" : ", ") + h.what;
    char buf[64];
    std::snprintf(buf, sizeof buf, ": %.1f us on the GPU%s", c.cycles / g.clock_hz * 1e6 + g.empty_kernel_s * 1e6,
                  c.in_l2 ? " (in L2)" : "");
    r.notes.push_back(h.what + buf);
  }
  // A helper's GPU time: its work and an empty kernel's duration (kernel.empty_duration).
  const double helper_s = helper_cycles / g.clock_hz + double(L.helpers.size()) * g.empty_kernel_s;
  if (!L.helpers.empty()) {
    // Launches are asynchronous: in a stream of calls the host enqueues a helper while the
    // previous kernel runs, so a helper adds its GPU time; the host's launch rate (one
    // launch_overhead per kernel) is the floor of the whole call.
    const double launches = r.get("launches").value_or(1) + double(L.helpers.size());
    r.time_s = std::max(r.time_s + helper_s, launches * g.launch_overhead_s);
    r.cycles += helper_cycles;
    r.mapping += "; + " + names;
    r.set("dram_read_bytes", r.get("dram_read_bytes").value_or(0) + helper_read);
    r.set("dram_write_bytes", r.get("dram_write_bytes").value_or(0) + helper_write);
    r.set("l2_read_bytes", r.get("l2_read_bytes").value_or(0) + helper_read);
    r.set("l2_write_bytes", r.get("l2_write_bytes").value_or(0) + helper_write);
    Activity act = Activity::of(r);
    for (const auto& h : L.helpers) act.add(streaming_activity(h));
    act.record(r);
    r.set_launches(launches, g.launch_overhead_s);
  }
  r.set("helper_kernels", double(L.helpers.size()));
  r.set("helper_time_us", helper_s * 1e6);
  return r;
}

// The note that lists the candidates' times: cudnnFind's (benchmark mode), or cuDNN 9's heuristic
// where the model keeps the faster of the kernels it is seen to pick (conv_candidates).
std::string choice_note_prefix(const GpuConfig& g, const Kernel& k) {
  return cudnn9_heuristic(g, k) ? "cuDNN 9 heuristic, modelled as the fastest of: " : "benchmark mode, fastest of: ";
}

// The candidates as (the kernel cuDNN would run, the algorithm). Benchmark mode with TF32 allowed
// (PyTorch's allow_tf32 on FP32 tensors) also times the FP32 CUDA-core algorithms on the same
// tensors: allow_tf32 permits the tensor cores, it does not require them (PyTorch's cuDNN v8 path
// drops the tensor-core engines of FP32 convolutions when TF32 is off, none when it is on). Without
// them a TF32 step could be slower than the FP32 one where a convolution pays much padding on the
// tensor cores (an RGB first layer: C = 3 -> 8 -> a 32-channel block per tap) or where FP32 Winograd
// beats a TF32 rate only twice the FP32 one (sm_86/sm_89 boards).
std::vector<std::pair<Kernel, ConvChoice>> candidate_kernels(const GpuConfig& g, const Kernel& k) {
  std::vector<std::pair<Kernel, ConvChoice>> out;
  for (const ConvChoice& c : conv_candidates(g, k)) out.emplace_back(k, c);
  const bool tf32_benchmark = out.front().second.tensor_cores && k.a_format == FormatId::tf32 &&
                              cudnn_version(g, k) >= 8 && !cudnn9_heuristic(g, k);
  if (tf32_benchmark) {
    Kernel fp32 = k;
    fp32.a_format = fp32.b_format = FormatId::fp32;
    for (ConvChoice c : conv_candidates(g, fp32)) {
      c.why = "TF32 allowed, not required: " + c.why;
      out.emplace_back(fp32, c);
    }
  }
  return out;
}

// Lowers and costs every candidate algorithm; the fastest wins (ties: the earlier, the rule's).
ConvPick fastest(const GpuConfig& g, const Kernel& k, SmTimeCache& cache) {
  check_conv(k);
  const std::vector<std::pair<Kernel, ConvChoice>> candidates = candidate_kernels(g, k);
  // Where TF32 and FP32 kernels compete, each candidate says which it is.
  const bool mixed = candidates.back().first.a_format != k.a_format;
  auto label = [mixed](const std::pair<Kernel, ConvChoice>& c) {
    return cudnn_name(c.second.algo) + std::string(!mixed ? "" : c.second.tensor_cores ? " (TF32)" : " (FP32)");
  };
  ConvPick best;
  best.lowering = lower_conv(g, candidates.front().first, candidates.front().second);
  best.result = cost_lowering(g, k, best.lowering, cache, nullptr, &best.mapping);
  std::string tried = label(candidates.front()) + " " + fmt_us(best.result.time_s);
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    ConvLowering l = lower_conv(g, candidates[i].first, candidates[i].second);
    Mapping m;
    KernelResult r = cost_lowering(g, k, l, cache, nullptr, &m);
    tried += ", " + label(candidates[i]) + " " + fmt_us(r.time_s);
    if (r.time_s < best.result.time_s * (1 - 1e-9)) best.lowering = std::move(l), best.result = std::move(r), best.mapping = m;
  }
  if (candidates.size() > 1) best.result.notes.insert(best.result.notes.begin(), choice_note_prefix(g, k) + tried);
  return best;
}

}  // namespace

ConvPick run_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache) { return fastest(g, k, cache); }

ConvLowering pick_conv(const GpuConfig& g, const Kernel& k, SmTimeCache& cache) { return fastest(g, k, cache).lowering; }

KernelResult run_conv_pick(const GpuConfig& g, const Kernel& k, const ConvPick& pick, SmTimeCache& cache) {
  KernelResult r = cost_lowering(g, k, pick.lowering, cache, pick.lowering.has_gemm ? &pick.mapping : nullptr);
  const std::string prefix = choice_note_prefix(g, k);
  for (const auto& n : pick.result.notes)
    if (n.rfind(prefix, 0) == 0) r.notes.insert(r.notes.begin(), n);
  return r;
}

}  // namespace tcsim::gpu
