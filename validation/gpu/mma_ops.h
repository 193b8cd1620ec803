#pragma once
// One struct per MMA instruction variant the probe and the microbenchmarks run: its shape, the
// bit widths of its operands, the fragment layouts (frag_layout.h) and the inline PTX.
// Every asm statement is guarded by the architecture that has the instruction, so the same
// source compiles for sm_75, sm_80 and sm_90a; available() tells the kernel whether the code
// was compiled in for the architecture it runs on.
//
// Register words: A and B elements are packed into 32-bit words (element i in word
// i*bits/32, lower element in the lower bits); f32/s32 accumulators use one word per element,
// f16 accumulators two elements per word, f64 two words per element (low word first).
#include <cstdint>

#include "frag_layout.h"

namespace tcv {

#if defined(__CUDA_ARCH__)
#define TCV_ARCH __CUDA_ARCH__
#else
#define TCV_ARCH 0
#endif
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCV_HAS_WGMMA 1
#else
#define TCV_HAS_WGMMA 0
#endif

// ---------------------------------------------------------------- mma.sync (one warp) ------
#define TCV_MMA_TRAITS(M_, N_, K_, ABB, CB, NA_, NB_, NC_, LA_, LB_, LC_, TPU_) \
  static constexpr bool kWgmma = false;                                       \
  static constexpr int SPARSE_META = TCV_SPARSE_META;                         \
  static constexpr int M = M_, N = N_, K = K_, AB_BITS = ABB, C_BITS = CB;    \
  static constexpr int NA = NA_, NB = NB_, NC = NC_, TPU = TPU_;              \
  static constexpr Lay LA = Lay::LA_, LB = Lay::LB_, LC = Lay::LC_;           \
  static constexpr int NAW = (NA * AB_BITS + 31) / 32, NBW = (NB * AB_BITS + 31) / 32, \
                       NCW = (NC * C_BITS + 31) / 32;

// Dense variants: 0. 2:4 sparse (mma.sp) variants redefine it around their struct: the metadata
// nibble every group of four uses (see "2:4 sparse variants" below).
#define TCV_SPARSE_META 0

#define TCV_F(i) "+f"(f[i])
#define TCV_LOAD_F(n) float f[n]; for (int q = 0; q < n; ++q) f[q] = __uint_as_float(c[q]);
#define TCV_STORE_F(n) for (int q = 0; q < n; ++q) c[q] = __float_as_uint(f[q]);

struct Op884F16F16 {
  TCV_MMA_TRAITS(8, 8, 4, 16, 16, 4, 4, 8, A884_F16, B884_F16, C884_F16, 4)
  __device__ static constexpr bool available() { return TCV_ARCH >= 700; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 700
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
#endif
  }
};

struct Op884F16F32 {
  TCV_MMA_TRAITS(8, 8, 4, 16, 32, 4, 4, 8, A884_F16, B884_F16, C884_F32, 4)
  __device__ static constexpr bool available() { return TCV_ARCH >= 700; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 700
    TCV_LOAD_F(8)
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
                 "{%0,%1,%2,%3,%4,%5,%6,%7};\n"
                 : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3), TCV_F(4), TCV_F(5), TCV_F(6), TCV_F(7)
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
    TCV_STORE_F(8)
#endif
  }
};

struct Op1688F16F16 {
  TCV_MMA_TRAITS(16, 8, 8, 16, 16, 4, 2, 4, A1688_16, B1688_16, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 750; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 750
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
#endif
  }
};

struct Op1688F16F32 {
  TCV_MMA_TRAITS(16, 8, 8, 16, 32, 4, 2, 4, A1688_16, B1688_16, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 750; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 750
    TCV_LOAD_F(4)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    TCV_STORE_F(4)
#endif
  }
};

struct Op1688BF16F32 {
  TCV_MMA_TRAITS(16, 8, 8, 16, 32, 4, 2, 4, A1688_16, B1688_16, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 800; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 800
    TCV_LOAD_F(4)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    TCV_STORE_F(4)
#endif
  }
};

struct Op1688TF32F32 {
  TCV_MMA_TRAITS(16, 8, 8, 32, 32, 4, 2, 4, A1688_TF32, B1688_TF32, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 800; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 800
    TCV_LOAD_F(4)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    TCV_STORE_F(4)
#endif
  }
};

struct Op16816F16F16 {
  TCV_MMA_TRAITS(16, 8, 16, 16, 16, 8, 4, 4, A16816_16, B16816_16, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 800; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
  }
};

