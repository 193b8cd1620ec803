// `tcsim network` end to end on the shipped models and configs, and `tcsim validate` on
// whole-network measurements.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "workload/csv/csv_text.h"

#include "test_support.h"

using tcsim::test::run_tcsim;
using tcsim::test::slurp;
using tcsim::test::source_dir;
using tcsim::test::temp_dir;

namespace {
std::string src(const std::string& rel) { return "'" + (source_dir() / rel).string() + "'"; }
}  // namespace

TEST_CASE("tcsim network: per-layer table, totals, top layers, memory, and the result folder") {
  const auto dir = temp_dir("network_cli");
  const auto r = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/resnet18.yaml") +
                           " --batch 32 --precision amp-fp16 --pass train -j 1 -o '" + (dir / "out").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("Total:") != std::string::npos);
  CHECK(r.out.find("Most expensive layers") != std::string::npos);
  CHECK(r.out.find("Memory: weights") != std::string::npos);
  CHECK(r.out.find("layer1.conv1") != std::string::npos);
  for (const char* f : {"summary.csv", "kernels.csv", "totals.csv", "memory.csv", "summary.json", "results.h5",
                        "config.resolved.yaml"})
    CHECK_MESSAGE(std::filesystem::exists(dir / "out" / f), f);
  const std::string summary = slurp(dir / "out" / "summary.csv");
  CHECK(summary.rfind("layer,kind,shape,count,kernels,time_us,", 0) == 0);
  // Deterministic: the same command writes the same tables.
  const auto again = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/resnet18.yaml") +
                               " --batch 32 --precision amp-fp16 --pass train -j 2 -o '" + (dir / "again").string() + "'");
  REQUIRE(again.exit_code == 0);
  CHECK(slurp(dir / "again" / "summary.csv") == summary);
  CHECK(slurp(dir / "again" / "kernels.csv") == slurp(dir / "out" / "kernels.csv"));
}

TEST_CASE("tcsim network --compare: one row per precision and the time per layer kind") {
  const auto r = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/bert_base.yaml") +
                           " --batch 4 --seq 128 --pass train --compare fp32,tf32,amp-fp16,amp-bf16");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* mode : {"fp32 ", "tf32 ", "amp-fp16 ", "amp-bf16 "}) CHECK(r.out.find(mode) != std::string::npos);
  CHECK(r.out.find("per layer kind") != std::string::npos);
  CHECK(r.out.find("linear") != std::string::npos);
}

TEST_CASE("tcsim network: decode of one token against a KV cache, and CUDA graphs") {
  const auto r = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/llama2_7b.yaml") +
                           " --seq 1 --kv-len 1024 --batch 4 --precision fp16 --cuda-graphs");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("KV cache") != std::string::npos);
  CHECK(r.out.find("tokens/s") != std::string::npos);
}

TEST_CASE("tcsim network --kv-cache dynamic: Hugging Face's DynamicCache copies the cache every decode step") {
  const std::string base = "network -c " + src("configs/gpu/h200.yaml") + " " + src("models/llama2_7b.yaml") +
                           " --seq 1 --kv-len 4096 --batch 16 --precision fp16 --cuda-graphs -o ";
  const auto dir = tcsim::test::temp_dir("kv_cache_cli");
  const auto s = run_tcsim(base + (dir / "static").string());
  const auto d = run_tcsim(base + (dir / "dynamic").string() + " --kv-cache dynamic");
  REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  REQUIRE_MESSAGE(d.exit_code == 0, d.err);
  CHECK(d.out.find("DynamicCache") != std::string::npos);
  CHECK(s.out.find("DynamicCache") == std::string::npos);
  // 16 x 32 heads x 4097 tokens x 128 x 2 bytes, read and written, keys and values, 32 layers: 137 GB
  // of copies a step on top of attention's reads of the cache (69 GB).
  const auto total_ms = [](const std::string& out) {
    const auto at = out.find("Total: ");
    return at == std::string::npos ? 0.0 : std::stod(out.substr(at + 7));
  };
  CHECK(total_ms(d.out) > 2 * total_ms(s.out));
  // Cropped after each step, the cache is a view and every append takes torch.cat's general kernel.
  const auto c = run_tcsim(base + (dir / "cropped").string() + " --kv-cache cropped");
  REQUIRE_MESSAGE(c.exit_code == 0, c.err);
  CHECK(c.out.find("cropped after each step") != std::string::npos);
  CHECK(total_ms(c.out) > total_ms(d.out));
  const auto bad = run_tcsim(base + (dir / "bad").string() + " --kv-cache paged");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--kv-cache") != std::string::npos);
}

