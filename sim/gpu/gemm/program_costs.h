#pragma once
// What one warp's instructions of a mapping cost the shared-memory banks and the register-file
// ports: the operand tiles' layouts for the architecture (smem_tiles.h), the wavefronts of the
// copies into them and of the fragment reads out of them, and the register reads of one k-step's
// MMA/FFMA group (rf_ports.h). build_program stores these in the instructions.
#include "gpu/gemm/mapping.h"
#include "gpu/sm/rf_ports.h"
#include "gpu/sm/smem_tiles.h"

namespace tcsim::gpu {

struct ProgramCosts {
  SmemTile a_tile, b_tile;       // one stage of each operand
  double copy_wavefronts = 0;    // one warp's share of one k-tile copy (STS / cp.async), both operands
  double copy_ideal = 0;         // the same bytes conflict-free (bytes / (banks x width))
  double lds_wavefronts = 0;     // one warp's fragment reads of one k-step (LDS / ldmatrix), both operands
  double lds_ideal = 0;
  int lds_instructions = 1;      // issue slots of one k-step's fragment reads (tf32 LDS.32: one per 32 elements)
  double wgmma_wavefronts = 0;   // sm_90: one warp's share of a k-step's wgmma operand reads
  // sm_90 tf32 MN-major operands (mapping.h, wgmma_transpose), per warp: the register-sourced
  // operand's k-step fragments (scalar LDS.32), and one k-tile of the operand transposed through
  // shared memory (read, then written back: bytes, instructions, and the wavefronts of the reads
  // and of the writes, which conflict differently).
  // Each also issues integer/convert instructions beside its loads and stores (`*_alu_instructions`).
  double register_operand_bytes = 0, register_operand_wavefronts = 0;
  int register_operand_instructions = 0, register_operand_alu_instructions = 0;
  double transpose_bytes = 0, transpose_read_wavefronts = 0, transpose_write_wavefronts = 0;
  int transpose_instructions = 0, transpose_alu_instructions = 0;
  RfReads math;                  // the k-step's MMA / FFMA group
};

ProgramCosts program_costs(const GpuConfig& g, const GemmProblem& p, const Mapping& m);

}  // namespace tcsim::gpu
