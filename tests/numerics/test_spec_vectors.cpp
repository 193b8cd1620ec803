// Every row of spec numerics.md section 4 (4.1 Fasi et al., 4.2 MMA-Sim probes, 4.3 block length,
// 4.4 bf16/tf32/fp8/special values), for every architecture column, compared bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "numerics_test_util.h"

using namespace tcsim;
using namespace tcsim::num;
using tcsim::num::test::enc;
using tcsim::num::test::enc_vec;
using tcsim::num::test::run_both;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
const Arch kArchs[4] = {Arch::sm70, Arch::sm75, Arch::sm80, Arch::sm90};
const double X = 0x1p-13 - 0x1p-24;

struct Row {
  std::string id;
  std::vector<double> a, b;
  double c;
  double expect[4];  // V100, T4, A100, H100
};

// fp16 inputs, K = 16 (wmma 16x16x16 semantics), result in acc.
void check_fp16_rows(const std::vector<Row>& rows, FormatId acc) {
  for (const Row& r : rows)
    for (int ai = 0; ai < 4; ++ai) {
      const Instruction& ins = find_instruction(kArchs[ai], "wmma.m16n16k16", FormatId::fp16, acc);
      const Bits d = run_both(ins, enc_vec(r.a, FormatId::fp16, 16), enc_vec(r.b, FormatId::fp16, 16),
                              enc(r.c, acc));
      const Bits want = enc(r.expect[ai], acc);
      CHECK_MESSAGE(d == want, r.id << " on " << arch_name(kArchs[ai]) << ": got "
                                    << format_bits(d, acc) << " (" << format_hexfloat(d, acc)
                                    << "), expected " << format_bits(want, acc) << " ("
                                    << format_hexfloat(want, acc) << ")");
    }
}
}  // namespace

TEST_CASE("spec 4.1: Fasi et al. suite, FP32 output") {
  const double t = 0x1p-24;
  std::vector<Row> rows = {
      {"A3", {0}, {0}, 0x1p-149, {0x1p-149, 0x1p-149, 0x1p-149, 0x1p-149}},
      {"B1", {1 - 0x1p-11}, {1 - 0x1p-11}, 0, {1 - 0x1p-10 + 0x1p-22, 1 - 0x1p-10 + 0x1p-22, 1 - 0x1p-10 + 0x1p-22, 1 - 0x1p-10 + 0x1p-22}},
      {"B3", {1, 1, 1, 1}, {t, t, t, t}, 1, {1, 1 + 0x1p-22, 1 + 0x1p-22, 1 + 0x1p-22}},
      {"B3'", {.5, .5, .5, .5}, {t, t, t, t}, 1, {1, 1, 1, 1 + 0x1p-23}},
      {"C1", {1, 1, 1, 1}, {2, 3 * t}, 0, {2, 2, 2, 2}},
      {"C2", {1, 1, 1, 1}, {-2, -3 * t}, 0, {-2, -2, -2, -2}},
      {"D1 guard bit", {1}, {1}, -(1 - t), {0x1p-23, t, t, t}},
      {"D2", {1, 1, 1, 1}, {t, t, t, t}, 1 - t, {1 + 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-23}},
      {"D3", {1, 1}, {1, -t}, -1 + t, {0x1p-23, 0, 0, 0}},
      {"D4a carry", {1, 1, 1, 1}, {1, 1, 1, 0x1p-23}, 1 + 0x1p-22 + 0x1p-23, {4 + 0x1p-21, 4 + 0x1p-21, 4 + 0x1p-21, 4 + 0x1p-21}},
      {"D4b carry", {1, 1, 1, 1}, {1, 1.5, 1.75, 1.875}, 1.875, {8, 8, 8, 8}},
      {"D4c", {1, 1, 1, 1}, {1, 1, 1, 1}, 1 + 0x1p-22 + 0x1p-23, {5, 5, 5, 5}},
      {"D4d", {1, 1, 1, 1}, {-1, -1, -1, -1}, -1 - 0x1p-22 - 0x1p-23, {-5, -5, -5, -5}},
      {"D5 c=1-2^-24", {1, 1, 1, 1}, {t, t, t, t}, 1 - t, {1 + 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-23}},
      {"D5 c=1", {1, 1, 1, 1}, {t, t, t, t}, 1, {1, 1 + 0x1p-22, 1 + 0x1p-22, 1 + 0x1p-22}},
      {"D5' c=1-2^-24", {.5, .5, .5, .5}, {t, t, t, 3 * t}, 1 - t, {1, 1 + 0x1p-23, 1 + 0x1p-23, 1 + 0x1p-23}},
      {"D5' c=1", {.5, .5, .5, .5}, {t, t, t, 3 * t}, 1, {1, 1, 1, 1 + 0x1p-23}},
  };
  // B4 / B4' for every position j of the large product.
  for (int j = 0; j < 4; ++j) {
    Row b4{"B4 j=" + std::to_string(j), {1, 1, 1, 1}, {t, t, t, t}, t, {1, 1 + 0x1p-22, 1 + 0x1p-22, 1 + 0x1p-22}};
    b4.b[static_cast<std::size_t>(j)] = 1;
    rows.push_back(b4);
    Row b4p{"B4' j=" + std::to_string(j), {.5, .5, .5, .5}, {t, t, t, t}, t, {1, 1, 1, 1 + 0x1p-23}};
    b4p.a[static_cast<std::size_t>(j)] = 1;
    b4p.b[static_cast<std::size_t>(j)] = 1;
    rows.push_back(b4p);
  }
  check_fp16_rows(rows, FormatId::fp32);
}

