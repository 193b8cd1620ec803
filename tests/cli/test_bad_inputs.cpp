// Regression tests for the bad-input audit (issue 13): each case reproduces one class the audit found
// (a crash, silent garbage, a hang or an internal error) and checks that tcsim now refuses the input
// with exit code 2 and a message naming where and what.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>

#include "test_support.h"

namespace fs = std::filesystem;
using tcsim::test::run_tcsim;

namespace {

fs::path write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string systolic_config() { return q(tcsim::test::source_dir() / "configs" / "systolic" / "scalesim_32x32_os.yaml"); }
std::string gpu_config() { return q(tcsim::test::source_dir() / "configs" / "gpu" / "v100.yaml"); }

const std::string kCfg =
    "[general]\nrun_name = t\n\n[architecture_presets]\nArrayHeight: 32\nArrayWidth: 32\nIfmapSramSzkB: 64\n"
    "FilterSramSzkB: 64\nOfmapSramSzkB: 64\nIfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\n"
    "Dataflow : os\nBandwidth : 10\nMemoryBanks: 1\n\n[run_presets]\nInterfaceBandwidth: CALC\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Runs `tcsim <args>`; checks exit code 2 and that stderr contains `want`.
void check_refused(const std::string& args, const std::string& want) {
  const auto r = run_tcsim(args);
  INFO(args);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(want) != std::string::npos);
}

}  // namespace

