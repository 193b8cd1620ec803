// The per-warp programs of FlashAttention-2 (forward, split-KV, backward) and FlashAttention-3
// (forward), following the kernels' main loops:
//   FA2 forward (flash_fwd_kernel.h, compute_attn_1rowblock): wait K(j); cp.async V(j); S = Q·K(j)ᵀ
//   with Q and K fragments read from shared memory (ldmatrix); wait V(j); cp.async K(j+1); online
//   softmax; O += P·V(j) with P kept in registers. One K and one V buffer: V's load hides behind
//   the S product, the next K's behind softmax and P·V.
//   FA3 forward (Shah et al. 2024, Algorithm 1): a producer warp issues TMA loads of K and V into a
//   2-stage ring; each consumer warpgroup runs wgmma S = Q·Kᵀ (operands in shared memory), the
//   softmax, and wgmma O += P·V with P from registers. Warpgroups interleave on the tensor cores
//   (ping-pong) through the warp schedulers.
//   FA2 backward (flash_bwd_kernel.h, compute_dq_dk_dv_1colblock): per query tile recompute
//   S = Q·Kᵀ and P = exp(S - LSE), dP = dO·Vᵀ, dS = P∘(dP - D), then dV += Pᵀ·dO, dK += dSᵀ·Q and
//   dQ += dS·K (atomically added in fp32 to global memory).
// Softmax cost per score element (softmax.h): FMNMX for the row max, FFMA (x·scale - max·scale),
// MUFU.EX2, FADD for the row sum, half an F2FP (pack to 16 bit); per output element one FMUL to
// rescale O; per row a MUFU.EX2 of the max change. MUFU and FP32 instructions alternate in the
// code, so they are issued in alternating small groups and the two pipes overlap.
#include "gpu/attention/attention_program.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace tcsim::gpu {
namespace {

Instr I(Op op, const std::string& note = "") {
  Instr in;
  in.op = op;
  in.note = note;
  return in;
}

// Alternating MUFU and FP32 groups: `mufu` MUFU and `fp32` FP32-pipe warp instructions that
// depend on slot `src` (and `src2`); the last one writes `dst`.
void softmax_groups(std::vector<Instr>& code, double mufu, double fp32, int src, int src2, int dst,
                    const std::string& note) {
  const int chunks = std::clamp(int(std::round(mufu)), 1, 128);
  const int mu = std::max(1, int(std::round(mufu / chunks)));
  int done_fp = 0;
  for (int c = 0; c < chunks; ++c) {
    Instr m = I(Op::mufu, note + " MUFU.EX2");
    m.count = mu, m.src[0] = std::int16_t(src), m.src[1] = std::int16_t(src2);
    code.push_back(m);
    const int upto = int(std::round(fp32 * (c + 1) / chunks));
    if (upto > done_fp) {
      Instr f = I(Op::ffma, note + " FFMA/FADD/F2FP");
      f.count = upto - done_fp, f.src[0] = std::int16_t(src), f.src[1] = std::int16_t(src2);
      code.push_back(f);
      done_fp = upto;
    }
  }
  code.back().dst = std::int16_t(dst);
}

Instr mma(const GpuConfig& g, const AttentionPlan& p, int count, int a, int b, int acc, int acc_done,
          const std::string& note) {
  Instr in = I(Op::mma, note);
  in.mma = std::int16_t(p.mma_row);
  in.count = std::max(1, count);
  in.src[0] = std::int16_t(a), in.src[1] = std::int16_t(b), in.src[2] = std::int16_t(acc);
  in.dst = std::int16_t(acc), in.dst2 = std::int16_t(acc_done);
  in.stretch = float(1.0 / g.mma_efficiency);
  return in;
}

Instr copy(double bytes, int distance, const std::string& note) {
  Instr in = I(Op::cp_async, note);
  in.bytes = bytes, in.distance = std::int16_t(distance);
  return in;
}

Instr lds(double bytes, int dst, const std::string& note) {
  Instr in = I(Op::lds, note);
  in.bytes = bytes, in.dst = std::int16_t(dst);
  return in;
}

// One warp's share of an mma.sync product M x N x K split over the warps as a grid (M side first).
struct WarpGemm {
  int mmas_per_kstep = 1;  // m16n8k16 per 16-deep k-step
  int ksteps = 1;
  double lds_bytes = 0;    // fragment bytes per k-step (A slice + B slice)
};

WarpGemm warp_gemm(int M, int N, int K, int warps, double b, int wgm) {
  WarpGemm w;
  const int wgn = std::max(1, warps / wgm);
  const int wm = std::max(16, M / wgm), wn = std::max(8, N / wgn);
  w.mmas_per_kstep = (wm / 16) * (wn / 8);
  w.ksteps = std::max(1, K / 16);
  w.lds_bytes = double(wm + wn) * 16 * b;
  return w;
}

void emit_gemm(std::vector<Instr>& code, const GpuConfig& g, const AttentionPlan& p, const WarpGemm& w, int frag,
               int other, int acc, int acc_done, const std::string& name) {
  code.push_back(lds(w.lds_bytes, frag, name + " fragments k 0"));
  for (int kk = 0; kk < w.ksteps; ++kk) {
    if (kk + 1 < w.ksteps) code.push_back(lds(w.lds_bytes, frag + (kk + 1) % 2, name + " fragments k " + std::to_string(kk + 1)));
    code.push_back(mma(g, p, w.mmas_per_kstep, frag + kk % 2, other, acc, acc_done, name + " k-step " + std::to_string(kk)));
  }
}

// Dropout on the probabilities (training): FlashAttention-2's scheme, one Philox4x32-10 draw per 16
// score elements and an f16x2 compare and AND per pair: 72 SASS instructions per 16 elements in
// the loop of a replica (validation/sass/attention_dropout.cu, nvcc 13.0 sm_80), issued on the
// FP32/integer pipes beside the softmax. The backward regenerates the same mask for P.
constexpr double kDropoutInstructionsPerScore = 72.0 / 16;

void emit_dropout(std::vector<Instr>& code, const AttentionPlan& p, double scores_per_thread, int src, int dst) {
  if (!p.dropout) return;
  Instr in = I(Op::ffma, "dropout: Philox draws, f16x2 compare and mask");
  in.count = int(std::ceil(kDropoutInstructionsPerScore * scores_per_thread));
  in.src[0] = std::int16_t(src), in.dst = std::int16_t(dst);
  code.push_back(in);
}

// Per-thread softmax work of one tile: E score elements, R rows, O output elements per thread.
struct SoftmaxWork {
  double scores = 0;  // score elements per thread
  double fp32 = 0, mufu = 0, max_ops = 0, rescale = 0;
};

SoftmaxWork softmax_work(double rows_per_warp, double bc, double d) {
  SoftmaxWork s;
  const double e = rows_per_warp * bc / 32;  // score elements per thread
  const double r = rows_per_warp / 8;        // rows per thread (a quad shares a row of an m16 tile)
  s.scores = e;
  s.max_ops = e + 2 * r;                     // FMNMX per element, quad all-reduce per row
  s.mufu = e + r;                            // exp2 per element, exp2 of the max change per row
  s.fp32 = 2.5 * e + 2 * r;                  // FFMA, FADD, F2FP/2; row-sum rescale
  s.rescale = rows_per_warp * d / 32;        // O *= exp2(m_old - m_new)
  return s;
}

WarpProgram fa2_forward(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations) {
  WarpProgram w;
  w.iterations = iterations;
  const double b = p.elem_bytes, d = p.head_dim;
  const int wr = p.br / p.warps;
  const int F0 = 0, S = 2, SD = 3, M = 4, P = 5, O = 6, OD = 7, V0 = 8;
  w.slots = 10;
  const double kv_copy = p.bc * d * b / p.warps;
  w.prologue.push_back(copy(p.br * d * b / p.warps, 0, "Q tile"));
  w.prologue.push_back(copy(kv_copy, 0, "K tile 0"));
  w.prologue.push_back(I(Op::cp_commit));
  w.prologue.push_back(I(Op::cp_wait, "K tile 0 and Q"));
  w.prologue.push_back(I(Op::bar));

  w.body.push_back(I(Op::cp_wait, "K tile j"));
  w.body.push_back(I(Op::bar));
  w.body.push_back(copy(kv_copy, 0, "V tile j"));
  w.body.push_back(I(Op::cp_commit));
  const WarpGemm qk = warp_gemm(p.br, p.bc, p.head_dim, p.warps, b, p.warps);
  emit_gemm(w.body, g, p, qk, F0, -1, S, SD, "S = Q K^T");
  w.body.push_back(I(Op::cp_wait, "V tile j"));
  w.body.push_back(I(Op::bar));
  w.body.push_back(copy(kv_copy, 1, "K tile j+1"));
  w.body.push_back(I(Op::cp_commit));
  const SoftmaxWork sw = softmax_work(wr, p.bc, d);
  Instr mx = I(Op::ffma, "row max (FMNMX)");
  mx.count = int(std::ceil(sw.max_ops)), mx.src[0] = SD, mx.dst = M;
  w.body.push_back(mx);
  softmax_groups(w.body, sw.mufu, sw.fp32, M, -1, P, "P = exp2(S - max)");
  emit_dropout(w.body, p, sw.scores, P, P);
  Instr rs = I(Op::ffma, "O rescale (FMUL)");
  rs.count = int(std::ceil(sw.rescale)), rs.src[0] = M, rs.src[1] = OD, rs.dst = O;
  w.body.push_back(rs);
  const WarpGemm pv = warp_gemm(p.br, p.head_dim, p.bc, p.warps, b, p.warps);
  WarpGemm pv_v = pv;
  pv_v.lds_bytes = 16 * d * b;  // P is in registers: only V's fragments come from shared memory
  emit_gemm(w.body, g, p, pv_v, V0, P, O, OD, "O += P V");

  Instr rcp = I(Op::mufu, "1 / row sum (MUFU.RCP)");
  rcp.count = std::max(1, wr / 8), rcp.src[0] = OD;
  w.epilogue.push_back(rcp);
  Instr nrm = I(Op::ffma, "O / row sum, pack");
  nrm.count = int(std::ceil(1.5 * wr * d / 32)), nrm.src[0] = OD, nrm.dst = O;
  w.epilogue.push_back(nrm);
  Instr st = I(Op::stg, p.splits > 1 ? "partial O (fp32) and LSE" : "O and LSE");
  st.bytes = p.splits > 1 ? wr * d * 4.0 + wr * 4.0 : wr * d * b + wr * 4.0;
  st.src[0] = O;
  if (p.splits <= 1) {
    Instr sts = I(Op::sts, "O via shared memory");
    sts.bytes = wr * d * b, sts.src[0] = O;
    w.epilogue.push_back(sts);
    w.epilogue.push_back(I(Op::bar));
  }
  w.epilogue.push_back(st);
  // cp.async.wait_group 0 everywhere (FlashAttention-2 waits for all copies in flight).
  for (auto* code : {&w.prologue, &w.body})
    for (auto& in : *code)
      if (in.op == Op::cp_wait) in.arg = 0;
  return w;
}

WarpProgram fa3_forward(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations) {
  WarpProgram w;
  w.iterations = iterations;
  const MmaInstr& row = g.mma[p.mma_row];
  const double b = p.elem_bytes, d = p.head_dim;
  const int Q = 0, K = 1, V = 3, S = 5, SD = 6, M = 7, P = 8, O = 9, OD = 10, R = 11, TMAP = 12;
  w.slots = 13;
  auto tma = [&](double bytes, int slot, int rot, int shift, int distance, const std::string& note) {
    Instr t = I(Op::tma, note);
    t.bytes = bytes, t.dst = std::int16_t(slot), t.rot = std::int16_t(rot), t.shift = std::int16_t(shift);
    t.distance = std::int16_t(distance), t.leader_only = true;
    return t;
  };
  auto wait = [&](int slot, int rot, const std::string& note) {
    Instr t = I(Op::wait, note);
    t.src[0] = std::int16_t(slot), t.rot = std::int16_t(rot);
    return t;
  };
  const double kv = p.bc * d * b;
  w.prologue.push_back(tensor_map_prefetch(TMAP));
  for (auto [bytes, slot, note] : {std::tuple{p.br * d * b, Q, "Q tile (producer)"}, std::tuple{kv, K, "K tile 0 (producer)"},
                                   std::tuple{kv, V, "V tile 0 (producer)"}}) {
    Instr t = tma(bytes, slot, 0, 0, 0, note);
    t.src[0] = std::int16_t(TMAP);
    w.prologue.push_back(t);
  }
  w.prologue.push_back(wait(Q, 0, "Q landed"));

  // The consumers release a stage after using it and the producer refills it (FA3's empty/full
  // mbarrier pairs, and the named barriers that order the warpgroups' GEMMs): one CTA-wide
  // barrier per tile keeps every warpgroup within a tile of the others.
  w.body.push_back(I(Op::bar, "stage j-1 released"));
  w.body.push_back(tma(kv, K, 2, 1, 1, "K tile j+1 (producer)"));
  w.body.push_back(tma(kv, V, 2, 1, 1, "V tile j+1 (producer)"));
  w.body.push_back(wait(K, 2, "K tile j landed"));
  const int ks = std::max(1, p.head_dim / row.k);
  for (int kk = 0; kk < ks; ++kk) {
    Instr m = mma(g, p, 1, -1, -1, S, SD, "wgmma S = Q K^T k-step " + std::to_string(kk));
    m.mma_n = p.bc;
    m.bytes = (64.0 * row.k * b + p.bc * row.k * b) / 4;  // this warp's quarter of the SS operands
    m.src[2] = -1;
    w.body.push_back(m);
  }
  w.body.push_back(I(Op::wgmma_commit));
  const SoftmaxWork sw = softmax_work(16, p.bc, d);
  Instr mx = I(Op::ffma, "row max (FMNMX)");
  mx.count = int(std::ceil(sw.max_ops)), mx.src[0] = SD, mx.dst = M;
  w.body.push_back(mx);
  softmax_groups(w.body, sw.mufu, sw.fp32, M, -1, P, "P = exp2(S - max)");
  emit_dropout(w.body, p, sw.scores, P, P);
  Instr rs = I(Op::ffma, "O rescale (FMUL)");
  rs.count = int(std::ceil(sw.rescale)), rs.src[0] = M, rs.src[1] = OD, rs.dst = R;
  w.body.push_back(rs);
  w.body.push_back(wait(V, 2, "V tile j landed"));
  const int kv_steps = std::max(1, p.bc / row.k);
  for (int kk = 0; kk < kv_steps; ++kk) {
    // Chained wgmmas into one accumulator pipeline in the tensor core: no wait between k-steps.
    Instr m = mma(g, p, 1, P, R, O, OD, "wgmma O += P V k-step " + std::to_string(kk));
    m.mma_n = p.head_dim;
    m.bytes = d * row.k * b / 4;  // RS: P from registers, V from shared memory
    m.src[2] = -1;
    w.body.push_back(m);
  }
  w.body.push_back(I(Op::wgmma_commit));
  Instr ww = I(Op::wgmma_wait);
  ww.arg = 1;
  w.body.push_back(ww);

  Instr w0 = I(Op::wgmma_wait);
  w0.arg = 0;
  w.epilogue.push_back(w0);
  Instr rcp = I(Op::mufu, "1 / row sum (MUFU.RCP)");
  rcp.count = 2, rcp.src[0] = OD;
  w.epilogue.push_back(rcp);
  Instr nrm = I(Op::ffma, "O / row sum, pack");
  nrm.count = int(std::ceil(1.5 * 16 * d / 32)), nrm.src[0] = OD, nrm.dst = O;
  w.epilogue.push_back(nrm);
  Instr st = I(Op::stg, "O and LSE");
  st.bytes = 16 * d * b + 16 * 4.0, st.src[0] = O;
  w.epilogue.push_back(st);
  return w;
}

WarpProgram fa2_backward(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations) {
  WarpProgram w;
  w.iterations = iterations;
  const double b = p.elem_bytes, d = p.head_dim;
  const int W = p.warps;
  const int F0 = 0, S = 2, SD = 3, P = 4, DP = 5, DPD = 6, DS = 7, DV = 8, DVD = 9, DK = 10, DKD = 11, DQ = 12,
            DQD = 13;
  w.slots = 14;
  const double q_tile = (2 * p.br * d * b + 2 * p.br * 4.0) / W;  // Q, dO, LSE, D
  w.prologue.push_back(copy(2 * p.bc * d * b / W, 0, "K and V of this key block"));
  w.prologue.push_back(copy(q_tile, 0, "Q, dO, LSE, D of query tile 0"));
  w.prologue.push_back(I(Op::cp_commit));
  w.prologue.push_back(I(Op::cp_wait, "K, V, query tile 0"));
  w.prologue.push_back(I(Op::bar));

  w.body.push_back(I(Op::cp_wait, "query tile i"));
  w.body.push_back(I(Op::bar));
  w.body.push_back(copy(q_tile, 1, "Q, dO, LSE, D of query tile i+1"));
  w.body.push_back(I(Op::cp_commit));
  const int wgm = p.br >= 64 ? 4 : 2;
  emit_gemm(w.body, g, p, warp_gemm(p.br, p.bc, p.head_dim, W, b, wgm), F0, -1, S, SD, "S = Q K^T");
  const double e = double(p.br) * p.bc / (W * 32.0);  // score elements per thread
  softmax_groups(w.body, e, 1.5 * e, SD, -1, P, "P = exp2(S - LSE)");
  emit_dropout(w.body, p, e, P, P);
  emit_gemm(w.body, g, p, warp_gemm(p.br, p.bc, p.head_dim, W, b, wgm), F0, -1, DP, DPD, "dP = dO V^T");
  Instr ds = I(Op::ffma, "dS = P (dP - D), pack P and dS");
  ds.count = int(std::ceil(2.5 * e)), ds.src[0] = P, ds.src[1] = DPD, ds.dst = DS;
  w.body.push_back(ds);
  Instr sts = I(Op::sts, "P and dS to shared memory (read transposed)");
  sts.bytes = 2.0 * p.br * p.bc * b / W, sts.src[0] = DS;
  w.body.push_back(sts);
  w.body.push_back(I(Op::bar));
  emit_gemm(w.body, g, p, warp_gemm(p.bc, p.head_dim, p.br, W, b, 4), F0, -1, DV, DVD, "dV += P^T dO");
  emit_gemm(w.body, g, p, warp_gemm(p.bc, p.head_dim, p.br, W, b, 4), F0, -1, DK, DKD, "dK += dS^T Q");
  emit_gemm(w.body, g, p, warp_gemm(p.br, p.head_dim, p.bc, W, b, wgm), F0, -1, DQ, DQD, "dQ = dS K");
  Instr red = I(Op::stg, "dQ atomicAdd (fp32)");
  red.bytes = p.br * d * 4.0 / W, red.src[0] = DQD;
  w.body.push_back(red);

  Instr sc = I(Op::ffma, "scale and pack dK, dV");
  sc.count = int(std::ceil(2.0 * p.bc * d / (W * 32.0))), sc.src[0] = DKD, sc.src[1] = DVD;
  w.epilogue.push_back(sc);
  Instr st = I(Op::stg, "dK and dV");
  st.bytes = 2.0 * p.bc * d * b / W;
  w.epilogue.push_back(st);
  for (auto* code : {&w.prologue, &w.body})
    for (auto& in : *code)
      if (in.op == Op::cp_wait) in.arg = 0;
  return w;
}

}  // namespace

