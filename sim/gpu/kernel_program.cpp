#include "gpu/kernel_program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "gpu/gemm/cublas_choice.h"
#include "gpu/conv/conv_model.h"

namespace tcsim::gpu {

namespace {
constexpr double kBoundSlack = 0.9;
}  // namespace

Estimate choose_mapping(const GpuConfig& g, const GemmPlan& plan, SmTimeCache& cache) {
  // library.sgemm_tile (analysis): every FP32 GEMM on cuBLAS's SIMT kernels runs that one tile.
  const bool forced = g.sgemm_tile_m > 0 && plan.path == MathPath::cuda_core && plan.problem.ab == FormatId::fp32 &&
                      plan.problem.simt == SimtKernels::cublas;
  std::vector<Mapping> candidates;
  std::string offered;  // the cuBLAS SIMT tiles there are, for the error of a forced tile none matches
  for (const Mapping& base : candidate_mappings(g, plan.problem, plan.path, plan.mma_row)) {
    if (forced) {
      const std::string tile = std::to_string(base.bm) + "x" + std::to_string(base.bn) + (base.slices > 1 ? "-sliced" : "");
      if (offered.find(" " + tile + ",") == std::string::npos) offered += " " + tile + ",";
      if (base.bm != g.sgemm_tile_m || base.bn != g.sgemm_tile_n || (base.slices > 1) != g.sgemm_tile_sliced) continue;
    } else {
      if (!plan.cta_tiles.empty() &&
          std::find(plan.cta_tiles.begin(), plan.cta_tiles.end(), std::make_pair(base.bm, base.bn)) == plan.cta_tiles.end())
        continue;
      if (base.slices > 1 && !plan.sliced_k) continue;
    }
    for (int split : split_options(g, plan.problem, base)) {
      if (plan.max_split_k > 0 && split > plan.max_split_k) continue;
      Mapping m = base;
      m.split_k = split;
      candidates.push_back(m);
    }
  }
  if (candidates.empty() && forced)
    throw InputError("gpu config " + g.name + ": library.sgemm_tile",
                     "no cuBLAS SIMT kernel with the CTA tile " + std::to_string(g.sgemm_tile_m) + "x" +
                         std::to_string(g.sgemm_tile_n) + (g.sgemm_tile_sliced ? "-sliced" : "") +
                         " fits this GPU (the tiles:" + offered.substr(0, offered.empty() ? 0 : offered.size() - 1) + ")");
  if (candidates.empty())
    throw InputError("gpu config " + g.name,
                     "no CTA tile fits (shared memory, registers or warps per SM too small for any mapping)");
  // Branch and bound: simulate the candidates in the order of their lower bounds and skip those
  // whose bound is already above the best time found (most tiles of a big GEMM, most split-K
  // factors). The winner is the one the full scan would pick. The bound is taken with 10% slack:
  // a steady-state period extrapolated from a short window can come out a few per cent under the
  // pipes' peak (SIMT loops with several CTAs per SM: up to 3% in test_mapping_search.cpp).
  std::vector<double> bound(candidates.size());
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double b = time_lower_bound_s(g, plan.problem, candidates[i]);
    bound[i] = std::isfinite(b) && b > 0 ? b : 0.0;  // no usable bound: always simulated
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bound[a] < bound[b]; });
  std::vector<std::optional<Estimate>> estimates(candidates.size());
  double best_time = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    if (bound[i] * kBoundSlack > best_time * (1 + 1e-6)) break;
    estimates[i] = estimate(g, plan.problem, candidates[i], cache);
    best_time = std::min(best_time, estimates[i]->time_s);
  }
  // Ties go to the first candidate (deterministic; the larger tile, as cuBLAS prefers).
  const Estimate* best = nullptr;
  for (const auto& e : estimates)
    if (e && (!best || e->time_s < best->time_s * (1 - 1e-9))) best = &*e;
  return *best;
}

