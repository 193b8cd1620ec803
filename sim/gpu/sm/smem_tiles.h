#pragma once
// Shared-memory operand tiles of the modelled GEMM kernels: the layout each architecture's library
// kernels use, the lane addresses of the instructions that write and read them, and the resulting
// bank-conflict wavefronts (smem_banks.h). build_program (mapping.cpp) stores the counts in the
// program's LDS / STS / cp.async / wgmma instructions.
//
// Layouts, in pitch-linear terms (`strided` rows of `contiguous_bytes`; the contiguous dimension is
// K for a K-contiguous operand, else M or N):
//  - none: row-major, optional padding per row (reference; unswizzled tiles).
//  - xor_128b: CUTLASS sm_75/sm_80 TensorOpMultiplicand{Congruous,Crosswise} / CuTe Swizzle<3,4,3>:
//    the tile is cut into 128-byte-wide column blocks; inside a block the 16-byte vector v of row r
//    sits at slot v ^ (r mod 8). Rows narrower than 128 B share a 128-byte line and the line index
//    is the XOR key. Also the 128-byte swizzle of TMA/wgmma tiles on sm_90.
//  - volta_congruous / volta_crosswise: CUTLASS VoltaTensorOpMultiplicandCongruous (16-byte
//    vectors, M/N-contiguous operands) and VoltaTensorOpMultiplicandCrosswise (8-byte vectors,
//    K-contiguous, KBlock 32), bit for bit (cutlass/layout/tensor_op_multiplicand_sm70.h).
// Access patterns (lane -> element), per warp:
//  - copies (STS.128 / cp.async 16 B, Volta crosswise 2 x STS.64): lanes take consecutive 16-byte
//    global vectors in row-major order (CUTLASS pitch-linear warp-raked thread map); SIMT tiles of
//    K-contiguous operands are transposed with 4-byte stores, lanes along M.
//  - ldmatrix (sm_75+; .trans for M/N-contiguous operands): one phase = 8 consecutive strided rows
//    at one 16-byte vector.
//  - Volta LDS.128 (congruous): one quarter-warp phase = 4 k-rows (one HMMA.884 k-slice) x 2
//    adjacent 16-byte vectors; Volta LDS.64 (crosswise): one half-warp phase = 16 consecutive rows
//    at one 8-byte k-vector. The octets' duplicated A/B fragments are assumed to be broadcasts
//    within a phase (not separate phases): an assumption, cuBLAS's SASS is not public.
//  - SIMT LDS.128 (4 elements per lane): CUTLASS MmaSimt lane layout 4 x 8, RowMajorInterleaved<2>.
#include <cstdint>

#include "gpu/gpu_config.h"
#include "gpu/sm/smem_banks.h"

namespace tcsim::gpu {

enum class SmemSwizzle { none, xor_128b, volta_congruous, volta_crosswise };

struct SmemTile {
  int strided = 0;            // rows
  int contiguous_bytes = 0;   // bytes per row (before padding)
  SmemSwizzle swizzle = SmemSwizzle::none;
  int pad_bytes = 0;          // `none` only: extra bytes after each row
  std::int64_t offset(int row, int byte) const;  // byte address of (row, byte within the row)
};

SmemBankGeometry bank_geometry(const GpuConfig& g);

// How a warp reads its fragments of a tile.
enum class FragmentRead { ldmatrix, volta_lds128, volta_lds64, simt_a, simt_b };

// Wavefronts for a warp to write `bytes` of the tile (its share of the CTA's copy), holding
// `global_vec`-byte pieces of global memory per lane and storing `store_vec` bytes per instruction.
// transpose: the tile stores the operand transposed (SIMT, K-contiguous source), 4-byte stores.
double copy_wavefronts(const SmemTile& t, const SmemBankGeometry& geo, double bytes, int global_vec, int store_vec,
                       bool transpose = false, int element_bytes = 4);

// Wavefronts for a warp to read the fragments of one k-step: `rows` strided rows starting at
// `row0` times `bytes` contiguous bytes starting at `byte0` (for SIMT: rows = the k row, bytes =
// the warp's M or N extent). pair_merge: compute capability 7.x uniform-pair loads.
double fragment_wavefronts(const SmemTile& t, const SmemBankGeometry& geo, FragmentRead how, int row0, int rows,
                           int byte0, int bytes, bool pair_merge = false, int element_bytes = 4);

}  // namespace tcsim::gpu
