// ubench: global-memory latency (pointer chase), L2 and DRAM bandwidth, global -> shared copies in
// narrow accesses, launch overhead and the SM clock under load.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

#include "ubench_common.h"

namespace tcv {
namespace {

__global__ void spin_kernel(long long cycles, long long* out) {
  const long long t0 = clock64();
  long long t = t0;
  while (t - t0 < cycles) t = clock64();
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = t - t0;
}

// next[] holds element indices; one thread follows the chain (loads through L2 only: ld.global.cg).
__global__ void chase_kernel(const unsigned* next, long long steps, unsigned start, long long* cycles, unsigned* sink) {
  unsigned p = start;
  for (long long i = 0; i < steps / 4; ++i) p = __ldcg(next + p);  // warm the path (TLB, L2)
  const long long t0 = clock64();
  for (long long i = 0; i < steps; ++i) p = __ldcg(next + p);
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}

// order[j] -> order[j+1]: one node every `stride` elements, visited in a random cycle.
__global__ void link_kernel(unsigned* next, const unsigned* order, size_t nodes, unsigned stride) {
  for (size_t j = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; j < nodes;
       j += static_cast<size_t>(gridDim.x) * blockDim.x)
    next[static_cast<size_t>(order[j]) * stride] = order[(j + 1) % nodes] * stride;
}

__global__ void read_kernel(const uint4* p, size_t n, int passes, unsigned* sink) {
  unsigned acc = 0;
  for (int q = 0; q < passes; ++q)
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
      const uint4 v = __ldcg(p + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x12345678u) *sink = acc;  // practically never true; keeps the loads
}

__global__ void write_kernel(uint4* p, size_t n, unsigned v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = make_uint4(v, v, v, v);
}

__global__ void empty_kernel() {}

// Global -> shared copies of an L2-resident buffer in `W`-byte accesses, the operand copies of
// cuBLAS's _align kernels: cp.async (4, 8, 16 B; two 16 KiB stages, one group in flight while the
// next is issued) or, for 2 B, loads to registers then stores (cp.async has no 2-byte form).
// tcsim's l1.narrow_request_interval is min(128, 32 W) B / (these bytes per clock per SM).
constexpr int kCopyTile = 16384;
template <int W>
__global__ void copy_to_shared_kernel(const char* src, size_t span, int tiles, unsigned* sink) {
  __shared__ __align__(16) char stage[2][kCopyTile];
  const size_t base = (static_cast<size_t>(blockIdx.x) * 7 * kCopyTile) % span;
#if __CUDA_ARCH__ >= 800
  if constexpr (W >= 4) {
    for (int t = 0; t < tiles; ++t) {
      const char* from = src + (base + static_cast<size_t>(t) * kCopyTile) % span;
      char* to = stage[t & 1];
      for (int off = threadIdx.x * W; off < kCopyTile; off += blockDim.x * W) {
        const unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(to + off));
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(saddr), "l"(from + off), "n"(W));
      }
      asm volatile("cp.async.commit_group;\n" ::);
      asm volatile("cp.async.wait_group 1;\n" ::);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
  }
#endif
  if constexpr (W == 2) {
    for (int t = 0; t < tiles; ++t) {
      const unsigned short* from =
          reinterpret_cast<const unsigned short*>(src + (base + static_cast<size_t>(t) * kCopyTile) % span);
      unsigned short* to = reinterpret_cast<unsigned short*>(stage[t & 1]);
      for (int i = threadIdx.x; i < kCopyTile / 2; i += blockDim.x) to[i] = __ldcg(from + i);
    }
  }
  __syncthreads();
  if (stage[0][threadIdx.x] == 123 && stage[1][threadIdx.x] == 45) *sink = 1;  // keeps the copies
}

std::string size_label(size_t bytes) {
  char buf[32];
  if (bytes >= (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%zuGiB", bytes >> 30);
  else if (bytes >= (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%zuMiB", bytes >> 20);
  else std::snprintf(buf, sizeof buf, "%zuKiB", bytes >> 10);
  return buf;
}

float time_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  TCV_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

void print_row(const UbenchRow& r) {
  std::printf("  %-18s %-22s %-16s %-28s %12.4g %s\n", r.benchmark.c_str(), r.instruction.c_str(), r.formats.c_str(),
              r.metric.c_str(), r.value, r.unit.c_str());
  std::fflush(stdout);
}

double measure_sm_clock_mhz(const DeviceInfo& dev) {
  long long* d = nullptr;
  TCV_CUDA(cudaMalloc(&d, sizeof(long long)));
  cudaEvent_t a, b;
  TCV_CUDA(cudaEventCreate(&a));
  TCV_CUDA(cudaEventCreate(&b));
  const long long cycles = static_cast<long long>(dev.sm_clock_khz) * 100;  // ~100 ms at the peak clock
  spin_kernel<<<dev.sm_count, 32>>>(cycles / 10, d);  // warm-up, lets the clock ramp
  TCV_KERNEL_CHECK();
  TCV_CUDA(cudaEventRecord(a));
  spin_kernel<<<dev.sm_count, 32>>>(cycles, d);
  TCV_CUDA(cudaEventRecord(b));
  TCV_KERNEL_CHECK();
  long long got = 0;
  TCV_CUDA(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
  const double mhz = static_cast<double>(got) / (time_ms(a, b) * 1e3);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(d);
  return mhz;
}

void bench_launch(const DeviceInfo&, std::vector<UbenchRow>& rows) {
  cudaEvent_t a, b;
  TCV_CUDA(cudaEventCreate(&a));
  TCV_CUDA(cudaEventCreate(&b));
  const int n = 2000;
  empty_kernel<<<1, 32>>>();
  TCV_KERNEL_CHECK();
  TCV_CUDA(cudaEventRecord(a));
  for (int i = 0; i < n; ++i) empty_kernel<<<1, 32>>>();
  TCV_CUDA(cudaEventRecord(b));
  TCV_KERNEL_CHECK();
  rows.push_back({"launch", "empty kernel", "-", "back_to_back_interval", time_ms(a, b) * 1e3 / n, "us"});
  print_row(rows.back());
  // launch + synchronize round trip, median of 200
  std::vector<double> t;
  for (int i = 0; i < 200; ++i) {
    TCV_CUDA(cudaEventRecord(a));
    empty_kernel<<<1, 32>>>();
    TCV_CUDA(cudaEventRecord(b));
    TCV_CUDA(cudaEventSynchronize(b));
    t.push_back(time_ms(a, b) * 1e3);
  }
  std::sort(t.begin(), t.end());
  rows.push_back({"launch", "empty kernel", "-", "event_to_event_single", t[t.size() / 2], "us"});
  print_row(rows.back());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

void bench_memory(const DeviceInfo& dev, const UbenchOptions& opt, std::vector<UbenchRow>& rows) {
  size_t free_b = 0, total_b = 0;
  TCV_CUDA(cudaMemGetInfo(&free_b, &total_b));
  // ---- pointer chase: latency by footprint ----
  const unsigned stride_elems = 32;  // 128 B between nodes: one node per L2 line
  std::vector<size_t> footprints = {size_t{256} << 10, size_t{2} << 20, size_t{8} << 20, size_t{16} << 20,
                                    size_t{24} << 20, size_t{32} << 20, size_t{40} << 20, size_t{48} << 20,
                                    size_t{64} << 20, size_t{128} << 20, size_t{512} << 20, size_t{2} << 30};
  if (opt.quick) footprints = {size_t{2} << 20, size_t{512} << 20};
  const long long steps = opt.quick ? 20000 : 100000;
  unsigned *next = nullptr, *order_d = nullptr, *sink = nullptr;
  long long* cyc = nullptr;
  TCV_CUDA(cudaMalloc(&sink, 64));
  TCV_CUDA(cudaMalloc(&cyc, sizeof(long long)));
  double l2_lat = 0, dram_lat = 0;
  std::mt19937_64 rng(42);
  for (size_t fp : footprints) {
    if (fp > free_b / 3) continue;
    const size_t nodes = fp / (stride_elems * 4);
    std::vector<unsigned> order(nodes);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    TCV_CUDA(cudaMalloc(&next, fp));
    TCV_CUDA(cudaMalloc(&order_d, nodes * sizeof(unsigned)));
    TCV_CUDA(cudaMemcpy(order_d, order.data(), nodes * sizeof(unsigned), cudaMemcpyHostToDevice));
    link_kernel<<<1024, 256>>>(next, order_d, nodes, stride_elems);
    TCV_KERNEL_CHECK();
    chase_kernel<<<1, 1>>>(next, steps, order[0] * stride_elems, cyc, sink);
    TCV_KERNEL_CHECK();
    long long c = 0;
    TCV_CUDA(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
    const double lat = static_cast<double>(c) / steps;
    rows.push_back({"global_latency", "ld.global.cg.u32 chase", "b32", "latency@" + size_label(fp), lat, "cycles"});
    print_row(rows.back());
    if (fp == (size_t{2} << 20)) l2_lat = lat;
    dram_lat = lat;
    cudaFree(next);
    cudaFree(order_d);
  }
  if (l2_lat > 0) rows.push_back({"l2_latency", "ld.global.cg.u32 chase", "b32", "latency", l2_lat, "cycles"});
  if (l2_lat > 0) print_row(rows.back());
  rows.push_back({"dram_latency", "ld.global.cg.u32 chase", "b32", "latency", dram_lat, "cycles"});
  print_row(rows.back());

  // ---- bandwidth ----
  cudaEvent_t a, b;
  TCV_CUDA(cudaEventCreate(&a));
  TCV_CUDA(cudaEventCreate(&b));
  const int blocks = dev.sm_count * 4, threads = 512;
  auto bw_row = [&](const char* bench, const char* instr, const char* metric, double bytes, double ms) {
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    rows.push_back({bench, instr, "b128", metric, gbs, "GB/s"});
    print_row(rows.back());
    if (opt.clock_mhz > 0) {
      rows.push_back({bench, instr, "b128", std::string(metric) + "_per_clk", bytes / (ms * 1e-3) / (opt.clock_mhz * 1e6),
                      "B/clk"});
      print_row(rows.back());
    }
  };
  // L2: a footprint of a quarter of L2, read many times (L1 bypassed with ld.global.cg)
  {
    const size_t bytes = static_cast<size_t>(dev.l2_bytes) / 4 / 16 * 16;
    uint4* p = nullptr;
    TCV_CUDA(cudaMalloc(&p, bytes));
    write_kernel<<<blocks, threads>>>(p, bytes / 16, 1u);
    TCV_KERNEL_CHECK();
    const int passes = opt.quick ? 5 : 50;
    read_kernel<<<blocks, threads>>>(p, bytes / 16, 2, sink);
    TCV_KERNEL_CHECK();
    TCV_CUDA(cudaEventRecord(a));
    read_kernel<<<blocks, threads>>>(p, bytes / 16, passes, sink);
    TCV_CUDA(cudaEventRecord(b));
    TCV_KERNEL_CHECK();
    bw_row("l2_bandwidth", "ld.global.cg.v4.u32", "read_bandwidth", static_cast<double>(bytes) * passes, time_ms(a, b));
    cudaFree(p);
  }
  // Global -> shared copies in narrow accesses (sm_80+), from a quarter of L2
  if (dev.cc() >= 80) {
    const size_t span = static_cast<size_t>(dev.l2_bytes) / 4 / kCopyTile * kCopyTile;
    char* p = nullptr;
    TCV_CUDA(cudaMalloc(&p, span));
    TCV_CUDA(cudaMemset(p, 1, span));
    const int copy_blocks = dev.sm_count * 2, tiles = opt.quick ? 200 : 2000;
    auto one = [&](auto kernel, int width, const char* instr) {
      kernel<<<copy_blocks, 256>>>(p, span, 10, sink);
      TCV_KERNEL_CHECK();
      TCV_CUDA(cudaEventRecord(a));
      kernel<<<copy_blocks, 256>>>(p, span, tiles, sink);
      TCV_CUDA(cudaEventRecord(b));
      TCV_KERNEL_CHECK();
      const double bytes = static_cast<double>(copy_blocks) * tiles * kCopyTile, s = time_ms(a, b) * 1e-3;
      rows.push_back({"copy_to_shared", instr, "b" + std::to_string(8 * width), "bandwidth", bytes / s / 1e9, "GB/s"});
      print_row(rows.back());
      if (opt.clock_mhz > 0) {
        const double per_sm = bytes / s / (opt.clock_mhz * 1e6) / dev.sm_count;
        rows.push_back({"copy_to_shared", instr, "b" + std::to_string(8 * width), "bytes_per_clk_per_sm", per_sm, "B/clk/SM"});
        print_row(rows.back());
        rows.push_back({"copy_to_shared", instr, "b" + std::to_string(8 * width), "request_interval",
                        std::min(128.0, 32.0 * width) / per_sm, "cycles"});
        print_row(rows.back());
      }
    };
    one(copy_to_shared_kernel<2>, 2, "ld.global.cg.u16+st.shared");
    one(copy_to_shared_kernel<4>, 4, "cp.async.ca 4B");
    one(copy_to_shared_kernel<8>, 8, "cp.async.ca 8B");
    one(copy_to_shared_kernel<16>, 16, "cp.async.ca 16B");
    cudaFree(p);
  }
  // DRAM: the largest of 8x L2 and 1 GiB that fits in a third of free memory
  {
    size_t bytes = std::max(static_cast<size_t>(dev.l2_bytes) * 8, size_t{1} << 30);
    bytes = std::min(bytes, free_b / 3) / 16 * 16;
    uint4 *p = nullptr, *q = nullptr;
    TCV_CUDA(cudaMalloc(&p, bytes));
    TCV_CUDA(cudaMalloc(&q, bytes));
    write_kernel<<<blocks, threads>>>(p, bytes / 16, 1u);
    TCV_KERNEL_CHECK();
    const int reps = opt.quick ? 2 : 5;
    read_kernel<<<blocks, threads>>>(p, bytes / 16, 1, sink);
    TCV_KERNEL_CHECK();
    TCV_CUDA(cudaEventRecord(a));
    read_kernel<<<blocks, threads>>>(p, bytes / 16, reps, sink);
    TCV_CUDA(cudaEventRecord(b));
    TCV_KERNEL_CHECK();
    bw_row("dram_bandwidth", "ld.global.cg.v4.u32", "read_bandwidth", static_cast<double>(bytes) * reps, time_ms(a, b));
    TCV_CUDA(cudaEventRecord(a));
    for (int r = 0; r < reps; ++r) write_kernel<<<blocks, threads>>>(q, bytes / 16, static_cast<unsigned>(r));
    TCV_CUDA(cudaEventRecord(b));
    TCV_KERNEL_CHECK();
    bw_row("dram_bandwidth", "st.global.v4.u32", "write_bandwidth", static_cast<double>(bytes) * reps, time_ms(a, b));
    TCV_CUDA(cudaEventRecord(a));
    for (int r = 0; r < reps; ++r) TCV_CUDA(cudaMemcpyAsync(q, p, bytes, cudaMemcpyDeviceToDevice));
    TCV_CUDA(cudaEventRecord(b));
    TCV_KERNEL_CHECK();
    bw_row("dram_bandwidth", "cudaMemcpy D2D", "copy_bandwidth_read_plus_write", 2.0 * bytes * reps, time_ms(a, b));
    cudaFree(p);
    cudaFree(q);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(sink);
  cudaFree(cyc);
}

}  // namespace tcv
