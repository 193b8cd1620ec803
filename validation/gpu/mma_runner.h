#pragma once
// The table of MMA instruction variants the probe knows and the code that runs a batch of
// independent tiles of one variant on the GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "formats_host.h"

namespace tcv {

struct OpInfo {
  const char* key;          // "mma_m16n8k16_f16_f32": directory names and --ops
  const char* instruction;  // "mma.m16n8k16" / "wgmma.m64nNk16": the name in tcsim's instruction table
                            // (sim/numerics/mma/arch.cpp), meta.yaml `instruction`; the probe runs N = 8
  const char* ptx;          // the full PTX mnemonic
  Fmt in;                   // A and B format
  Fmt acc;                  // C and D format
  int m, n, k;
  int min_cc;               // 70, 75, 80, 89, 90
  bool wgmma;               // runs only on exactly cc 9.0 (sm_90a code)
  bool satfinite;
  int tiles_per_warp;       // 4 for m8n8k4 (one 8x8x4 product per quad-pair), else 1
  int sparse_meta = 0;      // 2:4 sparse (mma.sp): the metadata nibble of every group of four
                            // (kept positions i0 | i1<<2); A entries at the other positions are +0
};

// True when entry k of an A row is dropped by the op's 2:4 metadata (always false when dense).
inline bool sparse_dropped(const OpInfo& op, int k) {
  if (op.sparse_meta == 0) return false;
  const int pos = k % 4;
  return pos != (op.sparse_meta & 3) && pos != ((op.sparse_meta >> 2) & 3);
}

const std::vector<OpInfo>& all_ops();
const OpInfo* find_op(const std::string& key);
bool op_runs_on(const OpInfo& op, int cc);

// tiles independent products D = A*B + C of one variant, chained `chain` times along K
// (Kt = k*chain; the chain runs through the accumulator registers, in increasing k).
// A: [tiles][m][Kt], B: [tiles][Kt][n], C and D: [tiles][m][n], row-major, each element the
// bit pattern of its format in the low bits. `tiles` must be a multiple of tiles_per_warp.
struct TileBatch {
  int tiles = 0, chain = 1;
  std::vector<std::uint64_t> a, b, c, d;
};

enum class RunStatus { ok, not_compiled };
// wgmma_swap_desc: put the byte offsets into the other descriptor fields (LBO <-> SBO); the
// self-test tries it when the documented assignment fails, see README.
RunStatus run_tiles(const OpInfo& op, TileBatch& batch, bool wgmma_swap_desc);

}  // namespace tcv
