#pragma once
// Shared-memory bank conflicts of one warp-wide access: how many wavefronts (shared-memory cycles
// in which every bank delivers at most one word) the hardware needs.
//
// The rules (CUDA C++ Programming Guide, "Shared Memory" of compute capability 5.x and later;
// NVIDIA forum answers on LDS.64/LDS.128, see sim/gpu/README.md "Shared-memory banks"):
//  - `banks` banks of `bank_bytes` (32 x 4 B): word w of the address space lives in bank w mod banks.
//  - A 4-byte access is one phase of 32 lanes; an 8-byte access two phases of 16 lanes (half warps);
//    a 16-byte access four phases of 8 lanes (quarter warps). A phase therefore asks for at most
//    banks x bank_bytes (128 B) of distinct data, and the data return path carries 128 B per cycle:
//    a full-warp LDS.128 needs at least 4 wavefronts even when every lane reads the same address.
//  - ldmatrix (sm_75+) reads 8x8 matrices of 16-byte rows, one row address per lane: each matrix is
//    one phase of 8 rows, exactly like a quarter warp of LDS.128 (ldmatrix_wavefronts).
//  - Within a phase, lanes reading the same word share it (broadcast, free); distinct words in the
//    same bank serialise: the phase takes max over banks of the distinct words in that bank.
//  - Compute capability 7.0-7.5 loads only (pair_merge): when every lane n reads the same address as
//    lane n^1, or every lane n the same as lane n^2, the return path packs two lanes per register and
//    a 64/128-bit load needs half the phases (phases of 32 / 16 lanes; "LDS.128 from 4 requests to 2").
//  - An inactive lane has a negative address; a phase without active lanes costs nothing.
#include <cstdint>
#include <span>

namespace tcsim::gpu {

struct SmemBankGeometry {
  int banks = 32;
  int bank_bytes = 4;
  int phase_bytes() const { return banks * bank_bytes; }
};

// Wavefronts of one warp-wide access of `width` bytes per lane (4, 8 or 16; also 1 and 2, which
// behave like 4) at the given per-lane byte addresses (up to 32 lanes; negative = inactive).
// Throws std::invalid_argument for other widths, more than 32 lanes or misaligned addresses.
int smem_wavefronts(std::span<const std::int64_t> lane_addresses, int width, const SmemBankGeometry& geo,
                    bool pair_merge = false);

// Wavefronts of an ldmatrix .x1/.x2/.x4: `row_addresses` holds 8, 16 or 32 row addresses (16-byte
// rows), 8 per matrix, in the order of the lanes that supply them.
int ldmatrix_wavefronts(std::span<const std::int64_t> row_addresses, const SmemBankGeometry& geo);

}  // namespace tcsim::gpu
