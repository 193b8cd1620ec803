// sm_86, sm_89, sm_100, sm_120 (issue 12 section 1): GPU names, the instruction table with the
// Khattak-Mikaitis parameters, FP8 on mma.sync / tcgen05, FP8 with an FP16 accumulator, and
// instructions an architecture lacks.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "numerics/golden_io.h"
#include "numerics_test_util.h"

using namespace tcsim;
using namespace tcsim::num;
using tcsim::num::test::enc;
using tcsim::num::test::enc_vec;
using tcsim::num::test::input_error;
using tcsim::num::test::run_both;

TEST_CASE("architecture and GPU names: sm_86, sm_89, sm_100, sm_120") {
  CHECK(parse_arch("sm_86") == Arch::sm86);
  CHECK(parse_arch("89") == Arch::sm89);
  CHECK(parse_arch("sm_100a") == Arch::sm100);
  CHECK(parse_arch("SM120") == Arch::sm120);
  CHECK(parse_arch("A10") == Arch::sm86);
  CHECK(parse_arch("NVIDIA A10G") == Arch::sm86);
  CHECK(parse_arch("A2") == Arch::sm86);
  CHECK(parse_arch("GeForce RTX 3090") == Arch::sm86);
  CHECK(parse_arch("L4") == Arch::sm89);
  CHECK(parse_arch("L40S") == Arch::sm89);
  CHECK(parse_arch("NVIDIA GeForce RTX 4090") == Arch::sm89);
  CHECK(parse_arch("RTX4090") == Arch::sm89);
  CHECK(parse_arch("Ada") == Arch::sm89);
  CHECK(parse_arch("B200") == Arch::sm100);
  CHECK(parse_arch("RTX PRO 6000") == Arch::sm120);
  CHECK(parse_arch("RTXPRO6000") == Arch::sm120);
  CHECK(parse_arch("NVIDIA RTX PRO 6000 Blackwell Server Edition") == Arch::sm120);
  CHECK(parse_arch("Quadro RTX 6000") == Arch::sm75);
  CHECK(parse_arch("NVIDIA A100-SXM4-40GB") == Arch::sm80);  // not A10
  CHECK(parse_arch("A30") == Arch::sm80);
  CHECK_FALSE(parse_arch("X7").has_value());
  CHECK_FALSE(input_error([] { parse_arch_or_throw("RTX 9999 Ti", "--arch"); }).empty());
  CHECK(arch_gpu_name(Arch::sm120) == "RTX PRO 6000");
  CHECK(all_archs().size() == 8);
  // the tc-golden reader takes the GPU from file names such as a_Ada_fp16.txt / a_B200_E4M3.txt
  CHECK(gpu_arch("Ada") == Arch::sm89);
  CHECK(gpu_arch("L40S") == Arch::sm89);
  CHECK(gpu_arch("B200") == Arch::sm100);
  CHECK(gpu_arch("A2") == Arch::sm86);
  CHECK(gpu_arch("RTXPRO6000") == Arch::sm120);
}