AttentionIterationWork attention_iteration_work(const GpuConfig& g, const AttentionPlan& p) {
  AttentionIterationWork wk;
  const double d = p.head_dim, b = p.elem_bytes;
  if (p.algo == AttentionAlgo::fa2_backward) {
    const double e = double(p.br) * p.bc / (p.warps * 32.0);
    wk.tensor_fma = 5.0 * p.br * p.bc * d;
    wk.fp32_instr = p.warps * (4.0 + (p.dropout ? kDropoutInstructionsPerScore : 0.0)) * e;
    wk.mufu_instr = p.warps * e;
    wk.smem_bytes = (2 * p.br * d * b) + 2.0 * p.br * p.bc * b * 2;  // copies in; P/dS written and read
    return wk;
  }
  const bool fa3 = p.algo == AttentionAlgo::fa3_forward;
  const double wr = fa3 ? 16 : double(p.br) / p.warps;
  const SoftmaxWork sw = softmax_work(wr, p.bc, d);
  const int m_pad = fa3 ? 64 : 16;  // rows an MMA covers (padded query rows still compute)
  wk.tensor_fma = 2.0 * std::max<double>(p.br, m_pad) * p.bc * d;
  wk.fp32_instr = p.warps * (std::ceil(sw.max_ops) + sw.fp32 + std::ceil(sw.rescale) +
                             (p.dropout ? kDropoutInstructionsPerScore * sw.scores : 0.0));
  wk.mufu_instr = p.warps * sw.mufu;
  // K and V written in; read out: FA2 per warp its Q rows, all of K and V (ldmatrix); FA3 per
  // warpgroup its 64 Q rows and K for the SS wgmma, V for the RS wgmma.
  const double readers = fa3 ? p.warps / 4.0 : p.warps;
  wk.smem_bytes = 2.0 * p.bc * d * b + readers * ((fa3 ? 64 : wr) * d + 2.0 * p.bc * d) * b;
  (void)g;
  return wk;
}

WarpProgram build_attention_program(const GpuConfig& g, const AttentionPlan& p, std::int64_t iterations) {
  switch (p.algo) {
    case AttentionAlgo::fa3_forward: return fa3_forward(g, p, iterations);
    case AttentionAlgo::fa2_backward: return fa2_backward(g, p, iterations);
    default: return fa2_forward(g, p, iterations);
  }
}

}  // namespace tcsim::gpu
