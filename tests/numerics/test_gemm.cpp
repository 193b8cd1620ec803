// GEMM emulation: equals per-element dot products (fast kernel vs generic path), deterministic
// across thread counts, both k orders, error figures on known cases.
#include <doctest/doctest.h>

#include <tuple>
#include <cmath>
#include <vector>

#include "numerics_test_util.h"

using namespace tcsim;
using namespace tcsim::num;
using tcsim::num::test::enc;

namespace {
// Random operands with zeros, subnormals, negative zeros and (optionally) a few inf/NaN.
BitMatrix spiky(FormatId f, int rows, int cols, std::uint64_t seed, bool specials) {
  BitMatrix m = random_matrix(f, rows, cols, seed, -2.0, 2.0);
  if (!is_float(f)) return m;
  const FloatLayout& l = layout(f);
  std::uint64_t s = seed * 7 + 1;
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const unsigned r = static_cast<unsigned>(s >> 58);  // 0..63
      if (r == 0) m(i, j) = 0;
      else if (r == 1) m(i, j) = l.sign_mask();
      else if (r == 2) m(i, j) = 1;                           // smallest subnormal
      else if (r == 3) m(i, j) = max_finite_bits(f == FormatId::tf32 ? FormatId::fp32 : f, false);
      else if (specials && r == 4) m(i, j) = canonical_nan(f == FormatId::tf32 ? FormatId::fp32 : f);
      else if (specials && r == 5 && l.has_inf) m(i, j) = inf_bits(f == FormatId::tf32 ? FormatId::fp32 : f, (s >> 20) & 1);
    }
  return m;
}

BitMatrix by_dot(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const BitMatrix& C,
                 KOrder order, const MmaOptions& opt = {}) {
  BitMatrix D(A.rows(), B.cols());
  const int K = static_cast<int>(A.cols());
  const int T = (K + ins.k - 1) / ins.k;
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < B.cols(); ++j) {
      Bits d = C(i, j);
      for (int s = 0; s < T; ++s) {
        const int t = order == KOrder::increasing ? s : T - 1 - s;
        std::vector<Bits> a(static_cast<std::size_t>(ins.k), 0), b(a.size(), 0);
        for (int x = 0; x < ins.k && t * ins.k + x < K; ++x) {
          a[static_cast<std::size_t>(x)] = A(i, t * ins.k + x);
          b[static_cast<std::size_t>(x)] = B(t * ins.k + x, j);
        }
        d = mma_element(ins, a, b, d, opt);
      }
      D(i, j) = d;
    }
  return D;
}
}  // namespace

TEST_CASE("gemm equals per-element dot products for every kind of instruction") {
  int cases = 0;
  for (Arch arch : all_archs())
    for (const Instruction& ins : instructions(arch)) {
      if (ins.sparse) continue;  // test_sparse.cpp
      CAPTURE(ins.describe());
      const int M = 5, N = 3, K = 2 * ins.k + ins.k / 2 + 1;  // not a multiple: padded
      for (bool specials : {false, true}) {
        const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(cases);
        const BitMatrix A = spiky(ins.a_fmt, M, K, seed, specials);
        const BitMatrix B = spiky(ins.b_fmt, K, N, seed + 1, specials);
        const BitMatrix C = spiky(ins.acc_fmt, M, N, seed + 2, specials);
        for (KOrder order : {KOrder::increasing, KOrder::decreasing}) {
          GemmOptions go;
          go.k_order = order;
          go.threads = 2;
          const BitMatrix D = gemm(ins, A, B, C, go);
          const BitMatrix R = by_dot(ins, A, B, C, order);
          CHECK((D.array() == R.array()).all());
        }
        ++cases;
      }
    }
  CHECK(cases > 60);
}