#define TCV_MMA_F32_4x2(NAME, ARCH, PTX, LA_, LB_, ABB, NA_, NB_, K_)                       \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(16, 8, K_, ABB, 32, NA_, NB_, 4, LA_, LB_, C16x8, 1)                    \
    __device__ static constexpr bool available() { return TCV_ARCH >= ARCH; }              \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= ARCH) {                                                    \
        TCV_LOAD_F(4)                                                                      \
        asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"        \
                     : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)                              \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));  \
        TCV_STORE_F(4)                                                                     \
      }                                                                                    \
    }                                                                                      \
  };

// `if constexpr` on TCV_ARCH drops the asm from targets that lack the instruction.
TCV_MMA_F32_4x2(Op16816F16F32, 800, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", A16816_16, B16816_16, 16, 8, 4, 16)
TCV_MMA_F32_4x2(Op16816BF16F32, 800, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", A16816_16, B16816_16, 16, 8, 4, 16)
TCV_MMA_F32_4x2(Op16832E4M3F32, 890, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", A16832_8, B16832_8, 8, 16, 8, 32)
TCV_MMA_F32_4x2(Op16832E5M2F32, 890, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", A16832_8, B16832_8, 8, 16, 8, 32)

#define TCV_MMA_S32_16832(NAME, PTX)                                                        \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(16, 8, 32, 8, 32, 16, 8, 4, A16832_8, B16832_8, C16x8, 1)               \
    __device__ static constexpr bool available() { return TCV_ARCH >= 800; }               \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= 800) {                                                     \
        asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"        \
                     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])                      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));  \
      }                                                                                    \
    }                                                                                      \
  };
TCV_MMA_S32_16832(Op16832S8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
TCV_MMA_S32_16832(Op16832S8Sat, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32")

#define TCV_MMA_S32_88(NAME, K_, ABB, NA_, LA_, LB_, PTX)                                   \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(8, 8, K_, ABB, 32, NA_, NA_, 2, LA_, LB_, C8x8, 1)                      \
    __device__ static constexpr bool available() { return TCV_ARCH >= 750; }               \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= 750) {                                                     \
        asm volatile(PTX " {%0,%1}, {%2}, {%3}, {%0,%1};\n"                                 \
                     : "+r"(c[0]), "+r"(c[1])                                              \
                     : "r"(a[0]), "r"(b[0]));                                              \
      }                                                                                    \
    }                                                                                      \
  };
TCV_MMA_S32_88(Op8816S8, 16, 8, 4, A8816_8, B8816_8, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")
TCV_MMA_S32_88(Op8816S8Sat, 16, 8, 4, A8816_8, B8816_8, "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.s8.s32")
TCV_MMA_S32_88(Op8816U8, 16, 8, 4, A8816_8, B8816_8, "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32")
TCV_MMA_S32_88(Op8832S4, 32, 4, 8, A8832_4, B8832_4, "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32")
TCV_MMA_S32_88(Op8832S4Sat, 32, 4, 8, A8832_4, B8832_4, "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32")
TCV_MMA_S32_88(Op8832U4, 32, 4, 8, A8832_4, B8832_4, "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32")

struct Op884F64 {
  TCV_MMA_TRAITS(8, 8, 4, 64, 64, 1, 1, 2, A884_F64, B884_F64, C8x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 800; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
#if TCV_ARCH >= 800
    auto d64 = [](uint32_t lo, uint32_t hi) {
      return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(hi) << 32) | lo));
    };
    double x = d64(a[0], a[1]), y = d64(b[0], b[1]);
    double c0 = d64(c[0], c[1]), c1 = d64(c[2], c[3]);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(x), "d"(y));
    unsigned long long u0 = static_cast<unsigned long long>(__double_as_longlong(c0));
    unsigned long long u1 = static_cast<unsigned long long>(__double_as_longlong(c1));
    c[0] = static_cast<uint32_t>(u0); c[1] = static_cast<uint32_t>(u0 >> 32);
    c[2] = static_cast<uint32_t>(u1); c[3] = static_cast<uint32_t>(u1 >> 32);
#endif
  }
};

// FP8 with an FP16 accumulator through mma.sync (PTX ISA 8.7+, sm_89+).
#define TCV_MMA_F16_16832(NAME, PTX)                                                        \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(16, 8, 32, 8, 16, 16, 8, 4, A16832_8, B16832_8, C16x8, 1)               \
    __device__ static constexpr bool available() { return TCV_ARCH >= 890; }               \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= 890) {                                                     \
        asm volatile(PTX " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"                     \
                     : "+r"(c[0]), "+r"(c[1])                                              \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));  \
      }                                                                                    \
    }                                                                                      \
  };
