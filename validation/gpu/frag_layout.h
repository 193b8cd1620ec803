#pragma once
// Which matrix element each register slot of a thread holds, for every MMA instruction the
// probe runs. Transcribed from the PTX ISA, section "Matrix fragments for mma.m*n*k*" (and
// "Register fragments" of wgmma for the accumulator). Usable on host and device: the host checks
// that every map is a bijection (mma_probe --check-layouts, no GPU needed) and the GPU self-test
// checks them against the hardware before any sample is taken.
//
// Notation of the PTX ISA: groupID = lane >> 2, threadID_in_group = lane % 4. Element i of a
// fragment sits in register i / (32 / bits), at bit offset (i % (32 / bits)) * bits (the lower
// element in the lower bits).
#include <cstdint>

#ifdef __CUDACC__
#define TCV_HD __host__ __device__
#else
#define TCV_HD
#endif

namespace tcv {

enum class Lay : int {
  // multiplicand A (row, col) = (m, k)
  A884_F16,    // m8n8k4 .f16, per quad-pair: row = lane%4 (+4 for lanes >= 16), col = i
  A1688_16,    // m16n8k8 .f16/.bf16: row = gid + 8*(i>>1), col = tig*2 + (i&1)
  A16816_16,   // m16n8k16 .f16/.bf16: row = gid + 8*((i>>1)&1), col = tig*2 + (i&1) + 8*(i>>2)
  A1688_TF32,  // m16n8k8 .tf32: row = gid + 8*(i&1), col = tig + 4*(i>>1)
  A16832_8,    // m16n8k32 8-bit: row = gid + 8*((i>>2)&1), col = tig*4 + (i&3) + 16*(i>>3)
  A8816_8,     // m8n8k16 8-bit: row = gid, col = tig*4 + i
  A8832_4,     // m8n8k32 4-bit: row = gid, col = tig*8 + i
  A884_F64,    // m8n8k4 .f64: row = gid, col = tig
  // multiplicand B (row, col) = (k, n)
  B884_F16,    // m8n8k4 .f16 .col: row = i, col = lane%4 (+4 for lanes >= 16)
  B1688_16,    // row = tig*2 + i, col = gid
  B16816_16,   // row = tig*2 + (i&1) + 8*(i>>1), col = gid
  B1688_TF32,  // row = tig + 4*i, col = gid
  B16832_8,    // row = tig*4 + (i&3) + 16*(i>>2), col = gid
  B8816_8,     // row = tig*4 + i, col = gid
  B8832_4,     // row = tig*8 + i, col = gid
  B884_F64,    // row = tig, col = gid
  // accumulator C/D (row, col) = (m, n)
  C16x8,       // m16n8: row = gid + 8*(i>>1), col = tig*2 + (i&1)
  C8x8,        // m8n8k16/k32/f64: row = gid, col = tig*2 + i
  C884_F16,    // m8n8k4 .f16: row = lane%4 (+4), col = i
  C884_F32,    // m8n8k4 .f32: row = (lane&1) + (i&2) (+4), col = (i&4) + (lane&2) + (i&1)
  CWG_N8,      // wgmma m64n8, thread t of the warpgroup: row = 16*(t/32) + gid + 8*(i>>1), col = tig*2 + (i&1)
};

struct RC {
  int r, c;
};

// lane: 0..31 (0..127 for CWG_N8). Returns the (row, col) of element i of that thread's fragment.
TCV_HD inline RC frag_rc(Lay l, int lane, int i) {
  const int gid = (lane & 31) >> 2, tig = lane & 3;
  const int hi4 = (lane & 31) >= 16 ? 4 : 0;  // m8n8k4: upper half of the quad-pair
  switch (l) {
    case Lay::A884_F16: return {(lane & 3) + hi4, i};
    case Lay::A1688_16: return {gid + 8 * (i >> 1), tig * 2 + (i & 1)};
    case Lay::A16816_16: return {gid + 8 * ((i >> 1) & 1), tig * 2 + (i & 1) + 8 * (i >> 2)};
    case Lay::A1688_TF32: return {gid + 8 * (i & 1), tig + 4 * (i >> 1)};
    case Lay::A16832_8: return {gid + 8 * ((i >> 2) & 1), tig * 4 + (i & 3) + 16 * (i >> 3)};
    case Lay::A8816_8: return {gid, tig * 4 + i};
    case Lay::A8832_4: return {gid, tig * 8 + i};
    case Lay::A884_F64: return {gid, tig};
    case Lay::B884_F16: return {i, (lane & 3) + hi4};
    case Lay::B1688_16: return {tig * 2 + i, gid};
    case Lay::B16816_16: return {tig * 2 + (i & 1) + 8 * (i >> 1), gid};
    case Lay::B1688_TF32: return {tig + 4 * i, gid};
    case Lay::B16832_8: return {tig * 4 + (i & 3) + 16 * (i >> 2), gid};
    case Lay::B8816_8: return {tig * 4 + i, gid};
    case Lay::B8832_4: return {tig * 8 + i, gid};
    case Lay::B884_F64: return {tig, gid};
    case Lay::C16x8: return {gid + 8 * (i >> 1), tig * 2 + (i & 1)};
    case Lay::C8x8: return {gid, tig * 2 + i};
    case Lay::C884_F16: return {(lane & 3) + hi4, i};
    case Lay::C884_F32: return {(lane & 1) + (i & 2) + hi4, (i & 4) + (lane & 2) + (i & 1)};
    case Lay::CWG_N8: return {16 * (lane >> 5) + gid + 8 * (i >> 1), tig * 2 + (i & 1)};
  }
  return {0, 0};
}

// m8n8k4 runs four independent 8x8x4 products per warp, one per quad-pair
// (lanes 4q..4q+3 and 4q+16..4q+19): the tile a lane works on.
TCV_HD inline int quad_pair(int lane) { return (lane >> 2) & 3; }

}  // namespace tcv
