// End-to-end runs of `tcsim mma dot|batch|gemm`: exit codes, key output, tc-golden checks and
// every bad-input case (exit 2 with the file/line or option in the message).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::CommandResult;
using tcsim::test::run_tcsim;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("tcsim_mma_cli_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return "'" + path.string() + "'"; }
};

void put(const fs::path& file, const std::string& text) {
  std::ofstream f(file, std::ios::binary);
  f << text;
}

std::string slurp(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The output line that starts with `prefix` ("" when none).
std::string line_of(const std::string& out, const std::string& prefix) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

// Expects exit code 2 and "tcsim: error: <where>" ... <what> on stderr.
void expect_bad_input(const std::string& args, const std::string& where, const std::string& what = "") {
  CAPTURE(args);
  CommandResult r = run_tcsim(args);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, "tcsim: error: " + where));
  if (!what.empty()) CHECK(has(r.err, what));
}

// A small valid case (T4, fp16 inputs, K = 2, 2 rows) with no d file.
void write_small_case(const fs::path& dir) {
  put(dir / "a_T4_fp16.txt", "3f800000 40000000 \n3f000000 bf800000 \n");
  put(dir / "b_T4_fp16.txt", "3f800000 3f800000 \n40000000 3f800000 \n");
  put(dir / "c_T4_fp32.txt", "00111111100000000000000000000000\n00000000000000000000000000000000\n");
}

fs::path golden_dir() {
  fs::path s = tcsim::test::shared_dir();
  if (s.empty() || !fs::is_directory(s / "tc-golden")) return {};
  return s / "tc-golden";
}

const char* kSkip = "SKIPPED: ../shared/tc-golden not found (set TCSIM_SHARED or -DTCSIM_SHARED_DIR)";

}  // namespace

TEST_CASE("tcsim mma lists its sub-commands and each has --help with an example") {
  CommandResult r = run_tcsim("mma --help");
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "dot"));
  CHECK(has(r.out, "batch"));
  CHECK(has(r.out, "gemm"));
  CHECK(run_tcsim("mma").exit_code == 2);
  CommandResult unknown = run_tcsim("mma frob");
  CHECK(unknown.exit_code == 2);
  CHECK(has(unknown.err, "tcsim: error: mma frob"));
  for (const char* sub : {"dot", "batch", "gemm"}) {
    CAPTURE(sub);
    CommandResult h = run_tcsim(std::string("mma ") + sub + " --help");
    CHECK(h.exit_code == 0);
    CHECK(has(h.out, "Example:"));
    CHECK(has(h.out, std::string("tcsim mma ") + sub));
  }
}

TEST_CASE("mma dot: the block-length probe shows each architecture's block length") {
  // spec numerics.md 4.3, j = 0: V100 3*2^-16, T4/A100 2^-15, H100 +0
  CommandResult r = run_tcsim("mma dot --a 2^7,2^-9x15 --b 2^7,2^-9x15 --c=-2^14");
  REQUIRE(r.exit_code == 0);
  CHECK(has(line_of(r.out, "sm_70"), "0x38400000"));
  CHECK(has(line_of(r.out, "sm_70"), "3*2^-16"));
  CHECK(has(line_of(r.out, "sm_75"), "0x38000000"));
  CHECK(has(line_of(r.out, "sm_80"), "0x38000000"));
  CHECK(has(line_of(r.out, "sm_90"), "0x00000000"));
  // j = 8: V100 2^-16, the rest +0 (hex bit patterns and repeats)
  CommandResult j8 = run_tcsim("mma dot --a 0x1800x8,0x5800,0x1800x7 --b 0x1800x8,0x5800,0x1800x7 --c=-2^14");
  REQUIRE(j8.exit_code == 0);
  CHECK(has(line_of(j8.out, "sm_70"), "0x37800000"));
  CHECK(has(line_of(j8.out, "sm_80"), "0x00000000"));
}

