#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/csv/op_trace.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
// The message an InputError prints: "where: what".
std::string error_of(const std::string& text) {
  try {
    parse_op_trace(text, "t.csv");
  } catch (const InputError& e) {
    return e.where() + ": " + e.detail();
  }
  return "";
}
const std::string kHeader = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,count\n";
}  // namespace

TEST_CASE("op trace: full rows, comments, defaults and quoting") {
  const std::string text =
      "# a comment\n" + kHeader +
      "qkv,4096,3072,1024,1,f16,f16,f32,f32,NT,24\n"
      "\n"
      "  # indented comment\n"
      "\"scores, batched\",512,512,64,128,bf16,bf16,fp32,fp32,tn,1\r\n"
      "big,2147483648,2147483648,2147483648,1,fp32,fp32,fp32,fp32,TT,1\n";
  auto ks = parse_op_trace(text, "t.csv");
  REQUIRE(ks.size() == 3);
  CHECK(ks[0].name == "qkv");
  CHECK(ks[0].m == 4096);
  CHECK(ks[0].n == 3072);
  CHECK(ks[0].k == 1024);
  CHECK(ks[0].count == 24);
  CHECK(ks[0].layout == Layout::NT);
  CHECK(ks[0].a_format == FormatId::fp16);
  CHECK(ks[0].d_format == FormatId::fp32);
  CHECK(ks[1].name == "scores, batched");
  CHECK(ks[1].batch == 128);
  CHECK(ks[1].a_format == FormatId::bf16);
  CHECK(ks[1].layout == Layout::TN);
  CHECK(ks[2].m == (std::int64_t{1} << 31));
  // 2^31 cubed does not fit an int64, but the flop count (a double) is exact.
  CHECK(ks[2].flops() == doctest::Approx(2.0 * 9.903520314283042e27));
}

TEST_CASE("op trace: optional columns take documented defaults; header order is free") {
  auto ks = parse_op_trace("K,M,N\n3,1,2\n", "t.csv");
  REQUIRE(ks.size() == 1);
  CHECK(ks[0].m == 1);
  CHECK(ks[0].n == 2);
  CHECK(ks[0].k == 3);
  CHECK(ks[0].name == "row2");
  CHECK(ks[0].batch == 1);
  CHECK(ks[0].count == 1);
  CHECK(ks[0].layout == Layout::NN);
  CHECK(ks[0].a_format == FormatId::fp16);
  CHECK(ks[0].c_format == FormatId::fp32);
  // c_format alone sets the accumulator of both c and d
  auto k2 = parse_op_trace("m,n,k,c_format\n8,8,8,f16\n", "t.csv");
  CHECK(k2[0].d_format == FormatId::fp16);
}

TEST_CASE("op trace: bad rows name file, line and field") {
  CHECK(error_of(kHeader + "a,0,8,8,1,f16,f16,f32,f32,NN,1\n") ==
        "t.csv:2: m: expected an integer in [1, 2147483648], got 0");
  CHECK(error_of(kHeader + "a,8,-8,8,1,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:2: n: expected an integer"));
  CHECK(error_of("# c\n" + kHeader + "a,8,8,x8,1,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:3: k: expected an integer"));
  CHECK(error_of(kHeader + "a,8,8,8.5,1,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:2: k:"));
  CHECK(error_of(kHeader + "a,2147483649,8,8,1,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:2: m:"));
  CHECK(error_of(kHeader + "a,99999999999999999999999,8,8,1,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:2: m:"));
  CHECK(error_of(kHeader + "a,8,8,8,0,f16,f16,f32,f32,NN,1\n").starts_with("t.csv:2: batch:"));
  CHECK(error_of(kHeader + "a,8,8,8,1,f17,f16,f32,f32,NN,1\n").starts_with("t.csv:2: a_format: unknown number format 'f17'"));
  CHECK(error_of(kHeader + "a,8,8,8,1,f16,f16,f32,f32,XN,1\n") ==
        "t.csv:2: layout: unknown layout 'XN'; expected NN, NT, TN or TT");
  CHECK(error_of(kHeader + "a,8,8,8,1,f16,f16,f32,f32,NN,-1\n").starts_with("t.csv:2: count:"));
  CHECK(error_of(kHeader + "a,8,8,8,1,f16,f16,f32,f32,NN\n").starts_with("t.csv:2: expected 11 fields"));
  CHECK(error_of("m,n,kk\n1,2,3\n").starts_with("t.csv:1: kk: unknown column"));
  CHECK(error_of("m,n\n1,2\n").starts_with("t.csv:1: k: missing column"));
  CHECK(error_of("# only a comment\n") == "t.csv: empty CSV: expected a header line");
  CHECK(error_of("m,n,k\n\"1,2,3\n").starts_with("t.csv:2: unterminated quoted field"));
}

