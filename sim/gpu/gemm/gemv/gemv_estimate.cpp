#include "gpu/gemm/gemv/gemv_estimate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpu/gemm/gemm_estimate.h"
#include "gpu/memory/streaming_kernel.h"
#include "gpu/power/activity.h"
#include "gpu/sm/cta_rounds.h"

namespace tcsim::gpu {

KernelResult run_gemv(const GpuConfig& g, const Kernel& kernel, const GemvLaunch& l) {
  KernelResult r;
  r.name = kernel.name;
  r.flops = kernel.flops();
  r.mapping = l.kernel;

  // Bytes. The matrix is read once; the vector (K elements) from DRAM once and by every CTA from
  // L2 (its K range); the output once, or gemv2N's fp32 partial sums, one set per K chunk.
  const double batch = double(l.batch), rows = double(l.rows), K = double(l.k);
  const double matrix = batch * rows * K * l.matrix_bytes;
  const double vector = batch * K * l.vector_bytes;
  const double out = batch * rows * l.out_bytes;
  const double partials = l.split_k > 1 ? batch * rows * double(l.split_k) * 4.0 : 0.0;
  const double written = l.split_k > 1 ? partials : out;
  const double cta_matrix = matrix / double(l.ctas);
  const double cta_vector = double(l.k_per_cta) * l.vector_bytes;
  // A residual the epilogue adds (Kernel::epilogue_inputs), read once per output before the store.
  const double residual = batch * rows * l.out_bytes * double(kernel.epilogue_inputs);
  const double l2_read = matrix + double(l.ctas) * cta_vector + residual;

  // Where the matrix lives: back-to-back calls find an L2-resident one in L2.
  const bool warm = kernel.l2_warm && g.l2_holds(matrix + vector, written);
  const double latency = warm ? g.l2_hit_latency() : g.dram_latency;
  const double l2_bw = g.l2_bytes_per_clk * g.l2_efficiency;
  // A row of the matrix is read in runs of run_bytes per DRAM row opened (the GEMMs' activation limit).
  const double dram_bw = g.dram_bytes_per_clk() * g.dram_efficiency * dram_activation_factor(g, l.run_bytes);
  const double dram_read = warm ? 0.0 : matrix + vector + residual;
  // As for the GEMMs, the output is counted as written to DRAM (write-back on eviction).
  const double dram_write = written;
  const double dram_cycles = (dram_read + dram_write) / dram_bw;
  const double l2_cycles = (l2_read + written) / l2_bw;

  // The grid on the SMs: resident CTAs (warps and CTA slots; a gemv CTA needs few registers and no
  // shared memory), the busiest SM's CTAs in rounds.
  const auto [warps_per_cta, occupancy, per_sm, resident, rounds] = cta_rounds(g, l.threads_per_cta, l.ctas);
  // The busiest SM's loads pass its L1 path.
  const double sm_path_cycles = double(per_sm) * (cta_matrix + cta_vector) / g.l1_bytes_per_clk;

  // Little's law: a thread issues loads_in_flight matrix loads, then waits for them; one CTA's
  // life is that many round trips, the shuffle reduction of a row's partial sums and the store's
  // trip to L2. Rounds follow each other. With few CTAs per SM this, not the bandwidth, is the time.
  const double trips = std::ceil(l.loads_per_thread / l.loads_in_flight);
  const double shuffle_steps = std::log2(double(l.threads_per_row));
  const double cta_path = trips * latency + shuffle_steps * g.smem_latency + g.l2_hit_latency() +
                          (residual > 0 ? latency : 0.0);
  const double latency_cycles = double(rounds) * cta_path;

  // CUDA-core work of the busiest SM (the multiply-adds with their conversions and loads).
  const double lane_ops = batch * rows * K * l.lane_ops_per_element;
  const double math_cycles = double(per_sm) * (lane_ops / double(l.ctas)) / g.peak_ffma_per_clk();

  struct Term {
    const char* bound;
    double cycles;
  };
  const Term terms[] = {{"dram", dram_cycles},       {"l2", l2_cycles},          {"l1", sm_path_cycles},
                        {"latency", latency_cycles}, {"cuda_core", math_cycles}};
  const Term* top = &terms[0];
  for (const auto& t : terms)
    if (t.cycles > top->cycles) top = &t;
  double cycles = top->cycles;
  r.bound = top->bound;

  int launches = 1;
  if (l.split_k > 1) {
    // splitKreduce_kernel: reads the partials, writes the output, one add per partial.
    const StreamingCost red = streaming_cost(g, {"splitKreduce", partials, out, batch * rows * double(l.split_k)});
    cycles += red.cycles;
    launches = 2;
  }
  r.cycles = cycles;
  r.time_s = cycles / g.clock_hz + launches * g.launch_overhead_s;

  const double cyc = std::max(cycles, 1.0);
  r.set("tensor_util_pct", 0);
  r.set("cuda_core_util_pct", 100 * lane_ops / (g.peak_ffma_per_clk() * g.sm_count * cyc));
  r.set("smem_util_pct", 0);
  r.set("l2_util_pct", 100 * (l2_read + written) / (g.l2_bytes_per_clk * cyc));
  r.set("dram_util_pct", 100 * (dram_read + dram_write) / (g.dram_bytes_per_clk() * cyc));
  r.set("l2_read_bytes", l2_read);
  r.set("l2_write_bytes", written);
  r.set("dram_read_bytes", dram_read);
  r.set("dram_write_bytes", dram_write);
  r.set("ctas", double(l.ctas));
  r.set("ctas_per_sm", double(resident));
  r.set("waves", double(l.ctas) / (double(g.sm_count) * double(occupancy)));
  r.set("k_iterations", trips);
  r.set("cta_latency_cycles", cta_path);
  r.set("global_latency_cycles", latency);
  r.set_launches(launches, g.launch_overhead_s);

  // Events for the energy model: the arithmetic lane ops, every lane op (loads included) as warp
  // instructions, two register sources per instruction, every load through L1.
  Activity act;
  act.ffma = batch * rows * K * l.math_ops_per_element;
  act.warp_instructions = lane_ops / 32;
  act.rf_reads = 2 * act.warp_instructions;
  act.l1_bytes = l2_read;
  act.record(r);

  r.notes.push_back(l.nvjet
                        ? "M or N is 1: cuBLASLt runs its GEMV kernel, an 8-wide tensor-core tile costed as the stream of "
                          "the matrix it is (" + l.kernel + ")"
                        : "M or N is 1: cuBLAS runs its matrix-vector kernel on the CUDA cores (" + l.kernel +
                              "), not a padded tensor-core tile");
  if (kernel.l2_warm)
    r.notes.push_back(warm ? "timed back to back: the matrix fits in L2 and stays there (no DRAM reads)"
                           : "timed back to back, but the matrix does not fit in L2: read from DRAM as cold");
  return r;
}

}  // namespace tcsim::gpu