TEST_CASE("tcsim network --eval-metrics: a classifier's validation step adds its loss and accuracy kernels") {
  const auto dir = temp_dir("network_eval_metrics");
  const auto plain = run_tcsim("network -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet50.yaml") +
                               " --batch 1 -o '" + (dir / "plain").string() + "'");
  const auto eval = run_tcsim("network -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet50.yaml") +
                              " --batch 1 --eval-metrics -o '" + (dir / "eval").string() + "'");
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  REQUIRE_MESSAGE(eval.exit_code == 0, eval.err);
  const std::string plain_kernels = slurp(dir / "plain" / "kernels.csv"), eval_kernels = slurp(dir / "eval" / "kernels.csv");
  CHECK(plain_kernels.find("accuracy.topk") == std::string::npos);
  CHECK(plain_kernels.find("loss.log_softmax") == std::string::npos);
  CHECK(eval_kernels.find("accuracy.topk") != std::string::npos);
  CHECK(eval_kernels.find("accuracy.top5.reshape") != std::string::npos);
  CHECK(eval_kernels.find("loss.log_softmax") != std::string::npos);  // the train-only loss layer runs
  const auto train = run_tcsim("network -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet50.yaml") +
                               " --batch 1 --eval-metrics --pass train");
  CHECK(train.exit_code == 2);
  CHECK(train.err.find("--eval-metrics") != std::string::npos);
}

TEST_CASE("tcsim network: a step that does not fit in the GPU's memory is warned about") {
  const auto r = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/llama2_7b.yaml") +
                           " --seq 2048 --batch 1 --precision amp-bf16 --pass train");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("of 40.00 GiB") != std::string::npos);
  CHECK(r.err.find("more than the 40.00 GiB of device memory") != std::string::npos);
}

TEST_CASE("tcsim network on a systolic array: GEMM-like layers on the array, the others listed as not modelled") {
  const auto r = run_tcsim("network -c " + src("configs/systolic/tpu_v1.yaml") + " " + src("models/resnet18.yaml") +
                           " --batch 1 --precision int8");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("not modelled") != std::string::npos);
}

TEST_CASE("tcsim network on a systolic array: dram.size is the device memory the footprint is checked against") {
  // tpu_v1's 8 GiB Weight Memory holds Llama-2-7B's int8 weights (6.28 GiB), not Mixtral's.
  const std::string base = "network -c " + src("configs/systolic/tpu_v1.yaml") + " ";
  const auto fits = run_tcsim(base + src("models/llama2_7b.yaml") + " --seq 1 --kv-len 512 --batch 1 --precision int8");
  REQUIRE_MESSAGE(fits.exit_code == 0, fits.err);
  CHECK(fits.out.find("of 8.00 GiB") != std::string::npos);
  CHECK(fits.err.find("more than the") == std::string::npos);
  const auto over = run_tcsim(base + src("models/mixtral_8x7b.yaml") + " --seq 1 --kv-len 512 --batch 1 --precision int8");
  REQUIRE_MESSAGE(over.exit_code == 0, over.err);
  CHECK(over.err.find("more than the 8.00 GiB of device memory") != std::string::npos);
  // Without it (the default, 0B), nothing is checked.
  const auto unknown = run_tcsim(base + src("models/mixtral_8x7b.yaml") + " --seq 1 --kv-len 512 --batch 1 --precision int8 --set dram.size=0B");
  REQUIRE_MESSAGE(unknown.exit_code == 0, unknown.err);
  CHECK(unknown.out.find("of 8.00 GiB") == std::string::npos);
  CHECK(unknown.err.find("more than the") == std::string::npos);
}