TEST_CASE("mma dot: MMA-Sim Eq. 10 and FP16 output") {
  CommandResult r = run_tcsim("mma dot --a=-2^13,-0.5,-0.25,-0.125 --b 2^10,1,1,1 --c 2^23 --blocks");
  REQUIRE(r.exit_code == 0);
  CHECK(has(line_of(r.out, "sm_70"), "0x00000000"));
  CHECK(has(line_of(r.out, "sm_75"), "0xbf000000"));
  CHECK(has(line_of(r.out, "sm_80"), "0xbf000000"));
  CHECK(has(line_of(r.out, "sm_90"), "0xbf400000"));
  CHECK(has(r.out, "after block 1"));
  // FP16 out: 1.5*1 + 1024 rounds to 1026 (spec 4.2)
  CommandResult h = run_tcsim("mma dot --arch sm_80 --acc fp16 --a 0x3e00 --b 0x3c00 --c 1024");
  REQUIRE(h.exit_code == 0);
  CHECK(has(line_of(h.out, "sm_80"), "0x6402"));
  CHECK(line_of(h.out, "sm_70").empty());
  // an architecture without the format is shown as n/a, not an error
  CommandResult bf = run_tcsim("mma dot --in bf16 --a 1 --b 1");
  REQUIRE(bf.exit_code == 0);
  CHECK(has(line_of(bf.out, "sm_70"), "n/a"));
  CHECK(has(line_of(bf.out, "sm_80"), "0x3f800000"));
  // tf32 operands are fp32 registers, truncated by the hardware (spec 4.4)
  CommandResult tf = run_tcsim("mma dot --in tf32 --arch a100 --a 0x3f801800 --b 1");
  REQUIRE(tf.exit_code == 0);
  CHECK(has(line_of(tf.out, "sm_80"), "0x3f800000"));
}

TEST_CASE("mma dot: bad input exits 2 naming the option") {
  expect_bad_input("mma dot --a 0xzz --b 1", "--a: value 1", "hex");
  expect_bad_input("mma dot --a 1,0.1 --b 1,1", "--a: value 2", "fp16");
  expect_bad_input("mma dot --a 1 --b 1 --in e4m3 --arch sm_90 --c 1e40", "--c");
  expect_bad_input("mma dot --a 1,1 --b 1", "--b", "has 1 values but --a has 2");
  expect_bad_input("mma dot --arch sm_70 --instr mma.m8n8k4 --a 1,1,1,1,1 --b 1,1,1,1,1", "--a", "do not fit");
  expect_bad_input("mma dot --a 1 --b 1 --arch sm_99", "--arch", "sm_99");
  expect_bad_input("mma dot --a 1 --b 1 --in fp17", "--in", "fp17");
  expect_bad_input("mma dot --a 1 --b 1 --acc bf16", "--acc", "bf16");
  expect_bad_input("mma dot --a 1 --b 1 --instr mma.m9n9k9", "--instr");
  expect_bad_input("mma dot --a 1 --b 1 --in bf16 --arch sm_70", "--in/--acc");
  expect_bad_input("mma dot --b 1", "tcsim mma dot", "--a");
}

TEST_CASE("mma batch: writes d files, checks them, and reports mismatches with exit 3") {
  TempDir t;
  fs::path in = t.path / "in", out = t.path / "out";
  fs::create_directories(in);
  write_small_case(in);
  CommandResult w = run_tcsim("mma batch '" + in.string() + "' -o '" + out.string() + "'");
  REQUIRE(w.exit_code == 0);
  // 1*1 + 2*1 + 1 = 4 and 0.5*2 - 1*1 + 0 = +0
  CHECK(slurp(out / "d_T4_fp32.txt") ==
        "01000000100000000000000000000000\n00000000000000000000000000000000\n");
  CHECK(has(w.out, "sm_75"));
  // --check FILE: equal -> 0
  CommandResult ok = run_tcsim("mma batch '" + in.string() + "' --check '" + (out / "d_T4_fp32.txt").string() + "'");
  CHECK(ok.exit_code == 0);
  CHECK(has(ok.out, "0 mismatches out of 2 rows"));
  // a wrong expected file -> exit 3, the line, expected and got
  put(t.path / "d_T4_fp32.txt", "01000000100000000000000000000001\n00000000000000000000000000000000\n");
  CommandResult bad = run_tcsim("mma batch '" + in.string() + "' --check '" + (t.path / "d_T4_fp32.txt").string() + "'");
  CHECK(bad.exit_code == 3);
  CHECK(has(bad.out, "1 mismatches out of 2 rows"));
  CHECK(has(bad.out, "d_T4_fp32.txt:1"));
  CHECK(has(bad.out, "expected 0x40800001"));
  CHECK(has(bad.out, "got      0x40800000"));
  // --arch overrides the GPU name; an FP16 accumulator on request
  CommandResult h = run_tcsim("mma batch '" + in.string() + "' --arch sm_90 --acc fp16 -o '" + out.string() + "'");
  CHECK(h.exit_code == 0);
  CHECK(has(h.out, "sm_90"));
  CHECK(fs::exists(out / "d_T4_fp16.txt"));
}

