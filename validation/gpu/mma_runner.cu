#include "mma_runner.h"

#include <cstring>

#include "device_info.h"
#include "fragment_pack.h"
#include "mma_ops.h"

namespace tcv {
namespace {

// One warp per unit; a unit is one tile (four for m8n8k4, one per quad-pair).
template <class T>
__global__ void mma_sync_kernel(const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D,
                                int units, int chain, int* status) {
  if constexpr (!T::available()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *status = 1;
  } else {
    const int lane = threadIdx.x & 31;
    const int unit = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (unit >= units) return;  // warp-uniform
    const int tile = unit * T::TPU + (T::TPU == 4 ? quad_pair(lane) : 0);
    const int kt = T::K * chain;
    const uint64_t* At = A + static_cast<size_t>(tile) * T::M * kt;
    const uint64_t* Bt = B + static_cast<size_t>(tile) * kt * T::N;
    const uint64_t* Ct = C + static_cast<size_t>(tile) * T::M * T::N;
    uint64_t* Dt = D + static_cast<size_t>(tile) * T::M * T::N;
    uint32_t c[T::NCW];
    pack_words<T::C_BITS, T::NC>(c, [&](int i) {
      const RC rc = frag_rc(T::LC, lane, i);
      return Ct[rc.r * T::N + rc.c];
    });
    for (int s = 0; s < chain; ++s) {
      uint32_t a[T::NAW], b[T::NBW];
      pack_words<T::AB_BITS, T::NA>(a, [&](int i) {
        const RC rc = frag_rc(T::LA, lane, i);
        // 2:4 sparse: rc.c is a column of the compressed A; A holds the dense rows
        const int col = T::SPARSE_META ? sparse_dense_col(T::SPARSE_META, rc.c) : rc.c;
        return At[rc.r * kt + s * T::K + col];
      });
      pack_words<T::AB_BITS, T::NB>(b, [&](int i) {
        const RC rc = frag_rc(T::LB, lane, i);
        return Bt[(s * T::K + rc.r) * T::N + rc.c];
      });
      T::mma(c, a, b);
    }
    unpack_words<T::C_BITS, T::NC>(c, [&](int i, uint64_t v) {
      const RC rc = frag_rc(T::LC, lane, i);
      Dt[rc.r * T::N + rc.c] = v;
    });
  }
}

// Keeps the compiler from moving accumulator reads or writes across the wgmma fences.
template <int NW>
__device__ inline void fence_regs(uint32_t (&c)[NW]) {
#pragma unroll
  for (int q = 0; q < NW; ++q) asm volatile("" : "+r"(c[q])::"memory");
}
template <int NW>
__device__ inline void fence_regs(float (&c)[NW]) {
#pragma unroll
  for (int q = 0; q < NW; ++q) asm volatile("" : "+f"(c[q])::"memory");
}

// Shared-memory image of one chain step, no swizzle, K-major ("core matrices" of 8 rows x 16 B):
//   A (64 x K): core matrix (m/8, kb) at (m/8)*256 + kb*128, row m%8 at +16*(m%8)
//   B (8 x K, i.e. B^T): core matrix (0, kb) at kb*128
// so LBO (between core matrices along K) = 128 and SBO (along M/N) = 256.
constexpr int kWgA = 2048, kWgB = 256;

template <class T, int chain>
__global__ void wgmma_kernel(const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D,
                             int swap, int* status) {
  if constexpr (!T::available()) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *status = 1;
  } else {
    extern __shared__ __align__(1024) unsigned char smem[];
    const int tile = blockIdx.x, t = threadIdx.x;
    const int kt = T::K * chain;
    constexpr int eb = T::AB_BITS / 8, epr = 16 / eb;
    const uint64_t* At = A + static_cast<size_t>(tile) * 64 * kt;
    const uint64_t* Bt = B + static_cast<size_t>(tile) * kt * 8;
    const uint64_t* Ct = C + static_cast<size_t>(tile) * 64 * 8;
    uint64_t* Dt = D + static_cast<size_t>(tile) * 64 * 8;
    unsigned char* sA = smem;
    unsigned char* sB = smem + chain * kWgA;
    for (int idx = t; idx < 64 * kt; idx += blockDim.x) {
      const int m = idx / kt, k = idx % kt, s = k / T::K, kk = k % T::K;
      const uint64_t v = At[m * kt + k];
      unsigned char* p = sA + s * kWgA + (m / 8) * 256 + (kk / epr) * 128 + (m % 8) * 16 + (kk % epr) * eb;
      for (int q = 0; q < eb; ++q) p[q] = static_cast<unsigned char>(v >> (8 * q));
    }
    for (int idx = t; idx < kt * 8; idx += blockDim.x) {
      const int k = idx / 8, n = idx % 8, s = k / T::K, kk = k % T::K;
      const uint64_t v = Bt[k * 8 + n];
      unsigned char* p = sB + s * kWgB + (kk / epr) * 128 + n * 16 + (kk % epr) * eb;
      for (int q = 0; q < eb; ++q) p[q] = static_cast<unsigned char>(v >> (8 * q));
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint32_t c[T::NCW];
    pack_words<T::C_BITS, T::NC>(c, [&](int i) {
      const RC rc = frag_rc(T::LC, t, i);
      return Ct[rc.r * 8 + rc.c];
    });
    typename T::Reg r[T::NCW];
#pragma unroll
    for (int q = 0; q < T::NCW; ++q) r[q] = T::from_bits(c[q]);
    fence_regs(r);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    const uint32_t lbo = swap ? 256 : 128, sbo = swap ? 128 : 256;
#pragma unroll
    for (int s = 0; s < chain; ++s) {
      const uint64_t da = wgmma_desc(base + s * kWgA, lbo, sbo);
      const uint64_t db = wgmma_desc(base + chain * kWgA + s * kWgB, lbo, sbo);
      T::mma(r, da, db);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    fence_regs(r);
#pragma unroll
    for (int q = 0; q < T::NCW; ++q) c[q] = T::to_bits(r[q]);
    unpack_words<T::C_BITS, T::NC>(c, [&](int i, uint64_t v) {
      const RC rc = frag_rc(T::LC, t, i);
      Dt[rc.r * 8 + rc.c] = v;
    });
  }
}

struct DeviceBuf {
  void* p = nullptr;
  explicit DeviceBuf(size_t bytes) { TCV_CUDA(cudaMalloc(&p, bytes ? bytes : 8)); }
  ~DeviceBuf() { cudaFree(p); }
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
};

template <class T>
RunStatus launch(const OpInfo& op, TileBatch& tb, bool swap) {
  const size_t kt = static_cast<size_t>(op.k) * tb.chain;
  const size_t na = static_cast<size_t>(tb.tiles) * op.m * kt, nb = static_cast<size_t>(tb.tiles) * kt * op.n,
               nc = static_cast<size_t>(tb.tiles) * op.m * op.n;
  if (tb.a.size() != na || tb.b.size() != nb || tb.c.size() != nc || tb.tiles % op.tiles_per_warp != 0)
    fail(kExitCuda, std::string("internal: bad tile batch for ") + op.key);
  DeviceBuf A(na * 8), B(nb * 8), C(nc * 8), D(nc * 8), S(sizeof(int));
  TCV_CUDA(cudaMemcpy(A.p, tb.a.data(), na * 8, cudaMemcpyHostToDevice));
  TCV_CUDA(cudaMemcpy(B.p, tb.b.data(), nb * 8, cudaMemcpyHostToDevice));
  TCV_CUDA(cudaMemcpy(C.p, tb.c.data(), nc * 8, cudaMemcpyHostToDevice));
  TCV_CUDA(cudaMemset(D.p, 0xFF, nc * 8));
  TCV_CUDA(cudaMemset(S.p, 0, sizeof(int)));
  auto a = static_cast<const uint64_t*>(A.p), b = static_cast<const uint64_t*>(B.p),
       c = static_cast<const uint64_t*>(C.p);
  auto d = static_cast<uint64_t*>(D.p);
  auto st = static_cast<int*>(S.p);
  if constexpr (T::kWgmma) {
    const int smem = tb.chain * (kWgA + kWgB);
    const int sw = swap ? 1 : 0;
    switch (tb.chain) {  // the chain is unrolled so the accumulator never leaves the registers
      case 1: wgmma_kernel<T, 1><<<tb.tiles, 128, smem>>>(a, b, c, d, sw, st); break;
      case 2: wgmma_kernel<T, 2><<<tb.tiles, 128, smem>>>(a, b, c, d, sw, st); break;
      case 4: wgmma_kernel<T, 4><<<tb.tiles, 128, smem>>>(a, b, c, d, sw, st); break;
      case 8: wgmma_kernel<T, 8><<<tb.tiles, 128, smem>>>(a, b, c, d, sw, st); break;
      default: fail(kExitInput, "--chain for wgmma must be 1, 2, 4 or 8");
    }
  } else {
    const int units = tb.tiles / T::TPU;
    const int warps_per_block = 4;
    mma_sync_kernel<T><<<(units + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(
        a, b, c, d, units, tb.chain, st);
  }
  TCV_KERNEL_CHECK();
  int status = 0;
  TCV_CUDA(cudaMemcpy(&status, S.p, sizeof(int), cudaMemcpyDeviceToHost));
  if (status != 0) return RunStatus::not_compiled;
  tb.d.resize(nc);
  TCV_CUDA(cudaMemcpy(tb.d.data(), D.p, nc * 8, cudaMemcpyDeviceToHost));
  return RunStatus::ok;
}

}  // namespace

RunStatus run_tiles(const OpInfo& op, TileBatch& tb, bool swap) {
  const std::string k = op.key;
#define TCV_CASE(KEY, TYPE) \
  if (k == KEY) return launch<TYPE>(op, tb, swap);
  TCV_CASE("mma_m8n8k4_f16_f16", Op884F16F16)
  TCV_CASE("mma_m8n8k4_f16_f32", Op884F16F32)
  TCV_CASE("mma_m16n8k8_f16_f16", Op1688F16F16)
  TCV_CASE("mma_m16n8k8_f16_f32", Op1688F16F32)
  TCV_CASE("mma_m8n8k16_s8_s32", Op8816S8)
  TCV_CASE("mma_m8n8k16_s8_s32_satfinite", Op8816S8Sat)
  TCV_CASE("mma_m8n8k16_u8_s32", Op8816U8)
  TCV_CASE("mma_m8n8k32_s4_s32", Op8832S4)
  TCV_CASE("mma_m8n8k32_s4_s32_satfinite", Op8832S4Sat)
  TCV_CASE("mma_m8n8k32_u4_s32", Op8832U4)
  TCV_CASE("mma_m16n8k16_f16_f16", Op16816F16F16)
  TCV_CASE("mma_m16n8k16_f16_f32", Op16816F16F32)
  TCV_CASE("mma_m16n8k16_bf16_f32", Op16816BF16F32)
  TCV_CASE("mma_m16n8k8_bf16_f32", Op1688BF16F32)
  TCV_CASE("mma_m16n8k8_tf32_f32", Op1688TF32F32)
  TCV_CASE("mma_m16n8k32_s8_s32", Op16832S8)
  TCV_CASE("mma_m16n8k32_s8_s32_satfinite", Op16832S8Sat)
  TCV_CASE("mma_m8n8k4_f64_f64", Op884F64)
  TCV_CASE("mma_m16n8k32_e4m3_f32", Op16832E4M3F32)
  TCV_CASE("mma_m16n8k32_e5m2_f32", Op16832E5M2F32)
  TCV_CASE("mma_m16n8k32_e4m3_f16", Op16832E4M3F16)
  TCV_CASE("mma_m16n8k32_e5m2_f16", Op16832E5M2F16)
  TCV_CASE("mma_sp_m16n8k16_f16_f32", OpSp16816F16F32)
  TCV_CASE("mma_sp_m16n8k32_f16_f32", OpSp16832F16F32)
  TCV_CASE("mma_sp_m16n8k32_bf16_f32", OpSp16832BF16F32)
  TCV_CASE("mma_sp_m16n8k64_s8_s32", OpSp16864S8)
  TCV_CASE("mma_sp_m16n8k64_e4m3_f32", OpSp16864E4M3F32)
  TCV_CASE("mma_sp_m16n8k64_e5m2_f32", OpSp16864E5M2F32)
  TCV_CASE("wgmma_m64n8k16_f16_f32", WgF16F32)
  TCV_CASE("wgmma_m64n8k16_f16_f16", WgF16F16)
  TCV_CASE("wgmma_m64n8k16_bf16_f32", WgBF16F32)
  TCV_CASE("wgmma_m64n8k8_tf32_f32", WgTF32F32)
  TCV_CASE("wgmma_m64n8k32_e4m3_f32", WgE4M3F32)
  TCV_CASE("wgmma_m64n8k32_e5m2_f32", WgE5M2F32)
  TCV_CASE("wgmma_m64n8k32_e4m3_f16", WgE4M3F16)
  TCV_CASE("wgmma_m64n8k32_e5m2_f16", WgE5M2F16)
  TCV_CASE("wgmma_m64n8k32_s8_s32", WgS8)
  TCV_CASE("wgmma_m64n8k32_s8_s32_satfinite", WgS8Sat)
#undef TCV_CASE
  fail(kExitCuda, "internal: no kernel for " + k);
}

}  // namespace tcv
