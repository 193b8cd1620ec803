// NeuSight kernel CSVs (workload/measured/neusight.h): rows to kernels, host work per call path, errors.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/measured/measured.h"
#include "workload/measured/neusight.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
const std::string kMatmul =
    "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
    "Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K\n";
const std::string kVec =
    "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
    "Block x,Block y,Block z,CUDA Version,B,H\n";
const std::string kConv =
    "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
    "Block x,Block y,Block z,CUDA Version,Kernels,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,"
    "Padding\n";
const std::string kPrefix = ",Tesla V100-PCIE-32GB,p2.1.0,8902,\"k, with comma\",1.3,0.16,1,1,13,256,1,1,cu121,";

std::string error_of(const std::string& text) {
  try {
    parse_neusight(text, "ops.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("neusight: bmm and linear rows are FP32 GEMMs (bmm's N is the reduction)") {
  const auto s = parse_neusight(kMatmul + "bmm,0.5" + kPrefix + ";k,13,27,15,29\n" + "linear,0.25" + kPrefix +
                                    ";k,2,58,13,141\n",
                                "bmm.csv");
  CHECK(s.schema == "neusight-kernels");
  REQUIRE(s.rows.size() == 2);
  const Kernel& b = s.rows[0].kernel;
  CHECK(b.kind == Kernel::Kind::gemm);
  CHECK(b.batch == 13);
  CHECK(b.m == 27);
  CHECK(b.n == 29);  // output B x M x K
  CHECK(b.k == 15);  // N is reduced
  CHECK(b.layout == Layout::NN);
  CHECK(b.a_format == FormatId::fp32);
  CHECK(b.c_format == FormatId::fp32);
  CHECK(s.rows[0].time_s == doctest::Approx(0.5e-3));
  CHECK(s.rows[0].group == "bmm fp32");
  CHECK(s.rows[0].host_calls > 1);  // a cuBLAS call costs more host time than torch.add
  CHECK(s.rows[0].origin == "bmm.csv:2");
  const Kernel& l = s.rows[1].kernel;  // nn.Linear(13, 141) on (2, 58, 13)
  CHECK(l.m == 116);
  CHECK(l.n == 141);
  CHECK(l.k == 13);
  CHECK(l.batch == 1);
  CHECK(l.layout == Layout::NT);
  CHECK(s.rows[1].group == "linear fp32");
  CHECK(s.rows[1].host_calls > s.rows[0].host_calls);  // nn.Linear: a module around addmm
}

TEST_CASE("neusight: vector ops become memory kernels with their bytes and call path") {
  const auto s = parse_neusight(kVec + "add,0.03" + kPrefix + "127,168\n" + "addu,0.03" + kPrefix + "127,168\n" +
                                    "softmax,0.04" + kPrefix + "10,300\n" + "ln,0.06" + kPrefix + "60,272\n" +
                                    "gelu,0.04" + kPrefix + "2,8\n",
                                "vec.csv");
  REQUIRE(s.rows.size() == 5);
  const Kernel& add = s.rows[0].kernel;
  CHECK(add.kind == Kernel::Kind::memory);
  CHECK(add.memory.op == "add");
  CHECK(add.memory.elements == 127 * 168);
  CHECK(add.memory.row_length == 0);
  CHECK(add.bytes_read == 2u * 4u * 127u * 168u);
  CHECK(add.bytes_written == 4u * 127u * 168u);
  CHECK(s.rows[0].host_calls == 1);
  CHECK(s.rows[0].group == "elementwise fp32");
  CHECK(s.rows[1].kernel.bytes_read == 4u * 127u * 168u);  // tensor and a Python scalar
  CHECK(s.rows[1].host_calls > 1);
  const Kernel& sm = s.rows[2].kernel;
  CHECK(sm.memory.op == "softmax");
  CHECK(sm.memory.row_length == 300);
  CHECK(s.rows[2].group == "softmax fp32");
  const Kernel& ln = s.rows[3].kernel;
  CHECK(ln.memory.op == "layer_norm");
  CHECK(ln.bytes_read == 4u * 60u * 272u + 8u * 272u);    // x, gamma, beta
  CHECK(ln.bytes_written == 4u * 60u * 272u + 8u * 60u);  // y, mean, rstd
  CHECK(s.rows[3].group == "layer_norm fp32");
  CHECK(s.rows[3].host_calls > s.rows[2].host_calls);
  CHECK(s.rows[4].kernel.memory.op == "gelu");
}

TEST_CASE("neusight: conv rows are forward NCHW FP32 convolutions") {
  const auto s = parse_neusight(kConv + "conv,0.88" + kPrefix + ";k,38,893,326,3,5,1,1\n", "conv.csv");
  REQUIRE(s.rows.size() == 1);
  const Kernel& c = s.rows[0].kernel;
  CHECK(c.kind == Kernel::Kind::conv);
  CHECK(c.conv.batch == 38);
  CHECK(c.conv.channels == 893);
  CHECK(c.conv.num_filters == 326);
  CHECK(c.conv.filter_h == 3);
  CHECK(c.conv.filter_w == 3);
  CHECK(c.conv.ifmap_h == 5);
  CHECK(c.conv.pad_w == 1);
  CHECK(c.conv.layout == TensorLayout::nchw);
  CHECK(c.pass == Pass::forward);
  CHECK(s.rows[0].group == "conv fwd fp32");
}

TEST_CASE("neusight: under PyTorch 2.1 a conv call's host work grows with the distinct shapes timed before it") {
  // PyTorch 2.1's cuDNN plan cache walks a list of every cached plan on each lookup (neusight.cpp).
  const std::string a = ";k,38,893,326,3,5,1,1\n", b = ";k,2,16,32,3,8,1,1\n", c = ";k,4,16,32,3,8,1,1\n";
  const auto s = parse_neusight(kConv + "conv,0.88" + kPrefix + a + "conv,0.1" + kPrefix + b + "conv,0.88" + kPrefix +
                                    a + "conv,0.1" + kPrefix + c,
                                "conv.csv");
  REQUIRE(s.rows.size() == 4);
  const double step = s.rows[1].host_calls - s.rows[0].host_calls;
  CHECK(step > 0);
  CHECK(s.rows[2].host_calls == doctest::Approx(s.rows[1].host_calls));  // a repeated shape adds no plan
  CHECK(s.rows[3].host_calls - s.rows[2].host_calls == doctest::Approx(step));
  // Other releases (2.2 fixed it) and a file without the column: the same host work on every row.
  std::string later = kPrefix;
  later.replace(later.find("p2.1.0"), 6, "p2.2.0");
  const auto t = parse_neusight(kConv + "conv,0.88" + later + a + "conv,0.1" + later + b, "conv.csv");
  CHECK(t.rows[1].host_calls == doctest::Approx(t.rows[0].host_calls));
  CHECK(t.rows[0].host_calls < s.rows[0].host_calls);
}

TEST_CASE("neusight: bad rows name file, line and column") {
  CHECK(error_of(kVec + "add,0.03" + kPrefix + "127,168\nfoo,0.03" + kPrefix + "1,2\n").find("ops.csv:3: OPName") !=
        std::string::npos);
  CHECK(error_of(kVec + "add,-1" + kPrefix + "127,168\n").find("ops.csv:2: Latency") != std::string::npos);
  CHECK(error_of(kVec + "add,0.03" + kPrefix + "127,0\n").find("ops.csv:2: H") != std::string::npos);
  CHECK(error_of(kMatmul + "bmm,0.5" + kPrefix + ";k,1,2,3,x\n").find("ops.csv:2: K") != std::string::npos);
  // A missing field is a field-count error, not an empty K (issue 13: strict field counts).
  CHECK(error_of(kMatmul + "bmm,0.5" + kPrefix + ";k,1,2,3\n").find("ops.csv:2: expected 20 fields (as the header on line 1), got 19") !=
        std::string::npos);
  CHECK(error_of("OPName,Latency,B\nadd,0.1,3\n").find("ops.csv:1: H") != std::string::npos);
  CHECK(error_of("a,b\n1,2\n").find("not a NeuSight") != std::string::npos);
}

TEST_CASE("neusight: read_measured detects the format by header") {
  const auto dir = tcsim::test::temp_dir("neusight");
  const auto file = dir / "relu.csv";
  std::ofstream(file) << kVec + "relu,0.04" + kPrefix + "100,100\n";
  const MeasuredSet s = read_measured(file);
  CHECK(s.schema == "neusight-kernels");
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].kernel.memory.op == "relu");
}