TEST_CASE("bad inputs: a corrupted HDF5 global heap (vlen strings) is an input error, not a crash") {
  const fs::path dir = tcsim::test::temp_dir("bad_h5");
  std::string csv = "name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,time_us,tflops,repeats,kernel\n";
  for (int i = 0; i < 40; ++i)
    csv += "r" + std::to_string(i) + "," + std::to_string(64 * (i + 1)) + ",1024,1024,1,fp16,fp16,fp32,fp32,NT," +
           std::to_string(20 + i) + ".5,104.7,100,xmma_" + std::to_string(i) + "\n";
  write(dir / "gemm.csv", csv);
  REQUIRE(run_tcsim("measured to-h5 " + q(dir / "gemm.csv") + " " + q(dir / "good.h5")).exit_code == 0);
  std::string bytes = tcsim::test::slurp(dir / "good.h5");
  // The first object of the first global heap collection ("GCOL", 16-byte header; object: index,
  // reference count, reserved, size) gets an absurd size: libhdf5 1.10 copies that many bytes.
  const auto gcol = bytes.find("GCOL");
  REQUIRE(gcol != std::string::npos);
  const std::uint64_t huge = 0x7fffffffffffffffULL;
  std::memcpy(bytes.data() + gcol + 16 + 8, &huge, sizeof huge);
  write(dir / "bad.h5", bytes);
  check_refused("validate -c " + gpu_config() + " " + q(dir / "bad.h5") + " -o " + q(dir / "out"),
                "bad.h5: the file is corrupted");
  // Found before libhdf5 reads the file (no crash of the child): the message says where.
  check_refused("validate -c " + gpu_config() + " " + q(dir / "bad.h5") + " -o " + q(dir / "out"),
                "object 1 of 9223372036854775807 bytes at byte");
  // A size a little too large (the sanitizer audit's H5HG_read overlaps: libhdf5 copies past the
  // string's buffer without crashing) is refused too. (A larger size that happens to end exactly
  // on a later object's header still passes the walk: the child's isolation is the answer there.)
  bytes = tcsim::test::slurp(dir / "good.h5");
  std::uint64_t size = 0;
  std::memcpy(&size, bytes.data() + gcol + 16 + 8, sizeof size);
  size += 8;
  std::memcpy(bytes.data() + gcol + 16 + 8, &size, sizeof size);
  write(dir / "bigger.h5", bytes);
  check_refused("validate -c " + gpu_config() + " " + q(dir / "bigger.h5") + " -o " + q(dir / "out3"),
                "bigger.h5: the file is corrupted: global heap collection at byte");
  // The undamaged file still reads.
  CHECK(run_tcsim("validate -c " + gpu_config() + " " + q(dir / "good.h5") + " -o " + q(dir / "out2")).exit_code == 0);
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: systolic sizes and offsets past their bounds are refused, not wrapped") {
  const fs::path dir = tcsim::test::temp_dir("bad_sys");
  check_refused("run -c " + systolic_config() + " --set address.ofmap_offset=9223372036854775807 --gemm 64x64x64 -o " +
                    q(dir / "o1"),
                "address.ofmap_offset");
  write(dir / "off.cfg", replaced(kCfg, "OfmapOffset: 20000000", "OfmapOffset: 9223372036854775807"));
  check_refused("run -c " + q(dir / "off.cfg") + " --gemm 64x64x64 -o " + q(dir / "o2"), "off.cfg:12: architecture_presets.OfmapOffset");
  write(dir / "sram.cfg", replaced(kCfg, "IfmapSramSzkB: 64", "IfmapSramSzkB: 9007199254740992"));
  check_refused("run -c " + q(dir / "sram.cfg") + " --gemm 64x64x64 -o " + q(dir / "o3"), "sram.cfg:7: architecture_presets.IfmapSramSzkB");
  write(dir / "tall.cfg", replaced(kCfg, "ArrayHeight: 32", "ArrayHeight: 100000"));
  check_refused("run -c " + q(dir / "tall.cfg") + " --gemm 64x64x64 -o " + q(dir / "o4"), "tall.cfg:5: architecture_presets.ArrayHeight");
  check_refused("run -c " + systolic_config() + " --set clock=1.41Hz --gemm 64x64x64 -o " + q(dir / "o5"), "clock");
  check_refused("run -c " + systolic_config() + " --set clock=1e30GHz --gemm 64x64x64 -o " + q(dir / "o6"), "[1MHz, 10GHz]");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: .cfg files with duplicate sections or keys and malformed unused keys are refused") {
  const fs::path dir = tcsim::test::temp_dir("bad_cfg");
  write(dir / "dupsec.cfg", kCfg + "[architecture_presets]\nArrayHeight: 64\n");
  check_refused("run -c " + q(dir / "dupsec.cfg") + " --gemm 64x64x64 -o " + q(dir / "o1"), "section given twice");
  write(dir / "dupkey.cfg", replaced(kCfg, "ArrayWidth: 32\n", "ArrayWidth: 32\nArrayWidth: 16\n"));
  check_refused("run -c " + q(dir / "dupkey.cfg") + " --gemm 64x64x64 -o " + q(dir / "o2"), "dupkey.cfg:7: architecture_presets.ArrayWidth: key given twice");
  write(dir / "banks.cfg", replaced(kCfg, "MemoryBanks: 1", "MemoryBanks: abc"));
  check_refused("run -c " + q(dir / "banks.cfg") + " --gemm 64x64x64 -o " + q(dir / "o3"), "banks.cfg:15: architecture_presets.MemoryBanks");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: absurd work is refused with its estimate; sizes past 2^31 are refused") {
  const fs::path dir = tcsim::test::temp_dir("bad_work");
  check_refused("run -c " + systolic_config() + " --gemm 99999999x99999999x99999999 -o " + q(dir / "o1"), "words per operand");
  check_refused("run -c " + systolic_config() + " --gemm 2147483648x32x32 -o " + q(dir / "o2"),
                "too much work: 6.71e+07 folds on the 32x32 array, an estimated 201 s and 20.1 GB");
  // Found by scripts/audit: 6.25M folds of a tall, thin GEMM ran for 20 s and took 1.7 GB.
  check_refused("run -c " + systolic_config() + " --gemm 99999999x64x128 -o " + q(dir / "o2b"), "too much work");
  write(dir / "topo.csv", "Layer, M, N, K,\nbig, 64, 64, 9223372036854775807,\n");
  check_refused("run -c " + systolic_config() + " --topology " + q(dir / "topo.csv") + " -o " + q(dir / "o3"),
                "topo.csv:2: K: expected a positive integer of at most 2^31");
  write(dir / "conv.csv",
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
        "c, 2147483649, 3, 3, 3, 3, 8, 1,\n");
  check_refused("run -c " + systolic_config() + " --topology " + q(dir / "conv.csv") + " -o " + q(dir / "o4"), "conv.csv:2: IFMAP Height");
  // GPU: inside the per-dimension range, but the operands overflow every count.
  check_refused("run -c " + gpu_config() + " --gemm 2147483647x2147483647x2147483647x2147483647 -o " + q(dir / "o5"),
                "too large for the model");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: CSV rows with a missing or extra field and duplicated columns are refused") {
  const fs::path dir = tcsim::test::temp_dir("bad_csv");
  const std::string db = "source,M,N,K,A Transpose,B Transpose,Time (msec),TERAFLOPS\n";
  write(dir / "v100_train_fp16_dense_matrix_multiplication.csv", db + "x,1760,16,1760,N,N,4.9\n");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "v100_train_fp16_dense_matrix_multiplication.csv") +
                    " -o " + q(dir / "o1"),
                "v100_train_fp16_dense_matrix_multiplication.csv:2: expected 8 fields (as the header on line 1), got 7");
  write(dir / "trace.csv", "name,m,n,k,m\na,64,64,64,128\n");
  check_refused("run -c " + gpu_config() + " " + q(dir / "trace.csv") + " -o " + q(dir / "o2"), "trace.csv:1: m: column given twice");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: measured meta.yaml with a duplicate key and absurd times are input errors") {
  const fs::path dir = tcsim::test::temp_dir("bad_measured");
  const std::string header = "name,m,n,k,a_format,b_format,c_format,d_format,time_us\n";
  write(dir / "gemm.csv", header + "a,64,64,64,fp16,fp16,fp32,fp32,5\n");
  write(dir / "meta.yaml", "gpu: V100\ngpu: A100\n");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "gemm.csv") + " -o " + q(dir / "o1"), "meta.yaml:2: gpu");
  write(dir / "meta.yaml", "gpu: V100\n");
  write(dir / "gemm.csv", header + "a,64,64,64,fp16,fp16,fp32,fp32,4.9e-324\n");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "gemm.csv") + " -o " + q(dir / "o2"), "gemm.csv:2: time_us: expected a time in");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: a second YAML document is refused") {
  const fs::path dir = tcsim::test::temp_dir("bad_yaml");
  write(dir / "two.yaml", tcsim::test::slurp(tcsim::test::source_dir() / "configs" / "systolic" / "scalesim_32x32_os.yaml") +
                              "---\narray: {rows: 8}\n");
  check_refused("config check " + q(dir / "two.yaml"), "a second YAML document");
  fs::remove_all(dir);
}