TEST_CASE("tcsim network on a SCALE-Sim config without a clock: exit 2 saying so, not a table of 0 us") {
  const std::string base = "network -c " + src("configs/systolic/scalesim_32x32_os.yaml") + " " +
                           src("models/resnet18.yaml") + " --batch 1";
  const auto r = run_tcsim(base);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("scalesim_32x32_os.yaml: clock: none") != std::string::npos, r.err);
  CHECK(r.out.empty());
  const auto clocked = run_tcsim(base + " --set clock=1GHz");
  REQUIRE_MESSAGE(clocked.exit_code == 0, clocked.err);
  CHECK(clocked.out.find("Total: 0 ms") == std::string::npos);
  CHECK(clocked.out.find("Total: ") != std::string::npos);
}

TEST_CASE("tcsim network --framework mxnet --fuse-bn-relu: the ReLUs and residual adds run inside the batch norms") {
  const std::string base = "network -j 1 --format csv -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet18.yaml") +
                           " --batch 64 --precision amp-fp16 --pass train --layout nhwc";
  auto step_us = [](const std::string& csv_out) {  // the summary's per-layer times, summed
    const auto csv = tcsim::workload::parse_csv(csv_out, "out");
    const int t = csv.column("time_us");
    double sum = 0;
    for (const auto& row : csv.rows) sum += std::stod(csv.field(row, t));
    return sum;
  };
  const auto pytorch = run_tcsim(base);
  const auto mxnet = run_tcsim(base + " --framework mxnet");
  const auto fused = run_tcsim(base + " --framework mxnet --fuse-bn-relu");
  REQUIRE_MESSAGE(fused.exit_code == 0, fused.err);
  REQUIRE(pytorch.exit_code == 0);
  REQUIRE(mxnet.exit_code == 0);
  CHECK(pytorch.out != mxnet.out);  // cuDNN's persistent batch norms vs the element-parallel ones
  // ResNet-18's ReLUs and adds cost a tenth of the step and more; they are gone.
  CHECK(step_us(fused.out) < 0.9 * step_us(mxnet.out));
  const auto table = run_tcsim("network -j 1 -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet18.yaml") +
                               " --batch 64 --precision amp-fp16 --pass train --layout nhwc --framework mxnet --fuse-bn-relu");
  CHECK(table.out.find("run inside the batch-norm kernels") != std::string::npos);
}

TEST_CASE("tcsim network --framework mxnet: channels-first batch norms call cuDNN, channels-last ones do not") {
  const auto dir = temp_dir("network_mxnet_bn");
  auto bn1_forward = [&](const std::string& name, const std::string& args) {
    const auto out = dir / name;
    const auto r = run_tcsim("network -j 1 -c " + src("configs/gpu/v100.yaml") + " " + src("models/resnet18.yaml") +
                             " --batch 32 --pass train " + args + " -o '" + out.string() + "'");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto csv = tcsim::workload::read_csv(out / "kernels.csv");
    const int k = csv.column("kernel"), p = csv.column("phase"), m = csv.column("mapping");
    for (const auto& row : csv.rows)
      if (csv.field(row, k) == "bn1" && csv.field(row, p) == "forward") return csv.field(row, m);
    return std::string("(no bn1)");
  };
  const std::string mxnet_nchw = bn1_forward("nchw", "--precision fp32 --framework mxnet");
  CHECK(mxnet_nchw.find("bn_fw_tr_1C11_kernel_NCHW") != std::string::npos);
  CHECK(mxnet_nchw == bn1_forward("pytorch", "--precision fp32"));
  const std::string mxnet_nhwc = bn1_forward("nhwc", "--precision amp-fp16 --layout nhwc --framework mxnet");
  CHECK(mxnet_nhwc.find("cudnn") == std::string::npos);
  CHECK(bn1_forward("tf", "--precision fp32 --framework tensorflow").find("cudnn") == std::string::npos);
}

