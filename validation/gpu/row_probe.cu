// What a row kernel's memory trips cost: one CTA per row of fp16, a loop of loads that each thread
// uses before its next load (the Sarathi / vLLM norm and activation kernels), varied one knob at a
// time: threads per CTA, access width (2-byte scalar or 16-byte vector), loads batched per trip
// (unroll), CTAs per SM (capped with dynamic shared memory), one pass (load, compute, store per
// iteration) or two (sum of squares, CTA reduction, re-read and store), data cold in DRAM (a 512 MiB
// write between launches) or warm in L2 (back to back).
//
//   nvcc -O3 -arch=sm_90a -o row_probe validation/gpu/row_probe.cu
//   ./row_probe [--rows 4096] [--hidden 4096] [--reps 10] > row_probe.csv
//
// Prints CSV: kernel, threads, access_bytes, unroll, passes, ctas_per_sm (0: as many as fit),
// resident_ctas_per_sm (the occupancy API's answer), state (cold|warm), rows, hidden, median_us,
// min_us (CUDA events around each launch; a launch's own overhead, ~2-3 us, included).
// Exit codes: 0 ok, 1 CUDA error, 2 bad options, 3 no CUDA device.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "row_probe: %s: %s\n", #call, cudaGetErrorName(e_));                      \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

namespace {

template <int VEC>
struct Access;
template <>
struct Access<1> {
  using T = __half;
  __device__ static float sum_sq(T v) { float f = __half2float(v); return f * f; }
  __device__ static T scale(T v, float s) { return __float2half(__half2float(v) * s); }
};
template <>
struct Access<8> {
  using T = uint4;  // eight halves
  __device__ static float sum_sq(T v) {
    const __half2* h = reinterpret_cast<const __half2*>(&v);
    float s = 0;
    for (int i = 0; i < 4; ++i) { float2 f = __half22float2(h[i]); s += f.x * f.x + f.y * f.y; }
    return s;
  }
  __device__ static T scale(T v, float s) {
    __half2* h = reinterpret_cast<__half2*>(&v);
    for (int i = 0; i < 4; ++i) { float2 f = __half22float2(h[i]); h[i] = __floats2half2_rn(f.x * s, f.y * s); }
    return v;
  }
};

__device__ float cta_sum(float v) {
  __shared__ float partial[32];
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x & 31] : 0.0f;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

// One trip of a thread: its UNROLL loads of the row from access i on (independent, in flight
// together), and the matching stores.
template <class T, int UNROLL>
__device__ void load_trip(T (&v)[UNROLL], const T* row, int i, int n) {
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (i + u * blockDim.x < n) v[u] = row[i + u * blockDim.x];
}
template <class A, class T, int UNROLL>
__device__ void store_trip(T* out_row, T (&v)[UNROLL], int i, int n, float scale) {
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (i + u * blockDim.x < n) out_row[i + u * blockDim.x] = A::scale(v[u], scale);
}

// `row` holds `n` accesses of VEC halves. Each trip a thread loads UNROLL accesses, then uses them.
template <int VEC, int UNROLL, int PASSES>
__global__ void row_kernel(__half* out, const __half* in, int n) {
  using A = Access<VEC>;
  using T = typename A::T;
  extern __shared__ char occupancy_cap[];  // only its size matters
  if (n < 0) occupancy_cap[threadIdx.x] = 0;
  const T* row = reinterpret_cast<const T*>(in) + std::int64_t(blockIdx.x) * n;
  T* out_row = reinterpret_cast<T*>(out) + std::int64_t(blockIdx.x) * n;
  if (PASSES == 1) {
    for (int i = threadIdx.x; i < n; i += blockDim.x * UNROLL) {
      T v[UNROLL];
      load_trip(v, row, i, n);
      store_trip<A>(out_row, v, i, n, 1.5f);
    }
    return;
  }
  __shared__ float inv;
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x * UNROLL) {
    T v[UNROLL];
    load_trip(v, row, i, n);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (i + u * blockDim.x < n) s += A::sum_sq(v[u]);
  }
  s = cta_sum(s);
  if (threadIdx.x == 0) inv = rsqrtf(s / float(n * VEC) + 1e-5f);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x * UNROLL) {
    T v[UNROLL];
    load_trip(v, row, i, n);
    store_trip<A>(out_row, v, i, n, inv);
  }
}

struct Variant {
  const char* name;
  int threads, vec, unroll, passes, ctas_per_sm;
  void (*kernel)(__half*, const __half*, int);
};

}  // namespace