TEST_CASE("gemm: tf32 feeds and integer saturation reach the kernel") {
  const Instruction& t = find_instruction(Arch::sm80, "mma.m16n8k8", FormatId::tf32, FormatId::fp32);
  const BitMatrix A = random_matrix(FormatId::fp32, 4, 24, 5), B = random_matrix(FormatId::fp32, 24, 4, 6);
  const BitMatrix C = BitMatrix::Zero(4, 4);
  for (Tf32Feed f : {Tf32Feed::truncate, Tf32Feed::rna, Tf32Feed::rne}) {
    GemmOptions go;
    go.mma.tf32_feed = f;
    CHECK((gemm(t, A, B, C, go).array() == by_dot(t, A, B, C, KOrder::increasing, go.mma).array()).all());
  }
  GemmOptions g1, g2;
  g2.mma.tf32_feed = Tf32Feed::rne;
  CHECK_FALSE((gemm(t, A, B, C, g1).array() == gemm(t, A, B, C, g2).array()).all());
}

TEST_CASE("gemm results do not depend on the thread count") {
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  const BitMatrix A = random_matrix(FormatId::fp16, 37, 70, 1), B = random_matrix(FormatId::fp16, 70, 29, 2);
  const BitMatrix C = random_matrix(FormatId::fp32, 37, 29, 3);
  GemmOptions one;
  one.threads = 1;
  const BitMatrix D1 = gemm(ins, A, B, C, one);
  for (int t : {2, 3, 7, 64}) {
    GemmOptions o;
    o.threads = t;
    CHECK((gemm(ins, A, B, C, o).array() == D1.array()).all());
  }
  // and the k order matters (the result is not associative)
  GemmOptions rev;
  rev.k_order = KOrder::decreasing;
  const BitMatrix Dr = gemm(ins, A, B, C, rev);
  CHECK_FALSE((Dr.array() == D1.array()).all());
}

TEST_CASE("error figures on a known case") {
  // D = A*B with fp16 output: element (0,0) = 1 + 2^-11 exactly, rounded (tie, to even) to 1;
  // element (0,1) = 2 exactly.
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp16);
  BitMatrix A(1, 2), B(2, 2), C = BitMatrix::Zero(1, 2);
  A << enc(1, FormatId::fp16), enc(1, FormatId::fp16);
  B << enc(1, FormatId::fp16), enc(1, FormatId::fp16), enc(0x1p-11, FormatId::fp16), enc(1, FormatId::fp16);
  const BitMatrix D = gemm(ins, A, B, C);
  CHECK(D(0, 0) == enc(1, FormatId::fp16));
  CHECK(D(0, 1) == enc(2, FormatId::fp16));
  const Eigen::MatrixXd ref = reference_gemm(A, FormatId::fp16, B, FormatId::fp16, C, FormatId::fp16);
  CHECK(ref(0, 0) == 1 + 0x1p-11);
  CHECK(ref(0, 1) == 2);
  const ErrorStats s = error_stats(D, FormatId::fp16, ref);
  const double rel = 0x1p-11 / (1 + 0x1p-11);
  CHECK(s.count == 2);
  CHECK(s.max_abs == 0x1p-11);
  CHECK(s.max_rel == doctest::Approx(rel).epsilon(1e-12));
  CHECK(s.mean_rel == doctest::Approx(rel / 2).epsilon(1e-12));
  CHECK(s.max_ulps == doctest::Approx(0.5).epsilon(1e-12));  // fp16 ulp at 1 is 2^-10
  CHECK(s.nonfinite == 0);
  CHECK(s.zero_reference == 0);
}

TEST_CASE("error figures: the emulated fp16 GEMM is close to fp64, and fp16 output is worse") {
  const int n = 48;
  const BitMatrix A = random_matrix(FormatId::fp16, n, n, 11), B = random_matrix(FormatId::fp16, n, n, 12);
  const Instruction& i32 = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  const Instruction& i16 = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp16);
  const Eigen::MatrixXd ref = reference_gemm(A, FormatId::fp16, B, FormatId::fp16, BitMatrix::Zero(n, n), FormatId::fp32);
  const ErrorStats e32 = error_stats(gemm(i32, A, B, BitMatrix::Zero(n, n)), FormatId::fp32, ref);
  const ErrorStats e16 = error_stats(gemm(i16, A, B, BitMatrix::Zero(n, n)), FormatId::fp16, ref);
  CHECK(e32.max_rel > 0);
  CHECK(e32.mean_rel < 1e-5);
  CHECK(e16.mean_rel > 10 * e32.mean_rel);
  CHECK(e16.max_ulps > 0.5);  // several roundings into fp16 along K
}

