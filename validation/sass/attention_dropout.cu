// The instruction count of dropout inside fused attention (sim/gpu/attention/attention_program.cpp,
// kDropoutInstructionsPerScore). A replica of FlashAttention-2's scheme (csrc/flash_attn/src/dropout.h
// in Dao-AILab/flash-attention, written here from its description, not copied): one Philox4x32-10
// draw (Salmon et al., SC'11, "Parallel random numbers: as easy as 1, 2, 3") per 16 probabilities,
// its 16 random bytes compared two at a time with the threshold as f16x2 (set.le.u32.f16x2) and the
// masks ANDed into the fp16 pairs. The key schedule does not depend on the tile, so the compiler
// hoists it out of the loop, as in the real kernel. Compiled, never run:
//   nvcc -cubin -arch=sm_80 -O3 -o d.cubin validation/sass/attention_dropout.cu && scripts/sass_loops.py d.cubin
// nvcc 13.0: one loop of 72 instructions per iteration (16 probabilities): 4.5 per score element.
#include <cstdint>
struct U4 { uint32_t x, y, z, w; };
__device__ __forceinline__ U4 philox(unsigned long long seed, unsigned long long subseq, unsigned long long offset) {
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  U4 c{uint32_t(offset), uint32_t(offset >> 32), uint32_t(subseq), uint32_t(subseq >> 32)};
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const uint32_t hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    const uint32_t hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = U4{hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  return c;
}
extern "C" __global__ void dropout_tiles(uint32_t* __restrict__ out, const uint32_t* __restrict__ in, unsigned long long seed,
                                         unsigned long long offset, uint32_t threshold2, int row, int tiles) {
  uint32_t t[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) t[i] = in[threadIdx.x * 8 + i];
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int n = 0; n < tiles; ++n) {
    const unsigned long long rc = (unsigned long long)(unsigned(row)) | ((unsigned long long)(unsigned(n)) << 32);
    const U4 r = philox(seed, rc, offset);
    const uint32_t w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // four random bytes -> two u32 of two 16-bit lanes each, compared as f16x2 with the threshold
      const uint32_t lo = __byte_perm(w[j], 0, 0x4140), hi = __byte_perm(w[j], 0, 0x4342);
      uint32_t m0, m1;
      asm volatile("set.le.u32.f16x2 %0, %1, %2;" : "=r"(m0) : "r"(lo), "r"(threshold2));
      asm volatile("set.le.u32.f16x2 %0, %1, %2;" : "=r"(m1) : "r"(hi), "r"(threshold2));
      acc[2 * j] ^= t[2 * j] & m0;
      acc[2 * j + 1] ^= t[2 * j + 1] & m1;
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) out[threadIdx.x * 8 + i] = acc[i];
}
