// Stand-ins for the three custom CUDA kernels of an LLM decoder layer that Vidur's A100 profile
// timed through Sarathi-Serve (csrc/{layernorm,activation,pos_encoding}_kernels.cu, the vLLM
// kernels of 2023-24): the same launch geometry, loop structure, element type handling (fp16
// values computed in float, 2-byte scalar accesses) and read-only loads, written here so that
// validation/gpu/vidur_layer.py can time them on a lent GPU next to PyTorch's own kernels (the
// embedding gather, the residual add, the GEMMs). Built into a shared library with nvcc and
// loaded through ctypes: no PyTorch extension build needed.
//
//   nvcc -O3 -shared -Xcompiler -fPIC -cudart shared -gencode arch=compute_90a,code=sm_90a
//        -gencode arch=compute_80,code=sm_80 -o llm_layer_kernels.so validation/gpu/llm_layer_kernels.cu
//
// (one command; validation/run_vidur_layer_loan.sh builds it so, and validation/CMakeLists.txt as
// the module llm_layer_kernels).
//
// Every entry point takes device pointers and a cudaStream_t (PyTorch's current stream) and
// returns the cudaError_t of the launch.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace {

__device__ __forceinline__ float load_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ldg_f(const __half* p) { return __half2float(__ldg(p)); }
// c10::Half arithmetic: each operation in float, rounded back to half.
__device__ __forceinline__ float round_half(float v) { return __half2float(__float2half(v)); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, lane_mask, 32);
  return v;
}

// Sum over the CTA: a warp reduction, one partial per warp through shared memory, a second one.
__device__ float cta_sum(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f;
  return warp_sum(v);
}

// RMS norm: one CTA per token; the sum of squares over the row, then a second pass that re-reads
// the row, scales it and multiplies by the weight.
__global__ void rms_norm(__half* __restrict__ out, const __half* __restrict__ x, const __half* __restrict__ weight,
                         float eps, int hidden) {
  __shared__ float inv_rms;
  // 32-bit element indices (blockIdx.x * hidden + i), as the original computes them: the address
  // forms change the loops' SASS by a few instructions.
  float squares = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = load_f(&x[blockIdx.x * hidden + i]);
    squares += v * v;
  }
  squares = cta_sum(squares);
  if (threadIdx.x == 0) inv_rms = rsqrtf(squares / float(hidden) + eps);
  __syncthreads();
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float scaled = round_half(load_f(&x[blockIdx.x * hidden + i]) * inv_rms);
    out[blockIdx.x * hidden + i] = __float2half(scaled * load_f(weight + i));
  }
}

// SiLU(gate) x up over a [tokens, 2d] input: one CTA per token, one element per thread per
// iteration, 64-bit indices, accurate expf and an IEEE division.
__global__ void silu_and_mul(__half* __restrict__ out, const __half* __restrict__ in, int d) {
  const std::int64_t token = blockIdx.x;
  for (std::int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    const float gate = ldg_f(&in[token * 2 * d + i]);
    const float up = ldg_f(&in[token * 2 * d + d + i]);
    const float silu = round_half(gate / (1.0f + expf(-gate)));
    out[token * d + i] = __float2half(silu * up);
  }
}

// GPT-NeoX-style rotary embedding in place over q and k (strided views of the fused QKV output):
// one CTA per token, first the query's (x, y) pairs then the key's; cos and sin from a cache row
// per position.
__device__ __forceinline__ void rotate_pair(__half* head, const __half* cos_row, const __half* sin_row, int offset,
                                            int half_dim) {
  const float c = ldg_f(&cos_row[offset]), s = ldg_f(&sin_row[offset]);
  const float x = load_f(&head[offset]), y = load_f(&head[half_dim + offset]);
  head[offset] = __float2half(round_half(x * c) - round_half(y * s));
  head[half_dim + offset] = __float2half(round_half(y * c) + round_half(x * s));
}

__global__ void rotary_neox(const std::int64_t* __restrict__ positions, __half* __restrict__ q, __half* __restrict__ k,
                            const __half* __restrict__ cos_sin, int rot_dim, int q_stride, int k_stride, int q_heads,
                            int kv_heads, int head_size) {
  const int token = blockIdx.x;
  const std::int64_t position = positions[token];
  const int half_dim = rot_dim / 2;
  const __half* cos_row = cos_sin + position * rot_dim;
  const __half* sin_row = cos_row + half_dim;
  for (int i = threadIdx.x; i < q_heads * half_dim; i += blockDim.x) {
    const int head_offset = token * q_stride + (i / half_dim) * head_size;  // 32-bit, as the original
    rotate_pair(q + head_offset, cos_row, sin_row, i % half_dim, half_dim);
  }
  for (int i = threadIdx.x; i < kv_heads * half_dim; i += blockDim.x) {
    const int head_offset = token * k_stride + (i / half_dim) * head_size;
    rotate_pair(k + head_offset, cos_row, sin_row, i % half_dim, half_dim);
  }
}

int min_int(int a, int b) { return a < b ? a : b; }

}  // namespace

extern "C" {

int tcsim_rms_norm(void* out, const void* x, const void* weight, float eps, int tokens, int hidden, void* stream) {
  rms_norm<<<tokens, min_int(hidden, 1024), 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<__half*>(out), static_cast<const __half*>(x), static_cast<const __half*>(weight), eps, hidden);
  return int(cudaGetLastError());
}

int tcsim_silu_and_mul(void* out, const void* in, int tokens, int d, void* stream) {
  silu_and_mul<<<tokens, min_int(d, 1024), 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<__half*>(out), static_cast<const __half*>(in), d);
  return int(cudaGetLastError());
}

int tcsim_rotary_neox(const void* positions, void* q, void* k, const void* cos_sin, int tokens, int rot_dim,
                      int q_stride, int k_stride, int q_heads, int kv_heads, int head_size, void* stream) {
  rotary_neox<<<tokens, min_int(q_heads * rot_dim / 2, 512), 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const std::int64_t*>(positions), static_cast<__half*>(q), static_cast<__half*>(k),
      static_cast<const __half*>(cos_sin), rot_dim, q_stride, k_stride, q_heads, kv_heads, head_size);
  return int(cudaGetLastError());
}

}  // extern "C"
