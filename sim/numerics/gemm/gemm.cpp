#include "numerics/gemm/gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/error.h"
#include "numerics/mma/fdpa_core.h"
#include "numerics/gemm/gemm_kernel.h"

namespace tcsim::num {
namespace {

int thread_count(int requested, int rows) {
  int t = requested > 0 ? requested : static_cast<int>(std::thread::hardware_concurrency());
  if (t < 1) t = 1;
  return std::max(1, std::min(t, rows));
}

// Runs body(row_begin, row_end) over contiguous row ranges on `threads` threads. Each output
// element is computed by one thread, so the result does not depend on the split.
template <class Body>
void parallel_rows(int rows, int threads, Body body) {
  if (threads <= 1) {
    body(0, rows);
    return;
  }
  std::vector<std::thread> pool;
  const int chunk = (rows + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int r0 = t * chunk, r1 = std::min(rows, r0 + chunk);
    if (r0 >= r1) break;
    pool.emplace_back([&body, r0, r1] { body(r0, r1); });
  }
  for (auto& th : pool) th.join();
}

// Slow but general: dot() per element (integer, fp64, and anything the fast kernel declines).
BitMatrix gemm_generic(const Instruction& ins, const BitMatrix& A, const BitMatrix& B,
                       const BitMatrix& C, const GemmOptions& opt) {
  const int M = static_cast<int>(A.rows()), N = static_cast<int>(B.cols()),
            K = static_cast<int>(A.cols());
  const int T = (K + ins.k - 1) / ins.k;
  BitMatrix D(M, N);
  parallel_rows(M, thread_count(opt.threads, M), [&](int r0, int r1) {
    std::vector<Bits> a(static_cast<std::size_t>(ins.k)), b(a.size());
    for (int i = r0; i < r1; ++i)
      for (int j = 0; j < N; ++j) {
        Bits d = C(i, j);
        for (int s = 0; s < T; ++s) {
          const int t = opt.k_order == KOrder::increasing ? s : T - 1 - s;
          for (int x = 0; x < ins.k; ++x) {
            const int k = t * ins.k + x;
            a[static_cast<std::size_t>(x)] = k < K ? A(i, k) : 0;
            b[static_cast<std::size_t>(x)] = k < K ? B(k, j) : 0;
          }
          d = mma_element(ins, a, b, d, opt.mma);
        }
        D(i, j) = d;
      }
  });
  return D;
}
// Integer MMA (s8/u8/s4/u4/b1 -> s32): operands decoded once to int32. Without saturation the
// per-instruction wrap composes into one wrap of the whole sum, so it is accumulated modulo 2^32
// (uint32 arithmetic, which the compiler vectorises); with .satfinite each instruction's exact sum
// (|sum| < 2^24 for every shape) is added to the accumulator and clamped, in the K order.
BitMatrix gemm_integer(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const BitMatrix& C,
                       const GemmOptions& opt) {
  const int M = static_cast<int>(A.rows()), N = static_cast<int>(B.cols()), K = static_cast<int>(A.cols());
  const int k = ins.k, T = (K + k - 1) / k, Kp = T * k;
  const bool b1 = ins.bit_op != BitOp::none, xor_op = ins.bit_op == BitOp::xor_popc;
  std::vector<std::int32_t> a(static_cast<std::size_t>(M) * Kp, 0), b(static_cast<std::size_t>(N) * Kp, 0);
  for (int i = 0; i < M; ++i)
    for (int x = 0; x < K; ++x)
      a[static_cast<std::size_t>(i) * Kp + x] = static_cast<std::int32_t>(b1 ? A(i, x) : int_value(A(i, x), ins.a_fmt));
  for (int j = 0; j < N; ++j)
    for (int x = 0; x < K; ++x)
      b[static_cast<std::size_t>(j) * Kp + x] = static_cast<std::int32_t>(b1 ? B(x, j) : int_value(B(x, j), ins.b_fmt));
  // one product: a*b, or for bits a AND b = a*b, a XOR b = a + b - 2ab (zero padding gives 0 both)
  auto block_sum = [&](const std::int32_t* x, const std::int32_t* y, int n) {
    std::uint32_t s = 0;
    if (xor_op)
      for (int q = 0; q < n; ++q) s += static_cast<std::uint32_t>(x[q] + y[q] - 2 * x[q] * y[q]);
    else
      for (int q = 0; q < n; ++q) s += static_cast<std::uint32_t>(x[q] * y[q]);
    return s;
  };
  BitMatrix D(M, N);
  const bool sat = opt.mma.int_saturate;
  parallel_rows(M, thread_count(opt.threads, M), [&](int r0, int r1) {
    for (int i = r0; i < r1; ++i)
      for (int j = 0; j < N; ++j) {
        const std::int32_t* x = a.data() + static_cast<std::size_t>(i) * Kp;
        const std::int32_t* y = b.data() + static_cast<std::size_t>(j) * Kp;
        if (!sat) {
          const std::uint32_t s = static_cast<std::uint32_t>(C(i, j)) + block_sum(x, y, Kp);
          D(i, j) = s;
          continue;
        }
        std::int64_t d = int_value(C(i, j), FormatId::int32);
        for (int s = 0; s < T; ++s) {
          const int t = opt.k_order == KOrder::increasing ? s : T - 1 - s;
          const auto blk = static_cast<std::int32_t>(block_sum(x + t * k, y + t * k, k));  // exact: |sum| < 2^24
          d = static_cast<std::int64_t>(detail::finish_int32(d + blk, true) & 0xFFFFFFFFu);
          d = int_value(static_cast<Bits>(d), FormatId::int32);
        }
        D(i, j) = static_cast<std::uint32_t>(static_cast<std::uint64_t>(d));
      }
  });
  return D;
}
// DMMA (fp64 mma.m8n8k4): each instruction a chain of IEEE FMAs in increasing k, instructions in
// the K order; zero padding is part of the chain (fma(0, 0, -0) is +0). 4 columns per AVX2 vector
// where the CPU has FMA, else std::fma one element at a time: the same operations either way.
BitMatrix gemm_fp64(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const BitMatrix& C,
                    const GemmOptions& opt) {
  const int M = static_cast<int>(A.rows()), N = static_cast<int>(B.cols()), K = static_cast<int>(A.cols());
  const int k = ins.k, T = (K + k - 1) / k, Kp = T * k;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a = Eigen::MatrixXd::Zero(M, Kp);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> bT = Eigen::MatrixXd::Zero(Kp, N);  // [k][N]
  for (int i = 0; i < M; ++i)
    for (int x = 0; x < K; ++x) a(i, x) = std::bit_cast<double>(A(i, x));
  for (int x = 0; x < K; ++x)
    for (int j = 0; j < N; ++j) bT(x, j) = std::bit_cast<double>(B(x, j));
  std::vector<int> korder;
  for (int s = 0; s < T; ++s) {
    const int t = opt.k_order == KOrder::increasing ? s : T - 1 - s;
    for (int x = 0; x < k; ++x) korder.push_back(t * k + x);
  }
  const bool vec = opt.simd && detail::fma_available();
  BitMatrix D(M, N);
  parallel_rows(M, thread_count(opt.threads, M), [&](int r0, int r1) {
    for (int i = r0; i < r1; ++i) {
      int j = 0;
      if (vec)
        for (; j + 4 <= N; j += 4) {
          double d[4];
          for (int l = 0; l < 4; ++l) d[l] = std::bit_cast<double>(C(i, j + l));
          detail::fma_chain4(a.data() + static_cast<std::size_t>(i) * Kp, bT.data() + j, N, Kp, korder.data(), d);
          for (int l = 0; l < 4; ++l) D(i, j + l) = std::bit_cast<std::uint64_t>(d[l]);
        }
      for (; j < N; ++j) {
        double d = std::bit_cast<double>(C(i, j));
        for (int q = 0; q < Kp; ++q) d = std::fma(a(i, korder[q]), bT(korder[q], j), d);
        D(i, j) = std::bit_cast<std::uint64_t>(d);
      }
    }
  });
  return D;
}
}  // namespace

std::string_view k_order_name(KOrder o) {
  return o == KOrder::increasing ? "increasing" : "decreasing";
}

BitMatrix gemm(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const BitMatrix& C,
               const GemmOptions& opt) {
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols())
    throw std::invalid_argument("gemm(): shapes do not match: A " + std::to_string(A.rows()) + "x" +
                                std::to_string(A.cols()) + ", B " + std::to_string(B.rows()) + "x" +
                                std::to_string(B.cols()) + ", C " + std::to_string(C.rows()) + "x" +
                                std::to_string(C.cols()));
  if (A.rows() == 0 || B.cols() == 0) return BitMatrix(A.rows(), B.cols());
  if (ins.sparse)
    throw InputError("instruction", ins.describe() + " is a 2:4 sparse instruction: use sparse_gemm (sparse.h)");
  // Checked here, on the calling thread: the workers must not throw.
  if (ins.a_fmt == FormatId::b1)
    for (const BitMatrix* m : {&A, &B})
      for (Eigen::Index j = 0; j < m->cols(); ++j)
        for (Eigen::Index i = 0; i < m->rows(); ++i)
          if ((*m)(i, j) > 1)
            throw InputError(std::string(m == &A ? "A" : "B") + "(" + std::to_string(i) + "," + std::to_string(j) + ")",
                             "a b1 (1-bit MMA) operand must be a bit vector of 0 and 1, got the pattern " +
                                 std::to_string((*m)(i, j)));
  if (detail::fast_gemm_supported(ins)) {
    detail::FastGemm fg(ins, A, B, opt.mma, opt.simd);
    BitMatrix D(A.rows(), B.cols());
    const int M = static_cast<int>(A.rows());
    parallel_rows(M, thread_count(opt.threads, M),
                  [&](int r0, int r1) { fg.run_rows(r0, r1, C, D, opt.k_order); });
    return D;
  }
  if (ins.out_mode == OutMode::int32_exact) return gemm_integer(ins, A, B, C, opt);
  if (ins.out_mode == OutMode::fp64_fma) return gemm_fp64(ins, A, B, C, opt);
  return gemm_generic(ins, A, B, C, opt);
}

