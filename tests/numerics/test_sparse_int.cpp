// 2:4 structured sparsity (metadata, magnitude pruning, mma.sp numerics) and the INT4 / 1-bit MMA
// (issue 12 section 2).
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "numerics/sparse/structured.h"
#include "numerics_test_util.h"

using namespace tcsim;
using namespace tcsim::num;
using tcsim::num::test::enc;
using tcsim::num::test::enc_vec;
using tcsim::num::test::input_error;
using tcsim::num::test::run_both;

namespace {
BitMatrix row_matrix(const std::vector<Bits>& v) {
  BitMatrix m(1, static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) m(0, static_cast<Eigen::Index>(i)) = v[i];
  return m;
}
}  // namespace

TEST_CASE("2:4 metadata: the six valid nibbles, packing into 32-bit words") {
  int valid = 0;
  for (int n = 0; n < 16; ++n) valid += valid_meta_nibble(static_cast<std::uint8_t>(n));
  CHECK(valid == 6);
  CHECK(meta_nibble(0, 1) == 0x4);
  CHECK(meta_nibble(1, 3) == 0xD);
  CHECK(meta_nibble(2, 3) == 0xE);
  CHECK_FALSE(valid_meta_nibble(0x5));  // i0 == i1
  CHECK_FALSE(valid_meta_nibble(0x3));  // i0 > i1
  CHECK_FALSE(valid_meta_nibble(0x0));
  // a row of 9 groups needs two words; group 0 in the low nibble
  BitMatrix vals = BitMatrix::Zero(1, 18);
  std::vector<std::uint8_t> meta = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE, 0x4, 0x4, 0xE};
  const Sparse24 s = make_sparse_24(FormatId::fp16, 1, 36, vals, meta);
  const auto w = metadata_words(s, 0);
  REQUIRE(w.size() == 2);
  CHECK(w[0] == 0x44ED9C84u);
  CHECK(w[1] == 0xEu);
  // not 2:4: an input error naming row and group
  std::vector<std::uint8_t> bad = meta;
  bad[3] = 0x5;
  const std::string e = input_error([&] { make_sparse_24(FormatId::fp16, 1, 36, vals, bad, "A.meta"); });
  CHECK(e.find("A.meta row 0 group 3") == 0);
  CHECK(e.find("not 2:4") != std::string::npos);
  CHECK(input_error([&] { make_sparse_24(FormatId::fp16, 1, 34, vals, meta); }).find("multiple of 4") != std::string::npos);
}

TEST_CASE("2:4 magnitude pruning keeps the two largest |a| of every four (cuSPARSELt strip rule)") {
  const FormatId f = FormatId::fp16;
  // group 0: -3 and 2 kept (positions 1, 3); group 1: all zero -> positions 0, 1;
  // group 2: ties keep the lower k; K = 10 is padded to 12 with zeros
  std::vector<Bits> row = {enc(0.5, f), enc(-3, f), enc(1, f), enc(2, f), 0, 0, 0, 0, enc(1, f), enc(-1, f)};
  row.resize(10);
  const Sparse24 s = prune_2_4(row_matrix(row), f);
  CHECK(s.cols == 12);
  CHECK(s.nibble(0, 0) == 0xD);
  CHECK(s.values(0, 0) == enc(-3, f));
  CHECK(s.values(0, 1) == enc(2, f));
  CHECK(s.nibble(0, 1) == 0x4);
  CHECK(s.nibble(0, 2) == 0x4);
  CHECK(s.values(0, 5) == enc(-1, f));
  const BitMatrix d = densify(s);
  CHECK(d(0, 0) == 0);
  CHECK(d(0, 1) == enc(-3, f));
  CHECK(d(0, 3) == enc(2, f));
  // a NaN is never pruned away
  const Sparse24 n = prune_2_4(row_matrix({enc(4, f), 0x7E00, enc(8, f), enc(1, f)}), f);
  CHECK(n.nibble(0, 0) == meta_nibble(1, 2));
}

