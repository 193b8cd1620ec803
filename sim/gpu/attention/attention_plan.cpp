// The fused-attention kernel a library would launch, and its tiles. Sources:
// [FA2-fwd] Dao-AILab/flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h (run_mha_fwd_hdim*)
// [FA2-api] csrc/flash_attn/flash_api.cpp (num_splits_heuristic, seqlenq_ngroups_swapped, 2 CTAs/SM)
// [FA2-bwd] csrc/flash_attn/src/flash_bwd_launch_template.h (run_mha_bwd_hdim*, A100-class smem)
// [FA3] hopper/tile_size.h (tile_size_fwd_sm90) and Shah et al. 2024 (arXiv 2407.08608) section 3.
#include "gpu/attention/attention_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "gpu/int_math.h"
#include "gpu/sm/cta_rounds.h"

namespace tcsim::gpu {
namespace {

// The head dimensions the kernels are instantiated for; a head_dim in between runs the next one.
int template_head_dim(std::int64_t d) {
  for (int t : {32, 64, 96, 128, 192, 256})
    if (d <= t) return t;
  return 0;
}

// [FA2-api] num_splits_heuristic: the fewest splits whose wave efficiency is within 85% of the best.
int num_splits_heuristic(std::int64_t batch_nheads_mblocks, std::int64_t num_sms, std::int64_t num_n_blocks,
                         std::int64_t max_splits) {
  if (double(batch_nheads_mblocks) >= 0.8 * double(num_sms)) return 1;
  max_splits = std::min({max_splits, num_sms, num_n_blocks});
  auto eligible = [&](std::int64_t s) { return s == 1 || ceil_div(num_n_blocks, s) != ceil_div(num_n_blocks, s - 1); };
  std::vector<double> eff(std::size_t(std::max<std::int64_t>(max_splits, 1)), 0.0);
  double best = 0;
  for (std::int64_t s = 1; s <= max_splits; ++s) {
    if (!eligible(s)) continue;
    const double waves = double(batch_nheads_mblocks * s) / double(num_sms);
    eff[std::size_t(s - 1)] = waves / std::ceil(waves);
    best = std::max(best, eff[std::size_t(s - 1)]);
  }
  for (std::int64_t s = 1; s <= max_splits; ++s)
    if (eligible(s) && eff[std::size_t(s - 1)] >= 0.85 * best) return int(s);
  return 1;
}

// The fastest warp-synchronous (mma.sync) row for these operands: FlashAttention-2 uses mma.sync
// m16n8k16 on every architecture, sm_90 included.
const MmaInstr* find_sync_mma(const GpuConfig& g, FormatId ab) {
  const MmaInstr* best = nullptr;
  for (const auto& r : g.mma)
    if (r.kind == MmaKind::sync && r.accepts(ab, FormatId::fp32) && (!best || r.fma() / r.pipe_cycles(r.n) > best->fma() / best->pipe_cycles(best->n)))
      best = &r;
  return best;
}

int round_regs(double r) { return std::min(255, int(std::ceil(r / 8)) * 8); }


// [FA2-bwd] run_mha_bwd_hdim*: the dQ/dK/dV kernel's tiles by the head dimension and the opt-in
// shared memory per CTA (cudaDevAttrMaxSharedMemoryPerBlockOptin: 163 KB on A100, 227 KB on H100,
// 99 KB on sm_86 / sm_89), for the no-dropout instantiations (attention dropout is not modelled in
// the fused kernel). Template arguments kBlockM x kBlockN, 8 warps, Is_V_in_regs, No_double_buffer.
struct Fa2BackwardTraits {
  int br, bc;
  bool v_in_regs, no_double_buffer;
};
Fa2BackwardTraits fa2_backward_traits(int hd, std::uint64_t smem_per_cta) {
  const std::uint64_t kb = 1024;
  switch (hd) {
    case 32: return {128, 128, true, false};  // V in registers without dropout (96 KB)
    case 64: return smem_per_cta >= 144 * kb ? Fa2BackwardTraits{128, 128, false, false} : Fa2BackwardTraits{64, 128, true, false};
    case 96: return {64, 128, true, false};   // 92 KB without dropout
    case 128: return smem_per_cta >= 144 * kb ? Fa2BackwardTraits{64, 128, false, false} : Fa2BackwardTraits{64, 64, true, false};
    case 192: return smem_per_cta >= 136 * kb ? Fa2BackwardTraits{64, 64, false, false} : Fa2BackwardTraits{64, 64, true, true};
    default:  // 256: H100; A100 without double buffering; sm_86/89 (99 KB) 64 x 32 with V in registers
      if (smem_per_cta >= 176 * kb) return {64, 64, false, false};
      if (smem_per_cta >= 144 * kb) return {64, 64, false, true};
      return {64, 32, true, true};
  }
}

// Flash_bwd_kernel_traits::kSmemSize1colblock: Q (double-buffered unless No_double_buffer) and dO,
// K and V, the dS and P tiles; with V in registers its buffer is reused once V is loaded.
std::uint64_t fa2_backward_smem(const Fa2BackwardTraits& t, int hd, double b) {
  const double qdo = b * t.br * hd * (t.no_double_buffer ? 2 : 3);
  const double kv = b * t.bc * hd * 2;
  const double ds_p = 2 * b * t.br * t.bc;
  return std::uint64_t(qdo + (t.v_in_regs ? std::max(kv, kv / 2 + ds_p) : kv + ds_p));
}

}  // namespace

std::string AttentionPlan::describe() const {
  static const char* names[] = {"FlashAttention-2 forward", "FlashAttention-2 split-KV forward",
                                "FlashAttention-2 backward", "FlashAttention-3 forward"};
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s Br %d x Bc %d, %d warps%s, head_dim %d, %d-stage, %d CTAs/SM, splits %d%s%s%s",
                names[int(algo)], br, bc, warps, algo == AttentionAlgo::fa3_forward ? " (consumer) + producer" : "",
                head_dim, stages, ctas_per_sm, splits, packed_gqa ? ", GQA heads packed" : "", dropout ? ", dropout" : "",
                skips_masked_tiles ? "" : ", every key tile");
  return buf;
}

