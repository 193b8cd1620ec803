// GpuConfig: reading a loaded `kind: gpu` config, and the semantic checks of impossible configs.
#include "gpu/gpu_config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/text/strings.h"
#include "config/config.h"

namespace tcsim::gpu {

double MmaInstr::pipe_cycles(int n_used) const {
  const double full = issue_interval * sass_count;
  if (kind != MmaKind::wgmma || n_used <= 0 || n_used >= n) return full;
  return full * double(n_used) / double(n);
}

double MmaInstr::latency_at(int n_used) const {
  if (kind != MmaKind::wgmma) return latency;
  // latency = fixed tail + the issue-rate term, which scales with N (timing.md 2.1, H200 fit).
  return latency - pipe_cycles(n) + pipe_cycles(n_used);
}

bool MmaInstr::accepts(FormatId a, FormatId c) const {
  if (c != acc) return false;
  return std::find(ab.begin(), ab.end(), a) != ab.end();
}

namespace {
// The row with the highest per-SM rate among those taking these formats (sync_only: no wgmma).
const MmaInstr* fastest_mma(const GpuConfig& g, FormatId ab_fmt, FormatId acc_fmt, bool sparse, bool sync_only) {
  const MmaInstr* best = nullptr;
  double best_rate = 0;
  for (const auto& i : g.mma) {
    if (i.sparse != sparse || !i.accepts(ab_fmt, acc_fmt) || (sync_only && i.kind == MmaKind::wgmma)) continue;
    const double rate = i.fma() / i.pipe_cycles(i.n) / (i.kind == MmaKind::wgmma ? g.subcores_per_sm : 1);
    if (rate > best_rate) best = &i, best_rate = rate;
  }
  return best;
}
}  // namespace

const MmaInstr* GpuConfig::find_mma(FormatId ab_fmt, FormatId acc_fmt, bool sparse) const {
  return fastest_mma(*this, ab_fmt, acc_fmt, sparse, false);
}

const MmaInstr* GpuConfig::find_sync_mma(FormatId ab_fmt, FormatId acc_fmt, bool sparse) const {
  return fastest_mma(*this, ab_fmt, acc_fmt, sparse, true);
}

double GpuConfig::peak_tensor_fma_per_clk(FormatId ab_fmt, FormatId acc_fmt, bool sparse) const {
  const MmaInstr* i = find_mma(ab_fmt, acc_fmt, sparse);
  if (!i) return 0;
  const double per_subcore = i->fma() / i->pipe_cycles(i->n) / (i->kind == MmaKind::wgmma ? subcores_per_sm : 1);
  return per_subcore * subcores_per_sm;
}

namespace {

void fail(const std::string& field, const std::string& what) { throw InputError("gpu config: " + field, what); }

// "m16n8k16" -> 16, 8, 16. (Hand-written: std::regex trips -Wmaybe-uninitialized under ASan.)
bool parse_shape(const std::string& text, int& m, int& n, int& k) {
  int* out[3] = {&m, &n, &k};
  const char tags[3] = {'m', 'n', 'k'};
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    if (pos >= text.size() || text[pos] != tags[i]) return false;
    ++pos;
    long v = 0;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 6) v = v * 10 + (text[pos++] - '0');
    if (pos == start) return false;
    *out[i] = int(v);
  }
  return pos == text.size() && m > 0 && n > 0 && k > 0 && m <= 256 && n <= 256 && k <= 1024;
}

// A release "major.minor" (2.1, 2.11; two digits at most each, major >= 1) -> major * 100 + minor,
// or -1. A release, not a decimal number: 2.11 comes after 2.4.
int parse_release(const std::string& text) {
  const auto dot = text.find('.');
  auto number = [](std::string_view t) {
    if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string_view::npos) return -1;
    return std::stoi(std::string(t));
  };
  if (dot == std::string::npos) return -1;
  const int major = number(std::string_view(text).substr(0, dot)), minor = number(std::string_view(text).substr(dot + 1));
  return major >= 1 && minor >= 0 ? major * 100 + minor : -1;
}

}  // namespace