// Found by the fuzz targets (tests/fuzz/findings/fuzz_sweep_spec-timeout, fuzz_systolic_config-timeout):
// yaml-cpp 0.7's LoadAll never returns on a ',' where a document starts. Every YAML reader (configs,
// sweep specs, models) goes through one parser entry that bounds its passes and names the line.
TEST_CASE("bad inputs: a stray ',' in any YAML file is a parse error with its line, not an endless parse") {
  const fs::path dir = tcsim::test::temp_dir("bad_comma");
  const std::string comma = "unexpected ',' where a value should start";
  write(dir / "sys.yaml", "# a comment\n, x\nversion: 1\nkind: systolic\n");
  check_refused("config check " + q(dir / "sys.yaml"), "sys.yaml:2: not valid YAML: " + comma);
  write(dir / "gpu.yaml", ",\nbase: " + gpu_config() + "\n");
  check_refused("run -c " + q(dir / "gpu.yaml") + " --gemm 64x64x64 -o " + q(dir / "o1"), "gpu.yaml:1: not valid YAML: " + comma);
  write(dir / "sweep.yaml", "# a comment\n,\n");
  check_refused("sweep " + q(dir / "sweep.yaml") + " --dry-run", "sweep.yaml:2: not valid YAML: " + comma);
  write(dir / "model.yaml", "- a\n, b\n");
  check_refused("network -c " + gpu_config() + " " + q(dir / "model.yaml"), "model.yaml:2: not valid YAML: " + comma);
  fs::remove_all(dir);
}