TEST_CASE("instruction table: sm_86 / sm_89 / sm_100 / sm_120 parameters (MATLAB-tensor-core models)") {
  const test::InstructionWant wants[] = {
      // A2TC.m = A100TC.m; AdaTC.m / L40STC.m fp16/bf16 fma 8, neab 1, tf32 fma 4
      {Arch::sm86, "mma.m16n8k16", FormatId::fp16, FormatId::fp32, 24, 8, -132, OutMode::rz_fp32},
      {Arch::sm86, "mma.m16n8k8", FormatId::tf32, FormatId::fp32, 24, 4, -132, OutMode::rz_fp32},
      {Arch::sm89, "mma.m16n8k16", FormatId::bf16, FormatId::fp32, 24, 8, -132, OutMode::rz_fp32},
      {Arch::sm89, "mma.m16n8k16", FormatId::fp16, FormatId::fp16, 24, 8, -21, OutMode::rne_fp16},
      // Ada fp8: fma 16, neab -10 (F = 13), output 13 fraction bits; fp16 output RNE
      {Arch::sm89, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32, 13, 16, -133, OutMode::rz_e8m13},
      {Arch::sm89, "mma.m16n8k32", FormatId::e5m2, FormatId::fp16, 13, 16, -133, OutMode::rne_fp16},
      // H100TC.m fp8 on mma.sync: fma 32, neab -10
      // ... but ptxas lowers sm_90 fp8 mma.sync to f16 HMMAs (SASS; measured on an H100): the
      // f16 instruction's F and L (Lowering::fp8_via_hmma_f16, checked in test_h100_measured.cpp)
      {Arch::sm90, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32, 25, 16, -133, OutMode::rz_fp32},
      {Arch::sm90, "wgmma.m64nNk32", FormatId::e4m3, FormatId::fp16, 13, 32, -133, OutMode::rne_fp16},
      // B200TC.m: fma 16, neab 2; tf32 fma 8; fp8 fma 32, neab 2, FP32 result
      {Arch::sm100, "tcgen05.mma.kind::f16", FormatId::fp16, FormatId::fp32, 25, 16, -133, OutMode::rz_fp32},
      {Arch::sm100, "tcgen05.mma.kind::tf32", FormatId::tf32, FormatId::fp32, 25, 8, -133, OutMode::rz_fp32},
      {Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e5m2, FormatId::fp32, 25, 32, -133, OutMode::rz_fp32},
      {Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e4m3, FormatId::fp16, 25, 32, -133, OutMode::rz_fp32_rne_fp16},
      {Arch::sm100, "mma.m16n8k16", FormatId::fp16, FormatId::fp16, 25, 16, -22, OutMode::rne_fp16},
      // RTXPRO6000TC.m calls B200TC.m
      {Arch::sm120, "mma.m16n8k16", FormatId::bf16, FormatId::fp32, 25, 16, -133, OutMode::rz_fp32},
      {Arch::sm120, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32, 25, 32, -133, OutMode::rz_fp32},
  };
  for (const auto& w : wants) test::check_instruction(w);
  // mixed fp8 operands exist; the default instruction follows the architecture
  CHECK(find_instruction(Arch::sm89, "m16n8k32", FormatId::e4m3, FormatId::e5m2, FormatId::fp32).L == 16);
  CHECK(default_instruction(Arch::sm100, FormatId::e4m3, FormatId::fp32).name == "tcgen05.mma.kind::f8f6f4");
  CHECK(default_instruction(Arch::sm120, FormatId::e4m3, FormatId::fp32).name == "mma.m16n8k32");
  CHECK(default_instruction(Arch::sm89, FormatId::e5m2, FormatId::fp16).name == "mma.m16n8k32");
}

TEST_CASE("instructions an architecture lacks are input errors") {
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm86, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm80, "mma.m16n8k32", FormatId::e5m2, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm90, "tcgen05.mma.kind::f16", FormatId::fp16, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm120, "tcgen05.mma.kind::f16", FormatId::fp16, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm100, "wgmma.m64nNk16", FormatId::fp16, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { default_instruction(Arch::sm86, FormatId::e4m3, FormatId::fp32); }).empty());
  CHECK_FALSE(input_error([] { find_instruction(Arch::sm100, "tcgen05.mma.kind::tf32", FormatId::tf32, FormatId::fp16); }).empty());
}

