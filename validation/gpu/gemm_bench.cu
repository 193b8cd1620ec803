// gemm_bench: times cuBLASLt GEMMs over an op-trace CSV shape list (the format of
// traces/README.md) and writes the measured-data CSV of validation/measured/README.md
// (gemm.csv) plus meta.yaml. Warm-up, CUDA events, median of repeats, inputs rotated over
// enough buffer sets that L2 cannot hold them, the heuristic's algorithm recorded.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cublaslt_names.h"
#include "device_info.h"

using namespace tcv;

namespace {

const char* kUsage =
    "usage: gemm_bench --shapes FILE.csv --out DIR [options]\n"
    "Times each GEMM row of FILE.csv (the op-trace format of traces/README.md: name,m,n,k,batch,\n"
    "a_format,b_format,c_format,d_format,layout,count; tcsim's row-major layout letters) with\n"
    "cuBLASLt and writes DIR/gemm.csv and DIR/meta.yaml (validation/measured/README.md).\n"
    "options:\n"
    "  --repeats N       timed samples per row; the median is reported (default 15)\n"
    "  --warmup N        untimed launches per row (default 5)\n"
    "  --sample-us T     each sample times back-to-back launches lasting about T us (default 200)\n"
    "  --workspace-mib N cuBLASLt workspace (default 32)\n"
    "  --rotate-factor F the rotated buffer sets together hold F x the L2 size (default 3)\n"
    "  --row-timeout S   skip the remaining repeats of a row after S seconds (default 20)\n"
    "  --device N, --timeout S (watchdog, default 1200; 0 = none)\n"
    "exit codes: 0 ok, 1 CUDA/cuBLAS failure, 2 bad options or shape file, 3 no CUDA device\n";

const char* lt_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_(unknown)";
  }
}

#define TCV_LT(call)                                                                               \
  do {                                                                                             \
    cublasStatus_t s_ = (call);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                               \
      fail(kExitCuda, std::string("cuBLASLt call failed: ") + #call + ": " + lt_status_name(s_)); \
  } while (0)

struct Row {
  int line = 0;
  std::string name, a, b, c, d, layout;
  long long m = 0, n = 0, k = 0, batch = 1, count = 1;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool q = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (q) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (ch == '"') q = false;
      else cur += ch;
    } else if (ch == '"') q = true;
    else if (ch == ',') f.push_back(trim(cur)), cur.clear();
    else cur += ch;
  }
  f.push_back(trim(cur));
  return f;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Canonical format name (traces/README.md aliases), or "" when unknown.
std::string canonical_format(const std::string& f) {
  static const std::map<std::string, std::string> names = {
      {"fp64", "fp64"}, {"f64", "fp64"}, {"double", "fp64"}, {"fp32", "fp32"}, {"f32", "fp32"},
      {"float", "fp32"}, {"tf32", "tf32"}, {"bf16", "bf16"}, {"bfloat16", "bf16"}, {"fp16", "fp16"},
      {"f16", "fp16"}, {"half", "fp16"}, {"e4m3", "e4m3"}, {"fp8e4m3", "e4m3"}, {"e5m2", "e5m2"},
      {"fp8e5m2", "e5m2"}, {"s8", "s8"}, {"int8", "s8"}, {"i8", "s8"}, {"u8", "u8"}, {"uint8", "u8"},
      {"s4", "s4"}, {"int4", "s4"}, {"u4", "u4"}, {"uint4", "u4"}, {"s32", "s32"}, {"int32", "s32"}};
  auto it = names.find(lower(f));
  return it == names.end() ? "" : it->second;
}