Eigen::MatrixXd to_double(const BitMatrix& m, FormatId f) {
  Eigen::MatrixXd d(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) d(i, j) = to_double(m(i, j), f);
  return d;
}

namespace {
// Dekker's exact product split (no FMA needed: x86-64 without -mfma would call a software fma).
inline void two_product(double a, double b, double& p, double& e) {
  p = a * b;
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double ca = kSplit * a, ah = ca - (ca - a), al = a - ah;
  const double cb = kSplit * b, bh = cb - (cb - b), bl = b - bh;
  e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// c + sum x_k*y_k with Ogita-Rump-Oishi Dot2 (SIAM J. Sci. Comput. 26(6), 2005, Alg. 5.3): the
// result is as accurate as if computed in twice the working precision and rounded to double,
// |r - exact| <= u|exact| + gamma_{n}^2 sum|x_k y_k|. Four interleaved lanes so the adds pipeline.
// exact_products: the products are exact in double (every tensor-core input format but fp64).
double dot2(const double* x, const double* y, Eigen::Index n, double c, bool exact_products) {
  double s[4] = {c, 0, 0, 0}, e[4] = {0, 0, 0, 0};
  auto step = [&](int l, double a, double b) {
    double p, ep = 0;
    if (exact_products) p = a * b;
    else two_product(a, b, p, ep);
    const double t = s[l] + p, z = t - s[l];
    e[l] += ((s[l] - (t - z)) + (p - z)) + ep;
    s[l] = t;
  };
  Eigen::Index k = 0;
  for (; k + 4 <= n; k += 4)
    for (int l = 0; l < 4; ++l) step(l, x[k + l], y[k + l]);
  for (; k < n; ++k) step(0, x[k], y[k]);
  double sum = s[0], err = e[0] + e[1] + e[2] + e[3];
  for (int l = 1; l < 4; ++l) {
    const double t = sum + s[l], z = t - sum;
    err += (sum - (t - z)) + (s[l] - z);
    sum = t;
  }
  const double r = sum + err;
  if (!std::isfinite(r) || !std::isfinite(sum)) return s[0] + s[1] + s[2] + s[3];  // inf/NaN: plain IEEE
  return r;
}
}  // namespace

Eigen::MatrixXd reference_gemm(const BitMatrix& A, FormatId a_fmt, const BitMatrix& B,
                               FormatId b_fmt, const BitMatrix& C, FormatId c_fmt, int threads) {
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols())
    throw std::invalid_argument("reference_gemm(): shapes do not match");
  // Fast path: Eigen's double GEMM R = A*B + C with the a-priori bound
  // |R - exact| <= gamma_{K+1} (|A||B| + |C|), gamma_n = n u / (1 - n u) (Higham, Accuracy and
  // Stability, 3.1 and 3.5; valid for any summation order), and (|A||B|)_ij <= ||row i of A||_2
  // ||column j of B||_2 (Cauchy-Schwarz; each computed norm scaled up by 1 + (K+2) 2^-52 to cover
  // its own rounding). Every element whose bound is not
  // below 2^-32 |R| (9 bits finer than an FP32 ulp), or that is not finite, is recomputed with
  // Dot2, so the result is Dot2-accurate wherever that can be seen in FP32/FP16 error figures.
  // An fp64 accumulator (DMMA) needs more than 2^-32: every element goes through Dot2.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a = to_double(A, a_fmt);
  const Eigen::MatrixXd b = to_double(B, b_fmt), c = to_double(C, c_fmt);
  const bool exact = a_fmt != FormatId::fp64 && b_fmt != FormatId::fp64;
  const Eigen::Index K = A.cols();
  const double nu = static_cast<double>(K + 1) * 0x1p-53;
  const double gamma = nu < 0.5 ? nu / (1 - nu) : INFINITY;
  Eigen::MatrixXd r(A.rows(), B.cols());
  const int M = static_cast<int>(A.rows());
  if (M == 0) return r;
  const double up = 1 + static_cast<double>(K + 2) * 0x1p-52;
  const Eigen::VectorXd bnorm = b.colwise().norm().transpose() * up;
  parallel_rows(M, thread_count(threads, M), [&](int r0, int r1) {
    const Eigen::Index n = r1 - r0;
    Eigen::MatrixXd part = c.middleRows(r0, n);
    part.noalias() += a.middleRows(r0, n) * b;
    const Eigen::VectorXd anorm = a.middleRows(r0, n).rowwise().norm() * up;
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      for (Eigen::Index i = 0; i < n; ++i) {
        const double v = part(i, j);
        const double bound = anorm(i) * bnorm(j) + std::fabs(c(r0 + i, j));
        if (c_fmt != FormatId::fp64 && std::isfinite(v) && std::isfinite(bound) &&
            gamma * bound <= 0x1p-32 * std::fabs(v))
          r(r0 + i, j) = v;
        else
          r(r0 + i, j) = dot2(a.data() + (r0 + i) * K, b.data() + j * K, K, c(r0 + i, j), exact);
      }
  });
  return r;
}