// Found by scripts/audit (10,035 cases): a sweep spec's kv_len that is not an integer was an
// internal error (exit 1, no location).
TEST_CASE("bad inputs: a sweep workload's kv_len that is not an integer is refused with its key") {
  const fs::path dir = tcsim::test::temp_dir("bad_kv_len");
  for (const char* bad : {"1e308", "'---'", "4x096"}) {
    write(dir / "s.yaml", "base: " + gpu_config() + "\naxes:\n  - {path: sm.count, values: [80]}\nworkloads:\n  - {model: " +
                              q(tcsim::test::source_dir() / "models" / "llama2_7b.yaml") + ", seq: 1, kv_len: " + bad + "}\n");
    check_refused("sweep " + q(dir / "s.yaml") + " --dry-run", "s.yaml:5: workloads[0].kv_len: expected 0 or more cached tokens");
  }
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: options that were silently accepted are refused") {
  const fs::path dir = tcsim::test::temp_dir("bad_opts");
  check_refused("run -c " + gpu_config() + " --gemm 64x64x64 -j -1", "--jobs: expected a thread count >= 0");
  check_refused("run -c " + gpu_config() + " --gemm 64x64x64 -o ''", "--output: expected a folder or file name");
  check_refused("mma dot --a 0x1 --b 0x3c00", "a fp16 bit pattern has 4 hex digits");
  // host.autograd_factor is a multiple of the inference op's host cost: at least 1.
  check_refused("network -c " + gpu_config() + " " + q(tcsim::test::source_dir() / "models" / "resnet18.yaml") +
                    " --pass train --set host.autograd_factor=0.5",
                "host.autograd_factor: expected a number (between 1 and 10), got '0.5'");
  CHECK(run_tcsim("mma dot --a 0x3c00 --b 0x3c00 --arch sm_80").exit_code == 0);
  check_refused("mma dot --a 1 --b 1 --satfinite", "--satfinite: applies to integer MMA");
  check_refused("mma gemm --m 16 --n 16 --k 16 --hi inf", "--hi: expected a finite number");
  // A systolic config cannot predict measured GPU kernels.
  write(dir / "gemm.csv", "name,m,n,k,a_format,b_format,c_format,d_format,time_us\na,64,64,64,fp16,fp16,fp32,fp32,5\n");
  check_refused("validate -c " + systolic_config() + " " + q(dir / "gemm.csv"), "validate compares measured GPU kernel times");
  // --precision against the precision the DeepBench file name states.
  write(dir / "v100_train_fp16_dense_matrix_multiplication.csv",
        "source,M,N,K,A Transpose,B Transpose,Time (msec),TERAFLOPS\nx,1760,16,1760,N,N,0.02,4.9\n");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "v100_train_fp16_dense_matrix_multiplication.csv") + " --precision fp32",
                "the file name says fp16 but --precision says fp32");
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: integers past their range in names and repeat counts are input errors, not internal ones") {
  // Each of these ended in "internal error: stoll/stoul" (exit 1) before.
  const fs::path dir = tcsim::test::temp_dir("bad_ints") / "A100";
  fs::create_directories(dir);
  write(dir / "bert_large-train-99999999999999999999-1.json", "{\"e2e_latency\": 5.0}");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "bert_large-train-99999999999999999999-1.json"),
                "sequence length in the file name: expected an integer in [1, 2147483648]");
  write(dir / "bert_large-train-512-0.json", "{\"e2e_latency\": 5.0}");
  check_refused("validate -c " + gpu_config() + " " + q(dir / "bert_large-train-512-0.json"), "batch in the file name");
  check_refused("mma dot --a 1x99999999999999999999999 --b 1", "the repeat count after x must be 1..4096");
  // A 300 kB DLE cell crashed the reader (std::regex recursion overflowed the stack).
  write(dir / "dle.csv", "model,framework,container,gpu,precision,batch_per_gpu,seqlen,metric,value,unit,source_file,section_note\n"
                         "ResNet-50 v1.5,PyTorch,x,A100-80GB (DGX A100),TF32,256 " + std::string(300000, 'x') +
                         ",,train throughput,938,img/s,a,b\n");
  const auto long_cell = run_tcsim("validate -c " + gpu_config() + " " + q(dir / "dle.csv"));
  CHECK(long_cell.exit_code == 0);  // a batch with a note after it is read; the row is another GPU's
  fs::remove_all(dir.parent_path());
}

TEST_CASE("bad inputs: config check and show accept the SCALE-Sim .cfg files run accepts") {
  const fs::path dir = tcsim::test::temp_dir("cfg_check");
  write(dir / "a.cfg", kCfg);
  const auto check = run_tcsim("config check " + q(dir / "a.cfg"));
  CHECK(check.exit_code == 0);
  const auto show = run_tcsim("config show " + q(dir / "a.cfg"));
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("kind: systolic") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("bad inputs: messages show control and non-UTF-8 bytes escaped, a NUL does not cut them") {
  const fs::path dir = tcsim::test::temp_dir("bad_bytes");
  write(dir / "c.cfg", kCfg + std::string("na\x01m\xff", 5) + std::string("e\0x: 1\n", 7));
  const auto r = run_tcsim("config check " + q(dir / "c.cfg"));
  CHECK(r.exit_code == 2);
  INFO(r.err);
  CHECK(r.err.find("na\\x01m\\xFFe\\x00x: unknown key") != std::string::npos);
  CHECK(r.err.find('\x01') == std::string::npos);
  CHECK(r.err.back() == '\n');
  fs::remove_all(dir);
}