bool fused_attention_supported(const GpuConfig& g) { return g.arch != "sm_70" && g.arch != "sm_75"; }

AttentionPlan plan_attention(const GpuConfig& g, const Kernel& k, bool allow_fa3) {
  const std::string where = "kernel " + (k.name.empty() ? std::string("<unnamed>") : k.name);
  const AttentionShape& a = k.attention;
  if (!fused_attention_supported(g))
    throw InputError(where, "fused attention needs sm_80 or later (FlashAttention-2 has no " + g.arch + " kernels; " +
                                g.name + " runs attention as unfused GEMMs + softmax)");
  if (a.batch <= 0 || a.heads <= 0 || a.kv_heads <= 0 || a.q_len <= 0 || a.kv_len <= 0 || a.head_dim <= 0)
    throw InputError(where, "expected positive batch, heads, kv_heads, q_len, kv_len and head_dim");
  if (a.heads % a.kv_heads != 0)
    throw InputError(where, "expected heads (" + std::to_string(a.heads) + ") to be a multiple of kv_heads (" +
                                std::to_string(a.kv_heads) + ")");
  const int hd = template_head_dim(a.head_dim);
  if (hd == 0) throw InputError(where, "head_dim " + std::to_string(a.head_dim) + " > 256: no FlashAttention kernel");
  if (k.c_format != FormatId::fp32)
    throw InputError(where, std::string("expected an fp32 accumulator (c_format), got ") + std::string(format_name(k.c_format)));
  if (k.pass == Pass::weight_grad)
    throw InputError(where, "attention has no weights: use pass data_grad for the backward kernel (dQ, dK, dV)");
  if (!(a.dropout >= 0 && a.dropout < 1))
    throw InputError(where, "expected a dropout probability in [0, 1), got " + std::to_string(a.dropout));
  if (a.dropout > 0 && format_bits(k.a_format) == 8)
    throw InputError(where, "no fp8 attention kernel applies dropout (FlashAttention-3's fp8 forward is inference only)");

  AttentionPlan p;
  p.head_dim = hd;
  p.dropout = a.dropout > 0;
  p.elem_bytes = format_bits(k.a_format) / 8.0;
  const bool fp8 = format_bits(k.a_format) == 8;
  const bool half = k.a_format == FormatId::fp16 || k.a_format == FormatId::bf16;
  const bool sm90 = g.arch == "sm_90";
  if (!half && !(fp8 && sm90 && k.pass == Pass::forward))
    throw InputError(where, std::string("no FlashAttention kernel takes ") + std::string(format_name(k.a_format)) +
                                " Q/K/V on " + g.arch + " (fp16/bf16; fp8 e4m3 forward on sm_90 only)");
  const double b = p.elem_bytes;
  const std::int64_t groups = a.heads / a.kv_heads;

  if (k.pass == Pass::data_grad) {
    // [FA2-bwd] 8 warps; the tiles by head dimension and shared memory (fa2_backward_traits). A CTA
    // owns Bc keys of one head and loops over query tiles of Br.
    p.algo = AttentionAlgo::fa2_backward;
    const MmaInstr* row = find_sync_mma(g, k.a_format);
    if (!row) throw InputError(where, "no mma.sync row of " + g.name + " takes these formats");
    p.mma_row = int(row - g.mma.data());
    p.warps = 8;
    const Fa2BackwardTraits t = fa2_backward_traits(hd, g.max_smem_per_cta);
    p.br = t.br;
    p.bc = t.bc;
    p.smem_bytes = fa2_backward_smem(t, hd, b);
    if (t.v_in_regs) p.notes.push_back("V kept in registers (FlashAttention-2's Is_V_in_regs)");
    if (t.no_double_buffer) p.notes.push_back("Q not double-buffered (FlashAttention-2's No_double_buffer)");
    p.regs_per_thread = 255;
    p.rows = a.kv_len;
    p.row_blocks = ceil_div(a.kv_len, p.bc);
    p.heads_launched = a.heads;
    p.stages = t.no_double_buffer ? 1 : 2;
    p.launches = 3;  // dot(dO, O) preprocess, the dQ/dK/dV kernel, dQ fp32 -> fp16 conversion
    if (sm90) p.notes.push_back("sm_90 backward modelled as FlashAttention-2's (mma.sync); FlashAttention-3's wgmma backward is not modelled");
  }
  // Forward: [FA2-api] seqlenq_ngroups_swapped: one query against grouped KV heads puts the group's
  // heads in the query rows of one CTA, so each KV head's cache is read once. Then the split-KV
  // heuristic over 64-row query blocks and the split kernel's key blocks.
  const std::int64_t split_bn = hd <= 64 ? 256 : hd <= 128 ? 128 : 64;
  if (k.pass == Pass::forward) {
    p.packed_gqa = a.q_len == 1 && groups > 1;
    p.rows = p.packed_gqa ? groups : a.q_len;
    p.heads_launched = p.packed_gqa ? a.kv_heads : a.heads;
    p.splits = num_splits_heuristic(a.batch * p.heads_launched * ceil_div(p.rows, 64), std::int64_t(g.sm_count) * 2,
                                    ceil_div(a.kv_len, split_bn), 128);
  }
  if (k.pass == Pass::forward && sm90 && (fp8 || (allow_fa3 && a.q_len > 16 && p.splits == 1))) {
    // FlashAttention-3 has its own split-KV and GQA packing; the model uses FlashAttention-2's
    // split-KV kernel for those cases (memory-bound) and FA3 for the rest.
    p.packed_gqa = false, p.splits = 1;
    // [FA3] fp16/bf16 and fp8 tile tables; Br / 64 consumer warpgroups plus one producer warpgroup.
    p.algo = AttentionAlgo::fa3_forward;
    const MmaInstr* row = g.find_mma(k.a_format, FormatId::fp32);
    if (!row || row->kind != MmaKind::wgmma) throw InputError(where, "no wgmma row of " + g.name + " takes these formats");
    p.mma_row = int(row - g.mma.data());
    if (!fp8) {
      if (hd <= 64) p.br = 192, p.bc = a.causal ? 128 : 192;
      else if (hd <= 96) p.br = 192, p.bc = 144;
      else if (hd <= 128) p.br = 128, p.bc = a.causal ? 128 : 176;
      else if (hd <= 192) p.br = 128, p.bc = 128;
      else p.br = 128, p.bc = 80;
    } else {
      if (hd <= 64) p.br = 192, p.bc = 160;
      else if (hd <= 96) p.br = 192, p.bc = 128;
      else if (hd <= 128) p.br = 128, p.bc = 224;
      else if (hd <= 192) p.br = 128, p.bc = 160;
      else p.br = 128, p.bc = 128;
    }
    p.warps = p.br / 64 * 4;
    // FlashAttention-3 has no dropout; with it PyTorch runs cuDNN's sm90 flash fprop kernel
    // (cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64: all 48 training
    // forwards of the H100 and H200 GPT-2 AMP traces and the H200 GPT-2-large one), whose causal
    // forward takes the time of the whole score matrix: 186-188 us at batch 16, 12 heads, 1024
    // tokens, d = 64 on both boards against 84 us for the masked half, 89 us on the H200 at batch 4,
    // 20 heads against 40. Without dropout it skips the masked tiles (the H200 Llama-2 prefill, 512
    // tokens, d = 128: 12.9 us against 12.3), and BERT's non-causal training forward with dropout
    // takes its whole matrix's time (51.7 us against 54.1). Read off the traces: which masked
    // tiles the kernel computes is not public.
    if (a.dropout > 0) {
      p.skips_masked_tiles = false;
      if (a.causal) p.notes.push_back("dropout: cuDNN's sm90 forward computes the causal mask's masked tiles too");
    }
    p.stages = 2;
    // Q, and two stages each of K and V.
    p.smem_bytes = std::uint64_t(b * (double(p.br) * hd + 4.0 * p.bc * hd));
    // setmaxnreg splits the register file: consumers 240 (2 warpgroups) or 160 (3), producer 24-32:
    // one CTA fills the SM's 64K registers.
    p.regs_per_thread = p.warps == 8 ? 240 : 160;
    p.ctas_per_sm = 1;
    p.rows = a.q_len;
    p.row_blocks = ceil_div(a.q_len, p.br);
    p.heads_launched = a.heads;
  } else if (k.pass == Pass::forward) {
    const MmaInstr* row = find_sync_mma(g, k.a_format);
    if (!row) throw InputError(where, "no mma.sync row of " + g.name + " takes these formats");
    p.mma_row = int(row - g.mma.data());
    // KV-cache decode (flash_attn_with_kvcache) always runs the split-KV kernel; so does any call
    // the heuristic splits.
    if (p.splits > 1 || a.q_len <= 16) {
      p.algo = AttentionAlgo::fa2_split_kv;
      p.br = 64, p.bc = int(split_bn), p.warps = 4;
      if (p.splits > 1) p.launches = 2;  // + the combine kernel
      if (sm90) p.notes.push_back("sm_90 decode / split-KV modelled with FlashAttention-2's split-KV kernel (mma.sync), not FlashAttention-3's");
    } else {
      p.algo = AttentionAlgo::fa2_forward;
      if (sm90) p.notes.push_back("FlashAttention-2's forward kernel on sm_90 (mma.sync), as FA2 runs on H100");
      p.br = 128;
      p.bc = hd <= 64 ? 128 : 64;
      p.warps = hd <= 128 ? 4 : 8;
      if (hd == 256 && !(g.max_smem_per_cta >= std::uint64_t(2 * hd * (128 + 2 * 64)) &&
                         g.max_smem_per_sm < std::uint64_t(4 * hd * (64 + 2 * 64))))
        p.br = 64, p.bc = 64, p.warps = 4;
      // [FA2-fwd] compute capability 8.6 / 8.9 (is_sm8x): square 64 x 64 tiles for causal head_dim
      // 96 and 128, and 128 x 32 (48 KB: 2 CTAs per SM) for non-causal head_dim 128.
      const bool sm8x = g.arch == "sm_86" || g.arch == "sm_89";
      if (sm8x && a.causal && (hd == 96 || hd == 128)) p.br = 64, p.bc = 64;
      if (sm8x && !a.causal && hd == 128) p.br = 128, p.bc = 32;
    }
    p.smem_bytes = std::uint64_t(b * (double(p.br) * hd + 2.0 * p.bc * hd));
    const double wr = double(p.br) / p.warps;
    // Per thread: the O and S accumulators (fp32), P (fp16 pairs), and ~40 for addresses/fragments.
    p.regs_per_thread = round_regs(wr * hd / 32 + wr * p.bc / 32 * 1.5 + 40);
    p.row_blocks = ceil_div(p.rows, p.br);
  }
  if (p.ctas_per_sm == 0) p.ctas_per_sm = resident_ctas(g, p.warps, p.regs_per_thread, p.smem_bytes);
  if (p.ctas_per_sm == 0)
    throw InputError(where, "the attention CTA (" + std::to_string(p.smem_bytes) + " B shared memory, " +
                                std::to_string(p.warps) + " warps) does not fit an SM of " + g.name);
  if (hd != a.head_dim)
    p.notes.push_back("head_dim " + std::to_string(a.head_dim) + " runs the head_dim " + std::to_string(hd) + " kernel");
  return p;
}