TEST_CASE("spec 4.1: Fasi et al. suite, FP16 output") {
  const double t = 0x1p-24;
  const std::vector<Row> rows = {
      {"A1", {t}, {4}, 0, {0x1p-22, 0x1p-22, 0x1p-22, 0x1p-22}},
      {"A4", {0x1p-14}, {1}, -0x1p-15, {0x1p-15, 0x1p-15, 0x1p-15, 0x1p-15}},
      {"B2", {1 - 0x1p-11, 1 - 0x1p-11}, {1 - 0x1p-11, 0x1p-11}, 0, {1 - 0x1p-11, 1 - 0x1p-11, 1 - 0x1p-11, 1 - 0x1p-11}},
      {"C3", {t, t}, {.5, .25}, 0, {t, t, t, t}},
  };
  check_fp16_rows(rows, FormatId::fp16);
}

TEST_CASE("spec 4.2: discriminating probes (MMA-Sim behaviour tests)") {
  const std::vector<Row> fp32_rows = {
      {"precision (F)", {2, -2}, {2, 2}, X, {0x1p-13 - 0x1p-21, 0x1p-13 - 0x1p-22, 0x1p-13 - 0x1p-22, 0x1p-13 - 0x1p-23}},
      {"precision 2", {1, -1}, {1, 1}, X, {X - 0x1p-24, X, X, X}},
      {"RZ is symmetric", {2, -2}, {2, 2}, -X, {-(0x1p-13 - 0x1p-21), -(0x1p-13 - 0x1p-22), -(0x1p-13 - 0x1p-22), -(0x1p-13 - 0x1p-23)}},
      {"alignment uses e_a+e_b", {2.25, -2.25}, {1, 1}, X, {0x1p-13 - 0x1p-22, 0x1p-13 - 0x1p-23, 0x1p-13 - 0x1p-23, X}},
      {"same products, smaller exp sum", {1.5, -1.5}, {1.5, 1.5}, X, {0x1p-13 - 0x1p-23, X, X, X}},
      {"carry (5 large terms)", {2 - 0x1p-10, 2 - 0x1p-10, 2 - 0x1p-10, 2 - 0x1p-10}, {2 - 0x1p-10, 2 - 0x1p-10, 2 - 0x1p-10, 2 - 0x1p-10}, 2 - 0x1p-23,
       {0x1.1fc002p+4, 0x1.1fc002p+4, 0x1.1fc002p+4, 0x1.1fc002p+4}},
      {"MMA-Sim Eq. 10", {-0x1p13, -.5, -.25, -.125}, {0x1p10, 1, 1, 1}, 0x1p23, {0, -.5, -.5, -.75}},
  };
  check_fp16_rows(fp32_rows, FormatId::fp32);
  const std::vector<Row> fp16_rows = {
      {"FP16 out, tie", {.5}, {1}, 1024, {1024, 1024, 1024, 1024}},
      {"FP16 out", {1.5}, {1}, 1024, {1026, 1026, 1026, 1026}},
      {"FP16 out, no double rounding", {.5, .5, .5, .5}, {1, 1, 0x1p-10, 0x1p-23}, 0, {1 + 0x1p-10, 1 + 0x1p-10, 1 + 0x1p-10, 1 + 0x1p-10}},
      {"FP16 overflow", {.5}, {32}, 65504, {kInf, kInf, kInf, kInf}},
      {"FP16 just below", {.25}, {32}, 65504, {65504, 65504, 65504, 65504}},
  };
  check_fp16_rows(fp16_rows, FormatId::fp16);

  SUBCASE("-0 handling: +0 result, also for the FP16 accumulator") {
    for (FormatId acc : {FormatId::fp32, FormatId::fp16})
      for (Arch a : kArchs) {
        const Instruction& ins = find_instruction(a, "wmma.m16n16k16", FormatId::fp16, acc);
        const std::vector<Bits> am(16, 0x8000), bm(16, 0x3c00);
        const Bits d = run_both(ins, am, bm, zero_bits(acc, true));
        CHECK_MESSAGE(d == 0, arch_name(a) << " " << format_name(acc));
      }
  }
}

