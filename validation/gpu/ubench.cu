// ubench: tensor-core and shared-memory microbenchmarks (mma.sync and wgmma latency and
// throughput, ldmatrix, shared-memory latency and bandwidth) plus the memory benchmarks of
// ubench_memory.cu. Writes DIR/ubench.csv (benchmark,instruction,formats,metric,value,unit) and
// DIR/meta.yaml; see validation/measured/README.md.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "device_info.h"
#include "formats_host.h"
#include "fragment_pack.h"
#include "mma_ops.h"
#include "mma_runner.h"
#include "ubench_common.h"
#include "wgmma_wide.h"

using namespace tcv;

namespace {

const char* kUsage =
    "usage: ubench --out DIR [--only LIST] [--quick] [--device N] [--timeout S] [--gpu-name NAME]\n"
    "Microbenchmarks of the GPU; writes DIR/ubench.csv and DIR/meta.yaml.\n"
    "  --only LIST   any of clock,mma,wgmma,ldmatrix,smem,memory,launch (default: all)\n"
    "  --quick       fewer iterations and footprints (a smoke run of about a minute)\n"
    "  --print-gpu   print the short GPU name used in output paths (\"H100\") and exit\n"
    "exit codes: 0 ok, 1 CUDA failure, 2 bad options, 3 no CUDA device\n";

// ---- mma.sync: dependent chain (one warp) and independent streams (one CTA per SM) ----------
template <class T, int ILP>
__global__ void mma_bench_kernel(int iters, unsigned long long one_bits, long long* cycles, unsigned* sink) {
  if constexpr (!T::available()) {
    if (threadIdx.x == 0) cycles[blockIdx.x] = -1;
  } else {
    uint32_t a[T::NAW], b[T::NBW], c[ILP][T::NCW];
    pack_words<T::AB_BITS, T::NA>(a, [&](int) { return static_cast<uint64_t>(one_bits); });
    pack_words<T::AB_BITS, T::NB>(b, [&](int) { return static_cast<uint64_t>(one_bits); });
#pragma unroll
    for (int j = 0; j < ILP; ++j)
#pragma unroll
      for (int q = 0; q < T::NCW; ++q) c[j][q] = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it)
#pragma unroll
      for (int j = 0; j < ILP; ++j) T::mma(c[j], a, b);
    __syncthreads();
    const long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    unsigned x = 0;
#pragma unroll
    for (int j = 0; j < ILP; ++j)
#pragma unroll
      for (int q = 0; q < T::NCW; ++q) x ^= c[j][q];
    if (x == 0x9E3779B9u) sink[0] = x;
  }
}

struct Ctx {
  DeviceInfo dev;
  std::vector<UbenchRow> rows;
  bool quick = false;
  long long* cycles = nullptr;  // one per SM
  unsigned* sink = nullptr;
};

