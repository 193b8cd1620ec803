#pragma once
// GEMM emulation D = A*B + C built from one tensor-core instruction chained along K, with an fp64
// reference and error figures.
#include <Eigen/Core>
#include <cstdint>

#include "numerics/mma/arch.h"
#include "numerics/mma/mma.h"

namespace tcsim::num {

// Matrices of bit patterns (low bits used; 64-bit so fp64 fits). Column-major, as Eigen's default.
using BitMatrix = Eigen::Matrix<std::uint64_t, Eigen::Dynamic, Eigen::Dynamic>;

// The order in which the K loop issues instructions (each instruction's k range is fixed by the
// instruction: blocks of L in increasing k inside one instruction).
enum class KOrder {
  increasing,  // k0 = 0, ins.k, 2*ins.k, ... (what a plain CUTLASS-style main loop does)
  decreasing,  // the last instruction's k range first
};
std::string_view k_order_name(KOrder o);

struct GemmOptions {
  KOrder k_order = KOrder::increasing;
  int threads = 0;        // 0 = std::thread::hardware_concurrency(); rows are split among them;
                          // results do not depend on the thread count
  MmaOptions mma;
  bool simd = true;       // the AVX2 kernel where the CPU has it (chosen at run time); false: the
                          // plain integer kernel. The bits are the same either way.
};

// D (M x N, ins.acc_fmt) = A (M x K, ins.a_fmt) * B (K x N, ins.b_fmt) + C (M x N, ins.acc_fmt).
// Each output element is dot(ins, row, column, c) with the K loop in opt.k_order; K that is not a
// multiple of ins.k is zero-padded at the end. Throws std::invalid_argument on shape mismatch.
BitMatrix gemm(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const BitMatrix& C,
               const GemmOptions& opt = {});

// Exact values as doubles (to_double of every element).
Eigen::MatrixXd to_double(const BitMatrix& m, FormatId f);

// fp64 reference: c + sum a*b as accurate as twice-double arithmetic rounded once to double
// (Ogita-Rump-Oishi Dot2) wherever the difference could show at 2^-32 relative (1/512 of an
// FP32 ulp): elements come from a double GEMM when its error bound proves them that accurate,
// else they are recomputed with Dot2 (gemm.cpp says how). Non-finite inputs give NaN/inf as IEEE arithmetic does. Rows are
// split among `threads` (0 = all cores); the result does not depend on it.
Eigen::MatrixXd reference_gemm(const BitMatrix& A, FormatId a_fmt, const BitMatrix& B,
                               FormatId b_fmt, const BitMatrix& C, FormatId c_fmt, int threads = 0);

struct ErrorStats {
  std::size_t count = 0;          // elements compared
  std::size_t nonfinite = 0;      // elements where D or the reference is inf/NaN (not in the stats)
  std::size_t zero_reference = 0; // finite elements with reference 0 (not in the relative stats)
  double max_abs = 0;             // max |d - ref|
  double max_rel = 0;             // max |d - ref| / |ref| over ref != 0
  double mean_rel = 0;            // mean of the same
  double max_ulps = 0;            // max |d - ref| / ulp_out(ref); ulp in out_fmt at |ref|
                                  // (subnormal ulp below the normal range)
};
ErrorStats error_stats(const BitMatrix& D, FormatId out_fmt, const Eigen::MatrixXd& ref);

// Seeded random matrix: values uniform in [lo, hi) (a 53-bit random fraction scaled), rounded to
// f with RNE; integer formats: uniform over [max(lo, min), min(hi, max)] integers. Deterministic
// for a seed on every platform (own generator, not std:: distributions).
BitMatrix random_matrix(FormatId f, int rows, int cols, std::uint64_t seed, double lo = -1.0,
                        double hi = 1.0);

}  // namespace tcsim::num
