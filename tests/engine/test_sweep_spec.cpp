// Sweep specs: axes (values, ranges, presets), product and zip, constraints, and the errors a bad
// spec gives (file:line: key: what was expected) before anything runs.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "engine/sweep/spec/constraint_expr.h"
#include "engine/sweep/spec/sweep_points.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/sweep/spec/sweep_spec.h"
#include "engine/sweep/output/sweep_table.h"
#include "test_support.h"

using namespace tcsim;
using namespace tcsim::engine::sweep;

namespace {

// The InputError `stage` (read_sweep_spec or prepare_sweep) throws for the spec, or "".
template <class Stage>
std::string spec_error(Stage stage, const std::filesystem::path& spec) {
  try {
    (void)stage(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::filesystem::path write_spec(const std::string& tag, const std::string& body) {
  const auto dir = test::temp_dir("sweep_spec_" + tag);
  const auto file = dir / "spec.yaml";
  std::ofstream(file) << "base: " << (test::source_dir() / "configs/gpu/a100.yaml").string() << "\n"
                      << body << "workloads:\n  - {model: " << (test::source_dir() / "models/resnet18.yaml").string()
                      << ", batch: 1}\n";
  return file;
}

std::string error_of(const std::filesystem::path& spec) {
  try {
    (void)expand_points(read_sweep_spec(spec));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sweep spec: values, log and linear ranges, presets; product order and constraints") {
  const auto f = write_spec("ok",
                            "axes:\n"
                            "  - path: l2.size\n    range: {from: 10MiB, to: 40MiB, num: 3, scale: log}\n"
                            "  - path: sm.count\n    range: {from: 54, to: 108, num: 2}\n"
                            "  - name: tc\n    presets: {a: {}, b: {dram.bandwidth: 2TB/s}}\n"
                            "constraints:\n  - \"l2.size < 40MiB || tc == 'a'\"\n");
  const SweepSpec s = read_sweep_spec(f);
  REQUIRE(s.axes.size() == 3);
  CHECK(s.axes[0].values[1].label == "20MiB");
  CHECK(s.axes[0].values[1].si == doctest::Approx(20.0 * 1024 * 1024));
  CHECK(s.axes[1].values[1].label == "108");
  CHECK(s.axes[2].values[1].overrides == std::vector<std::string>{"dram.bandwidth=2TB/s"});
  const Expansion e = expand_points(s);
  CHECK(e.candidates == 12);
  CHECK(e.dropped == 2);  // 40MiB with preset b, for both SM counts
  REQUIRE(e.points.size() == 10);
  CHECK(e.points[1].overrides == std::vector<std::string>{"l2.size=10MiB", "sm.count=54", "dram.bandwidth=2TB/s"});
  CHECK(e.points[0].costs.dram_bandwidth_bytes_per_s == doctest::Approx(1555e9));
  CHECK(e.points[1].costs.dram_bandwidth_bytes_per_s == doctest::Approx(2e12));
  CHECK(e.points[0].costs.peak_tflops.value() == doctest::Approx(54 * 4 * 256 * 2 * 1.41e9 / 1e12));
}

TEST_CASE("sweep spec: zip pairs the axes' values") {
  const auto f = write_spec("zip", "mode: zip\naxes:\n  - path: sm.count\n    values: [54, 108]\n"
                                   "  - path: l2.size\n    values: [20MiB, 40MiB]\n");
  const Expansion e = expand_points(read_sweep_spec(f));
  REQUIRE(e.points.size() == 2);
  CHECK(e.points[1].overrides == std::vector<std::string>{"sm.count=108", "l2.size=40MiB"});
}

TEST_CASE("sweep spec errors name the spec's line and key") {
  CHECK(error_of(write_spec("path", "axes:\n  - path: l2.sizee\n    values: [20MiB]\n")).find("spec.yaml:3: axes: l2.sizee") !=
        std::string::npos);
  const std::string unit = error_of(write_spec("unit", "axes:\n  - path: l2.size\n    values: [20GHz]\n"));
  CHECK(unit.find("spec.yaml:3: axes: l2.size") != std::string::npos);
  CHECK(unit.find("20GHz") != std::string::npos);
  CHECK(error_of(write_spec("empty", "axes:\n  - path: sm.count\n    values: [54]\nconstraints:\n  - \"sm.count > 100\"\n"))
            .find("no points") != std::string::npos);
  CHECK(error_of(write_spec("parse", "axes:\n  - path: sm.count\n    values: [54]\nconstraints:\n  - \"sm.count >\"\n"))
            .find("spec.yaml:6: constraints[0]") != std::string::npos);
  CHECK(error_of(write_spec("name", "axes:\n  - path: sm.count\n    values: [54]\nconstraints:\n  - \"sm.cnt > 1\"\n"))
            .find("'sm.cnt' is not an axis") != std::string::npos);
  CHECK(error_of(write_spec("zipn", "mode: zip\naxes:\n  - path: sm.count\n    values: [54, 108]\n"
                                    "  - path: l2.size\n    values: [20MiB]\n"))
            .find("mode: zip") != std::string::npos);
  CHECK(error_of(write_spec("range", "axes:\n  - path: l2.size\n    range: {from: 10MiB, to: 2GHz, num: 2}\n"))
            .find("same unit") != std::string::npos);
  CHECK(error_of(write_spec("key", "axes:\n  - path: l2.size\n    valuez: [1MiB]\n")).find("spec.yaml:4: axes[0].valuez") !=
        std::string::npos);
  // Absurd sizes are refused before any point is built (scripts/audit: num 2^31 ran for hours).
  CHECK(error_of(write_spec("bignum", "axes:\n  - path: l2.size\n    range: {from: 10MiB, to: 40MiB, num: 2147483648}\n"))
            .find("spec.yaml:4: axes[0].range.num: expected at most 10000 values") != std::string::npos);
  CHECK(error_of(write_spec("product", "axes:\n  - path: l2.size\n    range: {from: 10MiB, to: 40MiB, num: 10000}\n"
                                       "  - path: sm.count\n    range: {from: 8, to: 108, num: 101}\n"))
            .find("the axes make 1.01e+06 combinations; at most 1e+06") != std::string::npos);
  // Non-scalar keys (found by fuzz_sweep_spec): an InputError naming the line, not yaml-cpp's throw.
  CHECK(error_of(write_spec("seqkey", "axes:\n  - path: l2.size\n    ? [values]\n    : [1MiB]\n")).find("spec.yaml:4: axes[0]: expected a key name") !=
        std::string::npos);
  CHECK(error_of(write_spec("presetkey", "axes:\n  - name: tc\n    presets: {? [a]: {}}\n")).find("expected a key name") != std::string::npos);
  CHECK(error_of(write_spec("overridekey", "axes:\n  - name: tc\n    presets: {a: {? {x: 1}: 2}}\n")).find("axes[0].presets.a: expected a key name") !=
        std::string::npos);
  SweepSpec s = read_sweep_spec(write_spec("metric", "axes:\n  - path: sm.count\n    values: [54]\nmetrics: [step_time_s, speed]\n"));
  CHECK_THROWS_WITH_AS(check_metrics(s), doctest::Contains("unknown metric 'speed'"), InputError);
}

TEST_CASE("constraint expressions: units, arithmetic, logic and text") {
  const std::map<std::string, int> names{{"bw", 0}, {"df", 1}};
  const auto holds = [&](const std::string& text, double bw, const std::string& df) {
    return ConstraintExpr(text, "here", names).holds({ExprValue(bw), ExprValue(df)});
  };
  CHECK(holds("bw >= 2TB/s", 2e12, "os"));
  CHECK_FALSE(holds("bw / 1GB/s > 2000", 2e12, "os"));
  CHECK(holds("bw * 2 == 4e12 && df == 'os'", 2e12, "os"));
  CHECK(holds("not (df != \"ws\") or bw < 1", 5, "ws"));
  CHECK(holds("-bw + 10 > 0", 5, "ws"));
  CHECK_THROWS_AS(ConstraintExpr("bw > ", "here", names), InputError);
  CHECK_THROWS_AS(ConstraintExpr("bw > 3parsecs", "here", names), InputError);
  CHECK_THROWS_AS(holds("df > 1", 1, "os"), InputError);
}

TEST_CASE("sweep records: every cell reads back exactly; damaged records are rejected") {
  Record r;
  r.row = {io::Cell(std::int64_t(3)), io::Cell(std::string("a\tb\\c\nd")), io::Cell(0.1 + 0.2), io::Cell()};
  r.layers.push_back({io::Cell(std::int64_t(3)), io::Cell(std::string("w")), io::Cell(std::string("conv1")),
                      io::Cell(std::string("conv")), io::Cell(std::int64_t(1)), io::Cell(1e-300), io::Cell()});
  const std::string text = encode_record(r, "abc");
  Record back;
  REQUIRE(decode_record(text, "abc", 4, back));
  CHECK(back.row == r.row);
  CHECK(back.layers == r.layers);
  CHECK_FALSE(decode_record(text, "abd", 4, back));                        // another sweep
  CHECK_FALSE(decode_record(text, "abc", 5, back));                        // other columns
  CHECK_FALSE(decode_record(text.substr(0, text.size() - 4), "abc", 4, back));  // cut short
}

TEST_CASE("sweep hash: the same spec reached through another path spelling is the same sweep") {
  namespace fs = std::filesystem;
  const auto dir = test::temp_dir("sweep_spec_hash");
  const auto file = dir / "spec.yaml";
  std::ofstream(file) << "base: " << fs::relative(test::source_dir() / "configs/gpu/a100.yaml", dir).string() << "\n"
                      << "axes:\n  - path: sm.count\n    values: [54, 108]\n"
                      << "workloads:\n  - {model: " << fs::relative(test::source_dir() / "models/resnet18.yaml", dir).string()
                      << ", batch: 1}\n";
  const auto absolute = prepare_sweep(file);
  const auto relative = prepare_sweep(fs::relative(file, fs::current_path()));
  CHECK(absolute.hash == relative.hash);
  CHECK(absolute.resolved_spec == relative.resolved_spec);
}

TEST_CASE("sweep workloads take tcsim network's run choices: layout, framework, CUDA graphs, ...") {
  namespace fs = std::filesystem;
  const auto dir = test::temp_dir("sweep_spec_run");
  auto spec = [&](const std::string& tag, const std::string& extra, const std::string& pass = "train") {
    const auto file = dir / (tag + ".yaml");
    std::ofstream(file) << "base: " << (test::source_dir() / "configs/gpu/a100.yaml").string() << "\n"
                        << "axes:\n  - path: sm.count\n    values: [108]\n"
                        << "workloads:\n  - {model: " << (test::source_dir() / "models/resnet18.yaml").string()
                        << ", batch: 32, precision: amp-fp16, pass: " << pass << extra << "}\n";
    return file;
  };
  const SweepSpec s = read_sweep_spec(spec("read", ", layout: nhwc, framework: mxnet, cuda_graphs: true, fuse_bn_relu: true"));
  REQUIRE(s.workloads.size() == 1);
  CHECK(s.workloads[0].run.layout == "nhwc");
  CHECK(s.workloads[0].run.framework == "mxnet");
  CHECK(s.workloads[0].run.cuda_graphs);
  CHECK(s.workloads[0].run.fuse_bn_relu);
  CHECK_FALSE(s.workloads[0].run.fp32_master);
  CHECK_FALSE(s.workloads[0].run.eval_metrics);
  CHECK(read_sweep_spec(spec("eval", ", eval_metrics: true", "infer")).workloads[0].run.eval_metrics);
  // A switch of the other pass is the spec's error, at its line and key (not a failed point).
  const auto eval_train = spec("eval_train", ", eval_metrics: true");
  CHECK_THROWS_WITH_AS(read_sweep_spec(eval_train), doctest::Contains((eval_train.string() + ":6: workloads[0].eval_metrics").c_str()),
                       InputError);
  const auto master_infer = spec("master_infer", ", fp32_master: true", "infer");
  CHECK_THROWS_WITH_AS(read_sweep_spec(master_infer), doctest::Contains("workloads[0].fp32_master: master weights"), InputError);
  // They reach the step: channels-last AMP drops cuDNN's layout transposes, and the choices are part
  // of the sweep's identity (a folder of the NCHW sweep is not resumed as the NHWC one).
  const auto nchw = prepare_sweep(spec("nchw", ""));
  const auto nhwc = prepare_sweep(spec("nhwc", ", layout: nhwc"));
  CHECK(nchw.workloads[0].network->options.conv_layout == TensorLayout::nchw);
  CHECK(nhwc.workloads[0].network->options.conv_layout == TensorLayout::nhwc);
  CHECK(nchw.hash != nhwc.hash);
  CHECK(nhwc.resolved_spec.find("layout: nhwc") != std::string::npos);
  CHECK(nchw.resolved_spec.find("layout") == std::string::npos);  // defaults are not written: old sweeps keep their hash
  // Bad values name the spec's line and key before anything runs; a trace takes none of them.
  auto error = [](const fs::path& f) { return spec_error([](const fs::path& p) { return read_sweep_spec(p); }, f); };
  CHECK(error(spec("badlayout", ", layout: nwhc")).find("badlayout.yaml:6: workloads[0].layout: expected nchw or nhwc, got 'nwhc'") !=
        std::string::npos);
  CHECK(error(spec("badfw", ", framework: caffe")).find("workloads[0].framework: expected pytorch, mxnet or tensorflow") !=
        std::string::npos);
  CHECK(error(spec("badbool", ", cuda_graphs: yes")).find("workloads[0].cuda_graphs: expected true or false, got 'yes'") !=
        std::string::npos);
  CHECK(error(spec("badattn", ", attention: flash")).find("workloads[0].attention: expected auto, fused or unfused") !=
        std::string::npos);
  const auto trace = dir / "trace.yaml";
  std::ofstream(trace) << "base: " << (test::source_dir() / "configs/gpu/a100.yaml").string() << "\n"
                       << "axes:\n  - path: sm.count\n    values: [108]\n"
                       << "workloads:\n  - {trace: " << (test::source_dir() / "traces/gemm/square.csv").string()
                       << ", layout: nhwc}\n";
  CHECK(error(trace).find("workloads[0].layout: a trace takes no layout:") != std::string::npos);
}

TEST_CASE("sweep workloads: a model file's error is named as the workload's, at the spec's line") {
  namespace fs = std::filesystem;
  const auto dir = test::temp_dir("sweep_spec_model_error");
  auto spec = [&](const std::string& tag, const std::string& model, const std::string& extra) {
    const auto file = dir / (tag + ".yaml");
    std::ofstream(file) << "base: " << (test::source_dir() / "configs/gpu/a100.yaml").string() << "\n"
                        << "axes:\n  - path: sm.count\n    values: [108]\n"
                        << "workloads:\n  - {model: " << (test::source_dir() / "models" / model).string()
                        << ", name: w, batch: 2, precision: fp16, pass: infer" << extra << "}\n";
    return file;
  };
  auto error = [](const fs::path& f) { return spec_error([](const fs::path& p) { return prepare_sweep(p); }, f); };
  CHECK(error(spec("ok", "gpt2.yaml", ", seq: 1, kv_len: 1023")).empty());
  const auto cache = spec("encoder_cache", "bert_large.yaml", ", seq: 1, kv_len: 64");
  CHECK(error(cache).find(cache.string() + ":6: workloads: w: ") == 0);
  CHECK(error(cache).find("bert_large.yaml:29: layer 'attention': causal: a KV cache (past 64 tokens") != std::string::npos);
  CHECK(error(spec("long", "bert_large.yaml", ", seq: 4096")).find("a table of 512 learned positions") != std::string::npos);
  // Choices that need a decoder: a dynamic cache on an encoder, at the workload's key; a KV cache in
  // training, at the spec's own line and key.
  CHECK(error(spec("dynamic", "bert_large.yaml", ", seq: 8, kv_cache: dynamic")).find("workloads: w.kv_cache: dynamic grows") !=
        std::string::npos);
  CHECK(error(spec("dynamic_ok", "gpt2.yaml", ", seq: 1, kv_len: 8, kv_cache: dynamic")).empty());
  auto train = spec("train_cache", "gpt2.yaml", ", seq: 1, kv_len: 8");
  std::string text;
  {
    std::ifstream in(train);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(train) << text.replace(text.find("pass: infer"), 11, "pass: train");
  CHECK(error(train).find(train.string() + ":6: workloads[0].kv_len: a KV cache is a decode step's: only with pass: infer") == 0);
}