double median_cycles(Ctx& ctx, int blocks) {
  std::vector<long long> c(blocks);
  TCV_CUDA(cudaMemcpy(c.data(), ctx.cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  if (std::any_of(c.begin(), c.end(), [](long long x) { return x < 0; })) return -1;
  std::sort(c.begin(), c.end());
  return static_cast<double>(c[c.size() / 2]);
}

std::string formats_of(const OpInfo& op) {
  return std::string(fmt_name(op.in)) + "." + fmt_name(op.in) + "." + fmt_name(op.acc) + (op.satfinite ? ".satfinite" : "");
}

template <class T>
void bench_mma(Ctx& ctx, const OpInfo& op) {
  const unsigned long long one = fmt_is_int(op.in) ? 1 : *encode(op.in == Fmt::tf32 ? Fmt::f32 : op.in, 1.0);
  const int iters = ctx.quick ? 256 : 4096;
  // latency: one warp, one accumulator chain
  mma_bench_kernel<T, 1><<<1, 32>>>(iters, one, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  mma_bench_kernel<T, 1><<<1, 32>>>(iters, one, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double lat = median_cycles(ctx, 1);
  if (lat < 0) {
    std::printf("  %-34s not compiled for %s, skipped\n", op.key, ctx.dev.arch().c_str());
    return;
  }
  const std::string f = formats_of(op);
  ctx.rows.push_back({"mma_latency", op.instruction, f, "latency", lat / iters, "cycles"});
  print_row(ctx.rows.back());
  // throughput: one CTA per SM, 16 warps (4 per sub-core), 4 independent accumulators each
  constexpr int kWarps = 16, kIlp = 4;
  mma_bench_kernel<T, kIlp><<<ctx.dev.sm_count, 32 * kWarps>>>(iters, one, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double cyc = median_cycles(ctx, ctx.dev.sm_count);
  const double fma = static_cast<double>(kWarps) * kIlp * iters * op.m * op.n * op.k * (op.tiles_per_warp);
  ctx.rows.push_back({"mma_throughput", op.instruction, f, "fma_per_clk_per_sm", fma / cyc, "FMA/clk/SM"});
  print_row(ctx.rows.back());
  ctx.rows.push_back({"mma_throughput", op.instruction, f, "issue_interval_per_subcore",
                      cyc / (static_cast<double>(kWarps) / 4 * kIlp * iters), "cycles"});
  print_row(ctx.rows.back());
}

// ---- wgmma: latency (issue -> wait) and throughput (back-to-back into one accumulator) --------
template <class T>
__device__ inline void fence_acc(typename T::Reg (&d)[T::NREG]) {
#pragma unroll
  for (int i = 0; i < T::NREG; ++i) {
    if constexpr (sizeof(typename T::Reg) == 4 && std::is_same_v<typename T::Reg, float>)
      asm volatile("" : "+f"(d[i])::"memory");
    else
      asm volatile("" : "+r"(d[i])::"memory");
  }
}

// A: 64 x K, B: N x K (K-major, no swizzle), LBO 128, SBO 256 as in mma_runner.cu.
template <class T, int PER_COMMIT>
__global__ void wgmma_bench_kernel(int iters, long long* cycles, unsigned* sink) {
  if constexpr (!TCV_HAS_WGMMA) {
    if (threadIdx.x == 0) cycles[blockIdx.x] = -1;
  } else {
    extern __shared__ __align__(1024) unsigned char smem[];
    constexpr int a_bytes = 64 * 32, b_bytes = T::N * 32;
    for (int i = threadIdx.x; i < a_bytes + b_bytes; i += blockDim.x) smem[i] = 0x01;
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    const uint64_t da = wgmma_desc(base, 128, 256), db = wgmma_desc(base + a_bytes, 128, 256);
    typename T::Reg d[T::NREG];
#pragma unroll
    for (int i = 0; i < T::NREG; ++i) d[i] = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
      fence_acc<T>(d);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int j = 0; j < PER_COMMIT; ++j) T::mma(d, da, db);
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      fence_acc<T>(d);
    }
    __syncthreads();
    const long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    unsigned x = 0;
#pragma unroll
    for (int i = 0; i < T::NREG; ++i) x ^= static_cast<unsigned>(d[i]);
    if (x == 0x9E3779B9u) sink[0] = x;
  }
}

template <class T>
void bench_wgmma(Ctx& ctx) {
  const int iters = ctx.quick ? 64 : 1024;
  const int smem = 64 * 32 + T::N * 32;
  // latency: one warpgroup, one wgmma per commit/wait
  wgmma_bench_kernel<T, 1><<<1, 128, smem>>>(iters, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  wgmma_bench_kernel<T, 1><<<1, 128, smem>>>(iters, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double lat = median_cycles(ctx, 1);
  if (lat < 0) {
    std::printf("  %s %s: not compiled for %s, skipped\n", T::kInstr, T::kFormats, ctx.dev.arch().c_str());
    return;
  }
  ctx.rows.push_back({"wgmma_latency", T::kInstr, T::kFormats, "issue_to_wait", lat / iters, "cycles"});
  print_row(ctx.rows.back());
  // throughput: one CTA per SM with 1 and 2 warpgroups, 8 wgmmas per commit group
  for (int wgs : {1, 2}) {
    wgmma_bench_kernel<T, 8><<<ctx.dev.sm_count, 128 * wgs, smem>>>(iters, ctx.cycles, ctx.sink);
    TCV_KERNEL_CHECK();
    const double cyc = median_cycles(ctx, ctx.dev.sm_count);
    const double fma = static_cast<double>(wgs) * 8.0 * iters * 64.0 * T::N * T::K;
    ctx.rows.push_back({"wgmma_throughput", T::kInstr, T::kFormats,
                        "fma_per_clk_per_sm_" + std::to_string(wgs) + "wg", fma / cyc, "FMA/clk/SM"});
    print_row(ctx.rows.back());
  }
}

// ---- ldmatrix and shared memory -------------------------------------------------------------
// latency: one warp, each ldmatrix.x1 address depends on the previous result (through `zero`,
// a runtime 0); throughput: 16 warps per SM issuing independent ldmatrix.x4.
__global__ void ldmatrix_kernel(int iters, int dependent, unsigned zero, long long* cycles, unsigned* sink) {
#if TCV_ARCH >= 750
  __shared__ __align__(128) unsigned short tile[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) tile[i] = static_cast<unsigned short>(i);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // lane l gives the address of row l%8 of matrix l/8; rows are 16 contiguous bytes, so the 8
  // rows of a matrix cover all 32 banks (conflict-free)
  uint32_t addr = static_cast<uint32_t>(
      __cvta_generic_to_shared(tile + (((warp % 8) * 4 + lane / 8) * 8 + lane % 8) * 8));
  unsigned acc = 0;
  long long t0 = 0, t1 = 0;
  if (dependent) {
    uint32_t r = 0;
    t0 = clock64();
    for (int i = 0; i < iters; ++i) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(addr + (r & zero)));
    }
    t1 = clock64();
    acc = r;
  } else {
    uint32_t r0, r1, r2, r3;
    __syncthreads();
    t0 = clock64();
    for (int i = 0; i < iters; ++i) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                   : "r"(addr));
      acc ^= r0 ^ r1 ^ r2 ^ r3;
    }
    __syncthreads();
    t1 = clock64();
  }
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0x9E3779B9u) sink[0] = acc;
#else
  if (threadIdx.x == 0) cycles[blockIdx.x] = -1;
  (void)iters, (void)dependent, (void)zero, (void)sink;
#endif
}

