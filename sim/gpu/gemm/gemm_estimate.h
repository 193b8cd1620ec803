#pragma once
// GPU-level time of one mapping: CTA waves over the SMs, the L2/DRAM traffic of the tile order,
// one SM's resident CTAs simulated cycle by cycle (with steady-state extrapolation of long K loops),
// split-K reduction and launch overhead.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/gemm/mapping.h"
#include "gpu/sm/sm_sim.h"

namespace tcsim::gpu {

struct Traffic {
  double l2_read_bytes = 0;    // operand bytes CTAs request from L2
  double dram_read_bytes = 0;  // of which miss to DRAM (tile order, L2 capacity)
  double dram_write_bytes = 0;
  double dram_a_bytes = 0, dram_b_bytes = 0;  // dram_read_bytes split by operand
  // The share of k-stages that wait for DRAM: a stage is ready when its slower operand arrives, and
  // the CTAs of a wave that read the same tile at about the same k-step all wait for its first
  // touch (their requests join the miss in flight), so an operand's miss counts once per reader.
  double stage_dram_share = 0;
};

// One SM's run of `ctas` resident CTAs over `iterations` k-tiles.
struct SmTime {
  double cycles = 0;
  std::int64_t simulated_iterations = 0;
  int ctas = 1;            // resident CTAs simulated
  bool extrapolated = false;
  bool steady = true;      // the period was stable when extrapolating
  double period = 0;       // cycles per k-tile in the steady state
  SmRunStats stats;        // of the simulated part
};

class SmTimeCache {
 public:
  SmTime get(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations, int ctas,
             const SmEnvironment& env);
  // Cycles of `total` CTAs relayed through `ctas` resident slots (simulate_sm's total_ctas), each
  // running the program truncated to at most stages + 4 k-iterations: what successive rounds of
  // CTAs save by overlapping, which does not depend on the loop's length.
  double relay_cycles(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations, int ctas,
                      int total, const SmEnvironment& env);
  std::size_t size() const;  // SM runs simulated
  std::uint64_t hits() const { return hits_; }

 private:
  // simulate_sm of the program truncated to n_sim k-tiles, `total` CTAs through `ctas` slots.
  SmRunStats run(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t n_sim, int ctas, int total,
                 const SmEnvironment& env);

  mutable std::mutex mu_;
  std::map<std::string, SmRunStats> runs_;
  std::uint64_t hits_ = 0;
};

struct Estimate {
  Mapping mapping;
  double cycles = 0;          // kernel cycles (all kernels of the call, split-K reduction included)
  double time_s = 0;          // with launch overheads
  int launches = 1;
  std::int64_t tiles = 0, iterations = 0;
  int ctas_per_sm = 0, active_sms = 0;
  double overlap_cycles = 0;  // saved by starting each round's CTAs as the previous round's retire
  double waves = 0;
  Traffic traffic;
  SmEnvironment env;
  SmTime full;                // the SM run of a full round of resident CTAs
  double executed_fma = 0;    // including tile padding
};

// Fraction of the achievable DRAM bandwidth left when each row activation serves `run_bytes`
// (dram.activate_interval, dram.channels, dram.access_granularity, dram.run_overhead; 1 when the
// interval and the overhead are 0).
double dram_activation_factor(const GpuConfig& g, double run_bytes);

// Achievable DRAM bytes per SM clock for this GEMM's traffic: the operands' streams are limited by
// row activations according to their layout (a K-contiguous operand reads short runs per row).
double dram_bytes_per_clk_for(const GpuConfig& g, const GemmProblem& p, const Mapping& m, const Traffic& t);

Traffic estimate_traffic(const GpuConfig& g, const GemmProblem& p, const Mapping& m, int ctas_per_sm);
// Whether A, B and D together fit in L2 (far-partition copies counted): with p.l2_warm, back-to-back
// calls then read and write L2 only, no DRAM.
bool l2_resident(const GpuConfig& g, const GemmProblem& p);

Estimate estimate(const GpuConfig& g, const GemmProblem& p, const Mapping& m, SmTimeCache& cache);

// A lower bound on estimate(g, p, m, ...).time_s, found without simulating: the busiest SM's MACs
// at its pipes' peak rate, or the whole GPU's DRAM and L2 time, plus split-K and launch costs.
double time_lower_bound_s(const GpuConfig& g, const GemmProblem& p, const Mapping& m);

}  // namespace tcsim::gpu
