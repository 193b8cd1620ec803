// Kernels with known loop structure for scripts/sass_loops.py's check (validation/CMakeLists.txt):
// the script must find each loop, count a loop that does twice the work as longer, and leave a
// slow path a forward branch jumps over (IEEE division's subroutine call) out of the hot path.
// Compiled to a cubin only; never run.

// One loop: scale each element.
extern "C" __global__ void one_loop(float* __restrict__ y, const float* __restrict__ x, float a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = a * x[i];
}

// The same loop doing twice the work per iteration: a second input and output.
extern "C" __global__ void one_loop_twice(float* __restrict__ y, float* __restrict__ z, const float* __restrict__ x,
                                          const float* __restrict__ w, float a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    y[i] = a * x[i];
    z[i] = a * w[i];
  }
}

// Two loops in a row.
extern "C" __global__ void two_loops(float* __restrict__ y, const float* __restrict__ x, float a, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = a * x[i];
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[n + i] = x[n + i] + a;
}

// An IEEE division per iteration: its slow path is a subroutine call the fast path branches over.
extern "C" __global__ void divide_loop(float* __restrict__ y, const float* __restrict__ x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = x[i] / (1.0f + x[n + i]);
}
