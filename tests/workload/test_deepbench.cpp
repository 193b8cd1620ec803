#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/measured/deepbench.h"
#include "workload/measured/measured.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
const std::string kGemmHeader = "source,M,N,K,A Transpose,B Transpose,Time (msec),TERAFLOPS\n";
const std::string kConvHeader =
    "source,W,H,C,N,K,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,Vertical stride,"
    "Forward (msec),wrt Inputs (msec),wrt Parameters (msec),P,Q,Total Time (msec),FWD TERAFLOPS,"
    "BWD INPUTS TERAFLOPS,BWD PARMS TERAFLOPS,Forward Algorithm\n";
std::string error_of(const std::string& text, const std::string& name = "x_fp16_gemm.csv") {
  try {
    parse_deepbench(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("deepbench: GEMM rows, precision, padding and layout mapping") {
  const std::string text = kGemmHeader +
                           "DeepSpeech,1760,16,1760,N,N,0.02,4.9\n"
                           "DeepSpeech,35,8457,1760,N,T,0.083,12.5\n"
                           "Language Modelling,512,8,500000,T,N,1.5,2.7\n";
  auto half = parse_deepbench(text, "v100_train_fp16_dense_matrix_multiplication.csv");
  CHECK(half.schema == "deepbench-gemm");
  REQUIRE(half.rows.size() == 3);
  const Kernel& a = half.rows[0].kernel;
  CHECK(a.m == 1760);
  CHECK(a.n == 16);
  CHECK(a.a_format == FormatId::fp16);
  CHECK(a.c_format == FormatId::fp32);
  CHECK(a.layout == Layout::TT);  // column-major N,N
  CHECK(half.rows[0].time_s == doctest::Approx(20e-6));
  CHECK(half.rows[0].origin == "v100_train_fp16_dense_matrix_multiplication.csv:2");
  CHECK(half.rows[0].group == "gemm fp16");
  CHECK(a.cublas_version == doctest::Approx(10.2));  // CUDA 10.1's cuBLAS: the odd-size rule of its era
  const Kernel& b = half.rows[1].kernel;
  CHECK(b.m == 40);  // padded to a multiple of 8
  CHECK(b.n == 8464);
  CHECK(b.name == "DeepSpeech_35x8457x1760_NT");
  CHECK(b.layout == Layout::TN);
  CHECK(half.rows[2].kernel.layout == Layout::NT);  // cuBLAS's TN
  CHECK(half.rows[2].kernel.name == "Language_Modelling_512x8x500000_TN");

  auto single = parse_deepbench(text, "v100_train_fp32_dense_matrix_multiplication.csv");
  CHECK(single.rows[1].kernel.m == 35);  // fp32 is not padded
  CHECK(single.rows[1].kernel.a_format == FormatId::fp32);
  CHECK(single.rows[1].kernel.d_format == FormatId::fp32);
  CHECK(single.rows[1].group == "gemm fp32");

  auto forced = parse_deepbench(text, "gemm.csv", DeepBenchPrecision::fp32);
  CHECK(forced.rows[0].kernel.a_format == FormatId::fp32);
  CHECK(error_of(text, "gemm.csv").find("cannot tell the DeepBench precision") != std::string::npos);
}

TEST_CASE("deepbench: conv rows become one kernel per measured pass") {
  const std::string text = kConvHeader +
                           "DeepSpeech,700,161,1,4,32,20,5,0,0,2,2,0.591,N/A*,1.028,341,79,1.619,1.1,N/A*,0.67,X\n"
                           "Vision,28,28,256,8,512,3,3,1,1,1,1,0.186,0.232,0.170,28,28,0.588,79.6,1,1,Y\n";
  auto s = parse_deepbench(text, "v100_train_fp16_convolution.csv");
  CHECK(s.schema == "deepbench-conv");
  REQUIRE(s.rows.size() == 5);
  const Kernel& fwd = s.rows[0].kernel;
  CHECK(fwd.kind == Kernel::Kind::conv);
  CHECK(fwd.pass == Pass::forward);
  CHECK(fwd.conv.ifmap_w == 700);
  CHECK(fwd.conv.ifmap_h == 161);
  CHECK(fwd.conv.channels == 8);  // padded from 1
  CHECK(fwd.conv.filter_w == 20);
  CHECK(fwd.conv.filter_h == 5);
  CHECK(fwd.conv.stride_w == 2);
  CHECK(fwd.conv.out_w() == 341);
  CHECK(fwd.conv.out_h() == 79);
  CHECK(s.rows[1].kernel.pass == Pass::weight_grad);  // the data-grad time was N/A*
  CHECK(s.rows[1].group == "conv wgrad fp16");
  CHECK(s.rows[2].kernel.conv.out_h() == 28);
  CHECK(s.rows[3].kernel.pass == Pass::data_grad);
  CHECK(s.rows[3].time_s == doctest::Approx(0.232e-3));
  CHECK(s.rows[4].kernel.pass == Pass::weight_grad);
  CHECK(s.rows[2].kernel.name == "Vision_28x28x256_n8_k512_3x3_s1_fwd");
}

TEST_CASE("deepbench: bad rows name file, line and column") {
  CHECK(error_of(kGemmHeader + "x,0,16,1760,N,N,0.02,4.9\n") ==
        "x_fp16_gemm.csv:2: M: expected an integer in [1, 2147483648], got 0");
  CHECK(error_of(kGemmHeader + "x,16,abc,1760,N,N,0.02,4.9\n").starts_with("x_fp16_gemm.csv:2: N: expected an integer"));
  CHECK(error_of(kGemmHeader + "x,16,16,16,Q,N,0.02,4.9\n") == "x_fp16_gemm.csv:2: A Transpose: expected N or T, got 'Q'");
  CHECK(error_of(kGemmHeader + "x,16,16,16,N,N,-1,4.9\n").starts_with("x_fp16_gemm.csv:2: Time (msec): expected a positive"));
  CHECK(error_of(kConvHeader + "V,28,28,256,8,512,3,3,-1,1,1,1,0.1,0.2,0.1,28,28,0.5,1,1,1,Y\n")
            .starts_with("x_fp16_gemm.csv:2: pad_w:"));
  CHECK(error_of(kConvHeader + "V,2,2,256,8,512,9,3,0,0,1,1,0.1,0.2,0.1,28,28,0.5,1,1,1,Y\n")
            .starts_with("x_fp16_gemm.csv:2: S (Filter width): filter wider"));
  CHECK(error_of("a,b,c\n1,2,3\n").starts_with("x_fp16_gemm.csv:1: not a DeepBench"));
}

TEST_CASE("deepbench: the shared V100 CSVs") {
  const auto dir = tcsim::test::shared_dir();
  if (dir.empty()) {
    MESSAGE("shared/ not found: skipping the DeepBench files");
    return;
  }
  const auto db = dir / "data" / "deepbench";
  for (const char* p : {"fp16", "fp32"}) {
    CAPTURE(p);
    auto g = read_measured(db / ("v100_train_" + std::string(p) + "_dense_matrix_multiplication.csv"));
    CHECK(g.rows.size() == 160);
    auto c = read_measured(db / ("v100_train_" + std::string(p) + "_convolution.csv"));
    CHECK(c.rows.size() > 94);
    CHECK(c.rows.size() <= 3 * 94);
  }
  // The spec's example: 4096x7000x4096 NN fp16 in 2.092 ms (112.3 TF with the sheet's shape).
  auto g = read_deepbench(db / "v100_train_fp16_dense_matrix_multiplication.csv");
  bool found = false;
  for (const auto& r : g.rows)
    if (r.kernel.name == "DeepSpeech_4096x7000x4096_NN") {
      found = true;
      CHECK(r.time_s == doctest::Approx(2.092e-3));
      CHECK(r.kernel.flops() / r.time_s / 1e12 == doctest::Approx(112.3).epsilon(0.01));
    }
  CHECK(found);
}
