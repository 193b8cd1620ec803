// The instruction table, special values, integer MMA overflow (wrap and saturate), fp64 DMMA,
// tf32 operand feeds and chaining.
#include <doctest/doctest.h>

#include <bit>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "numerics_test_util.h"

using namespace tcsim;
using namespace tcsim::num;
using tcsim::num::test::enc;
using tcsim::num::test::enc_vec;
using tcsim::num::test::input_error;
using tcsim::num::test::run_both;


TEST_CASE("instruction table: parameters of spec section 1") {
  const test::InstructionWant wants[] = {
      {Arch::sm70, "mma.m8n8k4", FormatId::fp16, FormatId::fp32, 23, 4, -131, OutMode::rz_fp32},
      {Arch::sm70, "mma.m8n8k4", FormatId::fp16, FormatId::fp16, 23, 4, -20, OutMode::rne_fp16},
      {Arch::sm70, "wmma.m16n16k16", FormatId::fp16, FormatId::fp32, 23, 4, -131, OutMode::rz_fp32},
      {Arch::sm75, "mma.m16n8k8", FormatId::fp16, FormatId::fp32, 24, 8, -132, OutMode::rz_fp32},
      {Arch::sm75, "mma.m16n8k8", FormatId::fp16, FormatId::fp16, 24, 8, -21, OutMode::rne_fp16},
      {Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32, 24, 8, -132, OutMode::rz_fp32},
      {Arch::sm80, "mma.m16n8k16", FormatId::bf16, FormatId::fp32, 24, 8, -132, OutMode::rz_fp32},
      {Arch::sm80, "mma.m16n8k8", FormatId::tf32, FormatId::fp32, 24, 4, -132, OutMode::rz_fp32},
      {Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp16, 24, 8, -21, OutMode::rne_fp16},
      {Arch::sm90, "mma.m16n8k16", FormatId::fp16, FormatId::fp32, 25, 16, -133, OutMode::rz_fp32},
      // FP16 accumulation on sm_90: e_zero -21, measured on an H100 (spec/MMA-Sim: -22 and -133)
      {Arch::sm90, "mma.m16n8k16", FormatId::fp16, FormatId::fp16, 25, 16, -21, OutMode::rne_fp16},
      {Arch::sm90, "mma.m16n8k8", FormatId::tf32, FormatId::fp32, 25, 8, -133, OutMode::rz_fp32},
      {Arch::sm90, "wgmma.m64nNk16", FormatId::fp16, FormatId::fp16, 25, 16, -21, OutMode::rne_fp16},
      {Arch::sm90, "wgmma.m64n8k8", FormatId::tf32, FormatId::fp32, 25, 8, -133, OutMode::rz_fp32},
      {Arch::sm90, "wgmma.m64n128k32", FormatId::e4m3, FormatId::fp32, 13, 32, -133, OutMode::rz_e8m13},
      {Arch::sm90, "wgmma.m64nNk32", FormatId::e5m2, FormatId::fp32, 13, 32, -133, OutMode::rz_e8m13},
  };
  for (const auto& w : wants) {
    const Instruction& i = test::check_instruction(w);
    CHECK(i.k % i.L == 0);
    CHECK(i.tf32_truncate == (w.in == FormatId::tf32));
  }
  CHECK(find_instruction(Arch::sm75, "m8n8k16", FormatId::int8, FormatId::int32).out_mode == OutMode::int32_exact);
  CHECK(find_instruction(Arch::sm75, "m8n8k32", FormatId::uint4, FormatId::int4, FormatId::int32).k == 32);
  CHECK(find_instruction(Arch::sm80, "mma.m16n8k32", FormatId::int8, FormatId::int32).k == 32);
  CHECK(find_instruction(Arch::sm90, "wgmma.m64nNk32", FormatId::int8, FormatId::int32).k == 32);
  CHECK(find_instruction(Arch::sm80, "mma.m8n8k4", FormatId::fp64, FormatId::fp64).out_mode == OutMode::fp64_fma);
  CHECK(default_instruction(Arch::sm80, FormatId::fp16, FormatId::fp32).name == "mma.m16n8k16");
  CHECK(default_instruction(Arch::sm70, FormatId::fp16, FormatId::fp32).name == "wmma.m16n16k16");
  CHECK(default_instruction(Arch::sm90, FormatId::e4m3, FormatId::fp32).name == "wgmma.m64nNk32");
  CHECK(instructions(Arch::sm70).size() == 4);
  CHECK(list_instructions(Arch::sm70) == "mma.m8n8k4 f16->f32,f16->f16; wmma.m16n16k16 f16->f32,f16->f16");
}