TEST_CASE("mma batch: every tc-golden case matches; a corrupted copy does not") {
  fs::path g = golden_dir();
  if (g.empty()) {
    MESSAGE(kSkip);
    return;
  }
  CommandResult all = run_tcsim("mma batch '" + g.string() + "' --check");
  CHECK(all.exit_code == 0);
  CHECK(has(all.out, "total: 0 mismatches out of 30000 rows in 6 comparisons"));

  // --check DIR in the same layout (sub-directories mirror the input's), and --check FILE
  CommandResult dir = run_tcsim("mma batch '" + (g / "A100").string() + "' --check '" + (g / "A100").string() + "'");
  CHECK(dir.exit_code == 0);
  CHECK(has(dir.out, "total: 0 mismatches out of 20000 rows in 4 comparisons"));
  CommandResult file = run_tcsim("mma batch '" + (g / "V100/fp16").string() + "' --check '" +
                                 (g / "V100/fp16/d_V100_fp16.txt").string() + "'");
  CHECK(file.exit_code == 0);
  CHECK(has(file.out, "f16.f16.f16"));
  CHECK(has(file.out, "total: 0 mismatches out of 5000 rows in 1 comparison"));

  TempDir t;
  fs::copy(g / "V100" / "fp16", t.path, fs::copy_options::recursive);
  fs::permissions(t.path / "d_V100_fp32.txt", fs::perms::owner_read | fs::perms::owner_write);
  std::string d = slurp(t.path / "d_V100_fp32.txt");
  // flip the last bit of rows 3 and 10 (33 characters per row)
  for (std::size_t row : {2u, 9u}) {
    char& ch = d[row * 33 + 31];
    ch = ch == '0' ? '1' : '0';
  }
  fs::remove(t.path / "d_V100_fp32.txt");
  put(t.path / "d_V100_fp32.txt", d);
  CommandResult r = run_tcsim("mma batch " + t.str() + " --check --acc fp32");
  CHECK(r.exit_code == 3);
  CHECK(has(r.out, "2 mismatches out of 5000 rows"));
  CHECK(has(r.out, "d_V100_fp32.txt:3"));
  CHECK(has(r.out, "d_V100_fp32.txt:10"));
  // the FP16 output is untouched
  CommandResult h = run_tcsim("mma batch " + t.str() + " --check --acc fp16");
  CHECK(h.exit_code == 0);
}

TEST_CASE("mma batch: bad golden files exit 2 naming the file and line") {
  TempDir t;
  auto fresh = [&] {
    fs::remove_all(t.path);
    fs::create_directories(t.path);
    write_small_case(t.path);
  };
  fresh();
  put(t.path / "a_T4_fp16.txt", "3f800000 40000000 \n3f000000 \n");
  expect_bad_input("mma batch " + t.str(), (t.path / "a_T4_fp16.txt").string() + ":2", "ragged row");
  fresh();
  put(t.path / "b_T4_fp16.txt", "3f800000 3f8z0000 \n40000000 3f800000 \n");
  expect_bad_input("mma batch " + t.str(), (t.path / "b_T4_fp16.txt").string() + ":1", "hex");
  fresh();
  put(t.path / "c_T4_fp32.txt", "0011111110000000000000000000000\n00000000000000000000000000000000\n");
  expect_bad_input("mma batch " + t.str(), (t.path / "c_T4_fp32.txt").string() + ":1", "32-character");
  fresh();
  put(t.path / "c_T4_fp32.txt", "00111111100000000000000000000000\n");
  expect_bad_input("mma batch " + t.str(), (t.path / "c_T4_fp32.txt").string() + ":2", "file ends after 1 rows");
  fresh();
  fs::remove(t.path / "b_T4_fp16.txt");
  expect_bad_input("mma batch " + t.str(), (t.path / "b_T4_fp16.txt").string(), "missing");
  fresh();
  put(t.path / "a_T4_fp16.txt", "3f800000 40000000 \n3dcccccd bf800000 \n");  // 0.1f is not an fp16 value
  expect_bad_input("mma batch " + t.str(), (t.path / "a_T4_fp16.txt").string() + ":2", "not representable in fp16");
  fresh();
  expect_bad_input("mma batch " + t.str() + " --instr mma.m16n8k32", "--instr");
  expect_bad_input("mma batch " + t.str() + " --arch sm_42", "--arch");
  expect_bad_input("mma batch " + t.str() + " --acc fp8", "--acc");
  expect_bad_input("mma batch " + t.str() + " --check", (t.path / "d_T4_fp32.txt").string(), "missing");
  expect_bad_input("mma batch '" + (t.path / "nope").string() + "'", (t.path / "nope").string(), "not a directory");
  // K that does not fit: 6 values on sm_70's m8n8k4 (k = 4)
  put(t.path / "a_T4_fp16.txt", "3c000000 3c000000 3c000000 3c000000 3c000000 3c000000 \n");
  put(t.path / "b_T4_fp16.txt", "3c000000 3c000000 3c000000 3c000000 3c000000 3c000000 \n");
  put(t.path / "c_T4_fp32.txt", "00000000000000000000000000000000\n");
  expect_bad_input("mma batch " + t.str() + " --arch sm_70 --instr mma.m8n8k4", (t.path / "a_T4_fp16.txt").string(),
                   "does not fit");
  // a GPU name that says no architecture
  fresh();
  for (const char* f : {"a_T4_fp16.txt", "b_T4_fp16.txt", "c_T4_fp32.txt"}) {
    std::string n = f;
    fs::rename(t.path / f, t.path / (n.substr(0, 2) + "X99" + n.substr(4)));
  }
  expect_bad_input("mma batch " + t.str(), (t.path / "a_X99_fp16.txt").string(), "--arch");
  CHECK(run_tcsim("mma batch " + t.str() + " --arch t4").exit_code == 0);
}