TEST_CASE("FP8 block length and precision differ between Ada, Hopper and Blackwell") {
  // Block-length probe in e4m3: a_0 = b_0 = 16 (product 2^8), c = -2^8, every other a = b = 2^-4
  // (product 2^-8). With F = 13 the small products of the block that holds the big one truncate
  // away; blocks after it add exactly. Ada (L 16): the second block's 16 products = 2^-4.
  // Hopper wgmma (L 32): one block, +0. Blackwell (F 25, L 32): all 31 small products = 31*2^-8.
  std::vector<double> v(32, 0.0625);
  v[0] = 16;
  const std::vector<Bits> a = enc_vec(v, FormatId::e4m3, 32);
  const Bits c = enc(-256, FormatId::fp32);
  auto run = [&](Arch arch) { return run_both(find_instruction(arch, "mma.m16n8k32", FormatId::e4m3, FormatId::fp32), a, a, c); };
  CHECK(run(Arch::sm89) == enc(0.0625, FormatId::fp32));
  // Hopper's FP8 datapath (L 32, F 13) is wgmma's: one block, +0. Its mma.sync is lowered to two
  // f16 HMMAs (F 25) and an FADD of c: every small product survives, as on Blackwell.
  CHECK(run_both(find_instruction(Arch::sm90, "wgmma.m64nNk32", FormatId::e4m3, FormatId::fp32), a, a, c) == 0);
  CHECK(run(Arch::sm90) == enc(31.0 / 256, FormatId::fp32));
  CHECK(run(Arch::sm120) == enc(31.0 / 256, FormatId::fp32));
  CHECK(run_both(find_instruction(Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e4m3, FormatId::fp32), a, a, c) ==
        enc(31.0 / 256, FormatId::fp32));
  // MMA-Sim Eq. 10 in e5m2 (spec 4.2; Table 8: Ada fp8 0, Hopper fp8 0, Blackwell fp8 -0.75)
  const std::vector<Bits> ea = enc_vec({-8192, -0.5, -0.25, -0.125}, FormatId::e5m2, 32);
  const std::vector<Bits> eb = enc_vec({1024, 1, 1, 1}, FormatId::e5m2, 32);
  const Bits c23 = enc(0x1p23, FormatId::fp32);
  CHECK(run_both(find_instruction(Arch::sm89, "mma.m16n8k32", FormatId::e5m2, FormatId::fp32), ea, eb, c23) == 0);
  CHECK(run_both(find_instruction(Arch::sm90, "mma.m16n8k32", FormatId::e5m2, FormatId::fp32), ea, eb, c23) == 0);
  CHECK(run_both(find_instruction(Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e5m2, FormatId::fp32), ea, eb, c23) ==
        enc(-0.75, FormatId::fp32));
  CHECK(run_both(find_instruction(Arch::sm120, "mma.m16n8k32", FormatId::e5m2, FormatId::fp32), ea, eb, c23) ==
        enc(-0.75, FormatId::fp32));
}

TEST_CASE("FP8 with an FP16 accumulator: Ada/Hopper RNE; Blackwell model and PTX readings") {
  // Exact sum 1 + 2^-11 + 2^-24 (2 - 1 + 2^-11 + 2^-24): direct RNE to fp16 rounds up (above the
  // tie); FP32 RZ first drops 2^-24, leaving the tie 1 + 2^-11, which RNE rounds to 1.
  const std::vector<Bits> a = enc_vec({1, 0x1p-6, 0x1p-12}, FormatId::e5m2, 32);
  const std::vector<Bits> b = enc_vec({2, 0x1p-5, 0x1p-12}, FormatId::e5m2, 32);
  const Bits c = enc(-1, FormatId::fp16);
  const Instruction& bw = find_instruction(Arch::sm100, "tcgen05.mma.kind::f8f6f4", FormatId::e5m2, FormatId::fp16);
  MmaOptions ptx;
  ptx.fp8_f16_rule = Fp8F16Rule::ptx_direct_fp16;
  CHECK(run_both(bw, a, b, c) == 0x3c00);        // B200TC.m: 1
  CHECK(run_both(bw, a, b, c, ptx) == 0x3c01);   // PTX: 1 + 2^-10
  CHECK(run_both(find_instruction(Arch::sm120, "mma.m16n8k32", FormatId::e5m2, FormatId::fp16), a, b, c) == 0x3c00);
  // Ada/Hopper (F = 13): 2^-24 is below the 13-bit window of Emax = 1, the tie rounds to even
  CHECK(run_both(find_instruction(Arch::sm89, "mma.m16n8k32", FormatId::e5m2, FormatId::fp16), a, b, c) == 0x3c00);
  // and 1 + 2^-11 + 2^-12 rounds up from the exact sum on Ada
  const std::vector<Bits> a2 = enc_vec({1, 0x1p-6, 0x1p-6}, FormatId::e5m2, 32);
  const std::vector<Bits> b2 = enc_vec({2, 0x1p-5, 0x1p-6}, FormatId::e5m2, 32);
  CHECK(run_both(find_instruction(Arch::sm89, "mma.m16n8k32", FormatId::e5m2, FormatId::fp16), a2, b2, c) == 0x3c01);
  CHECK(run_both(find_instruction(Arch::sm90, "wgmma.m64nNk32", FormatId::e5m2, FormatId::fp16), a2, b2, c) == 0x3c01);
}
