#include "gpu/sm/smem_tiles.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace tcsim::gpu {
namespace {

constexpr int kWarp = 32;
// Copies longer than this many instructions are computed on a prefix and scaled (the pattern repeats).
constexpr int kMaxCopyInstructions = 16;

}  // namespace

std::int64_t SmemTile::offset(int row, int byte) const {
  const std::int64_t r = row, b = byte;
  switch (swizzle) {
    case SmemSwizzle::none:
      return r * (contiguous_bytes + pad_bytes) + b;
    case SmemSwizzle::xor_128b: {
      if (contiguous_bytes >= 128) {
        const std::int64_t block = b / 128, within = b % 128;
        const std::int64_t slot = (within / 16) ^ (r % 8);
        return block * strided * 128 + r * 128 + slot * 16 + within % 16;
      }
      const std::int64_t o = r * contiguous_bytes + b, line = o / 128;
      const std::int64_t slot = ((o % 128) / 16) ^ (line % 8);
      return line * 128 + slot * 16 + o % 16;
    }
    case SmemSwizzle::volta_congruous: {
      // VoltaTensorOpMultiplicandCongruous: 16-byte vectors, tiles of 8 x 4 vectors,
      // "(tid[2:0] << 2) | (tid[4:3] ^ tid[2:1])".
      const std::int64_t vc = b / 16, vs = r;
      const std::int64_t tc = vc / 8, ts = vs / 4, rc = vc % 8, rs = vs % 4;
      const std::int64_t ps = rc >> 1, pc = (rs ^ ps) | ((rc & 1) << 2);
      return (tc * 8 + pc) * 16 + b % 16 + (ts * 4 + ps) * contiguous_bytes;
    }
    case SmemSwizzle::volta_crosswise: {
      // VoltaTensorOpMultiplicandCrosswise: 8-byte vectors; k-vector vc becomes the stored row
      // (pitch = rows x 8 B), the 16-row groups are permuted and XORed with vc / 2.
      const std::int64_t vc = b / 8, vs = r;
      std::int64_t col = (vs & ~std::int64_t(0xF)) + (vs & 3) * 4 + (((vs >> 2) ^ ((vs & 0x10) >> 3)) & 3);
      col ^= ((vc & 7) >> 1) & 3;
      return col * 8 + b % 8 + vc * std::int64_t(strided) * 8;
    }
  }
  return 0;
}

SmemBankGeometry bank_geometry(const GpuConfig& g) {
  SmemBankGeometry geo;
  geo.banks = g.smem_banks;
  geo.bank_bytes = g.smem_bank_bytes;
  return geo;
}

double copy_wavefronts(const SmemTile& t, const SmemBankGeometry& geo, double bytes, int global_vec, int store_vec,
                       bool transpose, int element_bytes) {
  if (bytes <= 0 || t.strided <= 0 || t.contiguous_bytes <= 0) return 0;
  if (global_vec <= 0 || store_vec <= 0 || global_vec % store_vec)
    throw std::invalid_argument("copy_wavefronts: bad vector sizes");
  const std::int64_t vectors = std::int64_t(std::ceil(bytes / global_vec));
  const std::int64_t instructions = (vectors + kWarp - 1) / kWarp;
  const std::int64_t done = std::min<std::int64_t>(instructions, kMaxCopyInstructions);
  std::array<std::int64_t, kWarp> addr{};
  double wf = 0;
  for (std::int64_t q = 0; q < done; ++q) {
    if (transpose) {
      // Lanes along the stored tile's contiguous dimension (M), each holding global_vec bytes of K.
      const int per_row = std::max(1, t.contiguous_bytes / element_bytes);
      const int k_per_lane = std::max(1, global_vec / element_bytes);
      for (int j = 0; j < k_per_lane; ++j) {
        for (int l = 0; l < kWarp; ++l) {
          const std::int64_t v = q * kWarp + l;
          if (v >= vectors) {
            addr[std::size_t(l)] = -1;
            continue;
          }
          const int m = int(v % per_row), k = int((v / per_row) * k_per_lane + j) % t.strided;
          addr[std::size_t(l)] = t.offset(k, m * element_bytes);
        }
        wf += smem_wavefronts(addr, std::min(element_bytes, 16), geo);
      }
      continue;
    }
    const int per_row = std::max(1, t.contiguous_bytes / global_vec);
    for (int j = 0; j < global_vec / store_vec; ++j) {
      for (int l = 0; l < kWarp; ++l) {
        const std::int64_t v = q * kWarp + l;
        if (v >= vectors) {
          addr[std::size_t(l)] = -1;
          continue;
        }
        const int row = int((v / per_row) % t.strided), byte = int(v % per_row) * global_vec + j * store_vec;
        addr[std::size_t(l)] = t.offset(row, byte);
      }
      wf += smem_wavefronts(addr, store_vec, geo);
    }
  }
  return wf * double(instructions) / double(done);
}

double fragment_wavefronts(const SmemTile& t, const SmemBankGeometry& geo, FragmentRead how, int row0, int rows,
                           int byte0, int bytes, bool pair_merge, int element_bytes) {
  double wf = 0;
  std::array<std::int64_t, kWarp> addr{};
  auto at = [&](int r, int b) { return r < row0 + rows && b < byte0 + bytes ? t.offset(r, b) : std::int64_t(-1); };
  switch (how) {
    case FragmentRead::ldmatrix:
      // One 8x8 matrix (8 rows of 16 B) per phase.
      for (int r = row0; r < row0 + rows; r += 8)
        for (int b = byte0; b < byte0 + bytes; b += 16) {
          for (int i = 0; i < 8; ++i) addr[std::size_t(i)] = at(r + i, b);
          wf += smem_wavefronts(std::span<const std::int64_t>(addr.data(), 8), 16, geo);
        }
      break;
    case FragmentRead::volta_lds128:
      // A quarter warp: 4 k-rows x 2 adjacent 16-byte vectors.
      for (int r = row0; r < row0 + rows; r += 4)
        for (int b = byte0; b < byte0 + bytes; b += 32) {
          for (int i = 0; i < 8; ++i) addr[std::size_t(i)] = at(r + i % 4, b + 16 * (i / 4));
          wf += smem_wavefronts(std::span<const std::int64_t>(addr.data(), 8), 16, geo);
        }
      break;
    case FragmentRead::volta_lds64:
      // A half warp: 16 rows at one 8-byte k-vector.
      for (int r = row0; r < row0 + rows; r += 16)
        for (int b = byte0; b < byte0 + bytes; b += 8) {
          for (int i = 0; i < 16; ++i) addr[std::size_t(i)] = at(r + i, b);
          wf += smem_wavefronts(std::span<const std::int64_t>(addr.data(), 16), 8, geo);
        }
      break;
    case FragmentRead::simt_a:
    case FragmentRead::simt_b: {
      // MmaSimt: lanes in a 4 (M) x 8 (N) grid, RowMajorInterleaved<2>; 4 elements per lane and load.
      const bool a = how == FragmentRead::simt_a;
      const int vec = 4 * element_bytes;
      const int span = (a ? 4 : 8) * vec;  // bytes of M (N) one load covers
      for (int b = byte0; b < byte0 + bytes; b += span) {
        for (int l = 0; l < kWarp; ++l) {
          const int lane_row = (l / 16) * 2 + l % 2, lane_col = (l % 16) / 2;
          addr[std::size_t(l)] = at(row0, b + (a ? lane_row : lane_col) * vec);
        }
        wf += smem_wavefronts(addr, vec, geo, pair_merge);
      }
      break;
    }
  }
  return wf;
}

}  // namespace tcsim::gpu
