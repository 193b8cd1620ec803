#include "numerics/sparse/structured.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "common/error.h"
#include "numerics/formats/convert.h"

namespace tcsim::num {
namespace {

// Magnitude key for pruning: NaN is the largest, then |x| (exact as a double for every format).
double magnitude(Bits bits, FormatId f) {
  const double v = to_double(bits, f);
  if (std::isnan(v)) return INFINITY;
  return std::abs(v);
}

std::string hex_nibble(std::uint8_t n) {
  static const char* d = "0123456789ABCDEF";
  return std::string("0x") + d[n & 0xF];
}

void check_nibble(std::uint8_t n, const std::string& where) {
  if (!valid_meta_nibble(n))
    throw InputError(where, "metadata " + hex_nibble(n) + " (" + std::to_string(n) +
                                ") is not 2:4: expected two kept positions i0 < i1 of the group of four, "
                                "nibble i0 | i1<<2: one of 0x4, 0x8, 0x9, 0xC, 0xD, 0xE");
}

// The products of one instruction: kept a with b at the kept positions (kept order) or the dense
// zero-filled operands (dense order).
Bits run_sparse(const Instruction& ins, const Bits* kept, const std::uint8_t* meta, const Bits* b, Bits c,
                const MmaOptions& opt) {
  const SparseBlocks blocks = opt.sparse_blocks;
  const int k = ins.k;
  Bits pa[256], pb[256];
  if (blocks == SparseBlocks::kept) {
    for (int g = 0; g < k / 4; ++g) {
      const int i0 = meta[g] & 3, i1 = (meta[g] >> 2) & 3;
      pa[2 * g] = kept[2 * g];
      pb[2 * g] = b[4 * g + i0];
      pa[2 * g + 1] = kept[2 * g + 1];
      pb[2 * g + 1] = b[4 * g + i1];
    }
    return detail::run_products(ins, fdpa_params(ins, opt), pa, pb, c, opt);
  }
  Instruction dense = ins;
  dense.sparse = false;
  if (dense.dense_L > 0) dense.L = dense.dense_L;
  for (int g = 0; g < k / 4; ++g) {
    for (int i = 0; i < 4; ++i) pa[4 * g + i] = 0;
    pa[4 * g + (meta[g] & 3)] = kept[2 * g];
    pa[4 * g + ((meta[g] >> 2) & 3)] = kept[2 * g + 1];
  }
  for (int i = 0; i < k; ++i) pb[i] = b[i];
  return detail::run_products(dense, fdpa_params(dense, opt), pa, pb, c, opt);
}

void require_sparse(const Instruction& ins) {
  if (!ins.sparse)
    throw InputError("instruction", ins.describe() + " is not a 2:4 sparse (mma.sp) instruction");
}

}  // namespace

std::uint8_t meta_nibble(int i0, int i1) { return static_cast<std::uint8_t>((i0 & 3) | ((i1 & 3) << 2)); }

bool valid_meta_nibble(std::uint8_t n) {
  if (n > 0xF) return false;
  const int i0 = n & 3, i1 = (n >> 2) & 3;
  return i0 < i1;
}

Sparse24 prune_2_4(const BitMatrix& A, FormatId fmt) {
  Sparse24 s;
  s.fmt = fmt;
  s.rows = static_cast<int>(A.rows());
  s.cols = static_cast<int>((A.cols() + 3) / 4 * 4);
  s.values = BitMatrix::Zero(s.rows, s.cols / 2);
  s.meta.assign(static_cast<std::size_t>(s.rows) * (s.cols / 4), 0);
  for (int r = 0; r < s.rows; ++r)
    for (int g = 0; g < s.cols / 4; ++g) {
      Bits v[4];
      double mag[4];
      for (int i = 0; i < 4; ++i) {
        const int k = 4 * g + i;
        v[i] = k < A.cols() ? A(r, k) : 0;
        mag[i] = k < A.cols() ? magnitude(v[i], fmt) : 0.0;
      }
      // the largest, then the largest of the rest (strict > keeps the lower k on ties)
      int first = 0;
      for (int i = 1; i < 4; ++i)
        if (mag[i] > mag[first]) first = i;
      int second = first == 0 ? 1 : 0;
      for (int i = 0; i < 4; ++i)
        if (i != first && mag[i] > mag[second]) second = i;
      const int i0 = std::min(first, second), i1 = std::max(first, second);
      s.values(r, 2 * g) = v[i0];
      s.values(r, 2 * g + 1) = v[i1];
      s.meta[static_cast<std::size_t>(r) * (s.cols / 4) + g] = meta_nibble(i0, i1);
    }
  return s;
}

BitMatrix densify(const Sparse24& s) {
  BitMatrix D = BitMatrix::Zero(s.rows, s.cols);
  for (int r = 0; r < s.rows; ++r)
    for (int g = 0; g < s.cols / 4; ++g) {
      const std::uint8_t n = s.nibble(r, g);
      D(r, 4 * g + (n & 3)) = s.values(r, 2 * g);
      D(r, 4 * g + ((n >> 2) & 3)) = s.values(r, 2 * g + 1);
    }
  return D;
}

Sparse24 make_sparse_24(FormatId fmt, int rows, int cols, BitMatrix values, std::vector<std::uint8_t> meta,
                        const std::string& where) {
  if (cols % 4 != 0) throw InputError(where, "K = " + std::to_string(cols) + " is not a multiple of 4");
  if (values.rows() != rows || values.cols() != cols / 2)
    throw InputError(where, "expected " + std::to_string(rows) + " x " + std::to_string(cols / 2) + " kept values");
  if (meta.size() != static_cast<std::size_t>(rows) * (cols / 4))
    throw InputError(where, "expected " + std::to_string(rows * (cols / 4)) + " metadata nibbles (one per group of four), got " +
                                std::to_string(meta.size()));
  for (int r = 0; r < rows; ++r)
    for (int g = 0; g < cols / 4; ++g)
      check_nibble(meta[static_cast<std::size_t>(r) * (cols / 4) + g],
                   where + " row " + std::to_string(r) + " group " + std::to_string(g));
  Sparse24 s;
  s.fmt = fmt;
  s.rows = rows;
  s.cols = cols;
  s.values = std::move(values);
  s.meta = std::move(meta);
  return s;
}

std::vector<std::uint32_t> metadata_words(const Sparse24& s, int row) {
  const int groups = s.cols / 4;
  std::vector<std::uint32_t> w(static_cast<std::size_t>((groups + 7) / 8), 0);
  for (int g = 0; g < groups; ++g)
    w[static_cast<std::size_t>(g / 8)] |= static_cast<std::uint32_t>(s.nibble(row, g)) << (4 * (g % 8));
  return w;
}

Bits sparse_mma_element(const Instruction& ins, std::span<const Bits> kept, std::span<const std::uint8_t> meta,
                        std::span<const Bits> b, Bits c, const MmaOptions& opt) {
  require_sparse(ins);
  const std::size_t k = static_cast<std::size_t>(ins.k);
  if (kept.size() != k / 2 || meta.size() != k / 4 || b.size() != k)
    throw InputError("K", ins.describe() + " takes " + std::to_string(k / 2) + " kept a values, " + std::to_string(k / 4) +
                              " metadata nibbles and " + std::to_string(k) + " b values");
  for (std::size_t g = 0; g < meta.size(); ++g) check_nibble(meta[g], "metadata group " + std::to_string(g));
  return run_sparse(ins, kept.data(), meta.data(), b.data(), c, opt);
}

BitMatrix sparse_gemm(const Instruction& ins, const Sparse24& A, const BitMatrix& B, const BitMatrix& C,
                      const GemmOptions& opt) {
  require_sparse(ins);
  if (B.rows() > A.cols || B.rows() + 3 < A.cols || C.rows() != A.rows || C.cols() != B.cols())
    throw InputError("gemm", "shapes do not match: sparse A " + std::to_string(A.rows) + "x" + std::to_string(A.cols) + ", B " +
                                 std::to_string(B.rows()) + "x" + std::to_string(B.cols()));
  for (std::uint8_t n : A.meta) check_nibble(n, "metadata");
  const int M = A.rows, N = static_cast<int>(B.cols()), K = A.cols, kb = static_cast<int>(B.rows());
  const int k = ins.k, T = (K + k - 1) / k;
  BitMatrix D(M, N);
  auto body = [&](int r0, int r1) {
    std::vector<Bits> kept(static_cast<std::size_t>(k / 2)), bcol(static_cast<std::size_t>(k));
    std::vector<std::uint8_t> meta(static_cast<std::size_t>(k / 4));
    for (int i = r0; i < r1; ++i)
      for (int j = 0; j < N; ++j) {
        Bits d = C(i, j);
        for (int t = 0; t < T; ++t) {
          for (int g = 0; g < k / 4; ++g) {
            const int G = t * (k / 4) + g;
            const bool in = 4 * G < K;
            kept[static_cast<std::size_t>(2 * g)] = in ? A.values(i, 2 * G) : 0;
            kept[static_cast<std::size_t>(2 * g + 1)] = in ? A.values(i, 2 * G + 1) : 0;
            meta[static_cast<std::size_t>(g)] = in ? A.nibble(i, G) : meta_nibble(0, 1);
          }
          for (int x = 0; x < k; ++x) {
            const int kk = t * k + x;
            bcol[static_cast<std::size_t>(x)] = kk < kb ? B(kk, j) : 0;
          }
          d = run_sparse(ins, kept.data(), meta.data(), bcol.data(), d, opt.mma);
        }
        D(i, j) = d;
      }
  };
  int threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min(threads, M));
  if (threads == 1) {
    body(0, M);
  } else {
    std::vector<std::thread> pool;
    const int chunk = (M + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
      const int r0 = t * chunk, r1 = std::min(M, r0 + chunk);
      if (r0 < r1) pool.emplace_back(body, r0, r1);
    }
    for (auto& th : pool) th.join();
  }
  return D;
}

}  // namespace tcsim::num