ErrorStats error_stats(const BitMatrix& D, FormatId out_fmt, const Eigen::MatrixXd& ref) {
  if (D.rows() != ref.rows() || D.cols() != ref.cols())
    throw std::invalid_argument("error_stats(): shapes do not match");
  ErrorStats s;
  const bool fl = is_float(out_fmt);
  const int p = fl ? layout(out_fmt).precision() : 1;
  const int emin = fl ? layout(out_fmt).emin() : 0;
  double rel_sum = 0;
  std::size_t rel_n = 0;
  for (Eigen::Index j = 0; j < D.cols(); ++j)
    for (Eigen::Index i = 0; i < D.rows(); ++i) {
      ++s.count;
      const double d = to_double(D(i, j), out_fmt), r = ref(i, j);
      if (!std::isfinite(d) || !std::isfinite(r)) {
        ++s.nonfinite;
        continue;
      }
      const double err = std::fabs(d - r);
      s.max_abs = std::max(s.max_abs, err);
      if (r == 0) {
        ++s.zero_reference;
      } else {
        const double rel = err / std::fabs(r);
        s.max_rel = std::max(s.max_rel, rel);
        rel_sum += rel;
        ++rel_n;
      }
      // ulp of the output format at |ref|: 2^(max(floor(log2|r|), emin) - (p-1)); integers: 1.
      double ulp = 1;
      if (fl) {
        int e = r == 0 ? emin : std::ilogb(r);
        if (e < emin) e = emin;
        ulp = std::ldexp(1.0, e - (p - 1));
      }
      s.max_ulps = std::max(s.max_ulps, err / ulp);
    }
  s.mean_rel = rel_n ? rel_sum / static_cast<double>(rel_n) : 0;
  return s;
}

BitMatrix random_matrix(FormatId f, int rows, int cols, std::uint64_t seed, double lo, double hi) {
  BitMatrix m(rows, cols);
  // splitmix64: simple, portable, deterministic.
  std::uint64_t state = seed;
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  if (!is_float(f)) {
    const double a = std::max(lo, static_cast<double>(int_min(f)));
    const double b = std::min(hi, static_cast<double>(int_max(f)));
    const std::int64_t ia = static_cast<std::int64_t>(std::ceil(a));
    const std::int64_t ib = static_cast<std::int64_t>(std::floor(b));
    const std::uint64_t span = ib >= ia ? static_cast<std::uint64_t>(ib - ia) + 1 : 1;
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i)
        m(i, j) = int_bits(ia + static_cast<std::int64_t>(next() % span), f);
    return m;
  }
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) {
      const double u = static_cast<double>(next() >> 11) * 0x1p-53;  // exact: 53-bit fraction
      m(i, j) = from_double(lo + (hi - lo) * u, f);
    }
  return m;
}

}  // namespace tcsim::num