TEST_CASE("random_matrix is deterministic and in range") {
  const BitMatrix a = random_matrix(FormatId::bf16, 8, 8, 42, -1, 1), b = random_matrix(FormatId::bf16, 8, 8, 42, -1, 1);
  CHECK((a.array() == b.array()).all());
  const Eigen::MatrixXd d = to_double(a, FormatId::bf16);
  CHECK(d.maxCoeff() <= 1.0);
  CHECK(d.minCoeff() >= -1.0);
  const BitMatrix s = random_matrix(FormatId::int8, 16, 16, 1, -1000, 1000);
  const Eigen::MatrixXd ds = to_double(s, FormatId::int8);
  CHECK(ds.maxCoeff() <= 127);
  CHECK(ds.minCoeff() >= -128);
  CHECK(ds.maxCoeff() > 64);
}

TEST_CASE("reference_gemm: Dot2 accuracy under cancellation, fast path agrees, any thread count") {
  // Row: 2^15 * 2^15 - 2^15 * 2^15 + 2^-24 * 2^-24 ... : the exact result is tiny after
  // cancellation; a plain double sum in the wrong order loses it, the reference must not.
  BitMatrix A(2, 6), B(6, 2), C = BitMatrix::Zero(2, 2);
  const double av[6] = {32768, 0x1p-24, -32768, 1, 0x1p-14, -1};
  for (int k = 0; k < 6; ++k) {
    A(0, k) = from_double(av[k], FormatId::fp16);
    A(1, k) = from_double(k % 2 ? 0.5 : 0.25, FormatId::fp16);
    B(k, 0) = from_double(k < 3 ? 32768 : 1, FormatId::fp16);
    B(k, 1) = from_double(1, FormatId::fp16);
  }
  const Eigen::MatrixXd r1 = reference_gemm(A, FormatId::fp16, B, FormatId::fp16, C, FormatId::fp32, 1);
  const Eigen::MatrixXd r2 = reference_gemm(A, FormatId::fp16, B, FormatId::fp16, C, FormatId::fp32, 2);
  CHECK(r1(0, 0) == 0x1p-9 + 0x1p-14);  // 2^30 + 2^-9 - 2^30 + 1 + 2^-14 - 1
  CHECK(r1(0, 1) == 0x1p-24 + 0x1p-14);
  CHECK(r1(1, 0) == 32769.25);  // 0.25*2^15 + 0.5*2^15 + 0.25*2^15 + 0.5 + 0.25 + 0.5
  CHECK((r1.array() == r2.array()).all());
  // a larger random case: the fast path (double GEMM + bound) equals Dot2 everywhere it is used
  const BitMatrix X = random_matrix(FormatId::fp16, 40, 300, 5), Y = random_matrix(FormatId::fp16, 300, 30, 6);
  const BitMatrix Z = BitMatrix::Zero(40, 30);
  const Eigen::MatrixXd f = reference_gemm(X, FormatId::fp16, Y, FormatId::fp16, Z, FormatId::fp32, 2);
  const Eigen::MatrixXd d = reference_gemm(X, FormatId::fp16, Y, FormatId::fp16, Z, FormatId::fp64, 1);  // all Dot2
  CHECK(((f - d).cwiseAbs().array() <= 0x1p-32 * d.cwiseAbs().array()).all());
}

