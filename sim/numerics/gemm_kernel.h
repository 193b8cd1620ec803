#pragma once
// Internal: the fast GEMM kernel for the floating-point T-FDPA instructions. Operands are decoded
// once (tf32 fed, then split into a signed integer mantissa and an exponent); the inner loop is
// integer multiplies, shifts and adds. Blocks that meet an inf/NaN fall back to the generic
// tfdpa (fdpa_core.h), so the results equal dot() bit for bit.
#include <cstdint>
#include <vector>

#include "numerics/gemm.h"

namespace tcsim::num::detail {

bool fast_gemm_supported(const Instruction& ins);

class FastGemm {
 public:
  FastGemm(const Instruction& ins, const BitMatrix& A, const BitMatrix& B, const MmaOptions& opt);
  // D(i, j) for rows [r0, r1), all columns.
  void run_rows(int r0, int r1, const BitMatrix& C, BitMatrix& D, KOrder order) const;

 private:
  struct El {
    std::int32_t m;  // signed integer mantissa (0 for zero and for inf/NaN)
    std::int32_t e;  // exponent e (value = m * 2^(e - man_bits))
  };
  template <int L>
  Bits fast_block(const El* a, const El* b, Bits c) const;
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
};

}  // namespace tcsim::num::detail