TEST_CASE("instruction lookup and architecture names: errors list what exists") {
  CHECK(parse_arch("V100") == Arch::sm70);
  CHECK(parse_arch("sm_75") == Arch::sm75);
  CHECK(parse_arch("a100") == Arch::sm80);
  CHECK(parse_arch("sm_90a") == Arch::sm90);
  CHECK(parse_arch("h100") == Arch::sm90);
  CHECK_FALSE(parse_arch("sm_99").has_value());
  CHECK(input_error([] { parse_arch_or_throw("z200", "--arch"); }).find("--arch: unknown architecture or GPU 'z200'") == 0);
  const std::string e1 = input_error([] { find_instruction(Arch::sm70, "mma.m16n8k16", FormatId::fp16, FormatId::fp32, "--instr"); });
  CHECK(e1.find("--instr") == 0);
  CHECK(e1.find("mma.m8n8k4 f16->f32") != std::string::npos);
  const std::string e2 = input_error([] { find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::bf16, FormatId::fp16); });
  CHECK(e2.find("no variant bf16.bf16.f16") != std::string::npos);
  CHECK(input_error([] { find_instruction(Arch::sm90, "wgmma.m64n12k16", FormatId::fp16, FormatId::fp32); }).find("multiple of 8") != std::string::npos);
  CHECK(input_error([] { default_instruction(Arch::sm70, FormatId::bf16, FormatId::fp32); }) != "");
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  const std::vector<Bits> three(3, 0x3c00);
  CHECK(input_error([&] { mma_element(ins, three, three, 0); }).find("K: sm_80 mma.m16n8k16 f16.f16.f32 takes K = 16") == 0);
  const std::vector<Bits> two(2, 0x3c00);
  CHECK(input_error([&] { dot(ins, three, two, 0); }).find("K:") == 0);
}

TEST_CASE("special values: canonical NaN, infinities, inf*0, chaining through inf") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (Arch arch : all_archs())
    for (FormatId acc : {FormatId::fp32, FormatId::fp16}) {
      CAPTURE(arch_name(arch));
      CAPTURE(format_name(acc));
      const Instruction& ins = find_instruction(arch, "wmma.m16n16k16", FormatId::fp16, acc);
      const Bits cnan = canonical_nan(acc);
      auto run = [&](std::vector<double> a, std::vector<double> b, double c) {
        std::vector<Bits> ab(16, 0), bb(16, 0);
        for (std::size_t i = 0; i < a.size(); ++i) ab[i] = from_double(a[i], FormatId::fp16);
        for (std::size_t i = 0; i < b.size(); ++i) bb[i] = from_double(b[i], FormatId::fp16);
        return run_both(ins, ab, bb, from_double(c, acc));
      };
      CHECK(run({nan}, {1}, 0) == cnan);
      CHECK(run({1}, {1}, nan) == cnan);
      CHECK(run({inf}, {0}, 0) == cnan);
      CHECK(run({0}, {-inf}, 0) == cnan);
      CHECK(run({inf}, {1}, -inf) == cnan);
      CHECK(run({inf}, {-2}, 0) == inf_bits(acc, true));
      CHECK(run({inf, 1}, {2, -65504}, 0) == inf_bits(acc, false));
      CHECK(run({1}, {1}, inf) == inf_bits(acc, false));
      // inf in the first block of a chain: later blocks keep it (and add NaN on inf*0)
      CHECK(run({inf, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 0) ==
            inf_bits(acc, false));
      CHECK(run({inf, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -inf}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 0) ==
            cnan);
      // a signalling-like NaN payload input still gives the canonical NaN
      std::vector<Bits> ab(16, 0), bb(16, 0);
      ab[3] = 0x7C01;
      bb[3] = 0x3c00;
      CHECK(run_both(ins, ab, bb, 0) == cnan);
      // exact cancellation gives +0
      CHECK(run({1, -1}, {1, 1}, 0) == 0);
      CHECK(run({-1}, {1}, 1) == 0);
    }
  // FP32 overflow by chaining two blocks (A100 m16n8k16, L = 8): the first block reaches FLT_MAX
  // (RZ, below 2^128), the second pushes past 2^128 -> inf.
  const Instruction& a100 = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::bf16, FormatId::fp32);
  std::vector<Bits> a(16, 0), b(16, 0);
  a[0] = a[1] = enc(0x1p127, FormatId::bf16);
  b[0] = b[1] = enc(0.9921875, FormatId::bf16);
  const Bits first = run_both(a100, a, b, 0);
  CHECK(first == 0x7F7E0000u);  // 2 * 0.9921875 * 2^127 = (1 - 2^-7) * 2^128, exact
  a[8] = enc(0x1p127, FormatId::bf16);
  b[8] = enc(1, FormatId::bf16);
  CHECK(run_both(a100, a, b, 0) == 0x7F800000u);
}