TEST_CASE("mma gemm: seeded, deterministic for any thread count, and a format comparison") {
  CommandResult a = run_tcsim("mma gemm --m 32 --n 24 --k 64 --seed 7 -j 1");
  CommandResult b = run_tcsim("mma gemm --m 32 --n 24 --k 64 --seed 7 -j 2");
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  CHECK(has(a.out, "norm rel"));
  CHECK(has(a.out, "wmma.m16n16k16"));
  CommandResult c = run_tcsim("mma gemm --m 32 --n 24 --k 64 --seed 8 -j 1");
  CHECK(c.out != a.out);
  CommandResult cmp = run_tcsim("mma gemm --m 16 --n 16 --k 128 --arch sm_90 --compare fp16,bf16,tf32,e4m3");
  REQUIRE(cmp.exit_code == 0);
  for (const char* f : {"fp16 ", "bf16 ", "tf32 ", "e4m3 "}) CHECK(!line_of(cmp.out, f).empty());
  CHECK(has(line_of(cmp.out, "e4m3 "), "wgmma"));
  CommandResult na = run_tcsim("mma gemm --m 8 --n 8 --k 32 --arch sm_80 --compare fp16,e4m3");
  REQUIRE(na.exit_code == 0);
  CHECK(has(line_of(na.out, "e4m3 "), "n/a"));
}

TEST_CASE("mma gemm: matrices from files, and bad input") {
  TempDir t;
  put(t.path / "A.txt", "1 2\n0.5, -1\n# a comment\n");
  put(t.path / "B.txt", "1 0 2^-3\n1 1 0x3c00\n");
  CommandResult r = run_tcsim("mma gemm --a '" + (t.path / "A.txt").string() + "' --b '" + (t.path / "B.txt").string() + "'");
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "M = 2, N = 3, K = 2"));
  put(t.path / "R.txt", "1 2\n3\n");
  expect_bad_input("mma gemm --a '" + (t.path / "R.txt").string() + "' --b '" + (t.path / "B.txt").string() + "'",
                   (t.path / "R.txt").string() + ":2", "ragged");
  put(t.path / "U.txt", "1 0.1\n3 4\n");
  expect_bad_input("mma gemm --a '" + (t.path / "U.txt").string() + "' --b '" + (t.path / "B.txt").string() + "'",
                   (t.path / "U.txt").string() + ":1", "fp16");
  expect_bad_input("mma gemm --a '" + (t.path / "A.txt").string() + "' --b '" + (t.path / "A.txt").string() + "' --k 3",
                   "--k", "does not match");
  expect_bad_input("mma gemm --a '" + (t.path / "A.txt").string() + "'", "--a", "--b");
  expect_bad_input("mma gemm --a '" + (t.path / "missing.txt").string() + "' --b '" + (t.path / "B.txt").string() + "'",
                   (t.path / "missing.txt").string());
  expect_bad_input("mma gemm --format fp17", "--format");
  expect_bad_input("mma gemm --arch sm_12", "--arch");
  expect_bad_input("mma gemm --arch sm_80 --format e4m3", "--format/--acc");
  expect_bad_input("mma gemm --instr mma.m1n1k1", "--instr");
  expect_bad_input("mma gemm --m 0", "--m");
  expect_bad_input("mma gemm --compare fp16,fp99", "--compare");
}