int main(int argc, char** argv) {
  int rows = 4096, hidden = 4096, reps = 10;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char* opt) {
      if (i + 1 >= argc) { std::fprintf(stderr, "row_probe: %s needs a value\n", opt); std::exit(2); }
      return std::atoi(argv[++i]);
    };
    if (!std::strcmp(argv[i], "--rows")) rows = value("--rows");
    else if (!std::strcmp(argv[i], "--hidden")) hidden = value("--hidden");
    else if (!std::strcmp(argv[i], "--reps")) reps = value("--reps");
    else { std::fprintf(stderr, "row_probe: unknown option %s\n", argv[i]); return 2; }
  }
  if (rows < 1 || hidden < 8 || hidden % 8 || reps < 1) {
    std::fprintf(stderr, "row_probe: expected rows >= 1, hidden a multiple of 8, reps >= 1\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "row_probe: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const Variant variants[] = {
      {"two_pass", 1024, 1, 1, 2, 0, row_kernel<1, 1, 2>},  {"two_pass", 1024, 1, 1, 2, 1, row_kernel<1, 1, 2>},
      {"two_pass", 512, 1, 1, 2, 0, row_kernel<1, 1, 2>},   {"two_pass", 512, 1, 1, 2, 2, row_kernel<1, 1, 2>},
      {"two_pass", 512, 1, 1, 2, 1, row_kernel<1, 1, 2>},   {"two_pass", 256, 1, 1, 2, 0, row_kernel<1, 1, 2>},
      {"two_pass", 128, 1, 1, 2, 0, row_kernel<1, 1, 2>},   {"two_pass", 1024, 1, 4, 2, 0, row_kernel<1, 4, 2>},
      {"two_pass", 128, 8, 1, 2, 0, row_kernel<8, 1, 2>},   {"two_pass", 128, 8, 1, 2, 2, row_kernel<8, 1, 2>},
      {"two_pass", 512, 8, 1, 2, 0, row_kernel<8, 1, 2>},   {"one_pass", 1024, 1, 1, 1, 0, row_kernel<1, 1, 1>},
      {"one_pass", 1024, 1, 1, 1, 1, row_kernel<1, 1, 1>},  {"one_pass", 256, 1, 1, 1, 0, row_kernel<1, 1, 1>},
      {"one_pass", 1024, 1, 4, 1, 0, row_kernel<1, 4, 1>},  {"one_pass", 128, 8, 1, 1, 0, row_kernel<8, 1, 1>},
  };
  const std::size_t bytes = std::size_t(rows) * hidden * sizeof(__half);
  const std::size_t flush_bytes = 512u << 20;
  __half *in = nullptr, *out = nullptr;
  void* flush = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMemset(in, 0x3c, bytes));  // 1.0 in fp16 (0x3c00) and 0x3c3c: finite values
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("kernel,threads,access_bytes,unroll,passes,ctas_per_sm,resident_ctas_per_sm,state,rows,hidden,"
              "median_us,min_us\n");
  for (const Variant& v : variants) {
    const int n = hidden / v.vec;
    std::size_t smem = 0;
    if (v.ctas_per_sm > 0) {
      // Shared memory per CTA so that no more than ctas_per_sm fit (1 KiB is reserved per CTA).
      smem = std::min<std::size_t>(prop.sharedMemPerMultiprocessor / v.ctas_per_sm - 1024 - 64,
                                   prop.sharedMemPerBlockOptin - 1024);
      if (v.ctas_per_sm == 1) smem = prop.sharedMemPerBlockOptin - 1024;  // less the static shared memory
      CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    }
    int resident = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, v.kernel, v.threads, smem));
    for (int cold = 1; cold >= 0; --cold) {
      std::vector<float> us;
      v.kernel<<<rows, v.threads, smem>>>(out, in, n);  // warm-up
      CHECK(cudaGetLastError());
      for (int r = 0; r < reps; ++r) {
        if (cold) CHECK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
        CHECK(cudaEventRecord(start));
        v.kernel<<<rows, v.threads, smem>>>(out, in, n);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        us.push_back(ms * 1000.0f);
      }
      std::sort(us.begin(), us.end());
      std::printf("%s,%d,%d,%d,%d,%d,%d,%s,%d,%d,%.2f,%.2f\n", v.name, v.threads, v.vec * 2, v.unroll, v.passes,
                  v.ctas_per_sm, resident, cold ? "cold" : "warm", rows, hidden, us[us.size() / 2], us[0]);
    }
  }
  return 0;
}
