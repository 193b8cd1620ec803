#pragma once
// Which CUDA kernel an eager framework launches for a memory-bound op, and its launch geometry:
// the rules of PyTorch's own kernels (ATen, v2.1; where later releases changed a rule, the config's
// library.pytorch_version picks it), so that the grid, the work per thread and the
// serial memory round trips per CTA follow what the library does (see sim/gpu/README.md,
// "Memory-bound kernels"). The timing is memory_kernel.h.
#include <cstdint>
#include <string>

#include "gpu/gpu_config.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

struct MemoryLaunch {
  std::string kernel;             // e.g. "vectorized_elementwise_kernel<4> (128 threads x 4 elements)"
  std::int64_t elements = 0;      // output elements (MemoryShape::elements, or derived from the bytes)
  std::int64_t ctas = 1;
  int threads_per_cta = 128;
  // Serial round trips to memory in one CTA's life: loop iterations whose loads cannot overlap
  // (a thread's loads of one iteration are issued together and overlap each other).
  double dependent_loads = 1;
  // Of those, the trips that go to DRAM whatever the op's footprint: a gather's rows from a table
  // that is not in L2 (an LLM's embedding table, vocab x hidden, hundreds of MB, random rows).
  double dram_trips = 0;
  // The bytes those trips read (the gathered rows). They come from DRAM even when the op's
  // footprint fits in L2, and so do the op's writes: the lines they allocate evict other data's
  // dirty lines, not the op's own from a previous run.
  double dram_trip_bytes = 0;
  // Further passes over the CTA's input after the first (layer norm's normalising pass, softmax's
  // sum and write passes): serial round trips `reread_trips`, bytes `reread_passes` x the input.
  double reread_trips = 0;
  int reread_passes = 0;
  // Each re-read trip also loads per-feature parameters (layer norm's gamma and beta, RMS norm's
  // weight): the SM's first round of CTAs waits for them from L2, later rounds find them in L1.
  bool reread_loads_parameters = false;
  // The share of the CTA's input bytes a re-read pass reads again (softmax's gradient re-reads dY,
  // one of its two inputs).
  double reread_share = 1;
  // The re-read share is the part of every row the CTA could not keep on chip (cuDNN's channels-last
  // batch norm re-reads the pixels beyond its registers and shared memory): the whole input went
  // through the caches before the re-read, so its reuse distance counts all of it, not the share.
  bool reread_after_whole_input = false;
  // Shared memory one CTA allocates: carved out of the SM's unified L1, so the resident CTAs' re-read
  // rows must fit in what is left (cuDNN's channels-last batch norm: 32 KiB forward, 28 KiB backward
  // per CTA in the H100/H200 traces).
  double shared_memory_bytes = 0;
  // Serial round trips after the whole grid, by the last CTA (a reduction whose CTAs' partial
  // results are combined in global memory: the semaphore, then the partials); each costs a DRAM
  // latency (memory_kernel.cpp, a named calibration).
  double tail_trips = 0;
  // The CTA's warps load a trip's data together and only then work on it (an unrolled batch of
  // loads per loop iteration, all warps in step, one CTA per SM): a trip is its latency, the
  // transfer of its bytes at the SM's L1 rate and the work, one after the other.
  bool serial_trips = false;
  // A loop of one element (or rotated pair) per thread per iteration, each iteration's loads used
  // before the next are issued (the SASS of Sarathi's norm, activation and rotary kernels and of
  // ATen's index_select: one un-unrolled loop): the SM's resident CTAs start together and stay in
  // step, so a trip's loads leave the SM as one burst and the trip lasts the latency plus that
  // burst's read bytes at the SM's share of the bandwidth (memory_kernel.cpp; measured on the H200:
  // validation/measured/H200/vidur_layer and row_probe).
  bool scalar_loop = false;
  // A persistent grid whose CTAs meet at a grid-wide barrier in every round (cuDNN's channels-last
  // batch norm: per block of channels, the statistics, the barrier, the normalising pass): the
  // rounds and their passes do not overlap, each costs `barrier_cycles` beyond its bytes.
  // `max_resident`: CTAs per SM the kernel is built for (its launch bounds); 0: warps and slots decide.
  double barrier_cycles = 0;
  int max_resident = 0;
  int warp_reductions = 0;        // warp-shuffle reductions (log2(32) steps each)
  int block_reductions = 0;       // reductions across the CTA's warps (shared memory + barrier)
  double sfu_per_element = 0;     // MUFU results per output element (ex2, lg2, rcp, rsqrt)
  // Thread instructions per output element of the compiled kernel (index arithmetic, conversions,
  // math routine, loads and stores), each one lane op of the SM's 16-lane pipes; 0 = not counted
  // (the kernel's flops stand in). Counted for the kernels whose instruction issue bounds them.
  double instructions_per_element = 0;
  // Further instructions per output element that are not FP32 lane work (warp shuffles, integer
  // and special-function code of per-row reductions): they take issue slots only, one warp
  // instruction per scheduler per clock (the FP32 count above also takes the FP32 lanes, half the
  // issue rate on V100 and A100).
  double issue_instructions_per_element = 0;
  // Bytes per lane of the kernel's global accesses (16: vectors) and the warp accesses each
  // element costs (every tensor read or written): scalar accesses narrower than 16 B are limited
  // by l1.narrow_request_interval (one request of at most 128 B per interval per SM).
  int access_bytes = 16;
  double accesses_per_element = 0;
  // Distinct 128-byte lines per warp access, summed over the operands (MemoryShape::lines_per_warp):
  // each a request of its own at the L2 (l2.line_requests_per_clock). 0: not counted.
  double lines_per_warp = 0;
  // 32-bit integer instructions per element (index arithmetic) on the SM's integer lanes
  // (sm.int32_lanes_per_subcore), a bound of their own.
  double integer_instructions_per_element = 0;
  // Instructions per element on the integer/logic pipe (FSEL, FSETP, LOP3, shifts, compares: the
  // sm.int32_lanes_per_subcore lanes) between the FP32 lane work: charged after it, not beside it
  // (the two pipes do not dual-issue, as the FP32 count above assumes on V100/A100). On sm_90,
  // whose FP32 pipe has 32 lanes, this is what holds a kernel below one instruction per clock.
  double logic_instructions_per_element = 0;
  // Independent instruction chains a thread interleaves (the elements an elementwise thread owns);
  // a warp with one chain waits sm.ffma_latency between dependent instructions (row kernels'
  // Welford updates and reductions, gathers' index arithmetic).
  int independent_chains = 1;
};

// The launch of `k` (kind memory). A kernel without a shape but with bytes is a stream of
// elements of its format (bytes of the larger side / element size). Throws InputError for an
// impossible shape (row_length larger than the elements, no elements and no bytes).
MemoryLaunch memory_launch(const GpuConfig& g, const Kernel& k);

// Bytes of one element of the op's data format (a_format).
double memory_element_bytes(const Kernel& k);

}  // namespace tcsim::gpu
