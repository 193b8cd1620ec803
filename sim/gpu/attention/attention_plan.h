#pragma once
// Which fused-attention kernel the GPU runs for an attention Kernel (workload/kernel.h), with the
// tile sizes, warps, shared memory and registers of the library's own choice:
//   FlashAttention-2 forward (sm_80+, mma.sync + cp.async), its split-KV (flash-decoding) variant
//   and combine kernel, FlashAttention-2 backward, and FlashAttention-3 forward (sm_90: wgmma,
//   TMA, producer/consumer warpgroups). Sources per choice in attention_plan.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/gpu_config.h"
#include "workload/kernel.h"

namespace tcsim::gpu {

enum class AttentionAlgo { fa2_forward, fa2_split_kv, fa2_backward, fa3_forward };

struct AttentionPlan {
  AttentionAlgo algo = AttentionAlgo::fa2_forward;
  int mma_row = -1;          // row of GpuConfig::mma the kernel's MMAs use
  int head_dim = 0;          // the kernel template's head dimension (head_dim rounded up)
  int br = 128, bc = 64;     // CTA tile: Br query rows (backward: per iteration) x Bc keys
  int warps = 4;             // warps per CTA (fa3: consumer warps; the producer warp is warp 0's TMA)
  int stages = 1;            // K/V tile buffers (FA2 forward: one K and one V; FA3: 2-stage ring; backward: Q/dO double-buffered)
  int splits = 1;            // split-KV: CTAs per (batch, head, query block) along kv_len
  bool packed_gqa = false;   // decode: the query heads of one KV head share a CTA (rows = q_len x group)
  double elem_bytes = 2;     // Q, K, V, O element size
  int regs_per_thread = 255;
  std::uint64_t smem_bytes = 0;
  int ctas_per_sm = 0;
  // Grid: query blocks (backward: key blocks) x heads x batch; rows of Q per (batch, head) after packing.
  std::int64_t rows = 0, row_blocks = 0, heads_launched = 0;
  int launches = 1;          // kernels of the call (split-KV combine; backward preprocess + dQ convert)
  // A causal mask's fully masked key tiles are skipped (attention_kv_tiles). Not by the sm_90
  // forward kernel with dropout (plan_attention).
  bool skips_masked_tiles = true;
  bool dropout = false;      // a random number per score element (attention_program.cpp)
  std::string describe() const;  // "FlashAttention-2 forward Br 128 x Bc 64, 4 warps, ..."
  std::vector<std::string> notes;
};

// Whether the GPU runs fused attention at all (FlashAttention-2 needs sm_80+); where it does not,
// a network lowers attention to GEMMs + softmax.
bool fused_attention_supported(const GpuConfig& g);

// Throws InputError (naming the kernel) for bad shapes, formats no FlashAttention kernel takes,
// and GPUs before sm_80 (no FlashAttention-2: the network lowering falls back to unfused GEMMs).
// allow_fa3 = false keeps sm_90 on FlashAttention-2's forward kernel (what FA2 itself runs on H100).
AttentionPlan plan_attention(const GpuConfig& g, const Kernel& k, bool allow_fa3 = true);

// Key tiles of Bc that query block `qb` (rows [qb*Br, (qb+1)*Br) of the q_len queries, aligned to
// the end of kv_len) visits, within split `s` of `splits`; causal masking skips fully masked tiles.
std::int64_t attention_kv_tiles(const AttentionShape& a, const AttentionPlan& p, std::int64_t qb, int s);

// Query tiles of Br that key block `kb` visits in the backward kernel (causal skips masked ones).
std::int64_t attention_q_tiles(const AttentionShape& a, const AttentionPlan& p, std::int64_t kb);

}  // namespace tcsim::gpu