TEST_CASE("tcsim network --pass train --compare amp-bf16,fp8 on H100: Transformer Engine's fp8 linears") {
  const auto r = run_tcsim("network -c " + src("configs/gpu/h100.yaml") + " " + src("models/llama3_8b.yaml") +
                                 " --batch 1 --seq 2048 --pass train --compare amp-bf16,fp8 --format csv");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // precision,step_time_us,speedup,...: fp8 is faster, by less than the 2x of its tensor cores (the
  // attention, the norms and the optimizer stay as they are).
  std::istringstream rows(r.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(rows, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("precision,step_time_us,speedup,", 0) == 0);
  CHECK(lines[1].rfind("amp-bf16,", 0) == 0);
  REQUIRE(lines[2].rfind("fp8,", 0) == 0);
  std::istringstream fields(lines[2]);
  std::string field;
  for (int i = 0; i < 3; ++i) std::getline(fields, field, ',');
  const double speedup = std::stod(field);
  CHECK(speedup > 1.1);
  CHECK(speedup < 2.0);
  const auto table = run_tcsim("network -c " + src("configs/gpu/h100.yaml") + " " + src("models/gpt2.yaml") +
                               " --batch 2 --seq 128 --pass train --precision fp8");
  REQUIRE_MESSAGE(table.exit_code == 0, table.err);
  CHECK(table.out.find("training step, batch 2, seq 128, fp8 (Transformer Engine: fp8 linears, bf16 autocast elsewhere)\n") !=
        std::string::npos);
  CHECK(table.out.find("note: layer 'lm_head' runs in bf16, not fp8: ") != std::string::npos);
}

TEST_CASE("tcsim network: bad input exits 2 with a clear message") {
  const std::string base = "network -c " + src("configs/gpu/a100.yaml") + " ";
  struct Case {
    std::string args, expect;
  } cases[] = {
      {src("models/resnet18.yaml") + " --precision fp9", "expected one of fp32"},
      {src("models/resnet18.yaml") + " --precision fp8", "fp8 is not available on A100"},
      {src("models/resnet18.yaml") + " --precision int8 --pass train", "inference precision"},
      {src("models/gpt2.yaml") + " --precision fp8 --pass train", "fp8 is not available on A100"},
      {src("models/resnet18.yaml") + " --pass sideways", "expected infer or train"},
      {src("models/resnet18.yaml") + " --seq 128", "image network"},
      {src("models/resnet18.yaml") + " --batch 0", "--batch"},
      {src("models/resnet18.yaml") + " --layout nchwc", "expected nchw or nhwc"},
      {src("models/resnet18.yaml") + " --framework caffe", "expected pytorch, mxnet or tensorflow"},
      {"'/nonexistent/model.yaml'", "/nonexistent/model.yaml"},
      {src("models/llama2_7b.yaml") + " --batch 4000000000 --seq 4000000", "more than 2^48 elements"},
      {src("models/llama2_7b.yaml") + " --seq 1 --kv-len 9223372036854775807", "overflows"},
      {src("models/bert_large.yaml") + " --seq 1024", "bert_large.yaml:16: layer 'position': vocab: a table of 512 learned positions"},
      {src("models/bert_large.yaml") + " --seq 1 --kv-len 64", "is for causal self-attention"},
      {src("models/gpt2.yaml") + " --seq 1 --kv-len 1024", "give past + seq <= 1024"},
      {src("models/gpt2.yaml") + " --seq 1 --kv-len 64 --pass train", "--kv-len: a KV cache is for --pass infer"},
      {src("models/resnet18.yaml") + " --kv-cache dynamic", "--kv-cache: dynamic grows a decoder's KV cache"},
      {src("models/bert_base.yaml") + " --kv-cache dynamic", "'BERT-base' has no causal self-attention"},
      {src("models/resnet18.yaml") + " -o ''", "--output"},
      {src("models/resnet18.yaml") + " --precision amp-fp16 --pass train --fp32-master", "only with --precision fp16 or bf16"},
      {src("models/resnet18.yaml") + " --precision fp16 --fp32-master", "use it with --pass train"},
      {"", "expected one model file"},
  };
  for (const auto& c : cases) {
    const auto r = run_tcsim(base + c.args);
    CHECK_MESSAGE(r.exit_code == 2, c.args);
    CHECK_MESSAGE(r.err.find(c.expect) != std::string::npos, c.args << " -> " << r.err);
  }
}

TEST_CASE("tcsim network --fp32-master: pure fp16 training with fp32 master weights in the memory table") {
  const std::string base = "network -c " + src("configs/gpu/a100.yaml") + " " + src("models/resnet18.yaml") +
                           " --batch 8 --precision fp16 --pass train -j 1";
  const auto pure = run_tcsim(base);
  const auto master = run_tcsim(base + " --fp32-master");
  REQUIRE_MESSAGE(pure.exit_code == 0, pure.err);
  REQUIRE_MESSAGE(master.exit_code == 0, master.err);
  CHECK(pure.out.find("master weights") == std::string::npos);
  CHECK_MESSAGE(master.out.find("master weights") != std::string::npos, master.out);
}

TEST_CASE("tcsim network: a bad model file exits 2 naming file, line, layer and field") {
  const auto dir = temp_dir("network_bad_model");
  const std::string head = "version: 1\nkind: network\nname: bad\ntask: image\ninput: [3, 8, 8]\nlayers:\n";
  struct Case {
    std::string layers, expect;
  } cases[] = {
      {"  - {name: c, kind: convolution, out_channels: 8}\n", "bad.yaml:7"},
      {"  - {name: c, kind: conv2d, out_channels: 8, kernel: 11}\n", "layer 'c'"},
      {"  - {name: c, kind: conv2d, out_channels: 8, kernel: 3, padding: -1}\n", "padding"},
      {"  - {name: c, kind: conv2d, out_channels: 8, kernel: 3, input: nowhere}\n", "nowhere"},
      {"  - {name: a, kind: conv2d, out_channels: 8, kernel: 1}\n  - {name: b, kind: conv2d, out_channels: 4, kernel: 1, input: a}\n"
       "  - {name: s, kind: add, inputs: [a, b]}\n", "layer 's'"},
  };
  for (const auto& c : cases) {
    const auto file = dir / "bad.yaml";
    std::ofstream(file) << head << c.layers;
    const auto r = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " '" + file.string() + "'");
    CHECK_MESSAGE(r.exit_code == 2, c.layers);
    CHECK_MESSAGE(r.err.find(c.expect) != std::string::npos, c.layers << " -> " << r.err);
    CHECK(r.err.find("bad.yaml:") != std::string::npos);
  }
}