// Issue queue of shared-memory loads (the MIO's per-sub-core LSU queue, whose depth NVIDIA does not
// publish): each warp times, with clock64, how long it takes to issue N independent ldmatrix.x4
// whose results it reads only afterwards. While the queue has room a warp issues one per few
// cycles; past the depth it waits for the LSU to drain it (512 B per x4 at the SM's shared-memory
// rate). tcsim's SM model stalls a warp at an LDS once the SM's shared-memory backlog exceeds 32
// cycles (sim/gpu/sm/sm_sim.cpp, kSmemQueue); the knee of cycles against N, for 1, 4, 8 and 16 warps
// per SM (one CTA), is what that constant stands for. cycles[warp]: one entry per warp.
template <int N>
__global__ void ldmatrix_issue_kernel(long long* cycles, unsigned* sink) {
#if TCV_ARCH >= 750
  __shared__ __align__(128) unsigned short tile[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) tile[i] = static_cast<unsigned short>(i);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t addr = static_cast<uint32_t>(
      __cvta_generic_to_shared(tile + (((warp % 8) * 4 + lane / 8) * 8 + lane % 8) * 8));
  uint32_t r[N][4];
  long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(t0)::"memory");
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[i][0]), "=r"(r[i][1]), "=r"(r[i][2]), "=r"(r[i][3])
                 : "r"(addr + 16u * static_cast<uint32_t>(i % 4)));
  asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(t1)::"memory");
  unsigned acc = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) acc ^= r[i][0] ^ r[i][1] ^ r[i][2] ^ r[i][3];
  if (lane == 0) cycles[warp] = t1 - t0;
  if (acc == 0x9E3779B9u) sink[0] = acc;