TCV_MMA_F16_16832(Op16832E4M3F16, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16")
TCV_MMA_F16_16832(Op16832E5M2F16, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16")

// ---------------------------------------------------------------- wgmma (one warpgroup) ----
// m64n8kK with A and B in shared memory (K-major, no swizzle; see wgmma_desc()), the
// accumulator in registers: thread t of the warpgroup holds 4 elements (layout CWG_N8).
#define TCV_WG_TRAITS(K_, ABB, CB)                                                           \
  static constexpr bool kWgmma = true;                                                     \
  static constexpr int M = 64, N = 8, K = K_, AB_BITS = ABB, C_BITS = CB;                  \
  static constexpr int NA = 0, NB = 0, NC = 4, TPU = 1;                                    \
  static constexpr Lay LA = Lay::A884_F16, LB = Lay::B884_F16, LC = Lay::CWG_N8;           \
  static constexpr int NAW = 0, NBW = 0, NCW = (NC * C_BITS) / 32;                         \
  __device__ static constexpr bool available() { return TCV_HAS_WGMMA != 0; }

#define TCV_WG_F32(NAME, K_, ABB, PTX, TAIL)                                                 \
  struct NAME {                                                                            \
    TCV_WG_TRAITS(K_, ABB, 32)                                                             \
    using Reg = float;                                                                     \
    __device__ static Reg from_bits(uint32_t b) { return __uint_as_float(b); }             \
    __device__ static uint32_t to_bits(Reg r) { return __float_as_uint(r); }               \
    __device__ static void mma(float* f, uint64_t da, uint64_t db) {                       \
      if constexpr (TCV_HAS_WGMMA) {                                                       \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" PTX                        \
                     " {%0,%1,%2,%3}, %4, %5, p" TAIL ";\n}\n"                              \
                     : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)                              \
                     : "l"(da), "l"(db), "r"(1)                                            \
                     : "memory");                                                          \
      }                                                                                    \
    }                                                                                      \
  };
#define TCV_WG_F16(NAME, K_, ABB, PTX, TAIL)                                                 \
  struct NAME {                                                                            \
    TCV_WG_TRAITS(K_, ABB, 16)                                                             \
    using Reg = uint32_t;                                                                  \
    __device__ static Reg from_bits(uint32_t b) { return b; }                              \
    __device__ static uint32_t to_bits(Reg r) { return r; }                                \
    __device__ static void mma(uint32_t* c, uint64_t da, uint64_t db) {                    \
      if constexpr (TCV_HAS_WGMMA) {                                                       \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n" PTX                        \
                     " {%0,%1}, %2, %3, p" TAIL ";\n}\n"                                    \
                     : "+r"(c[0]), "+r"(c[1])                                              \
                     : "l"(da), "l"(db), "r"(1)                                            \
                     : "memory");                                                          \
      }                                                                                    \
    }                                                                                      \
  };
#define TCV_WG_S32(NAME, PTX)                                                                \
  struct NAME {                                                                            \
    TCV_WG_TRAITS(32, 8, 32)                                                               \
    using Reg = uint32_t;                                                                  \
    __device__ static Reg from_bits(uint32_t b) { return b; }                              \
    __device__ static uint32_t to_bits(Reg r) { return r; }                                \
    __device__ static void mma(uint32_t* c, uint64_t da, uint64_t db) {                    \
      if constexpr (TCV_HAS_WGMMA) {                                                       \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" PTX                        \
                     " {%0,%1,%2,%3}, %4, %5, p;\n}\n"                                      \
                     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])                      \
                     : "l"(da), "l"(db), "r"(1)                                            \
                     : "memory");                                                          \
      }                                                                                    \
    }                                                                                      \
  };

// Tail operands: imm-scale-a, imm-scale-b (1 = no negation), and for f16/bf16 imm-trans-a,
// imm-trans-b (0 = K-major, no transpose).
TCV_WG_F32(WgF16F32, 16, 16, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", 1, 1, 0, 0")
TCV_WG_F16(WgF16F16, 16, 16, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", ", 1, 1, 0, 0")
TCV_WG_F32(WgBF16F32, 16, 16, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", ", 1, 1, 0, 0")
TCV_WG_F32(WgTF32F32, 8, 32, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", ", 1, 1")
TCV_WG_F32(WgE4M3F32, 32, 8, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", ", 1, 1")
TCV_WG_F32(WgE5M2F32, 32, 8, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2", ", 1, 1")
TCV_WG_F16(WgE4M3F16, 32, 8, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", ", 1, 1")
TCV_WG_F16(WgE5M2F16, 32, 8, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2", ", 1, 1")
TCV_WG_S32(WgS8, "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")
TCV_WG_S32(WgS8Sat, "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8")

// Shared-memory matrix descriptor of wgmma (PTX ISA "Matrix Descriptor Format"): bits 0-13
// start address >> 4, 16-29 leading-dimension byte offset >> 4, 32-45 stride-dimension byte
// offset >> 4, 49-51 base offset (0), 62-63 swizzle (0 = none).
__host__ __device__ inline uint64_t wgmma_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo) {
  return (static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4)) |
         (static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32);
}

// ---------------------------------------------------------------- 2:4 sparse mma.sp --------
// One metadata nibble for every group of four (kept positions i0 < i1, nibble i0 | i1<<2), the
// same in every 4-bit field of the metadata register of every thread, so the result does not
// depend on which threads/bits the sparsity selector (0 here) takes the metadata from. The
// compressed A fragment (K/2 columns) uses the layout of the dense instruction of half the K
// (PTX ISA "Matrix fragments for sparse mma"); column j of it is dense column
// 4*(j/2) + (j odd ? i1 : i0) (sparse_dense_col). B and C/D are as for the dense shape.
// 0xD keeps positions 1 and 3: both B selections are non-trivial, and the self-test (random B in
// every position) fails if the hardware took other rows of B.
constexpr int kSparseNibble = 0xD;
constexpr uint32_t kSparseMetaWord = 0x11111111u * kSparseNibble;
TCV_HD inline int sparse_dense_col(int nibble, int j) {
  return 4 * (j / 2) + ((j & 1) ? ((nibble >> 2) & 3) : (nibble & 3));
}
#undef TCV_SPARSE_META
#define TCV_SPARSE_META kSparseNibble

// m16n8k16 .f16/.bf16: A 16x8 compressed (2 regs, m16n8k8 layout), B 16x8 (2 regs).
#define TCV_MMA_SP_16816(NAME, PTX)                                                         \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(16, 8, 16, 16, 32, 4, 4, 4, A1688_16, B16816_16, C16x8, 1)              \
    __device__ static constexpr bool available() { return TCV_ARCH >= 800; }               \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= 800) {                                                     \
        TCV_LOAD_F(4)                                                                      \
        asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 0x0;\n"     \
                     : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)                              \
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(kSparseMetaWord));  \
        TCV_STORE_F(4)                                                                     \
      }                                                                                    \
    }                                                                                      \
  };
TCV_MMA_SP_16816(OpSp16816F16F32, "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")

// Four A and four B registers: m16n8k32 .f16/.bf16 (A 16x16 compressed in the m16n8k16 layout,
// B 32x8) and m16n8k64 .e4m3/.e5m2 (sm_89+; the s8 layout: A 16x32 compressed, B 64x8; on sm_90
// ptxas lowers it to fp8 -> f16 and two HMMA.SP.16832, SASS read on an H100); fp32 accumulators.
#define TCV_MMA_SP_4x4(NAME, ARCH, PTX, K_, ABB, NA_, NB_, LA_, LB_)                          \
  struct NAME {                                                                            \
    TCV_MMA_TRAITS(16, 8, K_, ABB, 32, NA_, NB_, 4, LA_, LB_, C16x8, 1)                    \
    __device__ static constexpr bool available() { return TCV_ARCH >= ARCH; }              \
    __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {        \
      if constexpr (TCV_ARCH >= ARCH) {                                                    \
        TCV_LOAD_F(4)                                                                      \
        asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;\n" \
                     : TCV_F(0), TCV_F(1), TCV_F(2), TCV_F(3)                              \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),   \
                       "r"(b[2]), "r"(b[3]), "r"(kSparseMetaWord));                        \
        TCV_STORE_F(4)                                                                     \
      }                                                                                    \
    }                                                                                      \
  };
#define TCV_MMA_SP_16832(NAME, PTX) TCV_MMA_SP_4x4(NAME, 800, PTX, 32, 16, 8, 8, A16816_16, B16816_16)
TCV_MMA_SP_16832(OpSp16832F16F32, "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32")
TCV_MMA_SP_16832(OpSp16832BF16F32, "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32")

// m16n8k64 .s8: A 16x32 compressed (4 regs, m16n8k32 8-bit layout), B 64x8 (4 regs), s32.
struct OpSp16864S8 {
  TCV_MMA_TRAITS(16, 8, 64, 8, 32, 16, 16, 4, A16832_8, B16832_8, C16x8, 1)
  __device__ static constexpr bool available() { return TCV_ARCH >= 800; }
  __device__ static void mma(uint32_t* c, const uint32_t* a, const uint32_t* b) {
    if constexpr (TCV_ARCH >= 800) {
      asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                   "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;\n"
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                     "r"(kSparseMetaWord));
    }
  }
};
#define TCV_MMA_SP_16864_F8(NAME, PTX) TCV_MMA_SP_4x4(NAME, 890, PTX, 64, 8, 16, 16, A16832_8, B16832_8)
TCV_MMA_SP_16864_F8(OpSp16864E4M3F32, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32")
TCV_MMA_SP_16864_F8(OpSp16864E5M2F32, "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32")
#undef TCV_SPARSE_META
#define TCV_SPARSE_META 0

}  // namespace tcv