TEST_CASE("tcsim validate on NVIDIA's published network throughputs") {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("skipped: no shared/ data");
    return;
  }
  const std::string csv = "'" + (shared / "data/networks/dle_single_gpu.csv").string() + "'";
  const auto r = run_tcsim("validate -c " + src("configs/gpu/v100.yaml") + " " + csv + " --models " + src("models"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("dle resnet50") != std::string::npos);
  CHECK(r.err.find("network runs on V100") != std::string::npos);
  CHECK(r.out.find("accumulated") != std::string::npos);  // kept as skipped, with why
  const auto strict = run_tcsim("validate -c " + src("configs/gpu/v100.yaml") + " " + csv + " --models " +
                                src("models") + " --max-mape 0.001");
  CHECK(strict.exit_code == 3);
  // A board the file has no run of: said, not a MAPE of nan over no rows.
  const auto none = run_tcsim("validate -c " + src("configs/gpu/t4.yaml") + " " + csv + " --models " + src("models"));
  CHECK(none.exit_code == 0);
  CHECK_MESSAGE(none.err.find("no network run of the input is on T4: nothing compared") != std::string::npos, none.err);
  CHECK(none.err.find("nan") == std::string::npos);
  // On a systolic config: exit 2 saying so (it printed a MAPE of nan over no rows).
  const auto systolic = run_tcsim("validate -c " + src("configs/systolic/tpu_v1.yaml") + " " + csv);
  CHECK(systolic.exit_code == 2);
  CHECK_MESSAGE(systolic.err.find("this is a systolic config") != std::string::npos, systolic.err);
}