std::int64_t attention_kv_tiles(const AttentionShape& a, const AttentionPlan& p, std::int64_t qb, int s) {
  std::int64_t kv_end = a.kv_len;
  if (a.causal && !p.packed_gqa && p.skips_masked_tiles) {
    // Queries are aligned to the end of the keys: query row r sees keys < r + 1 + (kv_len - q_len).
    const std::int64_t last_row = std::min(p.rows, (qb + 1) * p.br) - 1;
    kv_end = std::clamp<std::int64_t>(last_row + 1 + (a.kv_len - a.q_len), 0, a.kv_len);
  }
  const std::int64_t tiles = ceil_div(kv_end, p.bc);
  if (p.splits <= 1) return tiles;
  // [FA2] split-KV: each split takes ceil(n_blocks / splits) key blocks of the whole kv_len.
  const std::int64_t per = ceil_div(ceil_div(a.kv_len, p.bc), p.splits);
  return std::clamp<std::int64_t>(tiles - std::int64_t(s) * per, 0, per);
}

std::int64_t attention_q_tiles(const AttentionShape& a, const AttentionPlan& p, std::int64_t kb) {
  const std::int64_t q_tiles = ceil_div(a.q_len, p.br);
  if (!a.causal) return q_tiles;
  // Key k is seen by query rows r >= k - (kv_len - q_len): skip the query tiles wholly before it.
  const std::int64_t first_row = std::max<std::int64_t>(0, kb * p.bc - (a.kv_len - a.q_len));
  return std::max<std::int64_t>(0, q_tiles - first_row / p.br);
}

}  // namespace tcsim::gpu
