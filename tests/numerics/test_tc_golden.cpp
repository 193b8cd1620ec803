// The tc-golden layout: reader/writer (numerics/golden_io.h), and the emulator against every
// measured sample in ../shared/tc-golden (V100 and A100), bit for bit.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "numerics/gemm/gemm.h"
#include "numerics/golden_io.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace tcsim;
using namespace tcsim::num;

namespace {

// A fresh temporary directory, removed with its contents at the end of the scope.
struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("tcsim_golden_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void put(const fs::path& file, const std::string& text) {
  std::ofstream f(file, std::ios::binary);
  f << text;
}

// A small valid case: 2 rows, K = 2, fp16 values, c and d as binary strings.
void write_small_case(const fs::path& dir) {
  put(dir / "a_T4_fp16.txt", "3f800000 40000000 \n3f000000 bf800000 \n");
  put(dir / "b_T4_fp16.txt", "3f800000 3f800000 \n40000000 3f800000 \n");
  put(dir / "c_T4_fp32.txt", "00111111100000000000000000000000\n00000000000000000000000000000000\n");
  put(dir / "d_T4_fp32.txt", "01000000100000000000000000000000\n00000000000000000000000000000000\n");
}

// The message of the InputError that fn throws ("" when none).
template <class Fn>
std::string input_error(Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("golden_io reads a case directory") {
  TempDir t;
  write_small_case(t.path);
  GoldenCase gc = read_golden_case(t.path);
  CHECK(gc.gpu == "T4");
  CHECK(gc.input == FormatId::fp16);
  CHECK(gc.k == 2);
  CHECK(gc.rows == 2);
  CHECK(gc.a == std::vector<std::uint32_t>{0x3f800000u, 0x40000000u, 0x3f000000u, 0xbf800000u});
  CHECK(gc.c == std::vector<std::uint32_t>{0x3f800000u, 0u});
  REQUIRE(gc.outputs.size() == 1);
  CHECK(gc.outputs[0].acc == FormatId::fp32);
  CHECK(gc.outputs[0].d == std::vector<std::uint32_t>{0x40800000u, 0u});
  CHECK(gc.meta.file.empty());
  CHECK(find_golden_cases(t.path) == std::vector<fs::path>{t.path});
}

TEST_CASE("golden_io writer round-trips a case byte for byte") {
  TempDir src, dst;
  write_small_case(src.path);
  GoldenCase gc = read_golden_case(src.path);
  write_golden_case(dst.path, gc);
  for (const char* name : {"a_T4_fp16.txt", "b_T4_fp16.txt", "c_T4_fp32.txt", "d_T4_fp32.txt"}) {
    INFO(name);
    CHECK(read_file(dst.path / name) == read_file(src.path / name));
  }
  GoldenCase back = read_golden_case(dst.path);
  CHECK(back.a == gc.a);
  CHECK(back.b == gc.b);
  CHECK(back.c == gc.c);
  CHECK(back.outputs[0].d == gc.outputs[0].d);
}

TEST_CASE("golden_io reads optional metadata") {
  TempDir t;
  write_small_case(t.path);
  put(t.path / "meta.yaml", "gpu: Tesla T4\narch: sm_75\nclocks:\n  sm: 1590MHz\n");
  GoldenCase gc = read_golden_case(t.path);
  CHECK(gc.meta.get("arch") == std::optional<std::string>("sm_75"));
  CHECK(gc.meta.get("clocks.sm") == std::optional<std::string>("1590MHz"));
  put(t.path / "meta.yaml", "gpu: [unclosed\n");
  CHECK(contains(input_error([&] { read_golden_case(t.path); }), "meta.yaml:"));
}

TEST_CASE("golden plan: architecture and instruction from options, meta.yaml, GPU name") {
  TempDir t;
  write_small_case(t.path);
  GoldenCase gc = read_golden_case(t.path);
  GoldenPlan p = plan_golden(gc, FormatId::fp32, GoldenOptions{});
  CHECK(p.arch == Arch::sm75);
  CHECK(p.arch_from == "GPU name T4");
  CHECK(p.instruction->name == "wmma.m16n16k16");
  CHECK(p.instr_from == "wmma default");
  // meta.yaml overrides the GPU name; --arch/--instr override meta.yaml
  put(t.path / "meta.yaml", "gpu: NVIDIA H100 80GB HBM3\narch: sm_90\ninstruction: mma.m16n8k8\n");
  gc = read_golden_case(t.path);
  p = plan_golden(gc, FormatId::fp32, GoldenOptions{});
  CHECK(p.arch == Arch::sm90);
  CHECK(p.instruction->name == "mma.m16n8k8");
  CHECK(p.instr_from == "meta.yaml");
  GoldenOptions o;
  o.arch = Arch::sm80;
  o.instruction = "mma.m16n8k16";
  p = plan_golden(gc, FormatId::fp16, o);
  CHECK(p.arch == Arch::sm80);
  CHECK(p.instruction->name == "mma.m16n8k16");
  CHECK(p.instruction->acc_fmt == FormatId::fp16);
  put(t.path / "meta.yaml", "arch: sm_12\n");
  gc = read_golden_case(t.path);
  CHECK(contains(input_error([&] { plan_golden(gc, FormatId::fp32, GoldenOptions{}); }), "meta.yaml: arch"));
  // GPU names as nvidia-smi writes them
  CHECK(gpu_arch("Tesla V100-SXM2-16GB") == Arch::sm70);
  CHECK(gpu_arch("NVIDIA A100-SXM4-40GB") == Arch::sm80);
  CHECK(gpu_arch("H200") == Arch::sm90);
  CHECK(gpu_arch("RTX9999") == std::nullopt);
  // the emulation itself: 1*1 + 2*1 + 1 = 4, 0.5*2 - 1*1 + 0 = +0
  GoldenCase small = read_golden_case(t.path);
  GoldenOptions t4;
  t4.arch = Arch::sm75;
  CHECK(emulate_golden(small, plan_golden(small, FormatId::fp32, t4)) == std::vector<std::uint32_t>{0x40800000u, 0u});
}

TEST_CASE("an H100 fp8 case in the layout: file names, default instruction, spec 4.4 values") {
  TempDir t;
  // rows: 13-bit window kept; dropped; the accumulator is cut too; accumulator kept
  put(t.path / "a_H100_fp8_e5m2.txt", "3f800000 3c800000 \n3f800000 3c000000 \n00000000 00000000 \n00000000 00000000 \n");
  put(t.path / "b_H100_fp8_e5m2.txt", "3f800000 3c000000 \n3f800000 3c000000 \n00000000 00000000 \n00000000 00000000 \n");
  put(t.path / "c_H100_fp32.txt", format_binary_lines({0u, 0u, 0x3f800008u, 0x3f800400u}));
  put(t.path / "d_H100_fp32.txt", format_binary_lines({0x3f800400u, 0x3f800000u, 0x3f800000u, 0x3f800400u}));
  GoldenCase gc = read_golden_case(t.path);
  CHECK(gc.gpu == "H100");
  CHECK(gc.input == FormatId::e5m2);
  GoldenPlan p = plan_golden(gc, FormatId::fp32, GoldenOptions{});
  CHECK(p.arch == Arch::sm90);
  CHECK(p.instruction->name == "wgmma.m64nNk32");
  CHECK(emulate_golden(gc, p) == gc.outputs.at(0).d);
  // 2^-17 is not an e5m2 value: the file and line are named
  put(t.path / "a_H100_fp8_e5m2.txt", "3f800000 3c800000 \n3f800000 37000000 \n00000000 00000000 \n00000000 00000000 \n");
  gc = read_golden_case(t.path);
  CHECK(contains(input_error([&] { emulate_golden(gc, p); }), "a_H100_fp8_e5m2.txt:2: value 2"));
}

TEST_CASE("golden_io rejects bad files with file and line") {
  TempDir t;
  SUBCASE("ragged row") {
    write_small_case(t.path);
    put(t.path / "b_T4_fp16.txt", "3f800000 3f800000 \n40000000 \n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "b_T4_fp16.txt:2: ragged row"));
  }
  SUBCASE("bad hex") {
    write_small_case(t.path);
    put(t.path / "a_T4_fp16.txt", "3f800000 40000000 \n3f00000g bf800000 \n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "a_T4_fp16.txt:2: value 1 '3f00000g'"));
  }
  SUBCASE("short hex") {
    write_small_case(t.path);
    put(t.path / "a_T4_fp16.txt", "3f800000 4000000 \n3f000000 bf800000 \n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "a_T4_fp16.txt:1: value 2"));
  }
  SUBCASE("binary string of the wrong length") {
    write_small_case(t.path);
    put(t.path / "c_T4_fp32.txt", "0011111110000000000000000000000\n00000000000000000000000000000000\n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "c_T4_fp32.txt:1: expected a 32-character"));
  }
  SUBCASE("row-count mismatch") {
    write_small_case(t.path);
    put(t.path / "d_T4_fp32.txt", "01000000100000000000000000000000\n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "d_T4_fp32.txt:2: file ends after 1 rows"));
    put(t.path / "d_T4_fp32.txt",
        "01000000100000000000000000000000\n00000000000000000000000000000000\n00000000000000000000000000000000\n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "d_T4_fp32.txt:3: extra row"));
  }
  SUBCASE("missing files") {
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "no a_<GPU>_<fmt>.txt"));
    write_small_case(t.path);
    fs::remove(t.path / "b_T4_fp16.txt");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "b_T4_fp16.txt: missing"));
    write_small_case(t.path);
    fs::remove(t.path / "c_T4_fp32.txt");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "c_T4_fp32.txt: missing"));
    CHECK(contains(input_error([&] { read_golden_case(t.path / "nope"); }), "not a directory"));
  }
  SUBCASE("empty line inside the data") {
    write_small_case(t.path);
    put(t.path / "a_T4_fp16.txt", "3f800000 40000000 \n\n3f000000 bf800000 \n");
    CHECK(contains(input_error([&] { read_golden_case(t.path); }), "a_T4_fp16.txt:2: empty line"));
  }
}

TEST_CASE("every tc-golden sample is reproduced bit for bit") {
  fs::path shared = tcsim::test::shared_dir();
  if (shared.empty() || !fs::is_directory(shared / "tc-golden")) {
    MESSAGE("SKIPPED: ../shared/tc-golden not found (set TCSIM_SHARED or -DTCSIM_SHARED_DIR)");
    return;
  }
  fs::path root = shared / "tc-golden";
  // The cases the shipped data must contain, and the d files in each (both outputs where measured).
  struct Expected {
    const char* dir;
    std::vector<std::string> outputs;
  };
  const std::vector<Expected> expected = {
      {"A100/bf16", {"fp32"}}, {"A100/fp16", {"fp32", "fp16"}}, {"A100/tf32", {"fp32"}},
      {"V100/fp16", {"fp32", "fp16"}}};
  for (const auto& e : expected) {
    CAPTURE(e.dir);
    GoldenCase gc = read_golden_case(root / e.dir);
    REQUIRE(gc.outputs.size() == e.outputs.size());
    for (std::size_t i = 0; i < gc.outputs.size(); ++i) {
      const GoldenOutput& out = gc.outputs[i];
      CAPTURE(out.acc_name);
      CHECK(out.acc_name == e.outputs[i]);
      GoldenPlan plan = plan_golden(gc, out.acc, GoldenOptions{});
      std::vector<std::uint32_t> got = emulate_golden(gc, plan);
      REQUIRE(got.size() == gc.rows);
      CHECK(gc.rows == 5000);
      std::size_t mismatches = 0, first = gc.rows;
      for (std::size_t r = 0; r < gc.rows; ++r)
        if (got[r] != out.d[r]) {
          if (!mismatches) first = r;
          ++mismatches;
        }
      INFO("first mismatch at line " << first + 1);
      CHECK(mismatches == 0);
    }
  }
  // The writer reproduces the shipped files byte for byte.
  TempDir t;
  GoldenCase v100 = read_golden_case(root / "V100/fp16");
  write_golden_case(t.path, v100);
  for (const char* name : {"a_V100_fp16.txt", "b_V100_fp16.txt", "c_V100_fp32.txt", "d_V100_fp32.txt", "d_V100_fp16.txt"}) {
    INFO(name);
    CHECK(read_file(t.path / name) == read_file(root / "V100/fp16" / name));
  }
}

TEST_CASE("every tc-golden sample through the GEMM kernel: AVX2 and plain paths give the GPU's bits") {
  const fs::path root = tcsim::test::shared_dir() / "tc-golden";
  if (!fs::is_directory(root)) {
    MESSAGE("SKIPPED: ../shared/tc-golden not found (set TCSIM_SHARED)");
    return;
  }
  int cases = 0;
  for (const fs::path& dir : find_golden_cases(root)) {
    const GoldenCase gc = read_golden_case(dir);
    for (const GoldenOutput& o : gc.outputs) {
      CAPTURE(dir.string());
      CAPTURE(o.acc_name);
      const GoldenPlan plan = plan_golden(gc, o.acc, GoldenOptions{});
      const Instruction& ins = *plan.instruction;
      const int K = std::max(gc.k, ins.k);
      // 8 samples per GEMM: sample r is row r of A, column r of B and element (r, r) of C and D;
      // the other elements of C are random so every lane of the vector kernel does real work.
      std::size_t bad_vec = 0, bad_plain = 0;
      for (std::size_t r0 = 0; r0 < gc.rows; r0 += 8) {
        const int n = static_cast<int>(std::min<std::size_t>(8, gc.rows - r0));
        BitMatrix A = BitMatrix::Zero(n, K), B = BitMatrix::Zero(K, n);
        BitMatrix C = random_matrix(o.acc, n, n, 1000 + r0, -1, 1);
        for (int r = 0; r < n; ++r) {
          for (int j = 0; j < gc.k; ++j) {
            A(r, j) = golden_operand(gc, 'a', r0 + static_cast<std::size_t>(r), j);
            B(j, r) = golden_operand(gc, 'b', r0 + static_cast<std::size_t>(r), j);
          }
          C(r, r) = golden_c(gc, r0 + static_cast<std::size_t>(r), o.acc);
        }
        GemmOptions vec, plain;
        vec.threads = plain.threads = 1;
        plain.simd = false;
        const BitMatrix Dv = gemm(ins, A, B, C, vec), Dp = gemm(ins, A, B, C, plain);
        for (int r = 0; r < n; ++r) {
          const std::uint32_t want = o.d[r0 + static_cast<std::size_t>(r)];
          bad_vec += acc_to_d_file(Dv(r, r), o.acc) != want;
          bad_plain += acc_to_d_file(Dp(r, r), o.acc) != want;
        }
        bad_vec += (Dv.array() != Dp.array()).count();
      }
      CHECK(bad_vec == 0);
      CHECK(bad_plain == 0);
      ++cases;
    }
  }
  CHECK(cases >= 6);
}

TEST_CASE("tc-golden: an s32 accumulator file beside floating-point inputs is an input error") {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("skipped: no shared/ folder (TCSIM_SHARED)");
    return;
  }
  const auto dir = tcsim::test::temp_dir("golden_s32") / "V100";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(shared / "tc-golden" / "V100" / "fp16", dir / "fp16");
  std::filesystem::rename(dir / "fp16" / "c_V100_fp32.txt", dir / "fp16" / "c_V100_s32.txt");
  const auto r = tcsim::test::run_tcsim("mma batch '" + dir.parent_path().string() + "' --check");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("c_V100_s32.txt: an s32 accumulator input for fp16 inputs") != std::string::npos);
  std::filesystem::remove_all(dir.parent_path());
}
