#pragma once
// Internal: the fast GEMM kernel for the floating-point T-FDPA instructions. Operands are decoded
// once (tf32 fed, then split into a signed integer mantissa and an exponent); the inner loop is
// integer multiplies, shifts and adds. Blocks that meet an inf/NaN fall back to the generic
// tfdpa (fdpa_core.h), so the results equal dot() bit for bit.
#include <cstdint>
#include <vector>

#include "numerics/gemm/gemm.h"

namespace tcsim::num::detail {

bool fast_gemm_supported(const Instruction& ins);

// gemm_kernel_avx2.cpp: whether this CPU runs AVX2 (false off x86-64), and the products part of a
// block of L (8, 16 or 32) products in AVX2: Emax = max(Ec, E_i) and S = sum of the truncated
// aligned products (the plain fast_block's first two loops).
bool avx2_available();
void avx2_block_terms(const std::int32_t* am, const std::int32_t* ae, const std::int32_t* bm, const std::int32_t* be,
                      int L, int e_zero, int Ec, int pre, std::int64_t& S, int& Emax);

// The vertical AVX2 kernel: 8 output elements of one row (columns j0..j0+7) in the lanes, through
// every instruction of the K loop, FP32 accumulator with RZ or FP16 with RNE (gemm_kernel_avx2.cpp). d holds the 8
// accumulator inputs and receives the results; returns a mask of lanes whose accumulator became
// inf/NaN on the way (the caller recomputes those with the plain path). No lane may meet an
// inf/NaN operand (the caller checks), and every block sum must fit in int32 (checked at setup).
struct VerticalArgs {
  const std::int32_t *am, *ae;    // the row: Kp mantissas / exponents
  const std::int32_t *bmT, *beT;  // B as [k][N] (N = the row stride; the caller passes 8-column panels)
  int N = 0, k = 0, T = 0, L = 0, F = 0, pre = 0, e_zero = 0;
  bool decreasing = false;
  bool fp16 = false;              // FP16 accumulator with RNE (else FP32 with RZ)
};
std::uint32_t avx2_vertical8(const VerticalArgs& v, int j0, std::uint32_t* d);

// DMMA: whether the CPU has AVX2+FMA, and 4 columns of one row through the fma chain in the
// order korder[0..Kp) (B as [k][N], the 4 columns at bT + j0).
bool fma_available();
void fma_chain4(const double* arow, const double* bT, int N, int Kp, const int* korder, double* d);

class FastGemm {
 public:
  // simd: use the AVX2 block when the CPU has it and the operands fit 32-bit lanes (same bits).
  FastGemm(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const MmaOptions& opt,
           bool simd = true);
  bool uses_simd() const { return simd_; }
  // D(i, j) for rows [r0, r1), all columns.
  void run_rows(int r0, int r1, const BitMatrix& C, BitMatrix& D, KOrder order) const;

 private:
  struct El {
    std::int32_t m;  // signed integer mantissa (0 for zero and for inf/NaN)
    std::int32_t e;  // exponent e (value = m * 2^(e - man_bits))
  };
  template <int L>
  Bits fast_block(const El* a, const El* b, Bits c) const;
  Bits simd_block(std::size_t ai, std::size_t bj, Bits c) const;  // offsets into the SoA arrays
  void decode_acc(Bits c, std::int64_t& cm, int& ce, bool& cneg) const;
  Bits generic_block(const std::uint32_t* a, const std::uint32_t* b, Bits c) const;
  Bits element(int i, int j, Bits c, KOrder order) const;
  bool acc_special(Bits c) const;

  Instruction ins_;
  FdpaParams p_;
  int M_ = 0, N_ = 0, Kp_ = 0, T_ = 0;
  int pre_ = 0;       // F - (man_bits_a + man_bits_b) >= 0
  int fc_ = 0;        // accumulator fraction bits
  bool acc32_ = true;
  std::vector<El> a_, b_;                       // A by rows, B by columns, K padded to T*k
  std::vector<std::uint32_t> a_fed_, b_fed_;    // the fed bit patterns, same layout
  std::vector<std::uint8_t> a_special_, b_special_;  // per (row|col, instruction): inf/NaN inside
  bool simd_ = false;
  bool vertical_ = false;                         // avx2_vertical8 applies (fp32 RZ, int32 sums)
  std::vector<std::int32_t> bmT_, beT_;           // B in 8-column panels [j/8][k][8] (vertical kernel)
  std::vector<std::uint8_t> col_special_;         // per column: inf/NaN in any instruction
  void run_rows_vertical(int r0, int r1, const BitMatrix& C, BitMatrix& D, KOrder order) const;
  std::vector<std::int32_t> am_, ae_, bm_, be_;  // a_/b_ as separate arrays (AVX2 loads)
};

}  // namespace tcsim::num::detail