TEST_CASE("mma batch: the GPU comes from file names such as a_B200_E4M3.txt and a_Ada_E4M3.txt") {
  TempDir t;
  // the FP8 Eq. 10 probe: Blackwell (F = 25) keeps -0.875, Ada (F = 13) truncates to +0
  for (const char* gpu : {"B200", "Ada"}) {
    fs::path d = t.path / gpu;
    fs::create_directories(d);
    const std::string g = gpu;
    put(d / ("a_" + g + "_E4M3.txt"), "c3800000 bf000000 be800000 be000000 \n");
    put(d / ("b_" + g + "_E4M3.txt"), "43800000 3f800000 3f800000 3f800000 \n");
    put(d / ("c_" + g + "_fp32.txt"), "01000111100000000000000000000000\n");
  }
  CommandResult b = run_tcsim("mma batch '" + (t.path / "B200").string() + "' -o '" + (t.path / "outB").string() + "'");
  REQUIRE(b.exit_code == 0);
  CHECK(has(b.out, "sm_100"));
  CHECK(slurp(t.path / "outB" / "d_B200_fp32.txt") == "10111111011000000000000000000000\n");
  CommandResult a = run_tcsim("mma batch '" + (t.path / "Ada").string() + "' -o '" + (t.path / "outA").string() + "'");
  REQUIRE(a.exit_code == 0);
  CHECK(has(a.out, "sm_89"));
  CHECK(slurp(t.path / "outA" / "d_Ada_fp32.txt") == "00000000000000000000000000000000\n");
}

TEST_CASE("mma dot and gemm: new architectures, GPU names, b1, 2:4 sparsity and their bad input") {
  CommandResult all = run_tcsim("mma dot --a 2^7,2^-9x15 --b 2^7,2^-9x15 --c=-2^14");
  REQUIRE(all.exit_code == 0);
  CHECK(has(line_of(all.out, "sm_86"), "0x38000000"));
  CHECK(has(line_of(all.out, "sm_100"), "0x00000000"));
  CHECK(has(line_of(all.out, "sm_120"), "RTX PRO 6000"));
  CommandResult f8 = run_tcsim("mma dot --in e5m2 --arch L4,H100,B200,RTXPRO6000 --a=-2^13,-0.5,-0.25,-0.125 --b 2^10,1,1,1 --c 2^23");
  REQUIRE(f8.exit_code == 0);
  CHECK(has(line_of(f8.out, "sm_89"), "0x00000000"));
  CHECK(has(line_of(f8.out, "sm_100"), "0xbf400000"));
  CHECK(has(line_of(f8.out, "sm_120"), "0xbf400000"));
  // Blackwell fp8 -> fp16: B200TC.m model vs PTX reading
  const std::string h = "mma dot --in e5m2 --acc fp16 --arch B200 --a 1,2^-6,2^-12 --b 2,2^-5,2^-12 --c=-1";
  CHECK(has(line_of(run_tcsim(h).out, "sm_100"), "0x3c00"));
  CHECK(has(line_of(run_tcsim(h + " --fp8-f16 ptx").out, "sm_100"), "0x3c01"));
  CommandResult b1 = run_tcsim("mma dot --in b1 --acc s32 --arch T4,A100 --a 1,0,1,1 --b 1,1,0,1");
  REQUIRE(b1.exit_code == 0);
  CHECK(has(line_of(b1.out, "sm_75"), "xor.popc"));
  CHECK(has(line_of(b1.out, "sm_75"), " 2"));
  CHECK(has(line_of(b1.out, "sm_80"), "and.popc"));
  CommandResult sp = run_tcsim("mma gemm --m 16 --n 8 --k 64 --arch A100 --sparse 2:4 -j 1");
  REQUIRE(sp.exit_code == 0);
  CHECK(has(sp.out, "mma.sp.m16n8k32"));
  CHECK(has(sp.out, "512 of 1024 nonzeros of A kept"));
  CHECK(has(sp.out, "pruned GEMM vs the dense GEMM"));
  CommandResult spd = run_tcsim("mma gemm --m 16 --n 8 --k 64 --arch A100 --sparse 2:4 --sparse-blocks dense -j 2");
  REQUIRE(spd.exit_code == 0);
  CHECK(has(spd.out, "dense reading"));
  // bad input: exit 2 with the option named
  expect_bad_input("mma dot --a 1 --b 1 --arch RTX9999", "--arch", "RTX9999");
  expect_bad_input("mma dot --in b1 --acc s32 --arch A100 --a 1,2 --b 1,1", "--a: value 2");
  expect_bad_input("mma dot --in e4m3 --arch A10 --a 1 --b 1", "--in/--acc");
  expect_bad_input("mma dot --arch A2 --instr mma.m16n8k32 --in e4m3 --a 1 --b 1", "--instr", "sm_86 mma.m16n8k32 has no variant e4m3.e4m3.f32");
  expect_bad_input("mma dot --arch H100 --instr tcgen05.mma.kind::f16 --a 1 --b 1", "--instr", "sm_90");
  expect_bad_input("mma dot --in e5m2 --acc fp16 --arch B200 --a 1 --b 1 --fp8-f16 maybe", "--fp8-f16");
  expect_bad_input("mma gemm --sparse 2:8", "--sparse", "2:4");
  expect_bad_input("mma gemm --sparse 2:4 --format tf32", "--format", "1:2");
  expect_bad_input("mma gemm --sparse 2:4 --arch T4", "--arch/--format", "sm_75");
  expect_bad_input("mma gemm --sparse 2:4 --instr mma.m16n8k16", "--instr", "dense");
  expect_bad_input("mma gemm --sparse 2:4 --sparse-blocks some", "--sparse-blocks");
  expect_bad_input("mma gemm --sparse 2:4 --compare fp16,bf16", "--sparse");
}

