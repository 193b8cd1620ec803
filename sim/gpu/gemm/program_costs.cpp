#include "gpu/gemm/program_costs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "numerics/formats/format_id.h"

namespace tcsim::gpu {
namespace {

// Shared-memory wavefronts per warp instruction of the sm_90 tf32 transposition through shared
// memory (4-byte accesses): its reads and its writes, from Nsight Compute on the H100
// (validation/measured/H100/ncu_gemm_layouts: 569 / 258 and 374 / 260 per k-step).
constexpr double kTf32TransposeReadWavefronts = 2.2;
constexpr double kTf32TransposeWriteWavefronts = 1.44;
// Other warp instructions (address arithmetic, conversions, permutes) issued per LDS.32 of these
// paths, from the same profile's instruction counts per CTA k-step (smsp__inst_executed over 512 CTAs
// x 128 k-steps): K-major "tn" 599.0; "nn", whose A comes from registers, 887.7 = + 128 fragment
// LDS.32 + 160.7 others (1.26 per LDS.32); "nt", A from registers and the 256 x 32 B tile
// transposed, 2736.0 = + the "nn" 288.7 + 256 LDS.32 + 256 STS.32 + 1336 others (5.22 per LDS.32).
constexpr double kTf32RegisterOperandAluPerLoad = 160.7 / 128.0;
constexpr double kTf32TransposeAluPerLoad = 1336.0 / 256.0;

int bytes_of(double elements, double element_bytes) { return std::max(1, int(std::lround(elements * element_bytes))); }

struct Operand {
  bool k_contiguous = false;
  int mn = 0;        // CTA tile extent along M (A) or N (B)
  int warp_mn = 0;   // warp tile extent
  double eb = 2;     // element bytes
};

SmemTile tile_for(const GpuConfig& g, const Mapping& m, const Operand& o) {
  SmemTile t;
  const bool tensor = m.path == MathPath::tensor;
  if (tensor && o.k_contiguous) t.strided = o.mn, t.contiguous_bytes = bytes_of(m.bk, o.eb);
  else t.strided = m.bk, t.contiguous_bytes = bytes_of(o.mn, o.eb);
  if (!tensor) {
    t.swizzle = SmemSwizzle::none;  // SIMT: k rows of M (N), the operand transposed when K-contiguous
  } else if (g.arch == "sm_70") {
    t.swizzle = o.k_contiguous ? SmemSwizzle::volta_crosswise : SmemSwizzle::volta_congruous;
  } else {
    t.swizzle = SmemSwizzle::xor_128b;
  }
  return t;
}

double copy_of(const GpuConfig& g, const Mapping& m, const SmemTile& t, const Operand& o, double bytes) {
  const SmemBankGeometry geo = bank_geometry(g);
  if (m.path != MathPath::tensor) {
    if (o.k_contiguous) return copy_wavefronts(t, geo, bytes, 16, 4, true, int(o.eb));
    return copy_wavefronts(t, geo, bytes, 16, 16);
  }
  if (t.swizzle == SmemSwizzle::volta_crosswise) return copy_wavefronts(t, geo, bytes, 16, 8);
  return copy_wavefronts(t, geo, bytes, 16, 16);
}

// sm_80 mma.sync on a 32-bit (tf32) M/N-contiguous operand. ldmatrix.trans moves 16-bit elements
// only (PTX ISA, ldmatrix), so CUTLASS's warp iterator for TensorOpMultiplicandCongruous<32, 32>
// (mma_tensor_op_tile_iterator.h) reads these fragments with scalar 32-bit shared loads: one LDS.32
// per fragment register, 4 per 16x8 tf32 A fragment where K-contiguous operands take one ldmatrix.x4.
bool scalar_fragments(const GpuConfig& g, const Mapping& m, const Operand& o) {
  return m.path == MathPath::tensor && g.arch != "sm_70" && o.eb == 4 && !o.k_contiguous;
}

// One k-step's fragment reads of one operand by warp 0 (the tile's reads averaged over its k-steps).
double fragments_of(const GpuConfig& g, const Mapping& m, const SmemTile& t, const Operand& o, bool is_a) {
  const SmemBankGeometry geo = bank_geometry(g);
  if (m.path != MathPath::tensor) {
    const bool pair = g.arch == "sm_70" || g.arch == "sm_75";
    return fragment_wavefronts(t, geo, is_a ? FragmentRead::simt_a : FragmentRead::simt_b, 0, 1, 0,
                               bytes_of(o.warp_mn, o.eb), pair, int(o.eb));
  }
  // The k-steps of a tile read the whole tile once; rows of k narrower than a phase (tf32 k-steps of
  // 4 rows against 8-row matrices) share phases with the next k-step, so count the tile and average.
  const MmaInstr& row = g.mma[m.mma_row];
  // LDS.32 fragments: CUTLASS stores these tiles in TensorOpMultiplicandCongruous<32, 32>, whose
  // swizzle serves the iterator's scalar loads conflict-free: one wavefront per 128 bytes.
  if (scalar_fragments(g, m, o))
    return double(o.warp_mn) * row.k * o.eb / (double(g.smem_banks) * g.smem_bank_bytes);
  const int steps = std::max(1, m.bk / row.k);
  FragmentRead how = FragmentRead::ldmatrix;
  if (t.swizzle == SmemSwizzle::volta_congruous) how = FragmentRead::volta_lds128;
  if (t.swizzle == SmemSwizzle::volta_crosswise) how = FragmentRead::volta_lds64;
  const double wf = o.k_contiguous ? fragment_wavefronts(t, geo, how, 0, o.warp_mn, 0, bytes_of(m.bk, o.eb))
                                   : fragment_wavefronts(t, geo, how, 0, m.bk, 0, bytes_of(o.warp_mn, o.eb));
  return wf / steps;
}

}  // namespace

namespace {

ProgramCosts compute(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  ProgramCosts c;
  const double phase = double(g.smem_banks) * g.smem_bank_bytes;
  const bool tensor = m.path == MathPath::tensor;
  const bool wgmma = tensor && g.mma[m.mma_row].kind == MmaKind::wgmma;
  // A 2:4-sparse A tile holds the kept values (half the elements) in the dense layout; its metadata
  // (1/8 B per element, in a_bytes) is a small separate tile whose bank costs are not counted.
  const double a_layout_bytes = p.sparse_a ? format_bits(p.ab) / 16.0 : p.a_bytes;
  const Operand a{p.a_k_contiguous, m.bm, m.wm, a_layout_bytes}, b{p.b_k_contiguous, m.bn, m.wn, p.b_bytes};
  if (wgmma) {
    // TMA writes and wgmma reads 128-byte-swizzled tiles (K-major view; MN-major is the same up to
    // transposition): 8-row core matrices of 16 B, conflict-free by construction, but computed.
    const MmaInstr& row = g.mma[m.mma_row];
    const SmemBankGeometry geo = bank_geometry(g);
    c.a_tile = {m.bm, bytes_of(m.bk, a_layout_bytes), SmemSwizzle::xor_128b, 0};
    c.b_tile = {m.bn, bytes_of(m.bk, p.b_bytes), SmemSwizzle::xor_128b, 0};
    const int kb = bytes_of(row.k, a_layout_bytes);
    const double wf_a = fragment_wavefronts(c.a_tile, geo, FragmentRead::ldmatrix, 0, m.wm, 0, kb);
    const double wf_b = fragment_wavefronts(c.b_tile, geo, FragmentRead::ldmatrix, 0, m.wn, 0, bytes_of(row.k, p.b_bytes));
    const WgmmaTranspose transpose = wgmma_transpose(g, p, m.mma_row);
    c.wgmma_wavefronts = (transpose.registers ? wf_b : wf_a + wf_b) / 4.0;  // each warp: a quarter
    if (transpose.registers) {
      // The warp's quarter of the warpgroup's wm x k fragment, one LDS.32 per register (as the
      // sm_80 scalar fragments below): conflict-free, one wavefront per 128 bytes.
      const double elements = double(m.wm) * row.k / 4.0;
      c.register_operand_bytes = elements * a_layout_bytes;
      c.register_operand_wavefronts = c.register_operand_bytes / phase;
      c.register_operand_instructions = std::max(1, int(std::ceil(elements / 32.0)));
      c.register_operand_alu_instructions = int(std::lround(c.register_operand_instructions * kTf32RegisterOperandAluPerLoad));
    }
    if (transpose.shared) {
      // Measured (Nsight Compute on the H100, cuBLAS's sm90_xmma tf32 "nt" kernel, 4096^3, 128x256x32
      // tiles: validation/measured/H100/ncu_gemm_layouts): per k-step 386 LDS and 260 STS warp
      // instructions, i.e. the 256 x 32 B tile moves in 4-byte scalars (LDS.32 / STS.32, one per
      // element per lane) beside the A operand's 128 fragment LDS.32; its reads take 569 wavefronts
      // (2.2 per instruction: column reads of MN-major rows conflict) and its writes 374 (1.44).
      c.transpose_bytes = double(m.bn) * m.bk * p.b_bytes / m.warps;
      const double instructions = c.transpose_bytes / (32.0 * 4.0);
      c.transpose_read_wavefronts = instructions * kTf32TransposeReadWavefronts;
      c.transpose_write_wavefronts = instructions * kTf32TransposeWriteWavefronts;
      c.transpose_instructions = std::max(1, int(std::ceil(instructions)));
      c.transpose_alu_instructions = int(std::lround(c.transpose_instructions * kTf32TransposeAluPerLoad));
    }
    c.math = mma_group_rf_reads(g, row, m.wm / row.m, 1, m.wn);
    return c;
  }
  c.a_tile = tile_for(g, m, a);
  c.b_tile = tile_for(g, m, b);
  const double a_share = double(m.bm) * m.bk * p.a_bytes / m.warps, b_share = double(m.bn) * m.bk * p.b_bytes / m.warps;
  c.copy_wavefronts = copy_of(g, m, c.a_tile, a, a_share) + copy_of(g, m, c.b_tile, b, b_share);
  c.copy_ideal = (a_share + b_share) / phase;
  c.lds_wavefronts = fragments_of(g, m, c.a_tile, a, true) + fragments_of(g, m, c.b_tile, b, false);
  if (tensor) {
    const MmaInstr& row = g.mma[m.mma_row];
    c.lds_ideal = (m.wm * row.k * p.a_bytes + m.wn * row.k * p.b_bytes) / phase;
    c.math = mma_group_rf_reads(g, row, m.wm / row.m, m.wn / row.n);
    // ldmatrix.x4 moves 32 registers' worth per instruction (one issue for the k-step's group, as
    // before); LDS.32 one register per lane, so a scalar operand costs one issue per 32 elements.
    int extra = 0;
    if (scalar_fragments(g, m, a)) extra += m.wm * row.k / 32;
    if (scalar_fragments(g, m, b)) extra += m.wn * row.k / 32;
    c.lds_instructions = std::max(1, extra + (scalar_fragments(g, m, a) && scalar_fragments(g, m, b) ? 0 : 1));
  } else {
    c.lds_ideal = (m.wm * p.a_bytes + m.wn * p.b_bytes) / phase;
    // MmaSimt thread tile per k: (wm / 16) x 4 rows of A by (wn / 32) x 4 columns of B (HFMA2: pairs).
    const int tm = (m.wm / 16) * 4, tn = std::max(1, (m.wn / 32) * 4 / m.pack);
    c.math = ffma_group_rf_reads(g, tm, tn);
  }
  return c;
}

// Everything compute() reads, as a key: the costs do not depend on the iterations, the CTAs or
// the bandwidth share, so the many simulations of one mapping share them.
std::string key_of(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  char buf[320];
  int row_m = 0, row_n = 0, row_k = 0, sass = 0, kind = 0, ab_bits = 0, acc_bits = 0;
  if (m.path == MathPath::tensor) {
    const MmaInstr& r = g.mma[m.mma_row];
    row_m = r.m, row_n = r.n, row_k = r.k, sass = r.sass_count, kind = int(r.kind);
    ab_bits = r.ab.empty() ? 0 : format_bits(r.ab.front()), acc_bits = format_bits(r.acc);
  }
  std::snprintf(buf, sizeof buf, "%s|%d|%d|%d|%d|%d,%d,%d,%d,%d,%d,%d|%d|%d,%d,%d,%d,%d,%d,%d|%g|%g|%d|%d", g.arch.c_str(),
                g.smem_banks, g.smem_bank_bytes, g.rf_banks_per_subcore, int(m.path), row_m, row_n, row_k, sass, kind,
                ab_bits, acc_bits, m.pack, m.bm, m.bn, m.bk, m.wm, m.wn, m.warps, m.mma_row, p.a_bytes, p.b_bytes,
                int(p.a_k_contiguous), int(p.b_k_contiguous));
  return std::string(buf) + "|" + std::to_string(m.slices);
}

}  // namespace

ProgramCosts program_costs(const GpuConfig& g, const GemmProblem& p, const Mapping& m) {
  static std::mutex mu;
  static std::map<std::string, ProgramCosts> cache;
  const std::string key = key_of(g, p, m);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  ProgramCosts c = compute(g, p, m);
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, c);
  return c;
}

}  // namespace tcsim::gpu
