// The emulator against the MMA results measured on an H100 (validation/measured/H100/mma*.tar.xz,
// mma_probe on an "NVIDIA H100 80GB HBM3", CUDA 13.0, 2026-11-26) and an H200 (validation/measured/
// H200/mma.tar.xz, 2026-11-27), bit for bit: every probe case, plus the rows that pinned down the
// sm_90 rules the H100 run corrected.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "numerics/mma/arch.h"
#include "numerics/golden_io.h"
#include "numerics/mma/mma.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace tcsim;
using namespace tcsim::num;

namespace {

Bits dot_bits(Arch arch, const char* instr, FormatId in, FormatId acc, const std::vector<Bits>& a,
              const std::vector<Bits>& b, Bits c) {
  return mma_element(find_instruction(arch, instr, in, acc), a, b, c);
}

// fp16 bit pattern of 2^e (normal or subnormal), e in [-24, 15].
Bits f16_pow2(int e) { return e >= -14 ? Bits((e + 15) << 10) : Bits(1) << (e + 24); }

}  // namespace

TEST_CASE("H100: e_zero of an FP16 accumulator is -21 (mma.sync and wgmma), as measured") {
  // validation/measured/H100 mma_m16n8k16_f16_f16__discriminating lines 43..54 (and the wgmma and
  // m16n8k8 cases): a = (2^-11, 2^x), b = (2^-14, 2^-24), c = +0 -> 2^-24 down to x = -22, +0 from
  // x = -23 (MMA-Sim's e_zero = -22 would still give 2^-24 at x = -23).
  for (const char* instr : {"mma.m16n8k16", "mma.m16n8k8", "wgmma.m64nNk16"}) {
    CAPTURE(instr);
    const Instruction& ins = find_instruction(Arch::sm90, instr, FormatId::fp16, FormatId::fp16);
    CHECK(ins.e_zero == -21);
    std::vector<Bits> a(ins.k, 0), b(ins.k, 0);
    a[0] = f16_pow2(-11);
    b[0] = f16_pow2(-14);
    b[1] = f16_pow2(-24);
    a[1] = f16_pow2(-22);
    CHECK(mma_element(ins, a, b, 0) == 0x0001);
    a[1] = f16_pow2(-23);
    CHECK(mma_element(ins, a, b, 0) == 0x0000);
  }
  // An FP32 accumulator keeps -108-F.
  CHECK(find_instruction(Arch::sm90, "mma.m16n8k16", FormatId::fp16, FormatId::fp32).e_zero == -133);
}

TEST_CASE("H100: mma.sync FP8 runs as two f16 HMMA.16816 (k mod 4 split) and an FADD with c") {
  const Instruction& ins = find_instruction(Arch::sm90, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32);
  CHECK(ins.lowering == Lowering::fp8_via_hmma_f16);
  CHECK(ins.F == 25);
  CHECK(ins.L == 16);
  // mma_m16n8k32_e4m3_f32__random_normal line 1 (e4m3 values; fp32 c): the hardware keeps full FP32
  // precision (0xc509a4cc); the wgmma-style e8m13 model gave 0xc509a400.
  const std::vector<double> av = {0.234375, 0.029296875, -0.021484375, -1.125, 112, -0.203125, 0.078125, -0.1875,
                                  -0.078125, 11, 0.0546875, 22, -112, -0.0703125, 15, 0.203125,
                                  -44, 6.5, -18, -1.25, 0.1015625, 0.4375, 1.375, -0.0703125,
                                  0.28125, -96, -0.046875, 0.025390625, -0.05859375, -0.017578125, -11, 0.0859375};
  const std::vector<double> bv = {-0.029296875, -80, 0.021484375, -1.625, 20, -20, -0.15625, -0.05078125,
                                  0.9375, -1.625, -1.5, -88, 16, -0.25, -4.5, -0.8125,
                                  -0.125, 0.625, -0.171875, -9, 3.75, -60, -0.75, -0.140625,
                                  -0.0546875, -0.25, 0.03515625, -7.5, -0.0546875, -5, 64, -0.203125};
  std::vector<Bits> a, b;
  for (double v : av) a.push_back(from_double(v, FormatId::e4m3));
  for (double v : bv) b.push_back(from_double(v, FormatId::e4m3));
  CHECK(mma_element(ins, a, b, 0x424bd61d) == 0xc509a4cc);
  // The wgmma datapath keeps its own rule (F = 13, e8m13), also measured: a different result.
  const Instruction& wg = find_instruction(Arch::sm90, "wgmma.m64nNk32", FormatId::e4m3, FormatId::fp32);
  CHECK(wg.lowering == Lowering::none);
  CHECK(mma_element(wg, a, b, 0x424bd61d) != 0xc509a4cc);
  // Which k go to which HMMA (k mod 4 in {0,1} first) is what the whole-file test below checks:
  // the plain split k 0-15 / 16-31 gives 440 of 1000 random_normal rows wrong.
}