TEST_CASE("subnormals in and out, no flush to zero") {
  // fp16 subnormal products into an fp16 accumulator, and fp32 subnormal results.
  for (Arch arch : all_archs()) {
    const Instruction& h = find_instruction(arch, "wmma.m16n16k16", FormatId::fp16, FormatId::fp16);
    CHECK(run_both(h, enc_vec({0x1p-24, 0x1p-24}, FormatId::fp16, 16), enc_vec({1, 1}, FormatId::fp16, 16), 0) == 0x0002);
    const Instruction& f = find_instruction(arch, "wmma.m16n16k16", FormatId::fp16, FormatId::fp32);
    // 2^-24 * 2^-24 = 2^-48, far above the fp32 subnormal range: exact.
    CHECK(run_both(f, enc_vec({0x1p-24}, FormatId::fp16, 16), enc_vec({0x1p-24}, FormatId::fp16, 16), 0) ==
          enc(0x1p-48, FormatId::fp32));
    // fp32 subnormal c survives
    CHECK(run_both(f, enc_vec({0}, FormatId::fp16, 16), enc_vec({0}, FormatId::fp16, 16), 3) == 3);
  }
  // bf16: products below the fp32 range truncate to 0 / to subnormals (RZ, quantum 2^-149).
  const Instruction& bf = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::bf16, FormatId::fp32);
  CHECK(run_both(bf, enc_vec({0x1p-100}, FormatId::bf16, 16), enc_vec({0x1p-49}, FormatId::bf16, 16), 0) == 1);
  CHECK(run_both(bf, enc_vec({0x1p-100}, FormatId::bf16, 16), enc_vec({0x1p-50}, FormatId::bf16, 16), 0) == 0);
  CHECK(run_both(bf, enc_vec({-0x1.8p-100}, FormatId::bf16, 16), enc_vec({0x1p-49}, FormatId::bf16, 16), 0) == 0x80000001u);
}

TEST_CASE("integer MMA: exact into s32, wrap-around or saturate") {
  const Instruction& s8 = find_instruction(Arch::sm80, "mma.m16n8k32", FormatId::int8, FormatId::int32);
  std::vector<Bits> a(32, int_bits(127, FormatId::int8)), b(32, int_bits(127, FormatId::int8));
  // exact, no overflow
  CHECK(int_value(dot(s8, a, b, int_bits(5, FormatId::int32)), FormatId::int32) == 32 * 127 * 127 + 5);
  // positive overflow
  const Bits cmax = int_bits(INT32_MAX, FormatId::int32);
  const std::int64_t exact = std::int64_t{INT32_MAX} + 32 * 127 * 127;
  MmaOptions wrap, sat;
  sat.int_saturate = true;
  CHECK(dot(s8, a, b, cmax, wrap) == static_cast<std::uint32_t>(exact));
  CHECK(dot(s8, a, b, cmax, sat) == cmax);
  // negative overflow
  std::vector<Bits> an(32, int_bits(-128, FormatId::int8));
  const Bits cmin = int_bits(INT32_MIN, FormatId::int32);
  CHECK(int_value(dot(s8, an, b, cmin, wrap), FormatId::int32) == static_cast<std::int32_t>(static_cast<std::uint32_t>(std::int64_t{INT32_MIN} - 32 * 128 * 127)));
  CHECK(dot(s8, an, b, cmin, sat) == cmin);
  // saturation is per instruction: a chain that overflows and comes back stays clamped
  std::vector<Bits> a2(64, int_bits(127, FormatId::int8)), b2(64, int_bits(127, FormatId::int8));
  for (int k = 32; k < 64; ++k) b2[static_cast<std::size_t>(k)] = int_bits(-127, FormatId::int8);
  CHECK(int_value(dot(s8, a2, b2, cmax, sat), FormatId::int32) == INT32_MAX - 32 * 127 * 127);
  CHECK(dot(s8, a2, b2, cmax, wrap) == cmax);  // wraps out and back
  // mixed signedness and 4-bit formats
  const Instruction& su = find_instruction(Arch::sm80, "mma.m16n8k32", FormatId::int8, FormatId::uint8, FormatId::int32);
  std::vector<Bits> x(32, 0), y(32, 0);
  x[0] = int_bits(-128, FormatId::int8);
  y[0] = int_bits(255, FormatId::uint8);
  CHECK(int_value(dot(su, x, y, 0), FormatId::int32) == -128 * 255);
  const Instruction& s4 = find_instruction(Arch::sm75, "mma.m8n8k32", FormatId::int4, FormatId::uint4, FormatId::int32);
  std::vector<Bits> p(32, int_bits(-8, FormatId::int4)), q(32, int_bits(15, FormatId::uint4));
  CHECK(int_value(dot(s4, p, q, 0), FormatId::int32) == -8 * 15 * 32);
  // the GEMM path gives the same
  CHECK(run_both(s8, a, b, cmax, sat) == cmax);
}