TEST_CASE("mma.sp: integers are exact either way; floats follow the block rule") {
  // integers: the sparse GEMM equals the dense GEMM of the pruned matrix, bit for bit
  const Instruction& sp8 = find_instruction(Arch::sm80, "mma.sp.m16n8k64", FormatId::int8, FormatId::int32);
  CHECK(sp8.kept() == 32);
  const BitMatrix A = random_matrix(FormatId::int8, 6, 150, 11, -1e9, 1e9), B = random_matrix(FormatId::int8, 150, 5, 12, -1e9, 1e9);
  const BitMatrix C = random_matrix(FormatId::int32, 6, 5, 13, -1e9, 1e9);
  const Sparse24 S = prune_2_4(A, FormatId::int8);
  const BitMatrix Ap = densify(S).leftCols(150);
  const Instruction& d8 = find_instruction(Arch::sm80, "mma.m16n8k32", FormatId::int8, FormatId::int32);
  GemmOptions go;
  go.threads = 2;
  GemmOptions god = go;
  god.mma.sparse_blocks = SparseBlocks::dense;
  CHECK((sparse_gemm(sp8, S, B, C, go).array() == gemm(d8, Ap, B, C, go).array()).all());
  // floats, dense reading: the dense instruction (blocks of 8 consecutive k) on the pruned matrix
  const Instruction& sp = find_instruction(Arch::sm80, "mma.sp.m16n8k32", FormatId::fp16, FormatId::fp32);
  const BitMatrix F = random_matrix(FormatId::fp16, 4, 70, 21), G = random_matrix(FormatId::fp16, 70, 3, 22);
  const BitMatrix Z = BitMatrix::Zero(4, 3);
  const Sparse24 SF = prune_2_4(F, FormatId::fp16);
  const Instruction& dense16 = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  CHECK((sparse_gemm(sp, SF, G, Z, god).array() == gemm(dense16, densify(SF).leftCols(70), G, Z, go).array()).all());
  // thread count does not matter
  GemmOptions one = go;
  one.threads = 1;
  CHECK((sparse_gemm(sp, SF, G, Z, go).array() == sparse_gemm(sp, SF, G, Z, one).array()).all());
}

TEST_CASE("mma.sp block probe: kept products per block vs consecutive k (sm_80 m16n8k16)") {
  // kept a = b = 2^-9 except the first kept pair 2^7; c = -2^14. Kept reading: one block of 8
  // kept products, the big one cancels c and the small ones truncate: +0. Dense reading: the
  // second block of 8 k (groups 2-3, four kept products of 2^-18) survives: 2^-16.
  const Instruction& sp = find_instruction(Arch::sm80, "mma.sp.m16n8k16", FormatId::fp16, FormatId::fp32);
  std::vector<Bits> kept = enc_vec({128, 0x1p-9, 0x1p-9, 0x1p-9, 0x1p-9, 0x1p-9, 0x1p-9, 0x1p-9}, FormatId::fp16, 8);
  const std::vector<std::uint8_t> meta = {0x4, 0xE, 0x9, 0xD};
  std::vector<Bits> b(16, enc(0x1p-9, FormatId::fp16));
  b[0] = enc(128, FormatId::fp16);
  const Bits c = enc(-16384, FormatId::fp32);
  MmaOptions dense_opt;
  dense_opt.sparse_blocks = SparseBlocks::dense;
  CHECK(sparse_mma_element(sp, kept, meta, b, c) == 0);
  CHECK(sparse_mma_element(sp, kept, meta, b, c, dense_opt) == enc(0x1p-16, FormatId::fp32));
  // H100 (L = 16): both readings are one block of 16 k / 8 kept -> +0
  const Instruction& sp90 = find_instruction(Arch::sm90, "mma.sp.m16n8k16", FormatId::fp16, FormatId::fp32);
  CHECK(sparse_mma_element(sp90, kept, meta, b, c, dense_opt) == 0);
  // bad metadata and a dense instruction are input errors
  const std::vector<std::uint8_t> bad = {0x4, 0xF, 0x9, 0xD};
  CHECK(input_error([&] { sparse_mma_element(sp, kept, bad, b, c); }).find("metadata group 1") == 0);
  CHECK(input_error([&] { dot(sp, b, b, c); }) != "");
  const Instruction& dense = find_instruction(Arch::sm80, "mma.m16n8k16", FormatId::fp16, FormatId::fp32);
  CHECK(input_error([&] { sparse_mma_element(dense, kept, meta, b, c); }).find("not a 2:4 sparse") != std::string::npos);
  CHECK(input_error([] { find_instruction(Arch::sm75, "mma.sp.m16n8k16", FormatId::fp16, FormatId::fp32); }) != "");
}