#else
  if (threadIdx.x == 0) cycles[0] = -1;
  (void)sink;
#endif
}

__global__ void smem_latency_kernel(int iters, long long* cycles, unsigned* sink) {
  __shared__ unsigned next[4096];
  // a fixed pseudo-random cycle over 4096 words (stride 1237 is coprime with 4096)
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) next[i] = (i + 1237u) % 4096u;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned p = 0;
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) p = next[p];
  const long long t1 = clock64();
  cycles[blockIdx.x] = t1 - t0;
  sink[0] = p;
}

__global__ void smem_bandwidth_kernel(int iters, long long* cycles, unsigned* sink) {
  __shared__ uint4 buf[2048];  // 32 KiB
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = make_uint4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  unsigned acc = 0;
  int idx = threadIdx.x % 2048;
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    const uint4 v = buf[idx];  // consecutive lanes read consecutive 16 B: conflict-free
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
    idx = (idx + 32) & 2047;
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0x9E3779B9u) sink[0] = acc;
}

void bench_smem(Ctx& ctx) {
  const int iters = ctx.quick ? 1000 : 20000;
  smem_latency_kernel<<<1, 128>>>(iters, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  ctx.rows.push_back({"smem_latency", "ld.shared.u32 chase", "b32", "latency", median_cycles(ctx, 1) / iters, "cycles"});
  print_row(ctx.rows.back());
  const int threads = 1024;
  smem_bandwidth_kernel<<<ctx.dev.sm_count, threads>>>(iters, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double cyc = median_cycles(ctx, ctx.dev.sm_count);
  ctx.rows.push_back({"smem_bandwidth", "ld.shared.v4.u32", "b128", "bytes_per_clk_per_sm",
                      static_cast<double>(threads) * 16.0 * iters / cyc, "B/clk/SM"});
  print_row(ctx.rows.back());
}

void bench_ldmatrix(Ctx& ctx) {
  const int iters = ctx.quick ? 1000 : 20000;
  ldmatrix_kernel<<<1, 32>>>(iters, 1, 0u, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double lat = median_cycles(ctx, 1);
  if (lat < 0) return;
  ctx.rows.push_back({"ldmatrix_latency", "ldmatrix.m8n8.x1", "b16", "latency_incl_and_add", lat / iters, "cycles"});
  print_row(ctx.rows.back());
  const int warps = 16;
  ldmatrix_kernel<<<ctx.dev.sm_count, 32 * warps>>>(iters, 0, 0u, ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double cyc = median_cycles(ctx, ctx.dev.sm_count);
  ctx.rows.push_back({"ldmatrix_throughput", "ldmatrix.m8n8.x4", "b16", "bytes_per_clk_per_sm",
                      static_cast<double>(warps) * 512.0 * iters / cyc, "B/clk/SM"});
  print_row(ctx.rows.back());
}

// The median over a CTA's warps of the cycles to issue N ldmatrix.x4 (ldmatrix_issue_kernel).
template <int N>
void ldmatrix_issue(Ctx& ctx, int warps) {
  ldmatrix_issue_kernel<N><<<1, 32 * warps>>>(ctx.cycles, ctx.sink);
  TCV_KERNEL_CHECK();
  const double cyc = median_cycles(ctx, warps);
  if (cyc < 0) return;
  ctx.rows.push_back({"ldmatrix_issue", "ldmatrix.m8n8.x4 x" + std::to_string(N) + ", " + std::to_string(warps) + " warps",
                      "b16", "issue_cycles", cyc, "cycles"});
  print_row(ctx.rows.back());
}

void bench_ldmatrix_issue(Ctx& ctx) {
  for (int warps : {1, 4, 8, 16}) {
    ldmatrix_issue<1>(ctx, warps);
    ldmatrix_issue<2>(ctx, warps);
    ldmatrix_issue<4>(ctx, warps);
    ldmatrix_issue<8>(ctx, warps);
    ldmatrix_issue<12>(ctx, warps);
    ldmatrix_issue<16>(ctx, warps);
    ldmatrix_issue<24>(ctx, warps);
    ldmatrix_issue<32>(ctx, warps);
  }
}

void bench_all_mma(Ctx& ctx) {
  const int cc = ctx.dev.cc();
  for (const auto& op : all_ops()) {
    if (op.wgmma || !op_runs_on(op, cc)) continue;
    const std::string k = op.key;
#define TCV_B(KEY, TYPE) \
  if (k == KEY) bench_mma<TYPE>(ctx, op);
    TCV_B("mma_m8n8k4_f16_f16", Op884F16F16)
    TCV_B("mma_m8n8k4_f16_f32", Op884F16F32)
    TCV_B("mma_m16n8k8_f16_f16", Op1688F16F16)
    TCV_B("mma_m16n8k8_f16_f32", Op1688F16F32)
    TCV_B("mma_m8n8k16_s8_s32", Op8816S8)
    TCV_B("mma_m8n8k16_u8_s32", Op8816U8)
    TCV_B("mma_m8n8k32_s4_s32", Op8832S4)
    TCV_B("mma_m8n8k32_u4_s32", Op8832U4)
    TCV_B("mma_m16n8k16_f16_f16", Op16816F16F16)
    TCV_B("mma_m16n8k16_f16_f32", Op16816F16F32)
    TCV_B("mma_m16n8k16_bf16_f32", Op16816BF16F32)
    TCV_B("mma_m16n8k8_bf16_f32", Op1688BF16F32)
    TCV_B("mma_m16n8k8_tf32_f32", Op1688TF32F32)
    TCV_B("mma_m16n8k32_s8_s32", Op16832S8)
    TCV_B("mma_m16n8k32_s8_s32_satfinite", Op16832S8Sat)
    TCV_B("mma_m8n8k4_f64_f64", Op884F64)
    TCV_B("mma_m16n8k32_e4m3_f32", Op16832E4M3F32)
    TCV_B("mma_m16n8k32_e5m2_f32", Op16832E5M2F32)
    TCV_B("mma_m16n8k32_e4m3_f16", Op16832E4M3F16)
#undef TCV_B
  }
}

void bench_all_wgmma(Ctx& ctx) {
  if (ctx.dev.cc() != 90) {
    std::printf("  wgmma: needs sm_90, skipped\n");
    return;
  }
  bench_wgmma<WgF16F32N64>(ctx);
  bench_wgmma<WgF16F32N128>(ctx);
  bench_wgmma<WgF16F32N256>(ctx);
  bench_wgmma<WgF16F16N128>(ctx);
  bench_wgmma<WgF16F16N256>(ctx);
  bench_wgmma<WgBF16F32N128>(ctx);
  bench_wgmma<WgBF16F32N256>(ctx);
  bench_wgmma<WgTF32F32N128>(ctx);
  bench_wgmma<WgTF32F32N256>(ctx);
  bench_wgmma<WgE4M3F32N128>(ctx);
  bench_wgmma<WgE4M3F32N256>(ctx);
  bench_wgmma<WgS8S32N128>(ctx);
  bench_wgmma<WgS8S32N256>(ctx);
}

std::string fmt_value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  set_tool_name("ubench");
  std::string out, only = "clock,mma,wgmma,ldmatrix,smem,memory,launch", gpu_name;
  int device = 0;
  long timeout = 900;
  bool quick = false, print_gpu = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) fail(kExitInput, a + ": expected a value");
      return argv[++i];
    };
    if (a == "--out") out = val();
    else if (a == "--only") only = val();
    else if (a == "--quick") quick = true;
    else if (a == "--print-gpu") print_gpu = true;
    else if (a == "--gpu-name") gpu_name = val();
    else if (a == "--device" || a == "--timeout") {
      const std::string v = val();
      char* end = nullptr;
      const long x = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || x < 0 || x > 86400) fail(kExitInput, a + ": expected a non-negative integer, got '" + v + "'");
      if (a == "--device") device = static_cast<int>(x);
      else timeout = x;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fputs(kUsage, stderr);
      fail(kExitInput, "unknown option '" + a + "'");
    }
  }
  if (print_gpu) {  // for scripts: the short GPU name used in output paths
    std::printf("%s\n", open_device(device).short_name.c_str());
    return 0;
  }
  if (out.empty()) {
    std::fputs(kUsage, stderr);
    fail(kExitInput, "--out: required");
  }
  std::vector<std::string> groups;
  {
    std::istringstream in(only);
    std::string g;
    const std::vector<std::string> known = {"clock", "mma", "wgmma", "ldmatrix", "smem", "memory", "launch"};
    while (std::getline(in, g, ','))
      if (!g.empty()) {
        if (std::find(known.begin(), known.end(), g) == known.end())
          fail(kExitInput, "--only: unknown group '" + g + "' (expected clock, mma, wgmma, ldmatrix, smem, memory, launch)");
        groups.push_back(g);
      }
  }
  auto want = [&](const char* g) { return std::find(groups.begin(), groups.end(), g) != groups.end(); };
  start_watchdog(static_cast<unsigned>(timeout));
  Ctx ctx;
  ctx.dev = open_device(device);
  if (!gpu_name.empty()) ctx.dev.short_name = gpu_name;
  ctx.quick = quick;
  TCV_CUDA(cudaMalloc(&ctx.cycles, sizeof(long long) * std::max(ctx.dev.sm_count, 1)));
  TCV_CUDA(cudaMalloc(&ctx.sink, 64));
  std::printf("ubench: %s (%s, %d SMs)\n", ctx.dev.name.c_str(), ctx.dev.arch().c_str(), ctx.dev.sm_count);
  UbenchOptions opt;
  opt.quick = quick;
  opt.clock_mhz = measure_sm_clock_mhz(ctx.dev);
  if (want("clock")) {
    ctx.rows.push_back({"sm_clock", "clock64 spin", "-", "clock_under_load", opt.clock_mhz, "MHz"});
    print_row(ctx.rows.back());
  }
  if (want("mma")) bench_all_mma(ctx);
  if (want("wgmma")) bench_all_wgmma(ctx);
  if (want("ldmatrix")) {
    bench_ldmatrix(ctx);
    bench_ldmatrix_issue(ctx);
  }
  if (want("smem")) bench_smem(ctx);
  if (want("memory")) bench_memory(ctx.dev, opt, ctx.rows);
  if (want("launch")) bench_launch(ctx.dev, ctx.rows);
  std::string csv = "benchmark,instruction,formats,metric,value,unit\n";
  for (const auto& r : ctx.rows)
    csv += r.benchmark + "," + r.instruction + "," + r.formats + "," + r.metric + "," + fmt_value(r.value) + "," +
           r.unit + "\n";
  make_dirs(out);
  write_file_atomic(out + "/ubench.csv", csv);
  write_file_atomic(out + "/meta.yaml",
                    meta_yaml(ctx.dev, command_line(argc, argv),
                              {{"sm_clock_under_load_mhz", fmt_value(opt.clock_mhz)},
                               {"quick", quick ? "true" : "false"},
                               {"method", yaml_quote("cycles from clock64 on the SM (median over CTAs, one CTA per SM "
                                                     "for throughput); bandwidths from CUDA events")}}));
  std::printf("ubench: %zu rows written to %s/ubench.csv\n", ctx.rows.size(), out.c_str());
  return 0;
}