TEST_CASE("H100: mma.m8n8k4 f16 runs on the CUDA cores (FP32 FFMA chain, RNE)") {
  const std::vector<Bits> big = {0x7400, 0x0040, 0x0040, 0x0040};  // 2^14, then 2^-18 (fp16 subnormal)
  const std::vector<Bits> one = {0x3c00, 0x3c00, 0x3c00, 0x3c00};
  // mma_m8n8k4_f16_f16__adversarial line 55 (block probe j = 0): products 2^14, 2^-18 x3, c = -2^14
  // -> 2^-17: (c + (2^14 + 2^-18)) + (2^-18 + 2^-18), every step FP32 RNE.
  CHECK(dot_bits(Arch::sm90, "mma.m8n8k4", FormatId::fp16, FormatId::fp16, big, one, 0xf400) == 0x0080);
  // .f32: one chain from +0 in k order, then FADD c: 2^14 + 2^-18 loses the 2^-18 terms -> +0.
  CHECK(dot_bits(Arch::sm90, "mma.m8n8k4", FormatId::fp16, FormatId::fp32, big, one, 0xc6800000) == 0);
  // adversarial line 41: all products -0, c = -0 -> -0 in .f16 (the pairs start with a product).
  const std::vector<Bits> mz = {0x8000, 0x8000, 0x8000, 0x8000};
  CHECK(dot_bits(Arch::sm90, "mma.m8n8k4", FormatId::fp16, FormatId::fp16, mz, one, 0x8000) == 0x8000);
}

// Every probe case of one board's tarballs (validation/measured/<board>/), reproduced bit for bit.
static void check_measured_board(const char* board, std::vector<const char*> tarballs, std::size_t want_cases) {
  const fs::path tmp = test::temp_dir(std::string(board) + "_mma");
  for (const char* name : tarballs) {
    const fs::path tarball = test::source_dir() / "validation/measured" / board / name;
    REQUIRE(fs::exists(tarball));
    const std::string cmd = "tar -xJf '" + tarball.string() + "' -C '" + tmp.string() + "'";
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "could not unpack " << tarball << " (needs tar and xz)");
  }
  std::size_t cases = 0, rows = 0, fp64 = 0;
  for (const fs::path& dir : find_golden_cases(tmp)) {
    CAPTURE(dir.filename().string());
    if (fs::exists(dir / ("a_" + std::string(board) + "_fp64.txt"))) {  // DMMA files (16 hex digits): not the tc-golden layout
      ++fp64;
      continue;
    }
    GoldenCase gc = read_golden_case(dir);
    const auto tool = gc.meta.get("tool");
    REQUIRE((tool && *tool == "mma_probe"));
    MmaOptions mopt;
    mopt.int_saturate = gc.meta.get("satfinite").value_or("false") == "true";
    for (const GoldenOutput& out : gc.outputs) {
      const GoldenPlan plan = plan_golden(gc, out.acc, GoldenOptions{{}, {}, mopt});
      const std::vector<std::uint32_t> got = emulate_golden(gc, plan, mopt);
      REQUIRE(got.size() == out.d.size());
      std::size_t bad = 0, first = 0;
      for (std::size_t r = 0; r < got.size(); ++r)
        if (got[r] != out.d[r] && !bad++) first = r + 1;
      INFO(out.file.filename().string() << ": first mismatch at line " << first);
      CHECK(bad == 0);
      rows += got.size();
    }
    ++cases;
  }
  fs::remove_all(tmp);
  CHECK(cases == want_cases);
  CHECK(fp64 == 7);
  CHECK(rows > 100000);
}

TEST_CASE("every MMA sample measured on the H100 is reproduced bit for bit") {
  // mma.tar.xz: the first call's whole probe; mma_sp_fp8.tar.xz: the sparse FP8 variants added after.
  check_measured_board("H100", {"mma.tar.xz", "mma_sp_fp8.tar.xz"}, 226);
}

TEST_CASE("every MMA sample measured on the H200 is reproduced bit for bit") {
  // The same GH100 SM, probed in one call with the sparse FP8 variants (2026-11-27): held out, no
  // rule was changed for it.
  check_measured_board("H200", {"mma.tar.xz"}, 226);
}

TEST_CASE("H100: sparse FP8 mma.sp.m16n8k64 is lowered like the dense one, over its kept values") {
  const Instruction& ins = find_instruction(Arch::sm90, "mma.sp.m16n8k64", FormatId::e4m3, FormatId::fp32);
  CHECK(ins.sparse);
  CHECK(ins.lowering == Lowering::fp8_via_hmma_f16);
  CHECK(ins.F == 25);
  CHECK(ins.L == 16);
  // The Ada instruction keeps the FP8 datapath (L 16, F 13).
  const Instruction& ada = find_instruction(Arch::sm89, "mma.sp.m16n8k64", FormatId::e4m3, FormatId::fp32);
  CHECK(ada.lowering == Lowering::none);
  CHECK(ada.F == 13);
}