TEST_CASE("mma batch: 2:4 sparse cases (meta.yaml sparse_meta) and metadata that is not 2:4") {
  TempDir t;
  // the mma.sp block probe of the CUDA probe: kept positions 2, 3 of every group (0xE); the big
  // product at k = 2; kept reading +0, dense reading 2^-16 (numerics/sparse/structured.h)
  put(t.path / "a_A100_fp16.txt", "00000000 00000000 43000000 3b000000 00000000 00000000 3b000000 3b000000 "
                                  "00000000 00000000 3b000000 3b000000 00000000 00000000 3b000000 3b000000 \n");
  put(t.path / "b_A100_fp16.txt", "3b000000 3b000000 43000000 3b000000 3b000000 3b000000 3b000000 3b000000 "
                                  "3b000000 3b000000 3b000000 3b000000 3b000000 3b000000 3b000000 3b000000 \n");
  put(t.path / "c_A100_fp32.txt", "11000110100000000000000000000000\n");
  put(t.path / "meta.yaml", "instruction: mma.sp.m16n8k16\nsparse_meta: 0xE\n");
  CommandResult k = run_tcsim("mma batch " + t.str() + " -o '" + (t.path / "k").string() + "'");
  REQUIRE(k.exit_code == 0);
  CHECK(slurp(t.path / "k" / "d_A100_fp32.txt") == "00000000000000000000000000000000\n");
  CommandResult d = run_tcsim("mma batch " + t.str() + " --sparse-blocks dense -o '" + (t.path / "d").string() + "'");
  REQUIRE(d.exit_code == 0);
  CHECK(slurp(t.path / "d" / "d_A100_fp32.txt") == "00110111100000000000000000000000\n");
  put(t.path / "meta.yaml", "instruction: mma.sp.m16n8k16\nsparse_meta: 0x5\n");
  expect_bad_input("mma batch " + t.str(), (t.path / "meta.yaml").string() + ": sparse_meta", "not 2:4");
  put(t.path / "meta.yaml", "instruction: mma.sp.m16n8k16\nsparse_meta: 0x4\n");
  expect_bad_input("mma batch " + t.str(), (t.path / "a_A100_fp16.txt").string() + ":1", "drops position 2");
  put(t.path / "meta.yaml", "instruction: mma.sp.m16n8k16\nsparse_meta: 0xE\n");
  expect_bad_input("mma batch " + t.str() + " --sparse-blocks maybe", "--sparse-blocks");
}