TEST_CASE("op trace: format_op_trace round-trips") {
  std::vector<Kernel> ks = {make_gemm("a,b", 16, 32, 64), make_gemm("c", 1, 2, 3, FormatId::fp32, FormatId::fp32)};
  ks[0].batch = 4;
  ks[0].layout = Layout::TN;
  ks[0].count = 7;
  auto back = parse_op_trace(format_op_trace(ks, {"made by a test"}), "rt.csv");
  REQUIRE(back.size() == 2);
  CHECK(back[0].name == "a,b");
  CHECK(back[0].batch == 4);
  CHECK(back[0].layout == Layout::TN);
  CHECK(back[0].count == 7);
  CHECK(back[1].a_format == FormatId::fp32);
}

TEST_CASE("op trace: missing file") {
  CHECK_THROWS_WITH_AS(read_op_trace("/nonexistent/x.csv"), "/nonexistent/x.csv: file not found", InputError);
}

TEST_CASE("op trace: the shipped traces parse") {
  for (const char* name : {"deepbench.csv", "square.csv", "transformer_layer.csv"}) {
    CAPTURE(name);
    auto ks = read_op_trace(tcsim::test::source_dir() / "traces" / "gemm" / name);
    CHECK(!ks.empty());
  }
  CHECK(read_op_trace(tcsim::test::source_dir() / "traces/gemm/deepbench.csv").size() == 160);
  CHECK(read_op_trace(tcsim::test::source_dir() / "traces/gemm/square.csv").size() == 7);
}

TEST_CASE("op trace: the sparsity and warm_l2 columns, their errors and their round trip") {
  const std::string h = "m,n,k,a_format,b_format,c_format,sparsity,warm_l2\n";
  auto ks = parse_op_trace(h + "8,8,8,s4,s4,s32,2:4,1\n8,8,8,b1,b1,s32,dense,0\n8,8,8,e4m3,e4m3,f32,,\n", "t.csv");
  REQUIRE(ks.size() == 3);
  CHECK(ks[0].sparse_a);
  CHECK(ks[0].l2_warm);
  CHECK(ks[0].a_format == FormatId::int4);
  CHECK_FALSE(ks[1].sparse_a);
  CHECK_FALSE(ks[1].l2_warm);
  CHECK(ks[1].a_format == FormatId::b1);
  CHECK_FALSE(ks[2].sparse_a);
  CHECK(error_of(h + "8,8,8,s8,s8,s32,1:4,0\n") == "t.csv:2: sparsity: expected dense or 2:4 (A 2:4 structured sparse), got '1:4'");
  CHECK(error_of(h + "8,8,8,s8,s8,s32,2:4,yes\n") == "t.csv:2: warm_l2: expected 0 or 1 (true or false), got 'yes'");
  // Written only when some kernel needs them, and read back.
  CHECK(format_op_trace({make_gemm("d", 8, 8, 8)}).find("sparsity") == std::string::npos);
  auto back = parse_op_trace(format_op_trace(ks), "rt.csv");
  REQUIRE(back.size() == 3);
  CHECK(back[0].sparse_a);
  CHECK(back[0].l2_warm);
  CHECK_FALSE(back[1].sparse_a);
}