void GpuConfig::validate() const {
  if (max_warps_per_sm % subcores_per_sm != 0)
    fail("sm.max_warps", "expected a multiple of sm.subcores (" + std::to_string(subcores_per_sm) + "), got " +
                             std::to_string(max_warps_per_sm));
  if (max_warps_per_sm > subcores_per_sm * warp_schedulers_per_subcore * warp_slots_per_scheduler)
    fail("sm.max_warps", "more warps (" + std::to_string(max_warps_per_sm) + ") than the schedulers hold (" +
                             std::to_string(subcores_per_sm) + " sub-cores x " +
                             std::to_string(warp_schedulers_per_subcore) + " schedulers x " +
                             std::to_string(warp_slots_per_scheduler) + " warp slots)");
  if (max_warps_per_sm / subcores_per_sm < 1) fail("sm.max_warps", "expected at least one warp per sub-core");
  // The smallest kernel tile any mapping uses: 32x32x8 fp32 operands (sgemm) in one stage.
  const std::uint64_t smallest_tile = (32 + 32) * 8 * 4;
  if (max_smem_per_cta < smallest_tile || max_smem_per_sm < smallest_tile)
    fail("sm.max_shared_memory", "shared memory too small for any tile: need at least " +
                                     std::to_string(smallest_tile) + " bytes");
  if (max_smem_per_cta > max_smem_per_sm)
    fail("sm.max_shared_memory_per_cta", "cannot exceed sm.max_shared_memory");
  if (max_smem_per_sm > l1_size) fail("sm.max_shared_memory", "cannot exceed l1.size (shared memory is carved from L1)");
  if (smem_bytes_per_clk > double(smem_banks) * smem_bank_bytes * 1.001)
    fail("shared_memory.bandwidth", "cannot exceed shared_memory.banks x shared_memory.bank_width per clock (" +
                                        std::to_string(smem_banks * smem_bank_bytes) + " B/clk)");
  if (registers_per_sm < std::int64_t(max_registers_per_thread) * 32)
    fail("sm.registers", "too few registers for one warp at sm.max_registers_per_thread");
  for (const auto& i : mma) {
    const double ideal = i.fma() / (i.issue_interval * i.sass_count) /
                         (i.kind == MmaKind::wgmma ? subcores_per_sm : 1);
    // The effective interval may be longer than the ideal (measured losses), never shorter.
    if (ideal > i.fma_per_clk * 1.001)
      fail("mma." + i.name + ".issue_interval",
           "shape " + std::to_string(i.m) + "x" + std::to_string(i.n) + "x" + std::to_string(i.k) + " in " +
               std::to_string(i.sass_count) + " x " + std::to_string(i.issue_interval) +
               " cycles exceeds fma_per_clk " + std::to_string(i.fma_per_clk));
    if (i.kind == MmaKind::wgmma && arch != "sm_90") fail("mma." + i.name + ".kind", "wgmma needs arch sm_90");
    if (i.sparse && (arch == "sm_70" || arch == "sm_75"))
      fail("mma." + i.name + ".sparse", "2:4 sparse MMA (mma.sp) needs arch sm_80 or later");
  }
}

