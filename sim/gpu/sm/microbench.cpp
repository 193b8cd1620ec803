#include "gpu/sm/microbench.h"

#include <stdexcept>

#include "gpu/sm/rf_ports.h"
#include "gpu/sm/sm_sim.h"

namespace tcsim::gpu {
namespace {

const MmaInstr& row_for(const GpuConfig& g, FormatId ab, FormatId acc, int& index) {
  const MmaInstr* r = g.find_mma(ab, acc);
  if (!r) throw std::invalid_argument("microbenchmark: no MMA instruction for these formats");
  index = int(r - g.mma.data());
  return *r;
}

// A wmma m16n16k16 in the config's instructions: independent parts along M/N (own accumulator
// slices), each a chain of K parts.
void append_wmma(const GpuConfig& g, WarpProgram& p, const MmaInstr& row, int index, int acc_base, int& slots) {
  const int mp = std::max(1, 16 / row.m), np = std::max(1, 16 / row.n), kp = std::max(1, 16 / row.k);
  // Each instruction's register reads (no reuse across instructions assumed here).
  const RfReads rf = mma_group_rf_reads(g, row, 1, 1);
  for (int part = 0; part < mp * np; ++part)
    for (int kk = 0; kk < kp; ++kk) {
      Instr in;
      in.op = Op::mma;
      in.mma = std::int16_t(index);
      in.src[0] = std::int16_t(acc_base + part);
      in.dst = std::int16_t(acc_base + part);
      in.dst2 = std::int16_t(acc_base + part);
      in.rf_reads = float(rf.reads), in.rf_bank_reads = float(rf.busiest_bank);
      p.body.push_back(in);
    }
  slots = std::max(slots, acc_base + mp * np);
}

SmEnvironment ideal_env() {
  SmEnvironment e;
  e.global_bytes_per_clk = 1e9;
  e.global_latency = 1;
  return e;
}

}  // namespace

double wmma_chain_cycles(const GpuConfig& g, FormatId ab, FormatId acc, int chain) {
  int index = 0;
  const MmaInstr& row = row_for(g, ab, acc, index);
  WarpProgram p;
  append_wmma(g, p, row, index, 0, p.slots);
  p.iterations = chain;
  const SmRunStats s = simulate_sm(g, p, 1, 1, ideal_env());
  return s.cycles / chain;
}

double wmma_throughput_fma_per_clk(const GpuConfig& g, FormatId ab, FormatId acc, int warps_per_subcore,
                                   int wmma_per_warp) {
  int index = 0;
  const MmaInstr& row = row_for(g, ab, acc, index);
  WarpProgram p;
  const int streams = 4;
  for (int s = 0; s < streams; ++s) append_wmma(g, p, row, index, s * 4, p.slots);
  p.iterations = wmma_per_warp / streams;
  const int warps = warps_per_subcore * g.subcores_per_sm;
  const SmRunStats s = simulate_sm(g, p, warps, 1, ideal_env());
  return s.tensor_fma / s.cycles;
}

double wgmma_wait_cycles(const GpuConfig& g, FormatId ab, FormatId acc, int n) {
  int index = 0;
  const MmaInstr& row = row_for(g, ab, acc, index);
  if (row.kind != MmaKind::wgmma) throw std::invalid_argument("microbenchmark: not a wgmma instruction");
  WarpProgram p;
  Instr mma;
  mma.op = Op::mma;
  mma.mma = std::int16_t(index);
  mma.mma_n = n;
  p.body.push_back(mma);
  Instr commit;
  commit.op = Op::wgmma_commit;
  p.body.push_back(commit);
  Instr wait;
  wait.op = Op::wgmma_wait;
  wait.arg = 0;
  p.body.push_back(wait);
  p.iterations = 1;
  p.slots = 1;
  SmEnvironment env = ideal_env();
  env.record_issues = true;
  const SmRunStats s = simulate_sm(g, p, 4, 1, env);
  // From the wgmma's issue to the cycle the wait lets the warp go on (its completion).
  double issue = 0, waited = 0;
  for (const auto& r : s.issues)
    if (r.warp == 0 && r.op == Op::mma) issue = r.cycle;
    else if (r.warp == 0 && r.op == Op::wgmma_wait) waited = r.cycle;
  return waited - issue;
}

}  // namespace tcsim::gpu