TEST_CASE("fp64 DMMA is a chain of IEEE FMAs in increasing k") {
  const Instruction& d = find_instruction(Arch::sm80, "mma.m8n8k4", FormatId::fp64, FormatId::fp64);
  const std::vector<double> av = {1e16, 1.0, -1e16, 3.0}, bv = {1.0, 1.0, 1.0, 0.5};
  std::vector<Bits> a, b;
  for (double x : av) a.push_back(std::bit_cast<std::uint64_t>(x));
  for (double x : bv) b.push_back(std::bit_cast<std::uint64_t>(x));
  double ref = 0.25;
  for (int k = 0; k < 4; ++k) ref = std::fma(av[static_cast<std::size_t>(k)], bv[static_cast<std::size_t>(k)], ref);
  CHECK(dot(d, a, b, std::bit_cast<std::uint64_t>(0.25)) == std::bit_cast<std::uint64_t>(ref));
  CHECK(ref == 1.5);  // 1e16 + 1 rounds to 1e16 (RNE), then cancels: order matters
}

TEST_CASE("tf32 operand feeds: truncate (hardware), rna (__float_to_tf32), rne") {
  const Instruction& t = find_instruction(Arch::sm80, "mma.m16n8k8", FormatId::tf32, FormatId::fp32);
  std::vector<Bits> a(8, 0), b(8, 0);
  a[0] = std::bit_cast<std::uint32_t>(1.0f + 0.75f * 0x1p-10f);
  b[0] = std::bit_cast<std::uint32_t>(1.0f);
  MmaOptions o;
  CHECK(run_both(t, a, b, 0, o) == std::bit_cast<std::uint32_t>(1.0f));
  o.tf32_feed = Tf32Feed::rna;
  CHECK(run_both(t, a, b, 0, o) == std::bit_cast<std::uint32_t>(1.0f + 0x1p-10f));
  o.tf32_feed = Tf32Feed::rne;
  CHECK(run_both(t, a, b, 0, o) == std::bit_cast<std::uint32_t>(1.0f + 0x1p-10f));
  // the tie 1 + 2^-11: rna rounds away, rne to even
  a[0] = std::bit_cast<std::uint32_t>(1.0f + 0x1p-11f);
  o.tf32_feed = Tf32Feed::rna;
  CHECK(run_both(t, a, b, 0, o) == std::bit_cast<std::uint32_t>(1.0f + 0x1p-10f));
  o.tf32_feed = Tf32Feed::rne;
  CHECK(run_both(t, a, b, 0, o) == std::bit_cast<std::uint32_t>(1.0f));
}

TEST_CASE("chaining: a K that is not a multiple of the instruction is zero-padded") {
  const Instruction& ins = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  std::vector<Bits> a(20, 0x3c00), b(20, 0x3c00);
  CHECK(dot(ins, a, b, 0) == enc(20, FormatId::fp32));
  std::vector<Bits> a16(a.begin(), a.begin() + 16), b16(b.begin(), b.begin() + 16);
  std::vector<Bits> a4(16, 0), b4(16, 0);
  for (int i = 0; i < 4; ++i) a4[static_cast<std::size_t>(i)] = b4[static_cast<std::size_t>(i)] = 0x3c00;
  CHECK(dot(ins, a, b, 0) == mma_element(ins, a4, b4, mma_element(ins, a16, b16, 0)));
}