GpuConfig GpuConfig::from(const config::Config& c) {
  GpuConfig g;
  g.name = c.string("name");
  g.arch = c.string("arch");
  g.clock_hz = c.frequency_hz("clock");
  g.sm_count = int(c.integer("sm.count"));
  g.subcores_per_sm = int(c.integer("sm.subcores"));
  g.max_warps_per_sm = int(c.integer("sm.max_warps"));
  g.max_ctas_per_sm = int(c.integer("sm.max_ctas"));
  g.max_threads_per_cta = int(c.integer("sm.max_threads_per_cta"));
  g.registers_per_sm = c.integer("sm.registers");
  g.max_registers_per_thread = int(c.integer("sm.max_registers_per_thread"));
  g.max_smem_per_sm = c.bytes("sm.max_shared_memory");
  g.max_smem_per_cta = c.bytes("sm.max_shared_memory_per_cta");
  g.fp32_lanes_per_subcore = int(c.integer("sm.fp32_lanes_per_subcore"));
  g.ffma_latency = c.cycles("sm.ffma_latency");
  g.sfu_lanes_per_subcore = int(c.integer("sm.sfu_lanes_per_subcore"));
  g.int32_lanes_per_subcore = int(c.integer("sm.int32_lanes_per_subcore"));
  g.warp_schedulers_per_subcore = int(c.integer("scheduler.per_subcore"));
  g.scheduler_policy = c.string("scheduler.policy") == "lrr" ? SchedulerPolicy::lrr : SchedulerPolicy::gto;
  g.issue_per_scheduler_per_clk = int(c.integer("scheduler.issue_per_clk"));
  g.warp_slots_per_scheduler = int(c.integer("scheduler.warp_slots"));
  g.rf_banks_per_subcore = int(c.integer("register_file.banks_per_subcore"));
  g.rf_read_ports_per_bank = int(c.integer("register_file.read_ports_per_bank"));
  const std::string ce = c.string("tensor.copy_engine");
  g.copy_engine = ce == "tma" ? CopyEngine::tma : ce == "cp_async" ? CopyEngine::cp_async : CopyEngine::ldg_sts;
  if (g.copy_engine == CopyEngine::tma && g.arch != "sm_90")
    throw InputError(c.where("tensor.copy_engine"), "tma needs arch sm_90");
  if (g.copy_engine == CopyEngine::cp_async && (g.arch == "sm_70" || g.arch == "sm_75"))
    throw InputError(c.where("tensor.copy_engine"), "cp_async needs arch sm_80 or later");

  const auto rows = c.list("mma");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    MmaInstr i;
    i.name = row.string("name");
    i.kind = row.string("kind") == "wgmma" ? MmaKind::wgmma : MmaKind::sync;
    if (!parse_shape(row.string("shape"), i.m, i.n, i.k))
      throw InputError(row.where("shape"), "expected a shape like m16n8k16, got '" + row.string("shape") + "'");
    for (const auto& f : split(row.string("ab"), ',')) {
      const auto id = parse_format(trim(f));
      if (!id) throw InputError(row.where("ab"), "unknown format '" + std::string(trim(f)) + "'; expected e.g. fp16,bf16");
      i.ab.push_back(*id);
    }
    const auto acc = parse_format(row.string("acc"));
    if (!acc) throw InputError(row.where("acc"), "unknown format '" + row.string("acc") + "'; expected e.g. fp32");
    i.acc = *acc;
    i.sass_count = int(row.integer("sass_count"));
    i.issue_interval = row.cycles("issue_interval");
    i.latency = row.cycles("latency");
    i.fma_per_clk = row.number("fma_per_clk");
    i.issue_cycles = row.cycles("issue_cycles");
    i.sparse = row.boolean("sparse");
    if (i.latency < i.issue_interval * 0.999)
      throw InputError(row.where("latency"), "expected a latency of at least the issue interval");
    g.mma.push_back(i);
  }

  g.smem_banks = int(c.integer("shared_memory.banks"));
  g.smem_bank_bytes = int(c.bytes("shared_memory.bank_width"));
  g.smem_bytes_per_clk = c.bytes_per_cycle("shared_memory.bandwidth");
  g.smem_latency = c.cycles("shared_memory.latency");
  g.smem_instruction_interval = c.cycles("shared_memory.instruction_interval");
  g.l1_size = c.bytes("l1.size");
  g.l1_bytes_per_clk = c.bytes_per_cycle("l1.bandwidth");
  g.l1_latency = c.cycles("l1.latency");
  g.narrow_request_interval = c.cycles("l1.narrow_request_interval");
  g.l2_size = c.bytes("l2.size");
  g.l2_partitions = int(c.integer("l2.partitions"));
  g.l2_bytes_per_clk = c.bytes_per_cycle("l2.bandwidth");
  g.l2_efficiency = c.number("l2.efficiency");
  g.l2_line_requests_per_clk = c.number("l2.line_requests_per_clock");
  g.l2_latency = c.cycles("l2.latency");
  g.l2_far_latency = c.cycles("l2.far_latency") > 0 ? c.cycles("l2.far_latency") : g.l2_latency;
  if (g.l2_far_latency < g.l2_latency)
    throw InputError(c.where("l2.far_latency"), "expected at least l2.latency (a far partition is not nearer), or 0");
  g.dram_size_bytes = double(c.bytes("dram.size"));
  g.dram_bytes_per_s = c.bandwidth_bytes_per_s("dram.bandwidth");
  g.dram_efficiency = c.number("dram.efficiency");
  g.dram_latency = c.cycles("dram.latency");
  g.dram_channels = int(c.integer("dram.channels"));
  g.dram_activate_interval_s = c.time_s("dram.activate_interval");
  g.dram_access_granularity = double(c.bytes("dram.access_granularity"));
  g.dram_run_overhead = double(c.bytes("dram.run_overhead"));
  g.launch_overhead_s = c.time_s("kernel.launch_overhead");
  g.empty_kernel_s = c.time_s("kernel.empty_duration");
  g.queue_gap_s = c.time_s("kernel.queue_gap");
  g.host_kernel_overhead_s = c.time_s("host.kernel_overhead");
  g.host_launch_delay_s = c.time_s("host.launch_delay");
  for (HostOpClass cls : kHostOpClasses) {
    const double given = c.time_s("host.op_overhead." + std::string(to_string(cls)));
    g.host_op_overhead_s[std::size_t(cls)] = given > 0 ? given : g.host_kernel_overhead_s;
  }
  g.host_autograd_factor = c.number("host.autograd_factor");
  if (g.host_launch_delay_s > g.host_kernel_overhead_s)
    throw InputError(c.where("host.launch_delay"), "expected at most host.kernel_overhead (it is a part of it)");
  g.cudnn_version = c.number("library.cudnn_version");
  g.cublas_version = c.number("library.cublas_version");
  g.cudnn_benchmark = c.boolean("library.cudnn_benchmark");
  g.pytorch_version = parse_release(c.string("library.pytorch_version"));
  if (g.pytorch_version < 0)
    throw InputError(c.where("library.pytorch_version"), "expected a PyTorch release as major.minor, e.g. 2.1 or 2.11; got '" +
                                                             c.string("library.pytorch_version") + "'");
  if (const std::string t = c.string("library.sgemm_tile"); t != "auto") {
    int m = 0, n = 0, used = 0;
    const bool parsed = std::sscanf(t.c_str(), "%dx%d%n", &m, &n, &used) == 2 && m > 0 && n > 0;
    const std::string rest = parsed ? t.substr(std::size_t(used)) : "";
    if (!parsed || (!rest.empty() && rest != "-sliced"))
      throw InputError(c.where("library.sgemm_tile"),
                       "expected auto or a CTA tile as MxN or MxN-sliced (e.g. 32x128, 32x32-sliced); got '" + t + "'");
    g.sgemm_tile_m = m, g.sgemm_tile_n = n, g.sgemm_tile_sliced = !rest.empty();
  }
  g.tile_overhead_cycles = c.cycles("calibration.tile_overhead");
  g.mma_efficiency = c.number("calibration.mma_efficiency");
  g.ffma_efficiency = c.number("calibration.ffma_efficiency");
  g.power = read_power_config(c, g.clock_hz);

  // Semantic checks, reported at the offending key.
  try {
    g.validate();
  } catch (const InputError& e) {
    std::string key = e.where();
    const std::string prefix = "gpu config: ";
    if (key.rfind(prefix, 0) == 0) key = key.substr(prefix.size());
    if (key.rfind("mma.", 0) == 0) throw InputError(c.where("mma") + " (" + key + ")", e.detail());
    throw InputError(c.where(key), e.detail());
  }
  if (g.dram_latency < g.l2_latency)
    throw InputError(c.where("dram.latency"), "expected at least l2.latency (an L2 miss cannot be faster than a hit)");
  return g;
}

}  // namespace tcsim::gpu