// The op-trace CSV of traces/README.md: columns matched by name (case-insensitive, any order),
// defaults for absent columns or empty cells, '#' comments.
std::vector<Row> read_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(kExitInput, "--shapes " + path + ": cannot read the file");
  const std::vector<std::string> known = {"name", "m", "n", "k", "batch", "a_format", "b_format",
                                          "c_format", "d_format", "layout", "count"};
  std::map<std::string, size_t> col;
  std::vector<Row> rows;
  std::string line;
  int ln = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++ln;
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    auto f = split_csv(line);
    const std::string where = path + ":" + std::to_string(ln);
    if (!header) {
      for (size_t i = 0; i < f.size(); ++i) {
        const std::string h = lower(f[i]);
        if (std::find(known.begin(), known.end(), h) == known.end())
          fail(kExitInput, where + ": header: unknown column '" + f[i] + "'");
        col[h] = i;
      }
      for (const char* req : {"m", "n", "k"})
        if (!col.count(req)) fail(kExitInput, where + ": header: missing column '" + std::string(req) + "'");
      header = true;
      continue;
    }
    if (f.size() != col.size())
      fail(kExitInput, where + ": expected " + std::to_string(col.size()) + " fields, got " + std::to_string(f.size()));
    Row r;
    r.line = ln;
    auto get = [&](const char* c) { return col.count(c) ? f[col[c]] : std::string(); };
    auto num = [&](const char* c, long long dflt) {
      const std::string v = get(c);
      if (v.empty() && dflt > 0) return dflt;
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || errno || x <= 0 || x > (1LL << 31))
        fail(kExitInput, where + ": column " + c + ": expected a positive integer up to 2^31, got '" + v + "'");
      return x;
    };
    auto fmt = [&](const char* c, const std::string& dflt) {
      const std::string v = get(c);
      if (v.empty()) return dflt;
      const std::string cf = canonical_format(v);
      if (cf.empty())
        fail(kExitInput, where + ": column " + c + ": unknown format '" + v +
                             "' (expected fp64 fp32 tf32 bf16 fp16 e4m3 e5m2 s8 u8 s4 u4 s32)");
      return cf;
    };
    r.name = get("name").empty() ? "row" + std::to_string(ln) : get("name");
    r.m = num("m", 0), r.n = num("n", 0), r.k = num("k", 0), r.batch = num("batch", 1), r.count = num("count", 1);
    r.a = fmt("a_format", "fp16"), r.b = fmt("b_format", "fp16"), r.c = fmt("c_format", "fp32");
    r.d = fmt("d_format", r.c);
    r.layout = get("layout").empty() ? "NN" : get("layout");
    for (auto& ch : r.layout) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (r.layout.size() != 2 || (r.layout[0] != 'N' && r.layout[0] != 'T') || (r.layout[1] != 'N' && r.layout[1] != 'T'))
      fail(kExitInput, where + ": column layout: expected NN, NT, TN or TT, got '" + r.layout + "'");
    rows.push_back(r);
  }
  if (!header) fail(kExitInput, "--shapes " + path + ": no header line");
  return rows;
}

// ---- the cuBLASLt configuration of a row ----------------------------------------------------
struct Plan {
  cudaDataType_t a, b, c, d;
  cublasComputeType_t compute;
  cudaDataType_t scale;
  bool tn_only = false;      // cuBLASLt FP8 and INT8 (IMMA) GEMMs take only cuBLAS "TN" (tcsim NT)
  int min_cc = 0;
  std::string error;         // non-empty: the row cannot run
};

cudaDataType_t dtype(const std::string& f) {
  if (f == "fp16") return CUDA_R_16F;
  if (f == "bf16") return CUDA_R_16BF;
  if (f == "e4m3") return CUDA_R_8F_E4M3;
  if (f == "e5m2") return CUDA_R_8F_E5M2;
  if (f == "s8") return CUDA_R_8I;
  if (f == "s32") return CUDA_R_32I;
  return CUDA_R_32F;  // fp32, tf32
}

size_t dsize(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: case CUDA_R_8I: return 1;
    default: return 4;
  }
}

Plan make_plan(const Row& r) {
  Plan p{};
  p.a = dtype(r.a), p.b = dtype(r.b), p.c = dtype(r.c), p.d = dtype(r.d);
  p.scale = CUDA_R_32F;
  p.compute = CUBLAS_COMPUTE_32F;
  const bool fp8 = r.a == "e4m3" || r.a == "e5m2";
  for (const std::string* f : {&r.a, &r.b, &r.c, &r.d})
    if (*f == "fp64" || *f == "u8" || *f == "s4" || *f == "u4") p.error = "gemm_bench does not run " + *f + " GEMMs";
  if (r.a == "tf32" || r.b == "tf32") {
    if (r.a != r.b) p.error = "tf32 needs tf32 for both A and B";
    p.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  } else if (r.a == "s8") {
    if (r.b != "s8" || r.c != "s32" || r.d != "s32") p.error = "int8 GEMM is run as s8 x s8 -> s32";
    p.compute = CUBLAS_COMPUTE_32I;
    p.scale = CUDA_R_32I;
    p.tn_only = true;
  } else if (fp8) {
    p.tn_only = true;
    p.min_cc = 89;
    if (r.a == "e5m2" && r.b == "e5m2") p.error = "cuBLASLt has no e5m2 x e5m2 GEMM";
  } else if (r.a != r.b) {
    p.error = "A and B formats differ";
  }
  if ((r.c == "tf32") || (r.d == "tf32")) { p.c = p.d = CUDA_R_32F; }
  return p;
}

