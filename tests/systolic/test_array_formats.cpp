// array.formats: the operand formats a systolic array's MACs take (sim/systolic/README.md, "Operand
// formats"): the key and its errors, the model refusing other formats, and what `tcsim network`
// and `tcsim run` do with an int8-only array (tpu_v1).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "common/error.h"
#include "config/config.h"
#include "systolic/config/systolic_schema.h"
#include "systolic/systolic_model.h"
#include "test_support.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

std::string src(const std::string& rel) { return "'" + (test::source_dir() / rel).string() + "'"; }

const std::string kBase =
    "version: 1\nkind: systolic\nname: fa\nsemantics: faithful\nclock: 1GHz\narray:\n  rows: 32\n  cols: 32\n";

SystolicConfig load(const std::string& formats_line) {
  return config_from(config::Config::from_yaml_text(kBase + formats_line, config_schema(), "fa.yaml"));
}

std::string error_of_config(const std::string& formats_line) {
  try {
    load(formats_line);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string error_of_run(const SystolicModel& m, const Kernel& k) {
  try {
    (void)m.run(k);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("array.formats: any by default; a list keeps its order, the native format first") {
  const SystolicConfig any = load("");
  CHECK(any.formats.empty());
  CHECK(any.formats_text() == "any");
  for (FormatId f : {FormatId::int8, FormatId::fp16, FormatId::fp32, FormatId::e4m3}) CHECK(any.takes(f));
  const SystolicConfig c = load("  formats: bf16, fp32\n");
  REQUIRE(c.formats.size() == 2);
  CHECK(c.formats[0].format == FormatId::bf16);
  CHECK(c.formats[1].format == FormatId::fp32);
  CHECK(c.takes(FormatId::bf16));
  CHECK_FALSE(c.takes(FormatId::fp16));
  CHECK_FALSE(c.takes(FormatId::int8));
  CHECK(c.formats_text() == "bf16, fp32");
  CHECK(load("  formats: int8\n").formats == std::vector<ArrayFormat>{{FormatId::int8, 1}});
  // The shipped TPU v1 takes int8 only; the SCALE-Sim presets any format.
  const config::Config tpu = config::Config::load((test::source_dir() / "configs/systolic/tpu_v1.yaml").string(), config_schema());
  CHECK(config_from(tpu).formats == std::vector<ArrayFormat>{{FormatId::int8, 1}});
  const config::Config ss =
      config::Config::load((test::source_dir() / "configs/systolic/scalesim_256x256_ws.yaml").string(), config_schema());
  CHECK(config_from(ss).formats.empty());
}

TEST_CASE("array.formats: an unknown, repeated or empty format names the key and its line") {
  const std::string unknown = error_of_config("  formats: int8, bf17\n");
  CHECK_MESSAGE(unknown.find("fa.yaml:9: array.formats") != std::string::npos, unknown);
  CHECK(unknown.find("unknown format 'bf17'") != std::string::npos);
  const std::string twice = error_of_config("  formats: int8, s8\n");
  CHECK_MESSAGE(twice.find("format 's8' is listed twice") != std::string::npos, twice);
  const std::string empty = error_of_config("  formats: int8,\n");
  CHECK_MESSAGE(empty.find("unknown format ''") != std::string::npos, empty);
}

TEST_CASE("array.formats: the model refuses a GEMM or convolution in a format the MACs do not take") {
  const SystolicModel int8_only(load("  formats: int8\n"));
  Kernel g = make_gemm("proj", 64, 64, 64, FormatId::fp16, FormatId::fp32);
  const std::string e = error_of_run(int8_only, g);
  CHECK_MESSAGE(e.find("proj: fa's array takes s8 operands (array.formats), not fp16 (operand A)") != std::string::npos, e);
  g.a_format = FormatId::int8;  // B still fp16
  CHECK(error_of_run(int8_only, g).find("not fp16 (operand B)") != std::string::npos);
  const Kernel ok = make_gemm("proj", 64, 64, 64, FormatId::int8, FormatId::int32);
  CHECK(int8_only.run(ok).cycles > 0);
  Kernel conv;
  conv.kind = Kernel::Kind::conv;
  conv.name = "conv";
  conv.conv.batch = 1;
  conv.conv.channels = 8;
  conv.conv.ifmap_h = conv.conv.ifmap_w = 8;
  conv.conv.num_filters = 8;
  conv.conv.filter_h = conv.conv.filter_w = 3;
  conv.a_format = conv.b_format = FormatId::fp32;
  CHECK(error_of_run(int8_only, conv).find("not fp32 (operand A)") != std::string::npos);
  // Format-agnostic (any): the same kernels run, at the same cycles whatever the format.
  const SystolicModel any(load(""));
  CHECK(any.run(g).cycles == any.run(ok).cycles);
}

TEST_CASE("tcsim network on an int8-only array: int8 runs with quantized attention; fp16 and fp32 are refused") {
  const std::string base = "network -c " + src("configs/systolic/tpu_v1.yaml") + " " + src("models/bert_base.yaml") +
                           " --batch 2 --seq 64 --set vector.lanes=256 --set vector.sram_bandwidth=512B/clk";
  for (const char* mode : {"fp16", "fp32", "amp-bf16"}) {
    const auto r = test::run_tcsim(base + " --precision " + mode);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find("--precision: " + std::string(mode) + " is not available on tpu_v1") != std::string::npos, r.err);
    CHECK(r.err.find("array.formats") != std::string::npos);
    CHECK(r.out.empty());
  }
  const auto compare = test::run_tcsim(base + " --compare int8,fp16");
  CHECK(compare.exit_code == 2);
  CHECK_MESSAGE(compare.err.find("fp16 is not available on tpu_v1") != std::string::npos, compare.err);

  const auto dir = test::temp_dir("array_formats_network");
  const auto r = test::run_tcsim(base + " --precision int8 -o '" + (dir / "int8").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string kernels = test::slurp(dir / "int8" / "kernels.csv");
  CHECK(kernels.find("layer.attention.scores,") != std::string::npos);  // on the array
  CHECK(kernels.find("layer.attention.probs.quantize,") != std::string::npos);
  CHECK(kernels.find("layer.attention.quantize_in,") != std::string::npos);  // Q
  // Listing fp16 too brings back 16-bit attention (the GPUs' int8 lowering).
  const auto f16 = test::run_tcsim(base + " --precision int8 --set array.formats=int8,fp16 -o '" + (dir / "mixed").string() + "'");
  REQUIRE_MESSAGE(f16.exit_code == 0, f16.err);
  const std::string mixed = test::slurp(dir / "mixed" / "kernels.csv");
  CHECK(mixed.find("layer.attention.scores,") != std::string::npos);
  CHECK(mixed.find("layer.attention.probs.quantize,") == std::string::npos);
  CHECK(mixed.find("layer.attention.quantize_in,") == std::string::npos);
}

TEST_CASE("tcsim network without --precision runs the first mode the accelerator takes: fp32 on GPUs, int8 on tpu_v1") {
  const std::string model = " " + src("models/resnet18.yaml") + " --batch 2";
  const std::string tpu = "network -c " + src("configs/systolic/tpu_v1.yaml") + model;
  const auto native = test::run_tcsim(tpu);
  REQUIRE_MESSAGE(native.exit_code == 0, native.err);
  CHECK_MESSAGE(native.out.find("inference step, batch 2, int8\n") != std::string::npos, native.out);
  CHECK_MESSAGE(native.err.find("--precision int8: tpu_v1 (256x256 ws) does not run fp32, the default") != std::string::npos,
                native.err);
  // The same step as naming it.
  const auto named = test::run_tcsim(tpu + " --precision int8");
  REQUIRE(named.exit_code == 0);
  CHECK(named.out == native.out);
  // A bf16 array: the first mode it runs is amp-bf16; with fp32 listed (at 1/8 rate), fp32.
  const auto bf16 = test::run_tcsim(tpu + " --set array.formats=bf16");
  REQUIRE_MESSAGE(bf16.exit_code == 0, bf16.err);
  CHECK(bf16.out.find("batch 2, amp-bf16\n") != std::string::npos);
  const auto slow_fp32 = test::run_tcsim(tpu + " --set 'array.formats=bf16, fp32/8'");
  REQUIRE_MESSAGE(slow_fp32.exit_code == 0, slow_fp32.err);
  CHECK(slow_fp32.out.find("batch 2, fp32\n") != std::string::npos);
  CHECK(slow_fp32.err.find("the default") == std::string::npos);
  // Training: int8 does not train, so nothing is left; the error says what was refused and why.
  const auto train = test::run_tcsim(tpu + " --pass train");
  CHECK(train.exit_code == 2);
  CHECK_MESSAGE(train.err.find("--precision: none given, and tpu_v1 (256x256 ws) runs none of the training precisions") !=
                    std::string::npos,
                train.err);
  CHECK(train.err.find("array.formats") != std::string::npos);
  CHECK(train.out.empty());
  // A GPU keeps fp32, silently.
  const auto gpu = test::run_tcsim("network -c " + src("configs/gpu/t4.yaml") + model);
  REQUIRE_MESSAGE(gpu.exit_code == 0, gpu.err);
  CHECK(gpu.out.find("batch 2, fp32\n") != std::string::npos);
  CHECK(gpu.err.find("the default") == std::string::npos);
}

TEST_CASE("tcsim run on an int8-only array: an fp16 op trace is refused at its row; shapes take the native format") {
  const std::string tpu = "run -c " + src("configs/systolic/tpu_v1.yaml");
  const std::string trace = src("traces/gemm/transformer_layer.csv");
  const auto refused = test::run_tcsim(tpu + " " + trace);
  CHECK(refused.exit_code == 2);
  CHECK_MESSAGE(refused.err.find("transformer_layer.csv:11: tpu_v1's array takes s8 operands (array.formats), not fp16") !=
                    std::string::npos,
                refused.err);
  const auto listed = test::run_tcsim(tpu + " --set array.formats=int8,fp16 " + trace);
  CHECK_MESSAGE(listed.exit_code == 0, listed.err);
  // --gemm carries no format: int8 words on tpu_v1, the native bf16 (2-byte operands, fp32 out)
  // where the array takes only bf16: the same words, twice the bytes read from DRAM.
  auto csv_value = [](const std::string& args, const std::string& column) {
    const auto r = test::run_tcsim(args + " --format csv");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string header = r.out.substr(0, r.out.find('\n')), row = r.out.substr(r.out.find('\n') + 1);
    const auto before = [&](const std::string& text, std::size_t end) {
      std::size_t commas = 0;
      for (std::size_t i = 0; i < end; ++i) commas += text[i] == ',';
      return commas;
    };
    const std::size_t field = before(header, header.find("," + column + ",") + 1);
    std::size_t at = 0;
    for (std::size_t i = 0; i < field; ++i) at = row.find(',', at) + 1;
    return std::stod(row.substr(at, row.find(',', at) - at));
  };
  const std::string gemm = tpu + " --gemm 512x512x512";
  CHECK(csv_value(gemm, "dram_ifmap_read_words") == 262144);
  CHECK(csv_value(gemm + " --set array.formats=bf16", "dram_ifmap_read_words") == 262144);
  CHECK(csv_value(gemm, "dram_read_bytes") == 524288);
  CHECK(csv_value(gemm + " --set array.formats=bf16", "dram_read_bytes") == 1048576);
}

TEST_CASE("array.formats rates: FORMAT/N takes N cycles per MAC, stretching the faithful timeline N-fold") {
  const SystolicConfig c = load("  formats: int8, bf16/2, fp32/8\n");
  REQUIRE(c.formats.size() == 3);
  CHECK(c.formats[0] == ArrayFormat{FormatId::int8, 1});
  CHECK(c.formats[1] == ArrayFormat{FormatId::bf16, 2});
  CHECK(c.formats[2] == ArrayFormat{FormatId::fp32, 8});
  CHECK(c.formats_text() == "s8, bf16/2, fp32/8");
  CHECK(c.mac_cycles(FormatId::int8, FormatId::int8) == 1);
  CHECK(c.mac_cycles(FormatId::bf16, FormatId::bf16) == 2);
  CHECK(c.mac_cycles(FormatId::int8, FormatId::fp32) == 8);  // mixed operands: the slower one's
  CHECK(load("").mac_cycles(FormatId::fp32, FormatId::fp32) == 1);
  for (const char* bad : {"bf16/0", "bf16/x", "bf16/65", "bf16/", "bf16/2.5"}) {
    const std::string e = error_of_config("  formats: int8, " + std::string(bad) + "\n");
    CHECK_MESSAGE(e.find("fa.yaml:9: array.formats: '" + std::string(bad) + "': expected FORMAT/N") != std::string::npos, e);
  }
  // SCALE-Sim's schedule steps every cycle: a rate needs the faithful semantics.
  const std::string ss_yaml = "version: 1\nkind: systolic\nname: ss\narray:\n  formats: int8, bf16/2\n";
  std::string ss_error;
  try {
    (void)config_from(config::Config::from_yaml_text(ss_yaml, config_schema(), "ss.yaml"));
  } catch (const InputError& e) {
    ss_error = e.what();
  }
  CHECK_MESSAGE(ss_error.find("ss.yaml:5: array.formats: bf16/2: a rate below one MAC per cycle needs semantics: faithful") !=
                    std::string::npos,
                ss_error);

  // The same check guards a config built in code.
  SystolicConfig direct = c;
  direct.semantics = Semantics::scalesim_v2;
  CHECK_THROWS_WITH_AS(SystolicModel{direct}, doctest::Contains("needs semantics: faithful"), InputError);
  direct = c;
  direct.formats[1].mac_cycles = 0;
  CHECK_THROWS_WITH_AS(SystolicModel{direct}, doctest::Contains("bf16/0: expected 1 to 64 cycles per MAC"), InputError);

  // No DRAM limit in kBase: the layer's cycles are its compute, N times the native format's.
  const SystolicModel model(c);
  const KernelResult native = model.run(make_gemm("g", 300, 200, 100, FormatId::int8, FormatId::int32));
  const KernelResult half = model.run(make_gemm("g", 300, 200, 100, FormatId::bf16, FormatId::fp32));
  const KernelResult eighth = model.run(make_gemm("g", 300, 200, 100, FormatId::fp32, FormatId::fp32));
  CHECK(half.cycles == 2 * native.cycles);
  CHECK(eighth.cycles == 8 * native.cycles);
  CHECK(*half.get("overall_util_pct") == doctest::Approx(*native.get("overall_util_pct") / 2));
  REQUIRE_FALSE(half.notes.empty());
  CHECK(half.notes.back().find("1/2 of the native MAC rate") != std::string::npos);
}

TEST_CASE("array.formats rates through the CLI: --compare sees them, --traces refuses a reduced-rate layer") {
  const std::string tpu = src("configs/systolic/tpu_v1.yaml");
  const auto r = test::run_tcsim("network -c " + tpu + " " + src("models/resnet18.yaml") +
                                 " --batch 1 --set 'array.formats=int8, bf16/2' --compare int8,bf16");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("int8") != std::string::npos);
  CHECK(r.out.find("bf16") != std::string::npos);
  const auto dir = test::temp_dir("array_formats_traces");
  const auto traced = test::run_tcsim("run -c " + tpu + " --set array.formats=bf16/2 --gemm 64x64x64 --traces -o '" +
                                      (dir / "out").string() + "'");
  CHECK(traced.exit_code == 2);
  CHECK_MESSAGE(traced.err.find("--traces: ") != std::string::npos, traced.err);
  CHECK(traced.err.find("runs at 1/2 of the native MAC rate") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "layer0"));
  const auto full = test::run_tcsim("run -c " + tpu + " --set array.formats=bf16 --gemm 64x64x64 --traces -o '" +
                                    (dir / "full").string() + "'");
  CHECK_MESSAGE(full.exit_code == 0, full.err);
}