KernelProgram kernel_program(const GpuConfig& g, const Kernel& kernel) {
  KernelProgram kp;
  if (kernel.kind == Kernel::Kind::conv) {
    // The GEMM cuDNN's algorithm runs for it (conv_lowering.h), as GpuModel::run costs it.
    SmTimeCache conv_cache;
    ConvLowering L = run_conv(g, kernel, conv_cache).lowering;
    if (!L.has_gemm)
      throw InputError("kernel " + kernel.name, std::string(cudnn_name(L.choice.algo)) + " runs no GEMM program");
    kp.plan = std::move(L.gemm);
  } else {
    kp.plan = plan_gemm(g, kernel);
    apply_cublas_choice(g, kp.plan);
    if (const auto gemv = cublas_gemv(g, kernel))
      throw InputError("kernel " + kernel.name, "M or N is 1: the library runs its matrix-vector kernel (" + gemv->kernel +
                                                    "), which has no tile program to show");
  }
  SmTimeCache cache;
  kp.chosen = choose_mapping(g, kp.plan, cache);
  kp.program = build_program(g, kp.plan.problem, kp.chosen.mapping, kp.chosen.iterations);
  return kp;
}

namespace {

std::vector<Instr> visible(const std::vector<Instr>& code, int warp) {
  std::vector<Instr> out;
  for (const auto& i : code)
    if (!i.leader_only || warp == 0) out.push_back(i);
  return out;
}

}  // namespace

std::string dump_program(const GpuConfig& g, const KernelProgram& kp, int warp) {
  const Mapping& m = kp.chosen.mapping;
  if (warp < 0 || warp >= m.warps)
    throw InputError("--warp", "expected a warp of the CTA, 0.." + std::to_string(m.warps - 1) + ", got " +
                                   std::to_string(warp));
  std::ostringstream h;
  const auto& p = kp.plan.problem;
  h << "# kernel: GEMM " << p.m << "x" << p.n << "x" << p.k;
  if (p.batch > 1) h << " batch " << p.batch;
  h << " " << format_name(p.ab) << " -> " << format_name(p.acc) << " on " << g.name << " (" << g.arch << ")\n";
  h << "# mapping: " << m.describe(g) << "\n";
  h << "# CTA: " << m.warps << " warps, " << m.regs_per_thread << " registers/thread, " << m.smem_bytes
    << " B shared memory, " << kp.chosen.ctas_per_sm << " CTAs/SM; " << kp.chosen.tiles << " CTAs\n";
  if (m.path == MathPath::tensor) {
    const MmaInstr& r = g.mma[m.mma_row];
    char buf[200];
    std::snprintf(buf, sizeof buf, "# MMA = %s m%dn%dk%d: %d SASS x %.4g cycles, latency %.4g\n", r.name.c_str(), r.m, r.n,
                  r.k, r.sass_count, r.issue_interval, r.latency);
    h << buf;
  }
  for (const auto& n : kp.plan.notes) h << "# note: " << n << "\n";
  h << "# warp " << warp << " (sub-core " << warp % g.subcores_per_sm << "); slots s<n> are register/barrier "
    << "dependences; bytes are per warp (TMA: per CTA)\n";
  WarpProgram shown = kp.program;
  shown.prologue = visible(kp.program.prologue, warp);
  shown.body = visible(kp.program.body, warp);
  shown.epilogue = visible(kp.program.epilogue, warp);
  return format_program(shown, h.str());
}

std::string dump_timeline(const GpuConfig& g, const KernelProgram& kp, int warp, int max_lines) {
  const Mapping& m = kp.chosen.mapping;
  const std::int64_t iters = std::min<std::int64_t>(kp.chosen.iterations, m.stages + 4);
  const WarpProgram prog = build_program(g, kp.plan.problem, m, iters);
  SmEnvironment env = kp.chosen.env;
  env.record_issues = true;
  const SmRunStats st = simulate_sm(g, prog, m.warps, 1, env);
  std::ostringstream o;
  o << "# issue timeline of warp " << warp << " of one CTA (" << iters << " k-iterations simulated alone)\n";
  static const char* sections[] = {"prologue", "loop", "epilogue"};
  int lines = 0;
  for (const auto& r : st.issues) {
    if (r.warp != warp || r.cta != 0) continue;
    if (lines++ >= max_lines) break;
    const auto& code = r.section == 0 ? prog.prologue : r.section == 1 ? prog.body : prog.epilogue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%8.0f  %-8s ", r.cycle, sections[r.section]);
    o << buf;
    if (r.section == 1) o << "i=" << r.iteration << "  ";
    o << format_instr(code[r.pc]) << "\n";
  }
  o << "# SM cycles for this run: " << st.cycles << "\n";
  return o.str();
}

}  // namespace tcsim::gpu
