#include "numerics/gemm/gemm_kernel.h"

#include <algorithm>

#include "numerics/mma/fdpa_core.h"
#include "numerics/formats/round_core.h"

namespace tcsim::num::detail {
namespace {
std::uint32_t feed(Bits bits, FormatId f, Tf32Feed how) {
  if (f != FormatId::tf32) return static_cast<std::uint32_t>(bits);
  const auto b32 = static_cast<std::uint32_t>(bits);
  switch (how) {
    case Tf32Feed::truncate: return tf32_truncate(b32);
    case Tf32Feed::rna: return static_cast<std::uint32_t>(convert(b32, FormatId::fp32, FormatId::tf32, {Rounding::rna}));
    case Tf32Feed::rne: return static_cast<std::uint32_t>(convert(b32, FormatId::fp32, FormatId::tf32, {Rounding::rne}));
  }
  return b32;
}
}  // namespace

bool fast_gemm_supported(const Instruction& ins) {
  if (ins.lowering != Lowering::none) return false;  // not one T-FDPA chain: mma_element per element
  if (ins.out_mode != OutMode::rz_fp32 && ins.out_mode != OutMode::rz_e8m13 &&
      ins.out_mode != OutMode::rne_fp16 && ins.out_mode != OutMode::rz_fp32_rne_fp16)
    return false;
  if (ins.L <= 0 || ins.L > 32 || ins.k % ins.L != 0) return false;
  const int fs = layout(ins.a_fmt).man_bits + layout(ins.b_fmt).man_bits;
  return ins.F - fs >= 0 && ins.F - fs <= 24;
}

FastGemm::FastGemm(const Instruction& ins, const BitMatrix& A, const BitMatrix& B,
                   const MmaOptions& opt, bool simd)
    : ins_(ins), p_(fdpa_params(ins, opt)) {
  M_ = static_cast<int>(A.rows());
  N_ = static_cast<int>(B.cols());
  const int K = static_cast<int>(A.cols());
  T_ = (K + ins.k - 1) / ins.k;
  if (T_ == 0) T_ = 1;
  Kp_ = T_ * ins.k;
  const FloatLayout& la = layout(ins.a_fmt);
  const FloatLayout& lb = layout(ins.b_fmt);
  pre_ = ins.F - (la.man_bits + lb.man_bits);
  acc32_ = ins.acc_fmt == FormatId::fp32;
  fc_ = layout(ins.acc_fmt).man_bits;
  a_.assign(static_cast<std::size_t>(M_) * Kp_, El{0, 0});
  b_.assign(static_cast<std::size_t>(N_) * Kp_, El{0, 0});
  a_fed_.assign(a_.size(), 0);
  b_fed_.assign(b_.size(), 0);
  a_special_.assign(static_cast<std::size_t>(M_) * T_, 0);
  b_special_.assign(static_cast<std::size_t>(N_) * T_, 0);
  auto decode_into = [&](Bits bits, FormatId f, const FloatLayout& l, std::size_t idx,
                         std::vector<El>& el, std::vector<std::uint32_t>& fed,
                         std::uint8_t& special) {
    const std::uint32_t x = feed(bits, f, opt.tf32_feed);
    fed[idx] = x;
    const Decoded d = decode(x, l);
    if (d.cls == FpClass::nan || d.cls == FpClass::infinite) {
      special = 1;
      return;
    }
    const auto m = static_cast<std::int32_t>(d.m);
    el[idx] = El{d.neg ? -m : m, d.e};
  };
  for (int i = 0; i < M_; ++i)
    for (int k = 0; k < K; ++k)
      decode_into(A(i, k), ins.a_fmt, la, static_cast<std::size_t>(i) * Kp_ + k, a_, a_fed_,
                  a_special_[static_cast<std::size_t>(i) * T_ + k / ins.k]);
  for (int j = 0; j < N_; ++j)
    for (int k = 0; k < K; ++k)
      decode_into(B(k, j), ins.b_fmt, lb, static_cast<std::size_t>(j) * Kp_ + k, b_, b_fed_,
                  b_special_[static_cast<std::size_t>(j) * T_ + k / ins.k]);
  // AVX2: 8 products per 32-bit-lane vector; |a b| << pre_ must stay below 2^31.
  const bool avx2 = simd && avx2_available() && la.precision() + lb.precision() + pre_ <= 31;
  simd_ = avx2 && p_.L % 8 == 0 && p_.L <= 32;
  // Vertical kernel (8 columns in the lanes, any L <= 32): FP32 RZ results, and every block sum
  // |S| < L 2^(pa+pb+pre) + 2^(F+2) < 2^31.
  const std::int64_t bound = static_cast<std::int64_t>(p_.L) << (la.precision() + lb.precision() + pre_);
  vertical_ = avx2 && p_.L <= 32 &&
              ((acc32_ && p_.out == OutMode::rz_fp32 && fc_ == 23) || (!acc32_ && p_.out == OutMode::rne_fp16 && fc_ == 10)) &&
              bound + (std::int64_t{1} << (p_.F + 2)) < (std::int64_t{1} << 31);
  if (simd_ || vertical_) {
    auto split = [](const std::vector<El>& el, std::vector<std::int32_t>& m, std::vector<std::int32_t>& e) {
      m.resize(el.size());
      e.resize(el.size());
      for (std::size_t i = 0; i < el.size(); ++i) {
        m[i] = el[i].m;
        e[i] = el[i].e;
      }
    };
    split(a_, am_, ae_);
    split(b_, bm_, be_);
  }
  if (vertical_) {
    // panels of 8 columns, each [k][8] contiguous (sequential reads in the kernel)
    const int N8 = N_ / 8 * 8;
    bmT_.resize(static_cast<std::size_t>(Kp_) * N8);
    beT_.resize(bmT_.size());
    for (int j = 0; j < N8; ++j)
      for (int k = 0; k < Kp_; ++k) {
        const std::size_t at = static_cast<std::size_t>(j / 8) * Kp_ * 8 + static_cast<std::size_t>(k) * 8 + j % 8;
        bmT_[at] = bm_[static_cast<std::size_t>(j) * Kp_ + k];
        beT_[at] = be_[static_cast<std::size_t>(j) * Kp_ + k];
      }
    col_special_.assign(static_cast<std::size_t>(N_), 0);
    for (int j = 0; j < N_; ++j)
      for (int t = 0; t < T_; ++t) col_special_[static_cast<std::size_t>(j)] |= b_special_[static_cast<std::size_t>(j) * T_ + t];
  }
}

void FastGemm::run_rows_vertical(int r0, int r1, const BitMatrix& C, BitMatrix& D, KOrder order) const {
  const int N8 = N_ / 8 * 8;
  for (int j0 = 0; j0 < N8; j0 += 8) {
    bool cols_special = false;
    for (int l = 0; l < 8; ++l) cols_special = cols_special || col_special_[static_cast<std::size_t>(j0 + l)];
    for (int i = r0; i < r1; ++i) {
      bool special = cols_special;
      for (int t = 0; t < T_ && !special; ++t) special = a_special_[static_cast<std::size_t>(i) * T_ + t] != 0;
      std::uint32_t d[8];
      for (int l = 0; l < 8; ++l) {
        d[l] = static_cast<std::uint32_t>(C(i, j0 + l));
        special = special || acc_special(d[l]);
      }
      if (special) {
        for (int l = 0; l < 8; ++l) D(i, j0 + l) = element(i, j0 + l, C(i, j0 + l), order);
        continue;
      }
      VerticalArgs va;
      va.am = am_.data() + static_cast<std::size_t>(i) * Kp_;
      va.ae = ae_.data() + static_cast<std::size_t>(i) * Kp_;
      va.bmT = bmT_.data() + static_cast<std::size_t>(j0 / 8) * Kp_ * 8;
      va.beT = beT_.data() + static_cast<std::size_t>(j0 / 8) * Kp_ * 8;
      va.N = 8;
      va.k = ins_.k;
      va.T = T_;
      va.L = p_.L;
      va.F = p_.F;
      va.pre = pre_;
      va.e_zero = p_.e_zero;
      va.decreasing = order == KOrder::decreasing;
      va.fp16 = !acc32_;
      const std::uint32_t redo = avx2_vertical8(va, 0, d);
      for (int l = 0; l < 8; ++l)
        D(i, j0 + l) = (redo >> l) & 1u ? element(i, j0 + l, C(i, j0 + l), order) : Bits{d[l]};
    }
  }
  for (int j = N8; j < N_; ++j)
    for (int i = r0; i < r1; ++i) D(i, j) = element(i, j, C(i, j), order);
}

void FastGemm::decode_acc(Bits c, std::int64_t& cm, int& ce, bool& cneg) const {
  const auto cb = static_cast<std::uint32_t>(c);
  if (acc32_) {
    const int ef = static_cast<int>((cb >> 23) & 0xFF);
    cm = (cb & 0x7FFFFF) | (ef ? 0x800000 : 0);
    ce = ef ? ef - 127 : -126;
    cneg = (cb >> 31) != 0;
  } else {
    const int ef = static_cast<int>((cb >> 10) & 0x1F);
    cm = (cb & 0x3FF) | (ef ? 0x400 : 0);
    ce = ef ? ef - 15 : -14;
    cneg = (cb >> 15) != 0;
  }
}

Bits FastGemm::simd_block(std::size_t ai, std::size_t bj, Bits c) const {
  std::int64_t cm;
  int ce;
  bool cneg;
  decode_acc(c, cm, ce, cneg);
  const int Ec = cm ? ce : p_.e_zero;
  std::int64_t S = 0;
  int Emax = Ec;
  avx2_block_terms(am_.data() + ai, ae_.data() + ai, bm_.data() + bj, be_.data() + bj, p_.L, p_.e_zero, Ec, pre_, S,
                   Emax);
  const int u = Emax - p_.F;
  const int sh = Ec - fc_ - u;
  const std::int64_t tc = sh >= 0 ? (cm << sh) : (-sh >= 63 ? 0 : (cm >> -sh));
  S += cneg ? -tc : tc;
  return finish_fdpa(p_.out, S, u);
}

bool FastGemm::acc_special(Bits c) const {
  return acc32_ ? (c & 0x7F800000u) == 0x7F800000u : (c & 0x7C00u) == 0x7C00u;
}

Bits FastGemm::generic_block(const std::uint32_t* a, const std::uint32_t* b, Bits c) const {
  Bits ab[64], bb[64];
  for (int i = 0; i < p_.L; ++i) {
    ab[i] = a[i];
    bb[i] = b[i];
  }
  return tfdpa_generic(p_, ab, bb, p_.L, c);
}

template <int L>
Bits FastGemm::fast_block(const El* a, const El* b, Bits c) const {
  std::int64_t cm;
  int ce;
  bool cneg;
  if (acc32_) {
    const auto cb = static_cast<std::uint32_t>(c);
    const int ef = static_cast<int>((cb >> 23) & 0xFF);
    cm = (cb & 0x7FFFFF) | (ef ? 0x800000 : 0);
    ce = ef ? ef - 127 : -126;
    cneg = (cb >> 31) != 0;
  } else {
    const auto cb = static_cast<std::uint32_t>(c);
    const int ef = static_cast<int>((cb >> 10) & 0x1F);
    cm = (cb & 0x3FF) | (ef ? 0x400 : 0);
    ce = ef ? ef - 15 : -14;
    cneg = (cb >> 15) != 0;
  }
  const int e_zero = p_.e_zero;
  const int Ec = cm ? ce : e_zero;
  std::int64_t P[L];
  int E[L];
  int Emax = Ec;
  for (int i = 0; i < L; ++i) {
    const std::int64_t pm = static_cast<std::int64_t>(a[i].m) * b[i].m;
    const int Ei = pm ? a[i].e + b[i].e : e_zero;
    P[i] = pm;
    E[i] = Ei;
    Emax = Emax > Ei ? Emax : Ei;
  }
  std::int64_t S = 0;
  for (int i = 0; i < L; ++i) {
    int d = Emax - E[i];
    d = d > 63 ? 63 : d;
    const std::int64_t pm = P[i];
    const std::int64_t s = pm >> 63;  // 0 or -1: truncate the magnitude, then restore the sign
    const std::uint64_t mag = static_cast<std::uint64_t>((pm ^ s) - s) << pre_;
    const auto t = static_cast<std::int64_t>(mag >> d);
    S += (t ^ s) - s;
  }
  const int u = Emax - p_.F;
  const int sh = Ec - fc_ - u;
  std::int64_t tc = sh >= 0 ? (cm << sh) : (-sh >= 63 ? 0 : (cm >> -sh));
  S += cneg ? -tc : tc;
  return finish_fdpa(p_.out, S, u);
}

Bits FastGemm::element(int i, int j, Bits c, KOrder order) const {
  const int k = ins_.k, L = p_.L;
  const El* arow = a_.data() + static_cast<std::size_t>(i) * Kp_;
  const El* bcol = b_.data() + static_cast<std::size_t>(j) * Kp_;
  Bits d = c;
  for (int s = 0; s < T_; ++s) {
    const int t = order == KOrder::increasing ? s : T_ - 1 - s;
    const bool special = a_special_[static_cast<std::size_t>(i) * T_ + t] |
                         b_special_[static_cast<std::size_t>(j) * T_ + t];
    for (int k0 = t * k; k0 < (t + 1) * k; k0 += L) {
      if (special || acc_special(d)) {
        d = generic_block(a_fed_.data() + static_cast<std::size_t>(i) * Kp_ + k0,
                          b_fed_.data() + static_cast<std::size_t>(j) * Kp_ + k0, d);
        continue;
      }
      if (simd_) {
        d = simd_block(static_cast<std::size_t>(i) * Kp_ + k0, static_cast<std::size_t>(j) * Kp_ + k0, d);
        continue;
      }
      switch (L) {
        case 4: d = fast_block<4>(arow + k0, bcol + k0, d); break;
        case 8: d = fast_block<8>(arow + k0, bcol + k0, d); break;
        case 16: d = fast_block<16>(arow + k0, bcol + k0, d); break;
        case 32: d = fast_block<32>(arow + k0, bcol + k0, d); break;
        default:
          d = generic_block(a_fed_.data() + static_cast<std::size_t>(i) * Kp_ + k0,
                            b_fed_.data() + static_cast<std::size_t>(j) * Kp_ + k0, d);
      }
    }
  }
  return d;
}

void FastGemm::run_rows(int r0, int r1, const BitMatrix& C, BitMatrix& D, KOrder order) const {
  if (vertical_) {
    run_rows_vertical(r0, r1, C, D, order);
    return;
  }
  constexpr int kRowTile = 4;  // reuse each decoded column of B for several rows while in L1
  for (int i0 = r0; i0 < r1; i0 += kRowTile) {
    const int i1 = std::min(r1, i0 + kRowTile);
    for (int j = 0; j < N_; ++j)
      for (int i = i0; i < i1; ++i) D(i, j) = element(i, j, C(i, j), order);
  }
}

}  // namespace tcsim::num::detail