TEST_CASE("gemm: the AVX2 kernel and the plain kernel give the same bits for every instruction") {
  int compared = 0;
  for (Arch arch : all_archs())
    for (const Instruction& ins : instructions(arch)) {
      if (ins.sparse) continue;
      CAPTURE(ins.describe());
      const int K = 3 * ins.k + 5;
      for (bool specials : {false, true}) {
        const std::uint64_t seed = 77 + static_cast<std::uint64_t>(compared);
        // N = 19: two groups of 8 columns for the vertical kernel and a tail of 3
        const BitMatrix A = spiky(ins.a_fmt, 6, K, seed, specials), B = spiky(ins.b_fmt, K, 19, seed + 1, specials);
        const BitMatrix C = spiky(ins.acc_fmt, 6, 19, seed + 2, specials);
        GemmOptions vec, plain;
        vec.threads = plain.threads = 1;
        plain.simd = false;
        CHECK((gemm(ins, A, B, C, vec).array() == gemm(ins, A, B, C, plain).array()).all());
        ++compared;
      }
    }
  // random fp16 / bf16 / fp8 at GEMM size through the sm_80, sm_89, sm_90 and sm_100 rules
  for (auto [arch, name, f] : {std::tuple{Arch::sm80, "mma.m16n8k16", FormatId::fp16}, std::tuple{Arch::sm90, "mma.m16n8k16", FormatId::bf16},
                               std::tuple{Arch::sm89, "mma.m16n8k32", FormatId::e4m3}, std::tuple{Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e5m2}}) {
    const Instruction& ins = find_instruction(arch, name, f, FormatId::fp32);
    const BitMatrix A = random_matrix(f, 24, 200, 9, -4, 4), B = random_matrix(f, 200, 16, 10, -4, 4);
    const BitMatrix C = random_matrix(FormatId::fp32, 24, 16, 11);
    GemmOptions vec, plain;
    plain.simd = false;
    CHECK((gemm(ins, A, B, C, vec).array() == gemm(ins, A, B, C, plain).array()).all());
  }
  // accumulators that overflow to inf part way through the K loop (the vertical kernel hands such
  // lanes back to the plain path)
  const Instruction& bf = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::bf16, FormatId::fp32);
  const BitMatrix X = random_matrix(FormatId::bf16, 9, 96, 21, -0x1p63, 0x1p63), Y = random_matrix(FormatId::bf16, 96, 17, 22, -0x1p63, 0x1p63);
  const BitMatrix Z = random_matrix(FormatId::fp32, 9, 17, 23, -0x1p127, 0x1p127);
  GemmOptions vec, plain;
  plain.simd = false;
  const BitMatrix Dv = gemm(bf, X, Y, Z, vec);
  CHECK((Dv.array() == gemm(bf, X, Y, Z, plain).array()).all());
  CHECK((Dv.array() == by_dot(bf, X, Y, Z, KOrder::increasing).array()).all());
  int infs = 0;
  for (Eigen::Index j = 0; j < Dv.cols(); ++j)
    for (Eigen::Index i = 0; i < Dv.rows(); ++i) infs += (Dv(i, j) & 0x7FFFFFFFu) == 0x7F800000u;
  CHECK(infs > 0);
  // FP16 accumulator (vertical RNE finish): overflow to inf, subnormal results, ties
  const Instruction& h = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp16);
  for (auto [lo, hi] : {std::pair{-200.0, 200.0}, std::pair{-0x1p-7, 0x1p-7}, std::pair{-2.0, 2.0}}) {
    const BitMatrix P = random_matrix(FormatId::fp16, 9, 80, 31, lo, hi), Q = random_matrix(FormatId::fp16, 80, 24, 32, lo, hi);
    const BitMatrix R = random_matrix(FormatId::fp16, 9, 24, 33, lo, hi);
    const BitMatrix Dh = gemm(h, P, Q, R, vec);
    CHECK((Dh.array() == gemm(h, P, Q, R, plain).array()).all());
    GemmOptions dec = vec;
    dec.k_order = KOrder::decreasing;
    CHECK((gemm(h, P, Q, R, dec).array() == by_dot(h, P, Q, R, KOrder::decreasing).array()).all());
  }
  CHECK(compared > 100);
}