TEST_CASE("spec 4.3: block-length probe") {
  // a = b = 2^-9 everywhere except a_j = b_j = 2^7; c = -2^14.
  const double expect[4][4] = {
      // j 0-3, 4-7, 8-11, 12-15
      {3 * 0x1p-16, 0x1p-15, 0x1p-16, 0},  // V100 (L=4)
      {0x1p-15, 0x1p-15, 0, 0},            // T4 (L=8)
      {0x1p-15, 0x1p-15, 0, 0},            // A100 (L=8)
      {0, 0, 0, 0},                        // H100 (L=16)
  };
  for (int ai = 0; ai < 4; ++ai)
    for (int j = 0; j < 16; ++j) {
      std::vector<double> a(16, 0x1p-9);
      a[static_cast<std::size_t>(j)] = 0x1p7;
      const Instruction& ins = find_instruction(kArchs[ai], "wmma.m16n16k16", FormatId::fp16, FormatId::fp32);
      const Bits d = run_both(ins, enc_vec(a, FormatId::fp16, 16), enc_vec(a, FormatId::fp16, 16),
                              enc(-0x1p14, FormatId::fp32));
      const Bits want = enc(expect[ai][j / 4], FormatId::fp32);
      CHECK_MESSAGE(d == want, arch_name(kArchs[ai]) << " j=" << j << ": got "
                                                     << format_hexfloat(d, FormatId::fp32));
    }
}

namespace {
struct Row44 {
  std::string id;
  FormatId fmt;
  std::vector<double> a, b;
  double c;
  double expect;  // A100 and H100 agree in every row of 4.4
};
Bits run44(Arch arch, FormatId fmt, const std::vector<Bits>& a, const std::vector<Bits>& b, Bits c) {
  const char* name = fmt == FormatId::tf32 ? "wmma.m16n16k8" : "wmma.m16n16k16";
  const Instruction& ins = find_instruction(arch, name, fmt, FormatId::fp32);
  return run_both(ins, a, b, c);
}
}  // namespace

TEST_CASE("spec 4.4: bf16 / tf32 / special values on A100 and H100") {
  const double flt_max = 0x1.fffffep127;
  const std::vector<Row44> rows = {
      {"bf16 subnormal in", FormatId::bf16, {0x1p-133}, {0x1p7}, 0, 0x1p-126},
      {"FP32 subnormal out", FormatId::bf16, {0x1p-126}, {.5}, 0, 0x1p-127},
      {"RZ below overflow", FormatId::bf16, {.75, .75}, {0x1p127, 0x1p127}, flt_max / 4, flt_max},
      {"overflow", FormatId::bf16, {1, 1}, {0x1p127, 0x1p127}, 0, kInf},
      // tf32 operands are given as fp32 patterns: the hardware truncates them.
      {"tf32 truncation", FormatId::tf32, {1 + 0.75 * 0x1p-10}, {1}, 0, 1},
      {"tf32 truncation, negative", FormatId::tf32, {-(1 + 0.75 * 0x1p-10)}, {1}, 0, -1},
      {"tf32 (1-2^-24)^2", FormatId::tf32, {1 - 0x1p-24}, {1 - 0x1p-24}, 0, 1 - 0x1p-10 + 0x1p-22},
  };
  for (Arch arch : {Arch::sm80, Arch::sm90})
    for (const Row44& r : rows) {
      const FormatId store = r.fmt == FormatId::tf32 ? FormatId::fp32 : r.fmt;
      const int k = r.fmt == FormatId::tf32 ? 8 : 16;
      const Bits d = run44(arch, r.fmt, enc_vec(r.a, store, k), enc_vec(r.b, store, k), enc(r.c, FormatId::fp32));
      CHECK_MESSAGE(d == enc(r.expect, FormatId::fp32),
                    r.id << " on " << arch_name(arch) << ": got " << format_hexfloat(d, FormatId::fp32));
    }
  for (Arch arch : {Arch::sm80, Arch::sm90}) {
    CAPTURE(arch_name(arch));
    // tf32 NaN payload only in the low 13 bits: truncation makes it +inf.
    std::vector<Bits> a(8, 0), b(8, 0);
    a[0] = 0x7F800001;
    b[0] = 0x3F800000;
    CHECK(run44(arch, FormatId::tf32, a, b, 0) == 0x7F800000u);
    // inf * 0 and inf - inf give the canonical NaN, for every input format.
    for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::tf32}) {
      CAPTURE(format_name(f));
      const FormatId store = f == FormatId::tf32 ? FormatId::fp32 : f;
      const int k = f == FormatId::tf32 ? 8 : 16;
      std::vector<Bits> x(static_cast<std::size_t>(k), 0), y(static_cast<std::size_t>(k), 0);
      x[0] = inf_bits(store, false);
      CHECK(run44(arch, f, x, y, 0) == 0x7FFFFFFFu);
      x[1] = inf_bits(store, false);
      y[0] = enc(1, store);
      y[1] = enc(-1, store);
      CHECK(run44(arch, f, x, y, 0) == 0x7FFFFFFFu);
    }
  }
}

