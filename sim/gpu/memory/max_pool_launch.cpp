#include "gpu/memory/max_pool_launch.h"

#include <algorithm>
#include <string>

#include "gpu/int_math.h"

namespace tcsim::gpu {
namespace {

// The launch constants of DilatedMaxPool2d.cu: CUDA_MAX_THREADS per channels-last CTA, BLOCK_THREADS
// per channels-first CTA, BLOCK_STRIDE output (input) rows and columns per channels-last thread
// before its grid's y and z shrink, and the device's grid limits on y and z.
// Coordinates cover() walks at most, one by one.
constexpr std::int64_t kWalkLimit = std::int64_t{1} << 20;
constexpr std::int64_t kMaxThreads = 1024, kNchwThreads = 256, kBlockStride = 2, kMaxGridYZ = 65535,
                       kMaxBlockZ = 64;

// Instructions of the four kernels, from the SASS of replicas of their v2.11 sources (nvcc 13.0 -O3
// sm_80, fp32 and fp16 as ResNet-50 runs them), counted by scripts/sass_loops.py: each loop's body per
// iteration, the straight code around it once, divisions on their inline 32-bit path, slow-path calls
// left out. The loops' trip counts are runtime values, so none is unrolled over the window taps:
// every tap's load is consumed (compared) before the next is issued.
//  max_pool_forward_nchw (one output per thread): 180 around the window, 16 per window row, 14 per
//  tap (the load, two compares, the index).
constexpr double kFwdNchwThread = 180, kFwdNchwRow = 16, kFwdNchwTap = 14;
//  max_pool_backward_nchw (one input element per thread): 175 around the candidate windows (the
//  element's coordinates and the four window bounds: divisions), 18 per candidate row, 13 per
//  candidate (its index load and compare; where it is the argmax, the gradient's load and add).
constexpr double kBwdNchwThread = 175, kBwdNchwRow = 18, kBwdNchwCandidate = 13;
//  max_pool_forward_nhwc: 98 + 6 per channel chunk (shared-memory init) per thread, 15 per output
//  row, 46 per output position, 12 per window row, 15 per tap and 22 per tap and channel chunk (the
//  load, the shared-memory running max and index), 23 per channel chunk to store value and index.
constexpr double kFwdNhwcThread = 98, kFwdNhwcInit = 6, kFwdNhwcRow = 15, kFwdNhwcPosition = 46,
                 kFwdNhwcWindowRow = 12, kFwdNhwcTap = 15, kFwdNhwcTapChunk = 22, kFwdNhwcStoreChunk = 23;
//  max_pool_backward_nhwc: 134 + 4 per chunk per thread, 70 per input row, 76 per input position;
//  then a position in one window only: 27 + 28 per chunk (index load, compare, gradient load,
//  store); else 23, 14 per candidate row, 15 per candidate and 29 per candidate and chunk (index
//  load, compare, gradient load, shared-memory sum), 15 per chunk to store.
constexpr double kBwdNhwcThread = 134, kBwdNhwcInit = 4, kBwdNhwcRow = 70, kBwdNhwcPosition = 76,
                 kBwdNhwcSingle = 27, kBwdNhwcSingleChunk = 28, kBwdNhwcGeneral = 23, kBwdNhwcCandidateRow = 14,
                 kBwdNhwcCandidate = 15, kBwdNhwcCandidateChunk = 29, kBwdNhwcStoreChunk = 15;

// Windows covering each input coordinate, and how many coordinates lie in exactly one window.
struct Cover {
  double mean = 1;    // windows per input coordinate
  double single = 1;  // share of the coordinates in one window only
};

// p_start / p_end of the kernels: the outputs whose window holds input coordinate i.
Cover cover(std::int64_t size, std::int64_t pooled, int kernel, int stride, int pad) {
  // Windows per coordinate repeat with period `stride` away from the borders; the borders are a few
  // coordinates: walk all of them when the dimension is small, else both ends and one period.
  auto windows = [&](std::int64_t i) {
    const std::int64_t start = i + pad < kernel ? 0 : (i + pad - kernel) / stride + 1;
    const std::int64_t end = std::min<std::int64_t>((i + pad) / stride + 1, pooled);
    return std::max<std::int64_t>(0, end - start);
  };
  const std::int64_t edge = 2 * (std::int64_t(kernel) + stride + pad);
  Cover c;
  double total = 0, ones = 0;
  if (edge > kWalkLimit && size > kWalkLimit) {
    // Windows too large to walk (no network has them): every window whole, and a coordinate is in
    // one window only where consecutive windows do not overlap it.
    c.mean = std::min(double(pooled) * kernel / double(size), double(kernel));
    c.single = kernel <= stride ? c.mean : kernel < 2 * stride ? double(2 * stride - kernel) / stride : 0.0;
    return c;
  }
  if (size <= 4 * edge) {
    for (std::int64_t i = 0; i < size; ++i) {
      const std::int64_t n = windows(i);
      total += double(n), ones += n == 1 ? 1.0 : 0.0;
    }
  } else {
    for (std::int64_t i = 0; i < edge; ++i) {
      const std::int64_t a = windows(i), b = windows(size - 1 - i);
      total += double(a + b), ones += (a == 1 ? 1.0 : 0.0) + (b == 1 ? 1.0 : 0.0);
    }
    double period = 0, period_ones = 0;
    for (std::int64_t i = edge; i < edge + stride; ++i) {
      const std::int64_t n = windows(i);
      period += double(n), period_ones += n == 1 ? 1.0 : 0.0;
    }
    // Whole periods, then the last partial one walked.
    const std::int64_t middle = size - 2 * edge, full = middle / stride;
    total += double(full) * period, ones += double(full) * period_ones;
    for (std::int64_t i = edge + full * stride; i < size - edge; ++i) {
      const std::int64_t n = windows(i);
      total += double(n), ones += n == 1 ? 1.0 : 0.0;
    }
  }
  c.mean = total / double(size);
  c.single = ones / double(size);
  return c;
}

// The channels-last CTA shape (block_x over channels, block_y over widths, block_z over heights) and
// the channel chunks a thread loops over, as both channels-last launches compute them.
struct NhwcBlock {
  std::int64_t x = 1, y = 1, z = 1, stride_c = 1, size_c = 1;
};

NhwcBlock nhwc_block(std::int64_t channels, std::int64_t width, std::int64_t height) {
  NhwcBlock b;
  b.x = std::min<std::int64_t>(last_pow2(channels), 32);
  b.y = std::min<std::int64_t>(last_pow2(width), kMaxThreads / b.x);
  b.z = std::min({kMaxBlockZ, last_pow2(height), kMaxThreads / b.x / b.y});
  b.x = std::min<std::int64_t>(last_pow2(channels), kMaxThreads / b.y / b.z);
  b.stride_c = ceil_div(channels, b.x * 4);
  b.size_c = ceil_div(channels, b.x * b.stride_c);
  return b;
}

std::string geometry(const char* name, std::int64_t gx, std::int64_t gy, std::int64_t gz, std::int64_t bx,
                     std::int64_t by, std::int64_t bz) {
  return std::string(name) + " (grid " + std::to_string(gx) + "x" + std::to_string(gy) + "x" + std::to_string(gz) +
         ", CTAs of " + std::to_string(bx) + "x" + std::to_string(by) + "x" + std::to_string(bz) + " threads)";
}

}  // namespace

double windows_per_input(std::int64_t size, std::int64_t pooled, int kernel, int stride, int pad) {
  return cover(size, pooled, kernel, stride, pad).mean;
}

MemoryLaunch max_pool_launch(const PoolShape& p) {
  MemoryLaunch l;
  l.scalar_loop = true;  // every load is used before the next is issued
  const double taps = double(p.kernel_h) * double(p.kernel_w);
  const Cover rows = cover(p.h, p.p, p.kernel_h, p.stride_h, p.pad_h);
  const Cover cols = cover(p.w, p.q, p.kernel_w, p.stride_w, p.pad_w);
  const double candidates = rows.mean * cols.mean;
  const double outputs = double(p.n) * double(p.c) * double(p.p) * double(p.q);
  const double inputs = double(p.n) * double(p.c) * double(p.h) * double(p.w);
  if (!p.channels_last && !p.backward) {
    // One output per thread. A window row's first tap is a trip to where the input lives; its other
    // taps hit L1: consecutive outputs are `stride` elements apart, so the first tap's warp load
    // brings the sectors of the row's next taps.
    l.threads_per_cta = int(kNchwThreads);
    l.ctas = std::max<std::int64_t>(1, ceil_div(std::int64_t(outputs), kNchwThreads));
    l.dependent_loads = p.kernel_h;
    l.reread_trips = double(p.kernel_h) * double(p.kernel_w - 1);
    l.issue_instructions_per_element = kFwdNchwThread + kFwdNchwRow * p.kernel_h + kFwdNchwTap * taps;
    l.kernel = geometry("max_pool_forward_nchw", l.ctas, 1, 1, kNchwThreads, 1, 1);
    return l;
  }
  if (!p.channels_last) {
    // One input element per thread (grid: its image plane's pixels, the images, the channels).
    // Each candidate window is a trip for its index and, where this element is its argmax (one
    // window in `candidates`, per warp almost always some lane), one for the gradient.
    const std::int64_t gx = ceil_div(p.h * p.w, kNchwThreads);
    const std::int64_t gy = std::min(p.n, kMaxGridYZ), gz = std::min(p.c, kMaxGridYZ);
    l.threads_per_cta = int(kNchwThreads);
    l.ctas = std::max<std::int64_t>(1, gx * gy * gz);
    l.dependent_loads = std::max(1.0, 2 * candidates);
    l.issue_instructions_per_element = kBwdNchwThread + kBwdNchwRow * rows.mean + kBwdNchwCandidate * candidates;
    l.kernel = geometry("max_pool_backward_nchw", gx, gy, gz, kNchwThreads, 1, 1);
    return l;
  }
  // Channels last: a CTA per image (and block of channels) and tile of positions; a thread walks the
  // positions of its tile `block_y` / `block_z` apart, and the channels `block_x` apart in chunks.
  const std::int64_t height = p.backward ? p.h : p.p, width = p.backward ? p.w : p.q;
  const NhwcBlock b = nhwc_block(p.c, width, height);
  const std::int64_t gx = p.n * b.stride_c, gy = std::min(kMaxGridYZ, ceil_div(width, b.y * kBlockStride)),
                     gz = std::min(kMaxGridYZ, ceil_div(height, b.z * kBlockStride));
  const std::int64_t tile_h = ceil_div(height, gz), tile_w = ceil_div(width, gy);
  // The busiest thread's rows and columns (its CTA's life), and all threads' positions together.
  const double rows_per_thread = double(ceil_div(tile_h, b.z)), cols_per_thread = double(ceil_div(tile_w, b.y));
  l.threads_per_cta = int(b.x * b.y * b.z);
  l.ctas = std::max<std::int64_t>(1, gx * gy * gz);
  const double threads = double(l.ctas) * l.threads_per_cta;
  // (position, channel lane) pairs, each running size_c chunks; every position of every channel group
  // has b.x lanes.
  const double lanes = double(p.n) * double(b.stride_c) * double(height) * double(width) * double(b.x);
  const double chunks = double(b.size_c);
  // Row iterations of all threads: each row of a CTA's tile is walked by its b.x x b.y threads.
  const double row_threads = double(gx * gy) * double(b.x * b.y) * double(height);
  double instructions = 0, far = 0, near = 0;
  if (!p.backward) {
    // Per tap the first chunk's load fetches the 128-byte line of the tap's channels; the further
    // chunks of a 64-channel CTA are the line's other half (L1).
    instructions = threads * (kFwdNhwcThread + kFwdNhwcInit * chunks) + row_threads * kFwdNhwcRow +
                   lanes * (kFwdNhwcPosition + p.kernel_h * kFwdNhwcWindowRow +
                            taps * (kFwdNhwcTap + kFwdNhwcTapChunk * chunks) + kFwdNhwcStoreChunk * chunks);
    far = taps, near = taps * (chunks - 1);
    l.kernel = geometry("max_pool_forward_nhwc", gx, gy, gz, b.x, b.y, b.z);
  } else {
    // Per candidate and chunk, the index load and then the gradient load (some lane's argmax).
    const double single = rows.single * cols.single;
    const double general_candidates = (candidates - single) / std::max(1e-9, 1 - single);
    const double general_rows = (rows.mean - single) / std::max(1e-9, 1 - single);
    const double per_position =
        kBwdNhwcPosition + single * (kBwdNhwcSingle + kBwdNhwcSingleChunk * chunks) +
        (1 - single) * (kBwdNhwcGeneral + kBwdNhwcCandidateRow * general_rows +
                        general_candidates * (kBwdNhwcCandidate + kBwdNhwcCandidateChunk * chunks) +
                        kBwdNhwcStoreChunk * chunks);
    instructions = threads * (kBwdNhwcThread + kBwdNhwcInit * chunks) + row_threads * kBwdNhwcRow +
                   lanes * per_position;
    far = 2 * candidates * chunks;
    l.kernel = geometry("max_pool_backward_nhwc", gx, gy, gz, b.x, b.y, b.z);
  }
  const double positions_per_thread = rows_per_thread * cols_per_thread;
  l.dependent_loads = std::max(1.0, positions_per_thread * far);
  l.reread_trips = positions_per_thread * near;
  const double elements = p.backward ? inputs : outputs;
  l.issue_instructions_per_element = instructions / std::max(1.0, elements);
  return l;
}

}  // namespace tcsim::gpu
