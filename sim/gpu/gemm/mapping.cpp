// Candidate mappings per architecture (the tile shapes of the cuBLAS/CUTLASS kernels for that
// architecture) and the per-warp programs they run.
#include "gpu/gemm/mapping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "gpu/gemm/program_costs.h"
#include "gpu/sm/cta_rounds.h"

namespace tcsim::gpu {
namespace {

struct TileShape {
  int bm, bn, wm, wn;
};

// cuBLAS volta/turing h884/h1688 gemm kernels: 256x128, 128x256, 128x128, 128x64, 64x128, 64x64
// CTA tiles with 64x64 (or 32x32 for the small ones) warp tiles, BK 32, double-buffered
// (CUTLASS 1.x/2.x Volta/Turing configurations).
const TileShape kSyncTiles[] = {{256, 128, 64, 64}, {128, 256, 64, 64}, {128, 128, 64, 64}, {128, 64, 64, 32},
                                {64, 128, 32, 64},  {64, 64, 32, 32},   {256, 64, 64, 64},  {64, 256, 64, 64}};
// sm_90 wgmma kernels: warpgroup tiles (wm x wn per warpgroup of 4 warps). cuBLAS 12's nvjet kernels
// also use N tiles that are not powers of two (wgmma takes any N in steps of 8): 128x160, 128x192
// and 192x192 in the measured H100 traces (nvjet_sm90_hsh_128x160_..., _192x192_...) and the
// cuBLASLt heuristics' tile= field (validation/measured/H100/gemm_*: fp16, bf16 and e4m3 rows),
// where they fill a wave that 128- and 256-wide tiles leave partly empty. TF32 GEMMs run the older
// sm90_xmma / cutlass kernels (128x128, 256x128, 128x256 in the traces): not for tf32.
const TileShape kWgmmaTiles[] = {{128, 256, 64, 256}, {256, 128, 128, 128}, {128, 128, 64, 128},
                                 {64, 256, 64, 256},  {64, 128, 64, 128},   {128, 64, 64, 64}};
const TileShape kNvjetTiles[] = {{128, 160, 64, 160}, {128, 192, 64, 192}, {192, 192, 64, 192}};
// SIMT sgemm kernels (cuBLAS's volta_/ampere_sgemm_*) with cuBLAS's thread counts (NeuSight's V100
// and A100 listings, Block x, every linear and bmm row): 128x128 256 threads, 128x64 128 (either
// orientation: cuBLAS's M is our N for PyTorch's row-major calls), 64x64 64, 128x32 and 32x128 256.
// MmaSimt's 4x8 lanes give those 8x8 thread tiles (warp 32x64) and, for the narrow tiles, 4x4 (warp
// 16x32): twice the shared-memory loads per FFMA. (With 128 threads and 8x4 thread tiles, as before,
// the narrow tiles ran NeuSight's rows that cuBLAS gave them 9-15% faster than measured.)
const TileShape kSimtTiles[] = {{128, 128, 32, 64}, {128, 64, 32, 64}, {64, 128, 32, 64},
                                {64, 64, 32, 64},   {128, 32, 16, 32}, {32, 128, 16, 32}};
// cuDNN's implicit-GEMM SIMT kernels (*_scudnn_128x{128,64,32}_relu_{small,medium,...}_nn_v1) tile
// 128 output pixels by 128, 64 or 32 filters with 256, 128 and 64 threads (same listings, conv rows,
// V100 and A100): the narrow one runs two warps of 64x32, not cuBLAS's eight of 16x32.
// The legacy dgrad_engine of cuDNN 9's FP32 data gradients (conv_lowering.cpp): 64x32, 64 threads,
// warp 32x32.
const TileShape kCudnnSimtTiles[] = {{128, 128, 32, 64}, {128, 64, 32, 64}, {128, 32, 64, 32}, {64, 32, 32, 32}};
// cuDNN 9's sm80_xmma_{fprop,dgrad}_implicit_gemm_f32f32_*_ffma kernels, named
// tilesize{M}x{N}x8_stage3_warpsize{WM}x{WN}x1 (validation/measured/H100/conv_deepbench, FP32 NCHW):
// 32x32 with 1x2 warps (64 threads), 128x32 and 256x64 with 2x2 warps (128 threads).
const TileShape kCudnnXmmaSimtTiles[] = {{32, 32, 32, 16}, {128, 32, 64, 16}, {256, 64, 128, 32}};
// cuBLAS's sliced-K SGEMMs (volta_/ampere_sgemm_{32x32,64x32,128x32}_sliced1x4_*: 128, 256 and 256
// threads in NeuSight's V100 and A100 listings): four groups of warps split the CTA's k-tile of
// 32, each running the whole warp-tile grid over 8 of it (CUTLASS's sliced-K MmaSimt). In both
// orientations, as the other tiles: cuBLAS's M is our N for row-major callers (PyTorch's 64x32 kernel
// is our 32x64).
constexpr int kSlices = 4;
const TileShape kSlicedSimtTiles[] = {{32, 32, 32, 32}, {64, 32, 32, 32}, {128, 32, 64, 32},
                                     {32, 64, 32, 32}, {32, 128, 32, 64}};

int round_regs(int r) { return std::min(255, (r + 7) / 8 * 8); }

bool is_wgmma(const GpuConfig& g, int row) { return row >= 0 && g.mma[row].kind == MmaKind::wgmma; }

std::uint64_t tile_bytes(const GemmProblem& p, const Mapping& m) {
  return std::uint64_t(m.bm * m.bk * p.a_bytes + m.bn * m.bk * p.b_bytes);
}

}  // namespace

WgmmaTranspose wgmma_transpose(const GpuConfig& g, const GemmProblem& p, int mma_row) {
  WgmmaTranspose t;
  if (!is_wgmma(g, mma_row) || p.ab != FormatId::tf32) return t;
  const int mn_major = int(!p.a_k_contiguous) + int(!p.b_k_contiguous);
  t.registers = mn_major >= 1;
  t.shared = mn_major == 2;
  return t;
}

// One K-major copy of the transposed k-tile: Nsight Compute's shared memory per CTA of cuBLAS's
// tf32 "nt" kernel, 128x256x32, 4 stages, is 4 x 48 KiB of stages + 32 KiB + 2 KiB
// (validation/measured/H100/ncu_gemm_layouts).
std::uint64_t wgmma_transpose_smem(const GemmProblem& p, const Mapping& m, const WgmmaTranspose& t) {
  return t.shared ? std::uint64_t(double(m.bn) * m.bk * p.b_bytes) : 0;
}

std::string Mapping::describe(const GpuConfig& g) const {
  char buf[200];
  const char* copy_name = copy == CopyEngine::tma ? "tma" : copy == CopyEngine::cp_async ? "cp.async" : "ldg/sts";
  const std::string math = path == MathPath::tensor ? g.mma[mma_row].name : (pack == 2 ? "HFMA2" : "FFMA");
  std::snprintf(buf, sizeof buf, "%s %dx%dx%d warp %dx%d %d-stage %s splitK %d", math.c_str(), bm, bn, bk, wm, wn,
                stages, copy_name, split_k);
  std::string out = buf;
  if (slices > 1) out += " sliced-K x" + std::to_string(slices);
  if (cluster > 1) out += " cluster " + std::to_string(cluster) + "x1 multicast";
  return out;
}

int ctas_per_sm(const GpuConfig& g, const Mapping& m) {
  return resident_ctas(g, m.warps, m.regs_per_thread, m.smem_bytes);
}

std::vector<Mapping> candidate_mappings(const GpuConfig& g, const GemmProblem& p, MathPath path, int mma_row) {
  std::vector<Mapping> out;
  const bool sm7x = g.arch == "sm_70" || g.arch == "sm_75";
  auto finish = [&](Mapping m, std::uint64_t extra_smem = 0) {
    m.smem_bytes = std::uint64_t(m.stages) * tile_bytes(p, m) + extra_smem;
    if (ctas_per_sm(g, m) > 0) out.push_back(m);
  };
  if (path == MathPath::cuda_core) {
    const int pack = p.ab == FormatId::fp16 && !p.fp32_math ? 2 : 1;
    std::vector<std::pair<TileShape, int>> tiles;
    if (p.simt == SimtKernels::cudnn)
      for (const auto& t : kCudnnSimtTiles) tiles.push_back({t, 1});
    else if (p.simt == SimtKernels::cudnn_xmma)
      for (const auto& t : kCudnnXmmaSimtTiles) tiles.push_back({t, 1});
    else
      for (const auto& t : kSimtTiles) tiles.push_back({t, 1});
    if (pack == 1 && p.simt == SimtKernels::cublas)
      for (const auto& t : kSlicedSimtTiles) tiles.push_back({t, kSlices});
    for (const auto& [t, slices] : tiles) {
      Mapping m;
      m.path = path;
      m.bm = t.bm, m.bn = t.bn, m.wm = t.wm, m.wn = t.wn, m.bk = 8 * slices;
      m.slices = slices;
      m.warps = (t.bm / t.wm) * (t.bn / t.wn) * slices;
      m.pack = pack;
      const int thread_tile = t.wm * t.wn / 32;
      // accumulators, two fragment sets, the k-tile's staging registers (ldg/sts), addressing
      m.regs_per_thread = round_regs(thread_tile / pack + 2 * 8 + (t.bm + t.bn) * m.bk / (m.warps * 32) + 30);
      if (sm7x || g.copy_engine == CopyEngine::ldg_sts || p.register_staged || p.single_stage) {
        m.copy = CopyEngine::ldg_sts, m.stages = p.single_stage ? 1 : 2;
        finish(m);
      } else {
        for (int s : {3, 4}) {
          if (s == 4 && p.simt == SimtKernels::cudnn_xmma) continue;  // their names: _stage3_
          m.copy = CopyEngine::cp_async, m.stages = s;
          finish(m);
        }
      }
    }
    return out;
  }
  const MmaInstr& row = g.mma[mma_row];
  const double accb = format_bits(row.acc) / 8.0;
  if (is_wgmma(g, mma_row)) {
    const WgmmaTranspose transpose = wgmma_transpose(g, p, mma_row);
    std::vector<TileShape> tiles(std::begin(kWgmmaTiles), std::end(kWgmmaTiles));
    if (p.ab != FormatId::tf32) tiles.insert(tiles.end(), std::begin(kNvjetTiles), std::end(kNvjetTiles));
    for (const auto& t : tiles) {
      if (t.wn > row.n) continue;
      Mapping m;
      m.path = path, m.mma_row = mma_row, m.copy = CopyEngine::tma;
      m.bm = t.bm, m.bn = t.bn, m.wm = t.wm, m.wn = t.wn;
      // K tiles of 128 bytes per row (TMA's 128-byte swizzle): the `stages=<K>x` field of every
      // cuBLASLt sm_90 kernel measured on the H100 (validation/measured/H100/gemm_*): 64 fp16/bf16,
      // 32 tf32, 128 fp8/s8. At least one instruction's k.
      m.bk = std::max(row.k, int(128 / p.b_bytes));  // B: never the 2:4-compressed operand
      m.warps = 4 * (t.bm / t.wm) * (t.bn / t.wn);
      m.regs_per_thread = round_regs(int(t.wm * t.wn * accb / 4 / 128) + 40);
      const std::uint64_t stage = tile_bytes(p, m), copies = wgmma_transpose_smem(p, m, transpose);
      if (copies >= g.max_smem_per_cta) continue;
      const int max_stages =
          int(std::min<std::uint64_t>(7, (g.max_smem_per_cta - copies) / std::max<std::uint64_t>(stage, 1)));
      for (int s = 3; s <= max_stages; s += 1) {
        if (s != 3 && s != max_stages) continue;  // cuBLAS uses as many stages as fit; also the shallow one
        m.stages = s;
        for (int c : {1, 2}) {
          m.cluster = c;
          finish(m, copies);
        }
      }
    }
    return out;
  }
  const int red = g.arch == "sm_70" ? 2 : 1;  // Volta octets load A/B fragments twice (timing.md 4)
  for (const auto& t : kSyncTiles) {
    if (t.wm % row.m || t.wn % row.n) continue;
    Mapping m;
    m.path = path, m.mma_row = mma_row;
    m.bm = t.bm, m.bn = t.bn, m.wm = t.wm, m.wn = t.wn;
    m.warps = (t.bm / t.wm) * (t.bn / t.wn);
    const int acc_regs = int(t.wm * t.wn * accb / 4 / 32);
    const int frag_regs = int((t.wm + t.wn) * 8 * p.a_bytes * red / 4 / 32 * 2);
    // 32-bit (tf32) operands on sm_80: CUTLASS's GenerateSM80_TensorOp_1688 tiles have BK 16 (3-10
    // stages) or 32 (3-5), no 64; cuDNN's TF32 kernels are named ..._tilesize128x128x16_stage4_...
    const bool wide = p.a_bytes == 4;  // tf32 only (fp64 DMMA keeps the 16-bit set: not checked here)
    // Integer and 1-bit operands keep the 16-bit tiles' bytes per row of the k tile: CUTLASS's
    // GenerateSM75_TensorOp_8816 / _8832 / _88128 tiles have K 64 / 128 / 512 (s8 / s4 / b1), and
    // GenerateSM80_TensorOp_16832 / _16864 / _168256 K 64-128 / 128-256 / 512-1024. (fp8 and the
    // sparse rows, whose K is already wider, keep the 16-bit element counts.)
    const int sub_byte = format_is_integer(p.ab) && format_bits(p.ab) <= 8 ? 16 / format_bits(p.ab) : 1;
    for (int bk : sm7x ? std::vector<int>{32} : wide ? std::vector<int>{16, 32} : std::vector<int>{32, 64}) {
      m.bk = std::max(bk * sub_byte, row.k);
      // cp.async copies 4, 8 or 16 bytes (PTX ISA, cp.async cp-size): 2-byte aligned operands go
      // through registers, two stages (the H100 traces' cutlass_75_tensorop_*_align1 kernels).
      const bool via_registers = sm7x || g.copy_engine == CopyEngine::ldg_sts || p.copy_width < 4;
      const int staging = via_registers ? int(tile_bytes(p, m) / (m.warps * 32) / 4) : 0;
      m.regs_per_thread = round_regs(acc_regs + frag_regs + staging + 40);
      if (via_registers) {
        m.copy = CopyEngine::ldg_sts, m.stages = 2;
        finish(m);
      } else {
        for (int s : bk == 16 ? std::vector<int>{3, 4, 5, 6, 10} : bk == 32 ? std::vector<int>{3, 4, 5} : std::vector<int>{3, 4}) {
          m.copy = CopyEngine::cp_async, m.stages = s;
          finish(m);
        }
      }
      if (sm7x) break;
    }
  }
  return out;
}

double store_fill(const GemmProblem& p, const Mapping& m) {
  if (p.m <= 0 || p.n <= 0) return 1.0;
  const double padded = double((p.m + m.bm - 1) / m.bm * m.bm) * double((p.n + m.bn - 1) / m.bn * m.bn);
  return std::max(1.0, std::round(64.0 * double(p.m) * double(p.n) / padded)) / 64.0;
}

WarpProgram build_program(const GpuConfig& g, const GemmProblem& p, const Mapping& m, std::int64_t iterations) {
  WarpProgram w;
  w.iterations = iterations;
  // Bank wavefronts of the shared-memory accesses and RF reads of the math groups (program_costs.h).
  const ProgramCosts costs = program_costs(g, p, m);
  const double tile = double(tile_bytes(p, m));
  const double out_bytes = double(m.wm) * m.wn * (m.split_k > 1 ? 4.0 : p.c_bytes) * store_fill(p, m);
  auto I = [](Op op) {
    Instr in;
    in.op = op;
    return in;
  };
  // A fused residual (GemmProblem::epilogue_read_bytes): the warp loads its share of the tile from
  // global memory into `scratch` and adds it to the accumulators before the store. `share`: the
  // warp's part of the wm x wn tile (a quarter for a wgmma warpgroup's warps).
  auto epilogue_residual = [&](WarpProgram& prog, int accumulators, int scratch, double share) -> int {
    if (p.epilogue_read_bytes <= 0) return accumulators;
    const double outputs = double(m.wm) * m.wn * share;
    Instr ld = I(Op::ldg);
    ld.bytes = outputs * p.epilogue_read_bytes * store_fill(p, m), ld.dst = std::int16_t(scratch);
    ld.note = "epilogue residual";
    prog.epilogue.push_back(ld);
    Instr add = I(Op::ffma);
    add.count = std::max(1, int(std::ceil(outputs / 32.0)));
    add.src[0] = std::int16_t(scratch), add.src[1] = std::int16_t(accumulators), add.dst = std::int16_t(scratch);
    add.note = "epilogue residual add";
    prog.epilogue.push_back(add);
    return scratch;
  };
  // An epilogue transform (GemmProblem::epilogue_*): the warp's accumulators through shared memory
  // (stored, a barrier, read back into `scratch`, a slot the finished loop no longer uses) and its
  // FP32 operations on what was read, before the store.
  auto epilogue_transform = [&](WarpProgram& prog, int accumulators, int scratch) {
    const double outputs = double(m.wm) * m.wn;
    if (p.epilogue_smem_bytes > 0) {
      Instr sts = I(Op::sts);
      sts.bytes = outputs * p.epilogue_smem_bytes, sts.src[0] = std::int16_t(accumulators), sts.note = "epilogue exchange";
      prog.epilogue.push_back(sts);
      prog.epilogue.push_back(I(Op::bar));
      Instr lds = I(Op::lds);
      lds.bytes = sts.bytes, lds.dst = std::int16_t(scratch), lds.note = "epilogue exchange";
      prog.epilogue.push_back(lds);
    }
    if (p.epilogue_ops > 0) {
      Instr ops = I(Op::ffma);
      ops.count = std::int32_t(std::ceil(outputs * p.epilogue_ops / 32.0));
      if (p.epilogue_smem_bytes > 0) ops.src[0] = std::int16_t(scratch);
      ops.note = "epilogue transform";
      prog.epilogue.push_back(ops);
    }
  };

  if (m.copy == CopyEngine::tma) {
    const MmaInstr& row = g.mma[m.mma_row];
    // With a cluster, each CTA fetches 1/cluster of the shared B tile and multicasts it.
    const double tma_bytes = m.bm * m.bk * p.a_bytes + m.bn * m.bk * p.b_bytes / m.cluster;
    const int S = m.stages;
    // Slots: the S stage barriers, the accumulators, one spare, and the registers of the tf32
    // transposes (wgmma_transpose).
    const int full = 0, acc = S, staged = S + 2, fragment = S + 3, descriptor = S + 4;
    w.slots = S + 5;
    w.prologue.push_back(tensor_map_prefetch(descriptor));
    for (int s = 0; s < S - 1 && s < iterations; ++s) {
      Instr t = I(Op::tma);
      t.bytes = tma_bytes, t.dst = std::int16_t(full + s), t.leader_only = true, t.note = "stage " + std::to_string(s);
      t.src[0] = std::int16_t(descriptor);
      w.prologue.push_back(t);
    }
    Instr wt = I(Op::wait);
    wt.src[0] = full, wt.rot = std::int16_t(S), wt.note = "tile i has landed";
    w.body.push_back(wt);
    const WgmmaTranspose transpose = wgmma_transpose(g, p, m.mma_row);
    const int ksteps = m.bk / row.k;
    // The integer/convert instructions issued beside a transposition's scalar loads (program_costs),
    // on the values in `slot`: an FP32-pipe group.
    auto other_instructions = [&](int count, int slot, const char* note) {
      if (count <= 0) return;
      Instr alu = I(Op::ffma);
      alu.count = count, alu.src[0] = std::int16_t(slot), alu.dst = std::int16_t(slot), alu.note = note;
      w.body.push_back(alu);
    };
    // The register-sourced operand's fragments of `steps` k-steps (scalar LDS.32) and the other
    // instructions issued beside them.
    auto register_fragments = [&](int steps, const std::string& which) {
      Instr rf = I(Op::lds);
      rf.bytes = costs.register_operand_bytes * steps, rf.count = costs.register_operand_instructions * steps;
      rf.smem_wavefronts = float(costs.register_operand_wavefronts * steps), rf.dst = std::int16_t(fragment);
      rf.note = "tf32 A fragments (LDS.32) " + which;
      w.body.push_back(rf);
      other_instructions(costs.register_operand_alu_instructions * steps, fragment,
                         "tf32 A fragments: addresses and conversions");
    };
    if (transpose.shared) {
      // This warp's share of the N operand's k-tile: read (4-byte scalars, transposed in registers),
      // written K-major into the copy the wgmmas read, then a barrier.
      Instr rd = I(Op::lds);
      rd.bytes = costs.transpose_bytes, rd.count = costs.transpose_instructions;
      rd.smem_wavefronts = float(costs.transpose_read_wavefronts), rd.dst = std::int16_t(staged);
      rd.note = "tf32 N-major tile to registers";
      w.body.push_back(rd);
      other_instructions(costs.transpose_alu_instructions, staged, "tf32 transposition: addresses and conversions");
      Instr wr = I(Op::sts);
      wr.bytes = costs.transpose_bytes, wr.count = costs.transpose_instructions;
      wr.smem_wavefronts = float(costs.transpose_write_wavefronts), wr.src[0] = std::int16_t(staged);
      wr.note = "tf32 tile written K-major";
      w.body.push_back(wr);
      // The register operand's fragments of every k-step of the tile, in the same phase: with the
      // transposition in front of the wgmmas, cuBLAS's "nt" kernels run ~1.7x the K-major time
      // whether the transposed tile is the 256- or the 128-wide one (validation/measured/H100/
      // op_profile: 128x256 and 256x128 tiles alike), i.e. the phase costs the scalar reads of both
      // operands, not of the transposed one alone.
      register_fragments(ksteps, "every k-step");
      w.body.push_back(I(Op::bar));
    }
    for (int kk = 0; kk < ksteps; ++kk) {
      if (transpose.registers && !transpose.shared) register_fragments(1, "k-step " + std::to_string(kk));
      Instr mm = I(Op::mma);
      if (transpose.registers) mm.src[0] = std::int16_t(fragment);
      mm.mma = std::int16_t(m.mma_row), mm.count = m.wm / row.m, mm.mma_n = m.wn;
      // Operands come from shared memory: this warp's quarter of the warpgroup's A and B slices (B
      // only when A comes from registers).
      mm.bytes = ((transpose.registers ? 0.0 : m.wm * row.k * p.a_bytes) + m.wn * row.k * p.b_bytes) / 4.0;
      mm.dst = std::int16_t(acc);
      mm.stretch = float(1.0 / g.mma_efficiency);
      mm.smem_wavefronts = float(costs.wgmma_wavefronts);
      mm.rf_reads = float(costs.math.reads), mm.rf_bank_reads = float(costs.math.busiest_bank);
      mm.note = "wgmma m64n" + std::to_string(m.wn) + "k" + std::to_string(row.k) + " k-step " + std::to_string(kk);
      w.body.push_back(mm);
    }
    w.body.push_back(I(Op::wgmma_commit));
    // One group stays in flight while the next k-tile lands, except behind a transposition: its
    // single K-major copy is what these wgmmas read, so the next k-tile's copy waits for them (the
    // measured kernel's tensor pipe is busy 54% of the time, the transposition and the wgmmas in turn).
    Instr ww = I(Op::wgmma_wait);
    ww.arg = transpose.shared ? 0 : 1;
    w.body.push_back(ww);
    w.body.push_back(I(Op::bar));
    Instr t = I(Op::tma);
    t.bytes = tma_bytes, t.dst = full, t.rot = std::int16_t(S), t.shift = std::int16_t(S - 1);
    t.distance = std::int16_t(S - 1), t.leader_only = true, t.note = "tile i+" + std::to_string(S - 1);
    w.body.push_back(t);
    Instr w0 = I(Op::wgmma_wait);
    w0.arg = 0;
    w.epilogue.push_back(w0);
    epilogue_transform(w, -1, full);  // the wait above: every wgmma has landed
    const int stored = epilogue_residual(w, -1, staged, 0.25);
    // wm x wn is the warpgroup's tile: each of its four warps stores a quarter of it.
    Instr st = I(Op::stg);
    st.bytes = out_bytes / 4;
    if (stored >= 0) st.src[0] = std::int16_t(stored);
    w.epilogue.push_back(st);
    return w;
  }

  const bool tensor = m.path == MathPath::tensor;
  const int kstep = tensor ? g.mma[m.mma_row].k : 1;
  const int ksteps = m.bk / kstep / m.slices;  // a sliced-K warp runs its slice of the k-tile
  // Volta octets hold A/B fragments twice in registers, but the duplicate lanes of one LDS read
  // the same words (a broadcast), so shared-memory traffic is the warp tile's unique bytes.
  const double lds_bytes = tensor ? (m.wm * kstep * p.a_bytes + m.wn * kstep * p.b_bytes)
                                  : (m.wm * p.a_bytes + m.wn * p.b_bytes);
  const int group = tensor ? (m.wm / g.mma[m.mma_row].m) * (m.wn / g.mma[m.mma_row].n) : m.wm * m.wn / 32 / m.pack;
  const int G = 0, F0 = 1, ACC = 3, ACCD = 4;
  w.slots = 5;
  auto lds = [&](int f, int distance, const std::string& note) {
    Instr in = I(Op::lds);
    in.bytes = lds_bytes, in.dst = std::int16_t(F0 + f), in.distance = std::int16_t(distance), in.note = note;
    in.smem_wavefronts = float(costs.lds_wavefronts);
    in.count = costs.lds_instructions;
    return in;
  };
  auto math = [&](int f, int kk) {
    Instr in = I(tensor ? Op::mma : Op::ffma);
    in.count = group;
    in.mma = std::int16_t(m.mma_row);
    in.src[0] = std::int16_t(F0 + f), in.src[1] = ACC, in.dst = ACC, in.dst2 = ACCD;
    in.note = "k-step " + std::to_string(kk);
    in.stretch = float(1.0 / (tensor ? g.mma_efficiency : g.ffma_efficiency));
    in.rf_reads = float(costs.math.reads), in.rf_bank_reads = float(costs.math.busiest_bank);
    return in;
  };
  const double copy_bytes = tile / m.warps;
  const std::int8_t access = p.copy_width < 16 ? std::int8_t(p.copy_width) : std::int8_t(0);

  if (m.copy == CopyEngine::ldg_sts && m.stages == 1) {
    // One stage, no prefetch (GemmProblem::single_stage): load, store, sync, multiply, sync.
    Instr ldg = I(Op::ldg);
    ldg.bytes = copy_bytes, ldg.dst = G, ldg.note = "tile i", ldg.access_bytes = access;
    w.body.push_back(ldg);
    Instr sts = I(Op::sts);
    sts.bytes = copy_bytes, sts.src[0] = G, sts.smem_wavefronts = float(costs.copy_wavefronts), sts.note = "tile i";
    w.body.push_back(sts);
    w.body.push_back(I(Op::bar));
    w.body.push_back(lds(0, 0, "k-step 0"));
    for (int kk = 0; kk < ksteps; ++kk) {
      if (kk + 1 < ksteps) w.body.push_back(lds((kk + 1) % 2, 0, "k-step " + std::to_string(kk + 1)));
      w.body.push_back(math(kk % 2, kk));
    }
    w.body.push_back(I(Op::bar));
  } else if (m.copy == CopyEngine::ldg_sts) {
    Instr ldg = I(Op::ldg);
    ldg.bytes = copy_bytes, ldg.dst = G, ldg.note = "tile 0", ldg.access_bytes = access;
    w.prologue.push_back(ldg);
    Instr sts = I(Op::sts);
    sts.bytes = copy_bytes, sts.src[0] = G, sts.smem_wavefronts = float(costs.copy_wavefronts);
    w.prologue.push_back(sts);
    w.prologue.push_back(I(Op::bar));
    w.prologue.push_back(lds(0, 0, "k-step 0"));
    ldg.distance = 1, ldg.note = "tile i+1";
    w.body.push_back(ldg);
    for (int kk = 0; kk < ksteps; ++kk) {
      if (kk + 1 < ksteps) w.body.push_back(lds((kk + 1) % 2, 0, "k-step " + std::to_string(kk + 1)));
      w.body.push_back(math(kk % 2, kk));
    }
    sts.distance = 1, sts.note = "tile i+1 to the other stage";
    w.body.push_back(sts);
    w.body.push_back(I(Op::bar));
    w.body.push_back(lds(0, 1, "tile i+1 k-step 0"));
  } else {
    const int S = m.stages;
    // cp.async main loops (CUTLASS MmaMultistage::mac_loop_iter) sync after the second-to-last k-step
    // and load the next tile's first fragment under the last k-step's math. The fragment registers
    // alternate between two slots, so this needs an even number of k-steps. (The ldg/sts loop of
    // sm_70/75 keeps its sync at the end of the tile: the calibration of those kernels assumes it.)
    const bool early_barrier = ksteps >= 2 && ksteps % 2 == 0;
    for (int s = 0; s < S - 1; ++s) {
      if (s < iterations) {
        Instr cp = I(Op::cp_async);
        cp.bytes = copy_bytes, cp.note = "stage " + std::to_string(s), cp.access_bytes = access;
        cp.smem_wavefronts = float(costs.copy_wavefronts);
        w.prologue.push_back(cp);
      }
      w.prologue.push_back(I(Op::cp_commit));
    }
    Instr wt = I(Op::cp_wait);
    wt.arg = std::int16_t(S - 2);
    w.prologue.push_back(wt);
    w.prologue.push_back(I(Op::bar));
    w.prologue.push_back(lds(0, 0, "k-step 0"));
    for (int kk = 0; kk < ksteps; ++kk) {
      if (kk + 1 < ksteps) w.body.push_back(lds((kk + 1) % 2, 0, "k-step " + std::to_string(kk + 1)));
      else if (early_barrier) w.body.push_back(lds(0, 1, "tile i+1 k-step 0"));
      w.body.push_back(math(kk % 2, kk));
      if (kk == 0) {
        Instr cp = I(Op::cp_async);
        cp.bytes = copy_bytes, cp.distance = std::int16_t(S - 1), cp.note = "tile i+" + std::to_string(S - 1);
        cp.access_bytes = access;
        cp.smem_wavefronts = float(costs.copy_wavefronts);
        w.body.push_back(cp);
        w.body.push_back(I(Op::cp_commit));
      }
      // CUTLASS MmaMultistage waits for the next stage and syncs after the second-to-last k-step, so
      // the last k-step's math hides the next tile's first fragment load.
      if (early_barrier && kk + 2 == ksteps) {
        w.body.push_back(wt);
        w.body.push_back(I(Op::bar));
      }
    }
    if (!early_barrier) {
      w.body.push_back(wt);
      w.body.push_back(I(Op::bar));
      w.body.push_back(lds(0, 1, "tile i+1 k-step 0"));
    }
  }
  epilogue_transform(w, ACCD, F0);
  if (m.slices > 1) {
    // Sliced-K: every warp stores its partial tile (fp32) to shared memory; after a barrier each
    // warp reads the `slices` partials of its 1/slices share of the tile, adds them and stores it.
    Instr sts = I(Op::sts);
    sts.bytes = double(m.wm) * m.wn * 4, sts.src[0] = ACCD, sts.note = "sliced-K partial tile";
    w.epilogue.push_back(sts);
    w.epilogue.push_back(I(Op::bar));
    Instr lds = I(Op::lds);
    lds.bytes = double(m.wm) * m.wn * 4, lds.dst = F0, lds.note = "sliced-K partials";
    w.epilogue.push_back(lds);
    Instr add = I(Op::ffma);
    add.count = std::max(1, int(std::ceil(double(m.wm) * m.wn * (m.slices - 1) / m.slices / 32.0)));
    add.src[0] = F0, add.note = "sliced-K sum";
    w.epilogue.push_back(add);
  }
  const int stored = epilogue_residual(w, m.slices > 1 ? F0 : ACCD, G, 1.0 / m.slices);
  Instr st = I(Op::stg);
  st.bytes = out_bytes / m.slices, st.src[0] = std::int16_t(stored), st.note = "epilogue";
  w.epilogue.push_back(st);
  return w;
}

}  // namespace tcsim::gpu