TEST_CASE("spec 4.4: H100 FP8 (wgmma k32, FP32 accumulate)") {
  struct R {
    std::string id;
    FormatId fmt;
    std::vector<double> a, b;
    double c, expect;
  };
  const std::vector<R> rows = {
      {"13-bit window kept", FormatId::e5m2, {1, 0x1p-6}, {1, 0x1p-7}, 0, 1 + 0x1p-13},
      {"13-bit window dropped", FormatId::e5m2, {1, 0x1p-7}, {1, 0x1p-7}, 0, 1},
      {"accumulator is cut too", FormatId::e5m2, {0}, {0}, 1 + 0x1p-20, 1},
      {"accumulator", FormatId::e5m2, {0}, {0}, 1 + 0x1p-13, 1 + 0x1p-13},
      {"Eq. 10 in e4m3", FormatId::e4m3, {-256, -.5, -.25, -.125}, {256, 1, 1, 1}, 65536, 0},
      // MMA-Sim's RZ behaviour test: 4 x (0.25 * 1) + 0.75 * 2^-13 gives 1.
      {"RZ to 13 fraction bits", FormatId::e5m2, {.25, .25, .25, .25, .75}, {1, 1, 1, 1, 0x1p-13}, 0, 1},
  };
  for (const R& r : rows) {
    const Instruction& ins = find_instruction(Arch::sm90, "wgmma.m64nNk32", r.fmt, FormatId::fp32);
    const Bits d = run_both(ins, enc_vec(r.a, r.fmt, 32), enc_vec(r.b, r.fmt, 32), enc(r.c, FormatId::fp32));
    CHECK_MESSAGE(d == enc(r.expect, FormatId::fp32), r.id << ": got " << format_hexfloat(d, FormatId::fp32));
  }
  // Mixed e4m3 x e5m2 is one instruction too.
  const Instruction& mix = find_instruction(Arch::sm90, "wgmma.m64n256k32", FormatId::e4m3, FormatId::e5m2, FormatId::fp32);
  CHECK(run_both(mix, enc_vec({1, 0x1p-6}, FormatId::e4m3, 32), enc_vec({1, 0x1p-7}, FormatId::e5m2, 32), 0) ==
        enc(1 + 0x1p-13, FormatId::fp32));
}

TEST_CASE("spec 4.2 Eq. 10 on FP64 DMMA: chained IEEE FMAs give -0.875") {
  for (Arch arch : {Arch::sm80, Arch::sm90}) {
    const Instruction& ins = find_instruction(arch, "mma.m8n8k4", FormatId::fp64, FormatId::fp64);
    const auto a = enc_vec({-0x1p13, -.5, -.25, -.125}, FormatId::fp64, 4);
    const auto b = enc_vec({0x1p10, 1, 1, 1}, FormatId::fp64, 4);
    CHECK(dot(ins, a, b, enc(0x1p23, FormatId::fp64)) == enc(-0.875, FormatId::fp64));
  }
}
