#pragma once
// Packing of fragment elements (bit patterns in uint64) into the 32-bit register words of an
// MMA instruction, and back (see mma_ops.h for the word layout).
#include <cstdint>

namespace tcv {

template <int BITS, int NE, int NW, class Get>
__device__ inline void pack_words(uint32_t (&w)[NW], Get get) {
#pragma unroll
  for (int q = 0; q < NW; ++q) w[q] = 0;
#pragma unroll
  for (int i = 0; i < NE; ++i) {
    const uint64_t v = get(i);
    if constexpr (BITS == 64) {
      w[2 * i] = static_cast<uint32_t>(v);
      w[2 * i + 1] = static_cast<uint32_t>(v >> 32);
    } else {
      const int bit = i * BITS;
      const uint32_t mask = BITS == 32 ? 0xFFFFFFFFu : ((1u << BITS) - 1u);
      w[bit / 32] |= (static_cast<uint32_t>(v) & mask) << (bit % 32);
    }
  }
}

template <int BITS, int NE, int NW, class Put>
__device__ inline void unpack_words(const uint32_t (&w)[NW], Put put) {
#pragma unroll
  for (int i = 0; i < NE; ++i) {
    if constexpr (BITS == 64) {
      put(i, (static_cast<uint64_t>(w[2 * i + 1]) << 32) | w[2 * i]);
    } else {
      const int bit = i * BITS;
      const uint32_t mask = BITS == 32 ? 0xFFFFFFFFu : ((1u << BITS) - 1u);
      put(i, static_cast<uint64_t>((w[bit / 32] >> (bit % 32)) & mask));
    }
  }
}

}  // namespace tcv