TEST_CASE("INT4 m16n8k64 and 1-bit MMA: exact into s32, wrap and satfinite") {
  const Instruction& s4 = find_instruction(Arch::sm80, "mma.m16n8k64", FormatId::int4, FormatId::int32);
  std::vector<Bits> a(64, 0x8), b(64, 0x8);  // -8 * -8 = 64, 64 times = 4096
  CHECK(run_both(s4, a, b, 0) == 4096);
  const Bits near_max = static_cast<Bits>(INT32_MAX - 100);
  CHECK(run_both(s4, a, b, near_max) == static_cast<std::uint32_t>(static_cast<std::int64_t>(INT32_MAX) - 100 + 4096 - (std::int64_t{1} << 32)));
  MmaOptions sat;
  sat.int_saturate = true;
  CHECK(run_both(s4, a, b, near_max, sat) == static_cast<Bits>(INT32_MAX));
  const Instruction& u4 = find_instruction(Arch::sm80, "mma.m16n8k64", FormatId::uint4, FormatId::int4, FormatId::int32);
  std::vector<Bits> ua(64, 0xF);  // 15 * -8 * 64 = -7680
  CHECK(run_both(u4, ua, b, 0) == static_cast<std::uint32_t>(-7680));
  // 1-bit: 128 bits, a = 1100 repeated, b = 1010 repeated: XOR popc = 64, AND popc = 32
  std::vector<Bits> x(128), y(128);
  for (int i = 0; i < 128; ++i) {
    x[static_cast<std::size_t>(i)] = (i % 4) < 2 ? 1 : 0;
    y[static_cast<std::size_t>(i)] = i % 2 == 0 ? 1 : 0;
  }
  CHECK(run_both(find_instruction(Arch::sm75, "mma.m8n8k128.xor.popc", FormatId::b1, FormatId::int32), x, y, 5) == 69);
  CHECK(run_both(find_instruction(Arch::sm80, "mma.m8n8k128.and.popc", FormatId::b1, FormatId::int32), x, y, 5) == 37);
  CHECK(run_both(find_instruction(Arch::sm80, "m16n8k256.and.popc", FormatId::b1, FormatId::int32), x, y, 0) == 32);  // zero-padded
  CHECK(default_instruction(Arch::sm75, FormatId::b1, FormatId::int32).bit_op == BitOp::xor_popc);
  // .and.popc is sm_80+; a b1 operand that is not a bit is an input error (dot and gemm)
  CHECK(input_error([] { find_instruction(Arch::sm75, "mma.m8n8k128.and.popc", FormatId::b1, FormatId::int32); }) != "");
  const Instruction& bx = find_instruction(Arch::sm80, "mma.m8n8k128.xor.popc", FormatId::b1, FormatId::int32);
  std::vector<Bits> bad = x;
  bad[7] = 2;
  CHECK(input_error([&] { dot(bx, bad, y, 0); }).find("bit vector") != std::string::npos);
  BitMatrix A(1, 128), B(128, 1), C = BitMatrix::Zero(1, 1);
  for (int i = 0; i < 128; ++i) {
    A(0, i) = bad[static_cast<std::size_t>(i)];
    B(i, 0) = y[static_cast<std::size_t>(i)];
  }
  CHECK(input_error([&] { gemm(bx, A, B, C); }).find("A(0,7)") == 0);
  CHECK(parse_format("b1") == FormatId::b1);
  CHECK(format_bits(FormatId::b1) == 1);
}
