#pragma once
// Integer helpers of the GPU model: the libraries size grids and tiles by ceiling division, pad
// to multiples and size CTAs by powers of two.
#include <cstdint>

namespace tcsim::gpu {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// v rounded up to a multiple of m (padding to a tile or an alignment).
inline std::int64_t round_up(std::int64_t v, std::int64_t m) { return ceil_div(v, m) * m; }

// The smallest power of two >= v (1 for v <= 1).
inline std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// The largest power of two <= v (1 for v <= 1): ATen's lastPow2.
inline std::int64_t last_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

}  // namespace tcsim::gpu
