#pragma once
// Helpers for the numerics tests: values written as doubles (exact constants such as 0x1p-24),
// encoded exactly into a format (a test fails if a constant is not representable).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "numerics/formats/convert.h"
#include "numerics/gemm/gemm.h"
#include "numerics/mma/mma.h"

namespace tcsim::num::test {

inline Bits enc(double x, FormatId f) {
  bool inexact = false;
  const Bits b = convert(std::bit_cast<std::uint64_t>(x), FormatId::fp64, f, {}, inexact);
  REQUIRE_MESSAGE(!inexact, x << " is not exact in " << format_name(f));
  return b;
}

inline std::vector<Bits> enc_vec(const std::vector<double>& v, FormatId f, int k) {
  std::vector<Bits> out(static_cast<std::size_t>(k), 0);
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = enc(v[i], f);
  return out;
}

// d = c + a.b with the instruction, by dot() and by the GEMM kernel (1x1 output); both must agree.
inline Bits run_both(const Instruction& ins, const std::vector<Bits>& a, const std::vector<Bits>& b,
                     Bits c, const MmaOptions& opt = {}) {
  const Bits d = dot(ins, a, b, c, opt);
  BitMatrix A(1, static_cast<Eigen::Index>(a.size())), B(static_cast<Eigen::Index>(b.size()), 1), C(1, 1);
  for (std::size_t k = 0; k < a.size(); ++k) {
    A(0, static_cast<Eigen::Index>(k)) = a[k];
    B(static_cast<Eigen::Index>(k), 0) = b[k];
  }
  C(0, 0) = c;
  GemmOptions go;
  go.mma = opt;
  go.threads = 1;
  const Bits g = gemm(ins, A, B, C, go)(0, 0);
  CHECK_MESSAGE(g == d, "gemm kernel " << format_bits(g, ins.acc_fmt) << " != dot "
                                        << format_bits(d, ins.acc_fmt) << " for " << ins.describe());
  return d;
}

// One row of an instruction-table test: the accumulation parameters an instruction must have.
struct InstructionWant {
  Arch arch;
  const char* name;
  FormatId in, acc;
  int F, L, e_zero;
  OutMode out;
};

// Looks the instruction up and checks F, L, e_zero and the output rounding; returns it.
inline const Instruction& check_instruction(const InstructionWant& w) {
  CAPTURE(w.name);
  CAPTURE(arch_name(w.arch));
  const Instruction& i = find_instruction(w.arch, w.name, w.in, w.acc);
  CHECK(i.F == w.F);
  CHECK(i.L == w.L);
  CHECK(i.e_zero == w.e_zero);
  CHECK(i.out_mode == w.out);
  return i;
}

// "where: detail" of the InputError `fn` throws; "" if it throws none.
inline std::string input_error(auto fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.where() + ": " + e.detail();
  }
  return "";
}

}  // namespace tcsim::num::test