// ---- device buffers ------------------------------------------------------------------------------
__device__ inline float hash_unit(unsigned long long i, unsigned seed) {
  unsigned long long x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<float>(x & 0xFFFFFF) / 16777216.0f * 2.0f - 1.0f;  // [-1, 1)
}

__global__ void fill_kernel(void* p, size_t n, int type, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float v = hash_unit(i, seed);
    switch (type) {
      case CUDA_R_16F: static_cast<__half*>(p)[i] = __float2half(v); break;
      case CUDA_R_16BF: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16(v); break;
      case CUDA_R_8F_E4M3: static_cast<__nv_fp8_e4m3*>(p)[i] = __nv_fp8_e4m3(v); break;
      case CUDA_R_8F_E5M2: static_cast<__nv_fp8_e5m2*>(p)[i] = __nv_fp8_e5m2(v); break;
      case CUDA_R_8I: static_cast<signed char*>(p)[i] = static_cast<signed char>(v * 8.0f); break;
      case CUDA_R_32I: static_cast<int*>(p)[i] = static_cast<int>(v * 8.0f); break;
      default: static_cast<float*>(p)[i] = v; break;
    }
  }
}

// Spins for `cycles` SM cycles: queued before the timed launches, it lets the host enqueue them
// all so they run back to back and the events measure the GPU, not the launch path.
__global__ void delay_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

struct Buf {
  void* p = nullptr;
  size_t bytes = 0;
};

struct Sets {
  std::vector<Buf> a, b, c, d;
  ~Sets() {
    for (auto* v : {&a, &b, &c, &d})
      for (auto& x : *v) cudaFree(x.p);
  }
};

Buf alloc_fill(size_t elems, cudaDataType_t t, unsigned seed) {
  Buf b;
  b.bytes = elems * dsize(t);
  TCV_CUDA(cudaMalloc(&b.p, b.bytes));
  fill_kernel<<<1024, 256>>>(b.p, elems, static_cast<int>(t), seed);
  TCV_CUDA(cudaGetLastError());
  return b;
}

std::string fmt_double(double v, int prec = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

template <class T>
T cfg_attr(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t a) {
  T v{};
  size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, a, &v, sizeof v, &written) != CUBLAS_STATUS_SUCCESS) return T{};
  return v;
}

std::string describe_algo(const cublasLtMatmulAlgo_t& algo, double waves) {
  std::ostringstream o;
  o << "cublasLt algo=" << cfg_attr<int>(algo, CUBLASLT_ALGO_CONFIG_ID)
    << ";tile=" << tile_name(static_cast<int>(cfg_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)))
    << ";stages=" << stages_name(static_cast<int>(cfg_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)))
    << ";splitK=" << cfg_attr<int>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)
    << ";reduction=" << cfg_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)
    << ";swizzle=" << cfg_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)
    << ";custom=" << cfg_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)
    << ";inner=" << inner_shape_name(static_cast<int>(cfg_attr<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)))
    << ";cluster=" << cluster_name(static_cast<int>(cfg_attr<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)))
    << ";waves=" << fmt_double(waves, 3);
  return o.str();
}

struct Result {
  double time_us = 0, tflops = 0;
  int repeats = 0;
  std::string kernel, layout_run, skipped;
};

