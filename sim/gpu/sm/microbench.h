#pragma once
// Microbenchmark-like programs run through the SM model, as the GPU microbenchmarks (Accel-Sim
// ubench, Abdelkhalik et al., the H200 wgmma notes) run them on hardware: the figures of
// timing.md section 2.1 come out of the simulation, not out of the config's table.
#include "gpu/gpu_config.h"
#include "numerics/formats/format_id.h"

namespace tcsim::gpu {

// Cycles per wmma m16n16k16 in a dependent chain (each wmma accumulates onto the previous one),
// one warp. The wmma is built from the config's MMA instruction for the formats.
double wmma_chain_cycles(const GpuConfig& g, FormatId ab, FormatId acc, int chain = 256);

// Tensor throughput in FMA/clk/SM: `warps_per_subcore` warps on every sub-core, each issuing
// wmma m16n16k16 on 4 independent accumulators.
double wmma_throughput_fma_per_clk(const GpuConfig& g, FormatId ab, FormatId acc, int warps_per_subcore = 8,
                                   int wmma_per_warp = 128);

// Cycles from issuing one wgmma m64nNk16 (one warpgroup) to its wgmma.wait_group 0 completing.
double wgmma_wait_cycles(const GpuConfig& g, FormatId ab, FormatId acc, int n);

}  // namespace tcsim::gpu