TEST_CASE("tcsim network: energy per step, per sample and per layer; --compare shows what each mode saves") {
  const auto dir = temp_dir("network_energy");
  const auto r = run_tcsim("network -c " + src("configs/gpu/a100_pcie_40gb.yaml") + " " + src("models/bert_base.yaml") +
                           " --batch 4 --seq 128 --compare fp32,amp-fp16 -o '" + (dir / "out").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("amp-fp16 energy:") != std::string::npos);
  CHECK(r.out.find("x less than fp32") != std::string::npos);
  const std::string compare = slurp(dir / "out" / "compare.csv");
  CHECK(compare.find("energy_j") != std::string::npos);
  CHECK(compare.find("energy_saving") != std::string::npos);

  const auto one = run_tcsim("network -c " + src("configs/gpu/a100_pcie_40gb.yaml") + " " + src("models/bert_base.yaml") +
                             " --batch 64 --seq 128 --precision fp32 -o '" + (dir / "one").string() + "'");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  CHECK(one.out.find("Energy: ") != std::string::npos);
  CHECK(one.out.find("mJ per token") != std::string::npos);
  // fp32 GEMMs on a 250 W board: the step's average at boost is over the limit, its kernels share a lower clock.
  CHECK(one.out.find("the 250 W limit holds the step at") != std::string::npos);
  CHECK(one.out.find("power-limited step") != std::string::npos);
  CHECK(slurp(dir / "one" / "summary.csv").find("energy_mj") != std::string::npos);
  CHECK(slurp(dir / "one" / "kernels.csv").find("clock_mhz") != std::string::npos);
  CHECK(slurp(dir / "one" / "totals.csv").find("energy_per_item_mj") != std::string::npos);
  CHECK(slurp(dir / "one" / "totals.csv").find("step_clock_mhz") != std::string::npos);

  // --clock fixed: every kernel at the config clock, faster on the power-limited board, more energy per step.
  const auto fixed = run_tcsim("network -c " + src("configs/gpu/a100_pcie_40gb.yaml") + " " + src("models/bert_base.yaml") +
                               " --batch 64 --seq 128 --precision fp32 --clock fixed --format csv");
  REQUIRE_MESSAGE(fixed.exit_code == 0, fixed.err);
  CHECK(fixed.out.find("holds the step") == std::string::npos);
  CHECK(fixed.out.find("power-limited") == std::string::npos);
  const auto bad = run_tcsim("network -c " + src("configs/gpu/a100.yaml") + " " + src("models/bert_base.yaml") + " --clock turbo");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--clock") != std::string::npos);
  // A systolic array has no clock governor: --clock says so (not "--set: power.mode: unknown").
  const auto systolic = run_tcsim("network -c " + src("configs/systolic/tpu_v1.yaml") + " " + src("models/resnet18.yaml") +
                                  " --batch 1 --clock fixed");
  CHECK(systolic.exit_code == 2);
  CHECK(systolic.err.find("--clock") != std::string::npos);
  CHECK(systolic.err.find("applies to GPU configs") != std::string::npos);
  // --attention fused where no fused kernel exists names the option, not the model file's layer.
  const auto fused = run_tcsim("network -c " + src("configs/gpu/v100.yaml") + " " + src("models/bert_base.yaml") +
                               " --batch 1 --precision fp16 --attention fused");
  CHECK(fused.exit_code == 2);
  CHECK(fused.err.find("--attention: fused, but") != std::string::npos);
}

TEST_CASE("tcsim network in cuDNN's benchmark mode: a TF32 step is never slower than the FP32 one") {
  // TF32 allows the tensor cores, it does not require them: cudnnFind also times the FP32 kernels
  // (sim/gpu/README.md, "cuDNN release"). On the A10 and L4 (TF32 at twice the FP32 rate) the RGB
  // first layer and some 3x3 layers run FP32; the TF32 step was 13% slower before.
  auto step_us = [](const std::filesystem::path& totals) {
    const tcsim::workload::CsvText t = tcsim::workload::read_csv(totals);
    const int col = t.column("step_time_us");
    REQUIRE((col >= 0 && !t.rows.empty()));
    return std::stod(t.field(t.rows.front(), col));
  };
  const auto dir = temp_dir("network_tf32");
  for (const char* config : {"a10", "l4"}) {
    double us[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      const std::string out = (dir / (std::string(config) + (i ? "_tf32" : "_fp32"))).string();
      const auto r = run_tcsim("network -j 1 -c " + src(std::string("configs/gpu/") + config + ".yaml") + " " +
                               src("models/resnet18.yaml") + " --batch 32 --pass infer --precision " +
                               (i ? "tf32" : "fp32") + " -o '" + out + "'");
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      us[i] = step_us(std::filesystem::path(out) / "totals.csv");
    }
    INFO(config);
    CHECK(us[1] <= us[0] * 1.001);
  }
}