Result time_row(const Row& r, const DeviceInfo& dev, cublasLtHandle_t lt, void* workspace, size_t ws_bytes,
                int repeats, int warmup, double sample_us, double rotate_factor, double row_timeout_s,
                cudaStream_t stream) {
  Result res;
  const Plan p = make_plan(r);
  if (!p.error.empty()) {
    res.skipped = p.error;
    return res;
  }
  if (dev.cc() < p.min_cc) {
    res.skipped = "needs sm_" + std::to_string(p.min_cc) + "+";
    return res;
  }
  // tcsim layout letters are on row-major storage (traces/README.md): A is M x K ('N') or stored
  // K x M ('T'); B is K x N ('N') or stored N x K ('T'); D is M x N row-major. cuBLAS is
  // column-major, so it computes D^T (N x M) = B^T * A^T: its first operand is our B, its second
  // our A, with m' = N, n' = M. tcsim NT = cuBLAS TN, the layout FP8/INT8 GEMMs require.
  res.layout_run = p.tn_only ? "NT" : r.layout;
  const bool a_t = res.layout_run[0] == 'T', b_t = res.layout_run[1] == 'T';
  const cublasOperation_t opa = b_t ? CUBLAS_OP_T : CUBLAS_OP_N;   // cuBLAS A := our B
  const cublasOperation_t opb = a_t ? CUBLAS_OP_T : CUBLAS_OP_N;   // cuBLAS B := our A
  const uint64_t mm = r.n, nn = r.m;                                // cuBLAS m', n'
  const uint64_t ar = opa == CUBLAS_OP_N ? mm : r.k, ac = opa == CUBLAS_OP_N ? r.k : mm;
  const uint64_t br = opb == CUBLAS_OP_N ? r.k : nn, bc = opb == CUBLAS_OP_N ? nn : r.k;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  TCV_LT(cublasLtMatmulDescCreate(&op, p.compute, p.scale));
  TCV_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
  TCV_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
  TCV_LT(cublasLtMatrixLayoutCreate(&la, p.b, ar, ac, static_cast<int64_t>(ar)));
  TCV_LT(cublasLtMatrixLayoutCreate(&lb, p.a, br, bc, static_cast<int64_t>(br)));
  TCV_LT(cublasLtMatrixLayoutCreate(&lc, p.c, mm, nn, static_cast<int64_t>(mm)));
  TCV_LT(cublasLtMatrixLayoutCreate(&ld, p.d, mm, nn, static_cast<int64_t>(mm)));
  if (r.batch > 1) {
    const int32_t bc32 = static_cast<int32_t>(r.batch);
    const int64_t sa = static_cast<int64_t>(ar * ac), sb = static_cast<int64_t>(br * bc),
                  sc = static_cast<int64_t>(r.m * r.n);
    for (auto [l, s] : {std::pair{la, sa}, std::pair{lb, sb}, std::pair{lc, sc}, std::pair{ld, sc}}) {
      TCV_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc32, sizeof bc32));
      TCV_LT(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s));
    }
  }
  TCV_LT(cublasLtMatmulPreferenceCreate(&pref));
  TCV_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &heur, &found);
  auto cleanup = [&]() {
    cublasLtMatmulPreferenceDestroy(pref);
    for (auto l : {la, lb, lc, ld}) cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulDescDestroy(op);
  };
  if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
    res.skipped = std::string("cuBLASLt has no algorithm for this row (") + lt_status_name(hs) + ")";
    cleanup();
    return res;
  }
  // Rotated buffer sets: together at least rotate_factor x L2, as memory allows.
  const size_t bytes_set = static_cast<size_t>(r.batch) *
                           (ar * ac * dsize(p.b) + br * bc * dsize(p.a) + r.m * r.n * (dsize(p.c) + dsize(p.d)));
  size_t free_b = 0, total_b = 0;
  TCV_CUDA(cudaMemGetInfo(&free_b, &total_b));
  int nsets = static_cast<int>(std::ceil(rotate_factor * dev.l2_bytes / static_cast<double>(bytes_set)));
  nsets = std::max(2, std::min(nsets, 64));
  while (nsets > 1 && static_cast<double>(nsets) * bytes_set > 0.6 * static_cast<double>(free_b)) --nsets;
  if (static_cast<double>(bytes_set) > 0.6 * static_cast<double>(free_b)) {
    res.skipped = "does not fit in device memory";
    cleanup();
    return res;
  }
  Sets sets;
  for (int s = 0; s < nsets; ++s) {
    sets.a.push_back(alloc_fill(static_cast<size_t>(r.batch) * ar * ac, p.b, 11u + s));   // cuBLAS A = our B
    sets.b.push_back(alloc_fill(static_cast<size_t>(r.batch) * br * bc, p.a, 101u + s));  // cuBLAS B = our A
    sets.c.push_back(alloc_fill(static_cast<size_t>(r.batch) * r.m * r.n, p.c, 1001u + s));
    sets.d.push_back(alloc_fill(static_cast<size_t>(r.batch) * r.m * r.n, p.d, 10001u + s));
  }
  TCV_CUDA(cudaDeviceSynchronize());
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const int32_t alpha_i = 1, beta_i = 0;
  const void* alpha = p.scale == CUDA_R_32I ? static_cast<const void*>(&alpha_i) : &alpha_f;
  const void* beta = p.scale == CUDA_R_32I ? static_cast<const void*>(&beta_i) : &beta_f;
  int launch = 0;
  auto run_one = [&]() {
    const int s = launch++ % nsets;
    TCV_LT(cublasLtMatmul(lt, op, alpha, sets.a[s].p, la, sets.b[s].p, lb, beta, sets.c[s].p, lc, sets.d[s].p, ld,
                          &heur.algo, workspace, ws_bytes, stream));
  };
  for (int i = 0; i < warmup; ++i) run_one();
  cudaEvent_t e0, e1;
  TCV_CUDA(cudaEventCreate(&e0));
  TCV_CUDA(cudaEventCreate(&e1));
  // one launch to estimate the group size
  TCV_CUDA(cudaEventRecord(e0, stream));
  run_one();
  TCV_CUDA(cudaEventRecord(e1, stream));
  TCV_CUDA(cudaEventSynchronize(e1));
  float one_ms = 0;
  TCV_CUDA(cudaEventElapsedTime(&one_ms, e0, e1));
  const int group = std::max(1, std::min(100, static_cast<int>(sample_us / std::max(1.0, one_ms * 1000.0))));
  std::vector<cudaEvent_t> ev(2 * repeats);
  for (auto& e : ev) TCV_CUDA(cudaEventCreate(&e));
  const long long delay_cycles = static_cast<long long>(dev.sm_clock_khz) * 20;  // ~20 ms at the peak clock
  std::vector<double> samples;
  const auto t_start = std::chrono::steady_clock::now();
  // repeats are enqueued in chunks behind a delay kernel so the GPU runs them back to back
  const int chunk = std::max(1, std::min(repeats, 2000 / group));
  for (int r0 = 0; r0 < repeats; r0 += chunk) {
    delay_kernel<<<1, 1, 0, stream>>>(delay_cycles);
    TCV_CUDA(cudaGetLastError());
    const int r1 = std::min(repeats, r0 + chunk);
    for (int i = r0; i < r1; ++i) {
      TCV_CUDA(cudaEventRecord(ev[2 * i], stream));
      for (int g = 0; g < group; ++g) run_one();
      TCV_CUDA(cudaEventRecord(ev[2 * i + 1], stream));
    }
    TCV_CUDA(cudaStreamSynchronize(stream));
    for (int i = r0; i < r1; ++i) {
      float ms = 0;
      TCV_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
      samples.push_back(ms * 1000.0 / group);
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count() > row_timeout_s) break;
  }
  for (auto& e : ev) cudaEventDestroy(e);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  res.time_us = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  res.repeats = static_cast<int>(n);
  const double flop = 2.0 * r.m * r.n * r.k * r.batch;
  res.tflops = flop / (res.time_us * 1e-6) / 1e12;
  // waves with the heuristic's tile, for orientation (tile names are "<rows>x<cols>")
  double waves = 0;
  int tr = 0, tc = 0;
  if (std::sscanf(tile_name(static_cast<int>(cfg_attr<uint32_t>(heur.algo, CUBLASLT_ALGO_CONFIG_TILE_ID))), "%dx%d",
                  &tr, &tc) == 2 && tr > 0 && tc > 0)
    waves = std::ceil(static_cast<double>(mm) / tr) * std::ceil(static_cast<double>(nn) / tc) * r.batch / dev.sm_count;
  res.kernel = describe_algo(heur.algo, waves) + ";group=" + std::to_string(group) + ";sets=" + std::to_string(nsets);
  cleanup();
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  set_tool_name("gemm_bench");
  std::string shapes, out, gpu_name;
  int repeats = 15, warmup = 5, device = 0, ws_mib = 32;
  double sample_us = 200, rotate = 3, row_timeout = 20;
  long timeout = 1200;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) fail(kExitInput, a + ": expected a value");
      return argv[++i];
    };
    auto num = [&](double lo, double hi) {
      const std::string v = val();
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(x >= lo && x <= hi))
        fail(kExitInput, a + ": expected a number in [" + fmt_double(lo) + ", " + fmt_double(hi) + "], got '" + v + "'");
      return x;
    };
    if (a == "--shapes") shapes = val();
    else if (a == "--out") out = val();
    else if (a == "--repeats") repeats = static_cast<int>(num(1, 10000));
    else if (a == "--warmup") warmup = static_cast<int>(num(0, 10000));
    else if (a == "--sample-us") sample_us = num(0, 1e7);
    else if (a == "--workspace-mib") ws_mib = static_cast<int>(num(0, 4096));
    else if (a == "--rotate-factor") rotate = num(0, 100);
    else if (a == "--row-timeout") row_timeout = num(0.1, 86400);
    else if (a == "--device") device = static_cast<int>(num(0, 64));
    else if (a == "--timeout") timeout = static_cast<long>(num(0, 86400));
    else if (a == "--gpu-name") gpu_name = val();
    else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fputs(kUsage, stderr);
      fail(kExitInput, "unknown option '" + a + "'");
    }
  }
  if (shapes.empty() || out.empty()) {
    std::fputs(kUsage, stderr);
    fail(kExitInput, shapes.empty() ? "--shapes: required" : "--out: required");
  }
  const std::vector<Row> rows = read_shapes(shapes);  // bad input is reported before touching the GPU
  start_watchdog(static_cast<unsigned>(timeout));
  DeviceInfo dev = open_device(device);
  if (!gpu_name.empty()) dev.short_name = gpu_name;
  cublasLtHandle_t lt = nullptr;
  TCV_LT(cublasLtCreate(&lt));
  const size_t ws_bytes = static_cast<size_t>(ws_mib) << 20;
  void* ws = nullptr;
  if (ws_bytes) TCV_CUDA(cudaMalloc(&ws, ws_bytes));
  cudaStream_t stream;
  TCV_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::printf("gemm_bench: %s (%s), %zu rows from %s\n", dev.name.c_str(), dev.arch().c_str(), rows.size(), shapes.c_str());
  std::string csv = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,tflops,repeats,kernel\n";
  std::string skipped;
  int done = 0;
  for (const Row& r : rows) {
    Result res = time_row(r, dev, lt, ws, ws_bytes, repeats, warmup, sample_us, rotate, row_timeout, stream);
    if (!res.skipped.empty()) {
      std::printf("  %-28s %lldx%lldx%lld %s: skipped: %s\n", r.name.c_str(), r.m, r.n, r.k, r.a.c_str(),
                  res.skipped.c_str());
      skipped += "  - " + yaml_quote(shapes + ":" + std::to_string(r.line) + " " + r.name + ": " + res.skipped) + "\n";
      continue;
    }
    std::ostringstream row;
    row << csv_field(r.name) << ',' << r.m << ',' << r.n << ',' << r.k << ',' << r.batch << ',' << r.a << ',' << r.b
        << ',' << r.c << ',' << r.d << ',' << res.layout_run << ',' << fmt_double(res.time_us, 6) << ','
        << fmt_double(res.tflops, 6) << ',' << res.repeats << ',' << csv_field(res.kernel) << '\n';
    csv += row.str();
    ++done;
    std::printf("  %-28s %lldx%lldx%lld b%lld %s %s: %10.2f us %8.2f TFLOP/s  %s\n", r.name.c_str(), r.m, r.n, r.k,
                r.batch, r.a.c_str(), res.layout_run.c_str(), res.time_us, res.tflops, res.kernel.c_str());
    std::fflush(stdout);
  }
  make_dirs(out);
  write_file_atomic(out + "/gemm.csv", csv);
  std::vector<std::pair<std::string, std::string>> extra = {
      {"shapes_file", yaml_quote(shapes)},
      {"library", "\"cuBLASLt " + std::to_string(cublasLtGetVersion()) + "\""},
      {"timing", yaml_quote("median over `repeats` samples; a sample = CUDA-event time of `group` back-to-back "
                            "launches / group, queued behind a 20 ms delay kernel; " + std::to_string(warmup) +
                            " warm-up launches; inputs rotated over `sets` buffer sets")},
      {"alpha_beta", "\"alpha = 1, beta = 0\""},
      {"workspace_bytes", std::to_string(ws_bytes)},
      {"rows_measured", std::to_string(done)},
      {"rows_skipped", skipped.empty() ? "[]" : "\n" + skipped},
  };
  write_file_atomic(out + "/meta.yaml", meta_yaml(dev, command_line(argc, argv), extra));
  if (ws) cudaFree(ws);
  cublasLtDestroy(lt);
  std::printf("gemm_bench: %d rows measured, written to %s/gemm.csv\n", done, out.c_str());
  return 0;
}
