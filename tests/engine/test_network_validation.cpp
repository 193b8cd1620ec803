// Whole-network validation (engine/network/network_validation.h): a row whose data loader bins
// sequences by length is estimated as the share-weighted mean of its padded lengths' steps.
#include <doctest/doctest.h>

#include <tuple>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <fstream>

#include "common/error.h"
#include "engine/load_accelerator.h"
#include "engine/network/network_validation.h"
#include "engine/validation/validation_metrics.h"
#include "test_support.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::engine;
namespace fs = std::filesystem;

TEST_CASE("network validation: a length-binned row is the share-weighted mean of its lengths' steps") {
  const fs::path config = test::source_dir() / "configs/gpu/a100_80gb.yaml";
  const fs::path models = test::source_dir() / "models";
  REQUIRE(fs::exists(config));
  const LoadedAccelerator a = load_accelerator_with_config(config);
  workload::MeasuredNetworkRow base;
  base.model = "bert_base";
  base.gpu = "A100-80GB (DGX A100)";
  base.training = true;
  base.precision = workload::Precision::amp_fp16;
  base.batch = 16;
  base.measured_s = 0.05;
  std::vector<workload::MeasuredNetworkRow> rows(3, base);
  rows[0].seq = 128;
  rows[1].seq = 512;
  rows[2].seq = 512;
  rows[2].seq_mix = {{128, 0.25}, {512, 0.75}};
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, models, 1);
  REQUIRE(rep.rows.size() == 3);
  for (const auto& r : rep.rows) REQUIRE(r.simulated);
  const double t128 = rep.rows[0].predicted_s, t512 = rep.rows[1].predicted_s;
  CHECK(t512 > 1.5 * t128);  // 4x the tokens; batch 16 at 128 tokens is host-bound
  CHECK(rep.rows[2].predicted_s == doctest::Approx(0.25 * t128 + 0.75 * t512).epsilon(1e-12));
  CHECK(rep.rows[2].bound == rep.rows[1].bound);  // the 512-token steps take most of the time
}

TEST_CASE("network validation: NeuSight's forward and backward passes are compared apart when they add up to the step") {
  const fs::path dir = test::temp_dir("neusight_passes");
  auto write = [&](const std::string& name, const std::string& json) {
    std::ofstream(dir / name) << json;
    return dir / name;
  };
  const auto both = workload::read_neusight_model_json(
      write("bert_base-train-128-8.json", R"({"e2e_latency": 30.0, "fw_latency": 10.0, "bwall_latency": 20.0})"));
  REQUIRE(both.size() == 1);
  CHECK(both[0].measured_forward_s == doctest::Approx(0.010));
  CHECK(both[0].measured_backward_s == doctest::Approx(0.020));
  CHECK(both[0].forward_after_empty_cache);
  // Passes that do not add up to the step, or inference: the step only.
  CHECK(workload::read_neusight_model_json(write("bert_base-train-128-4.json",
                                                 R"({"e2e_latency": 30.0, "fw_latency": 10.0, "bwall_latency": 25.0})"))[0]
            .measured_forward_s == 0);
  CHECK(workload::read_neusight_model_json(write("bert_base-inf-128-4.json", R"({"e2e_latency": 30.0, "fw_latency": 30.0})"))[0]
            .measured_forward_s == 0);
  const fs::path bad = write("bert_base-train-128-2.json", "{\"e2e_latency\": 30.0,\n \"fw_latency\": \"fast\", \"bwall_latency\": 20.0}");
  CHECK_THROWS_WITH_AS(workload::read_neusight_model_json(bad), doctest::Contains((bad.string() + ":2: fw_latency").c_str()),
                       InputError);  // file, line and key

  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/v100_pcie.yaml");
  std::vector<workload::MeasuredNetworkRow> rows = both;
  rows[0].gpu = "V100-PCIE-32GB";
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  REQUIRE(rep.rows.size() == 1);
  const NetworkValidationRow& r = rep.rows[0];
  REQUIRE(r.simulated);
  CHECK(r.predicted_forward_s > 0);
  CHECK(r.predicted_backward_s > r.predicted_forward_s);  // two GEMMs per forward one
  CHECK(r.predicted_forward_s + r.predicted_backward_s <= r.predicted_s);  // the step adds the host's gaps
  std::vector<std::string> groups;
  for (const auto& g : rep.groups) groups.push_back(g.group);
  CHECK(groups == std::vector<std::string>{"all", "neusight bert_base train", "neusight bert_base train: forward",
                                           "neusight bert_base train: backward"});
  const io::Table t = network_validation_rows_table(rep);
  CHECK(std::any_of(t.columns.begin(), t.columns.end(), [](const io::Column& c) { return c.name == "forward_error_pct"; }));
  fs::remove_all(dir);
}

TEST_CASE("network validation: a NeuSight forward timed far longer than its backward share is noted") {
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/v100_pcie.yaml");
  workload::MeasuredNetworkRow m;
  m.model = "bert_base";
  m.gpu = "V100-PCIE-32GB";
  m.training = true;
  m.optimizer_step = false;
  m.batch = 8;
  m.seq = 128;
  m.group = "neusight bert_base train";
  m.measured_s = 0.05;
  m.forward_after_empty_cache = true;  // NeuSight's protocol (read_neusight_model_json sets it)
  std::vector<workload::MeasuredNetworkRow> rows(2, m);
  // The model's own forward/backward split, then a forward as long as the backward.
  const NetworkValidationReport probe = validate_networks(*a.accelerator, {m}, test::source_dir() / "models", 1);
  const double fw = probe.rows.at(0).predicted_forward_s, bw = probe.rows.at(0).predicted_backward_s;
  REQUIRE(fw > 0);
  rows[0].measured_forward_s = fw;
  rows[0].measured_backward_s = bw;
  rows[1].measured_forward_s = bw;
  rows[1].measured_backward_s = bw;
  for (auto& r : rows) r.measured_s = r.measured_forward_s + r.measured_backward_s;
  rows[1].measurement_note = "the file's own note";
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  CHECK(rep.rows.at(0).note.empty());
  CHECK(rep.rows.at(1).note.find("the file's own note; forward/backward measured 1.00") == 0);
  CHECK(rep.rows.at(1).note.find("torch.cuda.empty_cache()") != std::string::npos);
  const io::Table t = network_validation_rows_table(rep);
  CHECK(std::any_of(t.columns.begin(), t.columns.end(), [](const io::Column& c) { return c.name == "note"; }));
  // Another protocol's passes (DeepBench's separate calls) get no such note.
  rows[1].forward_after_empty_cache = false;
  CHECK(validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1).rows.at(1).note == "the file's own note");
}

TEST_CASE("network validation: NVIDIA's A100 BERT-large pre-training throughputs (skipped without shared/)" * doctest::test_suite("accuracy")) {
  const fs::path csv = test::shared_dir() / "data/networks/dle_single_gpu.csv";
  if (!fs::exists(csv)) {
    MESSAGE("shared/data/networks not found: skipping");
    return;
  }
  // The PyTorch pre-training rows (phase 1 at 128 tokens, phase 2 at 512 with LDDL's bins of 64).
  std::vector<workload::MeasuredNetworkRow> rows;
  for (const auto& r : workload::read_dle_throughput_csv(csv))
    if (r.label.find("pretrain PyTorch") != std::string::npos && r.gpu.find("A100-80GB") != std::string::npos)
      rows.push_back(r);
  REQUIRE(rows.size() == 4);
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/a100_80gb.yaml");
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
  for (const auto& r : rep.rows) {
    REQUIRE(r.simulated);
    const double err = 100 * (r.predicted_s - r.measured.measured_s) / r.measured.measured_s;
    MESSAGE(r.measured.label << ": " << err << "%");
    // The AMP rows ran the network in pure fp16 (run_pretraining.sh's allreduce_post_accumulation_fp16:
    // model.half(), autocast off, FusedLAMBAMP's fp32 master params): the reader says so.
    const bool amp = r.measured.label.find("AMP") != std::string::npos;
    CHECK(r.measured.fp32_master == amp);
    CHECK(r.measured.precision == (amp ? workload::Precision::fp16 : workload::Precision::tf32));
    // Today -10.5..-6.5% (AMP seq 512 -9.3, TF32 seq 512 -9.7, AMP seq 128 -10.5, TF32 seq 128 -6.5) with
    // the A100's tensor-core energy calibrated (configs/gpu/a100.yaml); -13.0..-10.2% before it. With
    // the optimizer left out (one step per 32-256 accumulated micro-batches); with a step per
    // micro-batch -9.2 / -7.7 / -12.4 / -8.9; +27.3 / +9.8% for AMP while they ran under autocast
    // (its fp32 softmax, layer norms and dropout over the attention scores, and the copies between
    // them). Before that:
    // +25.7 / +8.9 for AMP before autocast's fp16 -> fp32 copies paid their dynamic casts' issue slots
    // (52 instructions per element, Nsight Compute on the H200), +17.1 / -12.3 / +5.3 / -10.3 before
    // the attention layer dropped out its probabilities (modeling.py's self.dropout on
    // attention_probs, fp32 under autocast): the AMP rows' excess was hidden by missing kernels
    // (what they over-predict is not known); +15.8 / -12.9 / +3.8 / -10.8 before layer norm's
    // kernels counted their Nsight Compute instructions and GammaBetaBackward its serial trips;
    // padded to 512 the seq 512 rows were +135% and +71%, and with HF's MLM head over every token
    // (models/bert_large.yaml) +25.0 / -6.6 / +16.1 / -2.2%.
    CHECK(std::abs(err) < 14);
  }
  CHECK(rep.groups.front().errors.mape_pct < 9.5);  // 9.0 today (11.30 before the tensor-core energy calibration)
}

TEST_CASE("network validation: DeepLearningExamples' MXNet ResNet-50 under AMP runs fused batch norms (skipped without shared/)") {
  const fs::path csv = test::shared_dir() / "data/networks/dle_single_gpu.csv";
  if (!fs::exists(csv)) {
    MESSAGE("shared/data/networks not found: skipping");
    return;
  }
  // The runner passes --fuse-bn-relu 1 --fuse-bn-add-relu 1 for float16 only; PyTorch never fuses.
  int mxnet_amp = 0;
  for (const auto& r : workload::read_dle_throughput_csv(csv)) {
    const bool mxnet = r.label.find(" MXNet ") != std::string::npos;
    CHECK_MESSAGE(r.fuse_batch_norm_relu == (mxnet && r.precision == workload::Precision::amp_fp16), r.label);
    mxnet_amp += r.fuse_batch_norm_relu;
  }
  CHECK(mxnet_amp == 3);  // V100 DGX-1, V100 DGX-2, A100 80GB
  for (const auto& [gpu, config] : {std::pair{"V100", "v100.yaml"}, std::pair{"A100-80GB", "a100_80gb.yaml"}}) {
    std::vector<workload::MeasuredNetworkRow> rows;
    for (const auto& r : workload::read_dle_throughput_csv(csv))
      if (r.fuse_batch_norm_relu && r.gpu.find(gpu) != std::string::npos && r.skip_reason.empty()) rows.push_back(r);
    REQUIRE(!rows.empty());
    const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu" / config);
    const auto models = test::source_dir() / "models";
    const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, models, 2);
    for (auto& r : rows) r.fuse_batch_norm_relu = false;
    const NetworkValidationReport apart = validate_networks(*a.accelerator, rows, models, 2);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(rep.rows[i].simulated);
      const double err = 100 * (rep.rows[i].predicted_s / rows[i].measured_s - 1);
      const double before = 100 * (apart.rows[i].predicted_s / rows[i].measured_s - 1);
      // Today V100 DGX-1 -0.4%, DGX-2 +7.0%, A100 80GB -6.1%; with the ReLUs and adds as kernels of
      // their own +17.5 / +26.4 / +13.4%.
      MESSAGE(rows[i].label << ": " << err << "% (" << before << "% unfused)");
      CHECK(std::abs(err) < 10);
      CHECK(rep.rows[i].predicted_s < 0.9 * apart.rows[i].predicted_s);
    }
  }
}

TEST_CASE("network validation: DeepLearningExamples' MXNet ResNet-50 in float32 runs cuDNN's channels-first batch norms (skipped without shared/)") {
  const fs::path csv = test::shared_dir() / "data/networks/dle_single_gpu.csv";
  if (!fs::exists(csv)) {
    MESSAGE("shared/data/networks not found: skipping");
    return;
  }
  // The runner keeps NCHW tensors outside float16, and MXNet's BatchNorm on axis 1 calls cuDNN
  // (CUDNN_BATCHNORM_SPATIAL_PERSISTENT): the per-channel kernels PyTorch's channels-first runs get.
  std::vector<workload::MeasuredNetworkRow> rows;
  for (const auto& r : workload::read_dle_throughput_csv(csv)) {
    if (r.label.find(" MXNet ") == std::string::npos) continue;
    CHECK(r.framework == workload::Framework::mxnet);
    const bool float32 = r.precision == workload::Precision::fp32 || r.precision == workload::Precision::tf32;
    CHECK_MESSAGE(workload::cudnn_batch_norm(r.framework, r.layout) == float32, r.label);
    if (float32 && r.gpu.find("A100-80GB") != std::string::npos) rows.push_back(r);
  }
  REQUIRE(rows.size() == 1);
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/a100_80gb.yaml");
  const auto models = test::source_dir() / "models";
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, models, 2);
  rows[0].framework = workload::Framework::tensorflow;  // element-parallel batch norms instead
  const NetworkValidationReport other = validate_networks(*a.accelerator, rows, models, 2);
  REQUIRE(rep.rows[0].simulated);
  // TF32 batch 512: -18.0% today, -26.0% with element-parallel batch norms (the A100's TF32
  // shortfall is open: sim/engine/README.md).
  const double err = 100 * (rep.rows[0].predicted_s / rows[0].measured_s - 1);
  MESSAGE(rows[0].label << ": " << err << "%");
  CHECK(err > -21);
  CHECK(err < 0);
  CHECK(rep.rows[0].predicted_s > 1.08 * other.rows[0].predicted_s);
}

TEST_CASE("network validation: DeepLearningExamples' SQuAD fine-tuning outside fp16 steps with BertAdam (skipped without shared/)") {
  const fs::path csv = test::shared_dir() / "data/networks/dle_single_gpu.csv";
  if (!fs::exists(csv)) {
    MESSAGE("shared/data/networks not found: skipping");
    return;
  }
  for (const auto& [gpu, config, fused_err, bert_adam_err] :
       {std::tuple{"A100-80GB", "a100_80gb.yaml", -35.6, 11.0}, std::tuple{"V100-32GB", "v100.yaml", -18.5, 5.0}}) {
    std::vector<workload::MeasuredNetworkRow> rows;
    for (const auto& r : workload::read_dle_throughput_csv(csv))
      if (r.label.find("SQuAD finetune PyTorch") != std::string::npos && r.gpu.find(gpu) != std::string::npos &&
          r.bert_adam)
        rows.push_back(r);
    REQUIRE(rows.size() == 1);
    const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu" / config);
    const auto models = test::source_dir() / "models";
    const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, models, 2);
    REQUIRE(rep.rows.front().simulated);
    const double err = 100 * (rep.rows.front().predicted_s - rows[0].measured_s) / rows[0].measured_s;
    // 4206 kernels after the norm's .item(), each a host launch (host.kernel_overhead): A100 TF32
    // -35.6 -> -10.1%, V100 FP32 -18.5 -> +0.5%; -0.2 / +3.0% since run_squad.py's gradient clipper
    // and zero_grad's zero_ per tensor are modelled too (session 93). Their AMP rows, apex O2's pure
    // fp16, are -29 / -21% (-15 / -5% under autocast, which they did not run).
    MESSAGE(rows[0].label << ": " << err << "% (" << fused_err << "% with a fused Adam)");
    CHECK(std::abs(err) < bert_adam_err);
    rows[0].bert_adam = false;
    const NetworkValidationReport fused = validate_networks(*a.accelerator, rows, models, 2);
    CHECK(fused.rows.front().predicted_s < 0.85 * rep.rows.front().predicted_s);
  }
}

TEST_CASE("network validation: NeuSight's whole-model FP32 timings, five networks on three boards (skipped without shared/)" * doctest::test_suite("accuracy")) {
  const fs::path dir = test::shared_dir() / "data/neusight/models";
  if (!fs::exists(dir)) {
    MESSAGE("shared/data/neusight/models not found: skipping");
    return;
  }
  struct Board {
    const char* folder;
    const char* config;
    std::size_t runs;
    double max_mape;  // today's MAPE, a little above
  };
  // Today 4.29 / 10.87 / 9.63% (4.68 / 10.87 / 9.92 before the training runs dropped out the attention
  // probabilities, BERT's and GPT's attention dropout; the 40 GB board's runs are inference: unchanged).
  // GPT-2 and GPT-3 run HF's eager gelu_new; GPT-3 XL, GPT-3 2.7B and OPT-1.3B were added as held-out
  // networks (nothing changed in the model for them). With the A100's calibrated instruction energy
  // (configs/gpu/a100.yaml: its FP32 GEMMs no longer held near 1245 MHz on the PCIe boards) 4.38 / 4.58
  // / 11.53% (the A100 boards were 10.94 / 9.49%).
  // Switch-XL (models/switchxl4.yaml: the moe, position_bias and cross-attention layers) was added
  // as a held-out network, nothing fitted to it: its 2 + 4 + 2 runs are checked apart (below) and
  // left out of each board's MAPE.
  for (const Board b : {Board{"V100-PCIE-32GB", "v100_pcie", 11 + 2, 4.75}, Board{"A100-PCIE-40GB", "a100_pcie_40gb", 10 + 4, 5.0},
                        Board{"A100-80GB-PCIe", "a100_80gb_pcie", 8 + 2, 12.0}}) {
    INFO(b.folder);
    std::vector<workload::MeasuredNetworkRow> rows;
    for (const auto& e : fs::directory_iterator(dir / b.folder))
      if (workload::is_neusight_model_json(e.path())) {
        auto r = workload::read_neusight_model_json(e.path());
        rows.insert(rows.end(), r.begin(), r.end());
      }
    std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.origin < y.origin; });
    const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu" / (std::string(b.config) + ".yaml"));
    const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
    std::size_t compared = 0;
    std::vector<double> measured, predicted;  // the runs of the five dense networks
    for (const auto& r : rep.rows) {
      if (!r.simulated) continue;
      ++compared;
      const double err = 100 * (r.predicted_s - r.measured.measured_s) / r.measured.measured_s;
      MESSAGE(r.measured.label << ": " << err << "%");
      CHECK(std::abs(err) < 22);  // worst today: BERT-large training batch 2 on A100 80GB, -21.0%
      if (r.measured.model == "switchxl4") {
        // Today: V100 -0.6 / -3.7% (inference, seq 512); A100 40 GB +5.2 / +4.6% (seq 512) and
        // -15.7 / -16.8% (seq 2048; -13.3 / -14.8% before session 65's shared step clock: these
        // host-paced steps average under the 250 W limit, so their kernels keep the boost clock);
        // A100 80 GB training -7.2 / -9.1%, backward -10.2 / +0.1%.
        CHECK(std::abs(err) < 18);
        if (r.measured.measured_forward_s > 0) CHECK(std::abs(100 * (r.predicted_backward_s / r.measured.measured_backward_s - 1)) < 11);
        continue;
      }
      measured.push_back(r.measured.measured_s);
      predicted.push_back(r.predicted_s);
      if (r.measured.measured_forward_s > 0) {
        // The passes apart: every backward pass within 6% on both boards with training runs, and
        // the V100's forward passes too; five of the eight A100 80GB forward passes measure 1.45-1.83x
        // the model while their backward passes agree (sim/engine/README.md), so none is checked there.
        const double bw = 100 * (r.predicted_backward_s / r.measured.measured_backward_s - 1);
        const double fw = 100 * (r.predicted_forward_s / r.measured.measured_forward_s - 1);
        MESSAGE("  forward " << fw << "%, backward " << bw << "%");
        CHECK(std::abs(bw) < 7);
        if (std::string(b.folder) == "V100-PCIE-32GB") CHECK(std::abs(fw) < 7);
      }
    }
    CHECK(compared == b.runs);  // the torch.compile runs stay skipped
    CHECK(summarize_errors(measured, predicted).mape_pct < b.max_mape);
  }
}

TEST_CASE("network validation: the lent H200 VM's eager inference steps with the Hopper configs' host" * doctest::test_suite("accuracy")) {
  // h100.yaml's host.kernel_overhead (42 us a launch, inherited by h200.yaml) is fitted on the two
  // eager ResNet-50 inference runs at batch 1; the other seven eager inference runs are held out
  // (sim/engine/README.md, "The host of the lent Hopper VMs": 21.7% MAPE today, 36.2% at NeuSight's
  // V100 host of 32.5 us; with the two fitted runs 17.3 and 33.3%).
  const fs::path dir = test::source_dir() / "validation/measured/H200/networks";
  std::vector<workload::MeasuredNetworkRow> fitted, held_out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!workload::is_torch_steps_csv(e.path()) || name.find("_infer_") == std::string::npos ||
        name.find("_graphs_") != std::string::npos)
      continue;
    auto rows = workload::read_torch_steps_csv(e.path());
    auto& into = name.rfind("resnet50_infer_", 0) == 0 && name.find("_b1_") != std::string::npos ? fitted : held_out;
    into.insert(into.end(), rows.begin(), rows.end());
  }
  std::sort(held_out.begin(), held_out.end(), [](const auto& x, const auto& y) { return x.origin < y.origin; });
  REQUIRE(fitted.size() == 2);
  REQUIRE(held_out.size() == 7);
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/h200.yaml");
  for (const auto& r : validate_networks(*a.accelerator, fitted, test::source_dir() / "models", 2).rows) {
    REQUIRE(r.simulated);
    const double err = 100 * (r.predicted_s - r.measured.measured_s) / r.measured.measured_s;
    MESSAGE(r.measured.label << ": " << err << "%");
    CHECK(std::abs(err) < 5);  // -2.3% (AMP) and +1.4% (FP32) today: the host is the step
  }
  const NetworkValidationReport rep = validate_networks(*a.accelerator, held_out, test::source_dir() / "models", 2);
  for (const auto& r : rep.rows) CHECK(r.simulated);
  CHECK(rep.groups.front().errors.mape_pct < 23);  // 21.7% today
}

TEST_CASE("network validation: the lent Hopper VMs' eager training steps, with autograd's host cost" * doctest::test_suite("accuracy")) {
  // host.autograd_factor (1.5: a training forward op costs the host 1.5 x host.kernel_overhead) is
  // fitted on the H200's Hugging Face BERT-large AMP training step, the one whose GPU is idle most of
  // the step (busy 40.8 of 110.6 ms). The other nine H200 training runs and the H100's and H200's
  // ResNet-50 steps are held out (sim/engine/README.md, "Autograd on the host"); without the factor
  // (1.0) they were 10.9 / 9.8 / 12.1% MAPE, today 7.1 / 2.9 / 1.9%.
  const fs::path root = test::source_dir() / "validation/measured";
  std::vector<workload::MeasuredNetworkRow> fitted, held_out, h100_steps, h200_steps;
  for (const auto& e : fs::directory_iterator(root / "H200/networks")) {
    const std::string name = e.path().filename().string();
    if (!workload::is_torch_steps_csv(e.path()) || name.find("_infer_") != std::string::npos) continue;
    auto rows = workload::read_torch_steps_csv(e.path());
    auto& into = name.rfind("bertlargehf_", 0) == 0 ? fitted : held_out;
    into.insert(into.end(), rows.begin(), rows.end());
  }
  for (const auto& [board, into] : {std::pair{"H100", &h100_steps}, std::pair{"H200", &h200_steps}})
    for (const auto& e : fs::directory_iterator(root / board / "profiles"))
      if (workload::is_torch_steps_csv(e.path()) && e.path().filename().string().rfind("resnet50_", 0) == 0) {
        auto rows = workload::read_torch_steps_csv(e.path());
        into->insert(into->end(), rows.begin(), rows.end());
      }
  for (auto* v : {&held_out, &h100_steps, &h200_steps})
    std::sort(v->begin(), v->end(), [](const auto& x, const auto& y) { return x.origin < y.origin; });
  REQUIRE(fitted.size() == 1);
  REQUIRE(held_out.size() == 9);
  REQUIRE(h100_steps.size() == 4);
  REQUIRE(h200_steps.size() == 4);
  const LoadedAccelerator h200 = load_accelerator_with_config(test::source_dir() / "configs/gpu/h200.yaml");
  const LoadedAccelerator h100 = load_accelerator_with_config(test::source_dir() / "configs/gpu/h100.yaml");
  CHECK(h200.accelerator->host_autograd_factor() == doctest::Approx(1.5));
  const auto fit = validate_networks(*h200.accelerator, fitted, test::source_dir() / "models", 2);
  REQUIRE(fit.rows.size() == 1);
  REQUIRE(fit.rows[0].simulated);
  CHECK(std::abs(fit.rows[0].predicted_s / fit.rows[0].measured.measured_s - 1) < 0.02);  // +0.005% today
  struct Set {
    const char* what;
    const Accelerator& acc;
    const std::vector<workload::MeasuredNetworkRow>& rows;
    double max_mape;  // today's, a little above
  };
  for (const Set& s : {Set{"H200 training runs", *h200.accelerator, held_out, 7.5},
                       Set{"H100 ResNet-50 steps", *h100.accelerator, h100_steps, 7.0},
                       Set{"H200 ResNet-50 steps", *h200.accelerator, h200_steps, 7.0}}) {
    INFO(s.what);
    const NetworkValidationReport rep = validate_networks(s.acc, s.rows, test::source_dir() / "models", 2);
    for (const auto& r : rep.rows) {
      REQUIRE(r.simulated);
      MESSAGE(r.measured.label << ": " << 100 * (r.predicted_s / r.measured.measured_s - 1) << "%");
    }
    CHECK(rep.groups.front().errors.mape_pct < s.max_mape);
  }
}

TEST_CASE("network validation: a DeepBench recurrent-layer CSV is one-layer networks, its cell and precision from the file name") {
  const fs::path dir = test::temp_dir("deepbench_rnn");
  const std::string header =
      "source,Hidden units,N,Timesteps,Time Forward (msec),Time Backward wrt Inputs (msec),Time Backward wrt Weights (msec)\n";
  const fs::path file = dir / "v100_train_fp16_recurrent_layers_gru.csv";
  std::ofstream(file) << header << "DeepSpeech,64,8,10,0.5,0.3,0.2\n";
  CHECK(workload::is_deepbench_rnn_csv(file));
  const auto rows = workload::read_deepbench_rnn_csv(file);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].measured_forward_s == doctest::Approx(0.5e-3));
  CHECK(rows[0].measured_backward_s == doctest::Approx(0.5e-3));  // both backward calls
  CHECK(rows[0].measured_s == doctest::Approx(1.0e-3));
  CHECK(rows[0].batch == 8);
  CHECK(rows[0].seq == 10);
  CHECK(rows[0].precision == workload::Precision::fp16);
  CHECK(rows[0].group == "deepbench gru fp16");
  CHECK_FALSE(rows[0].optimizer_step);
  const workload::Network net = workload::parse_network(rows[0].model_yaml, rows[0].origin, {8, 10, std::nullopt});
  REQUIRE(net.layers.size() == 1);
  CHECK(net.layers[0].rnn_cell == workload::RnnCell::gru);
  CHECK(net.layers[0].skip_input);
  CHECK(net.layers[0].hidden == 64);

  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/v100.yaml");
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  REQUIRE(rep.rows.size() == 1);
  CHECK(rep.rows[0].simulated);
  CHECK(rep.rows[0].predicted_forward_s > 0);
  CHECK(rep.rows[0].predicted_s == doctest::Approx(rep.rows[0].predicted_forward_s + rep.rows[0].predicted_backward_s).epsilon(0.05));
  CHECK(rep.rows[0].note.empty());  // NeuSight's forward-after-empty_cache note is not DeepBench's

  // Bad input: a name that says no cell, a time that is not one.
  const fs::path unnamed = dir / "v100_train_fp16_recurrent.csv";
  std::ofstream(unnamed) << header << "x,64,8,10,0.5,0.3,0.2\n";
  CHECK_THROWS_WITH_AS(workload::read_deepbench_rnn_csv(unnamed), doctest::Contains("cannot tell the cell and precision"), InputError);
  const fs::path bad = dir / "v100_train_fp32_recurrent_layers_lstm.csv";
  std::ofstream(bad) << header << "x,64,8,10,fast,0.3,0.2\n";
  CHECK_THROWS_WITH_AS(workload::read_deepbench_rnn_csv(bad), doctest::Contains((bad.string() + ":2: Time Forward (msec)").c_str()),
                       InputError);
}

TEST_CASE("network validation: DeepBench's V100 recurrent layers, held out (skipped without shared/)" * doctest::test_suite("accuracy")) {
  const fs::path dir = test::shared_dir() / "data/deepbench";
  if (!fs::exists(dir)) {
    MESSAGE("shared/data/deepbench not found: skipping");
    return;
  }
  std::vector<workload::MeasuredNetworkRow> rows;
  for (const char* p : {"fp16", "fp32"})
    for (const char* cell : {"vanilla", "lstm", "gru"}) {
      auto r = workload::read_deepbench_rnn_csv(dir / (std::string("v100_train_") + p + "_recurrent_layers_" + cell + ".csv"));
      rows.insert(rows.end(), r.begin(), r.end());
    }
  CHECK(rows.size() == 106);
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/v100.yaml");
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
  std::vector<double> m_all, p_all, m_long, p_long, m_gru32, p_gru32;
  for (const auto& r : rep.rows) {
    REQUIRE(r.simulated);
    m_all.push_back(r.measured.measured_s), p_all.push_back(r.predicted_s);
    if (r.measured.measured_s >= 10e-3) m_long.push_back(r.measured.measured_s), p_long.push_back(r.predicted_s);
    if (r.measured.group == "deepbench gru fp32") m_gru32.push_back(r.measured.measured_s), p_gru32.push_back(r.predicted_s);
  }
  // Today (nothing fitted): all 106 rows 28.0% MAPE, bias -26.2%: the per-step GEMM and cell kernel
  // as cuBLAS-like kernels leave DeepBench's short, small-hidden layers 2-3x faster than measured
  // (sim/workload/README.md, "Recurrent layers"); the 59 rows of at least 10 ms 16.5%; GRU fp32 8.7%.
  const ErrorSummary all = summarize_errors(m_all, p_all), lng = summarize_errors(m_long, p_long), gru = summarize_errors(m_gru32, p_gru32);
  MESSAGE("all " << all.mape_pct << "%, >= 10 ms " << lng.mape_pct << "% (" << lng.rows << " rows), GRU fp32 " << gru.mape_pct << "%");
  CHECK(all.mape_pct < 30);
  CHECK(lng.rows == 59);
  CHECK(lng.mape_pct < 18);
  CHECK(gru.mape_pct < 10);
}

TEST_CASE("network validation: a throughput CSV's optional memory_format column overrides the default layout") {
  const fs::path dir = test::temp_dir("dle_memory_format");
  const std::string header =
      "model,framework,container,gpu,precision,batch_per_gpu,seqlen,metric,value,unit,source_file,section_note,memory_format\n";
  const fs::path file = dir / "throughput.csv";
  std::ofstream(file) << header << "ResNet-50 v1.5,PyTorch,pytorch:22.10,A100-SXM4-80GB,AMP(FP16),256,,train throughput,1500,img/s,x,y,nchw\n"
                      << "ResNet-50 v1.5,PyTorch,pytorch:22.10,A100-SXM4-80GB,AMP(FP16),256,,train throughput,1500,img/s,x,y,\n"
                      << "ResNet-50 v1.5,PyTorch,pytorch:22.10,A100-SXM4-80GB,TF32,256,,train throughput,900,img/s,x,y,NHWC\n";
  CHECK(workload::is_dle_throughput_csv(file));
  const auto rows = workload::read_dle_throughput_csv(file);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].layout == TensorLayout::nchw);  // said: channels-first AMP
  CHECK(rows[0].label.find(" nchw ") != std::string::npos);
  CHECK(rows[1].layout == TensorLayout::nhwc);  // empty: DeepLearningExamples' AMP default
  CHECK(rows[2].layout == TensorLayout::nhwc);
  const fs::path bad = dir / "bad.csv";
  std::ofstream(bad) << header << "ResNet-50 v1.5,PyTorch,pytorch:22.10,A100-SXM4-80GB,TF32,256,,train throughput,900,img/s,x,y,chw\n";
  CHECK_THROWS_WITH_AS(workload::read_dle_throughput_csv(bad), doctest::Contains((bad.string() + ":2: memory_format").c_str()),
                       InputError);
}

namespace {

// Each config's own rows of validation/published/lambda_pytorch (same_gpu), simulated: the percentage
// error of every row (+: the model is slow), each checked within `worst_max`, the BERT SQuAD AMP rows
// (apex O2's pure fp16, fast on most boards, the set's README) within `squad_amp_max`. Every row's
// estimate must fit the board that ran it: the published batches were the largest that did.
std::vector<double> lambda_errors(const std::vector<workload::MeasuredNetworkRow>& all,
                                  std::initializer_list<const char*> configs, double worst_max, double squad_amp_max) {
  std::vector<double> errors;
  for (const char* config : configs) {
    CAPTURE(config);
    const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu" / (std::string(config) + ".yaml"));
    std::vector<workload::MeasuredNetworkRow> rows;
    for (const auto& r : all)
      if (workload::same_gpu(r.gpu, a.accelerator->name())) rows.push_back(r);
    REQUIRE(!rows.empty());
    const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(rep.rows[i].simulated);
      const double err = 100 * (rep.rows[i].predicted_s / rows[i].measured_s - 1);
      MESSAGE(rows[i].label << ": " << err << "%");
      const bool squad_amp = rows[i].model.find("_qa") != std::string::npos && rows[i].precision == workload::Precision::fp16;
      CHECK(std::abs(err) < (squad_amp ? squad_amp_max : worst_max));
      const double board = workload::named_memory_gib(rows[i].gpu) * 1024.0 * 1024.0 * 1024.0;
      CHECK_MESSAGE(rep.rows[i].memory_bytes <= (board > 0 ? board : rep.rows[i].device_memory_bytes), rows[i].label);
      CHECK(rep.rows[i].note.find("more than the") == std::string::npos);
      errors.push_back(std::abs(err));
    }
  }
  return errors;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x / double(v.size());
  return s;
}

}  // namespace

TEST_CASE("network validation: Lambda's DeepLearningExamples runs on seven boards, held out" * doctest::test_suite("accuracy")) {
  // validation/published/lambda_pytorch: ResNet-50 (synthetic data, NCHW) and BERT-large SQuAD
  // training throughputs on one GPU, each board's rows on its own config.
  const fs::path csv = test::source_dir() / "validation/published/lambda_pytorch/lambda_single_gpu.csv";
  const auto all = workload::read_dle_throughput_csv(csv);
  REQUIRE(all.size() == 96);  // with the five boards of the next test case
  for (const auto& r : all) {
    if (r.model == "resnet50") CHECK_MESSAGE(r.layout == TensorLayout::nchw, r.label);
    // BERT-base SQuAD runs BertForQuestionAnswering, stepped as run_squad.py steps BERT-large.
    if (r.label.rfind("BERT-base SQuAD", 0) == 0) CHECK(r.model == "bert_base_qa");
    // run_squad.py's --fp16 is apex's amp.initialize(opt_level="O2"): pure fp16, fp32 master weights,
    // FusedAdam; otherwise BertAdam's Python loop.
    if (r.model.find("_qa") != std::string::npos) {
      const bool amp = r.label.find("AMP(FP16)") != std::string::npos;
      CHECK(r.precision == (amp ? workload::Precision::fp16 : r.precision));
      CHECK(r.fp32_master == amp);
      CHECK(r.bert_adam == !amp);
      CHECK((r.label.find("as model.half()") != std::string::npos) == amp);
    }
  }
  const std::vector<double> errors =
      lambda_errors(all, {"v100", "a10", "a100_pcie_40gb", "a100_80gb_pcie", "a100_80gb", "h100", "h100_pcie"}, 27, 25);
  REQUIRE(errors.size() == 66);  // ResNet-50 and BERT-large SQuAD (44), BERT-base SQuAD (22, session 70)
  MESSAGE("Lambda single-GPU rows: MAPE " << mean_of(errors) << "% over " << errors.size());
  CHECK(mean_of(errors) < 12);  // 9.3% over 44 (9.7% over 36 before the H100 PCIe rows, session 69); 9.8% since the
                             // A10's L2 takes Accel-Sim's GA10x layout; 10.1% over 66 with BERT-base SQuAD (session 70);
                             // 9.9% with GA102's measured L2 rate (session 71); 11.3% since the SQuAD AMP rows run
                             // apex O2's pure fp16 (session 92: their +2..+19% under autocast became -10..-21%);
                             // 10.8% with apex O2's own kernels and run_squad.py's gradient clipper (session 93). The
                             // worst row, 27%: the H100 SXM5's BERT-large TF32 rows (+20..+26%), whose BertAdam loop
                             // and per-tensor zero_grad (4600 launches) run at the 42 us a launch that h100.yaml's
                             // host was fitted to on the lent H200 VM (PyTorch 2.11), not Lambda's hosts
}

TEST_CASE("network validation: Lambda's runs on the RTX 3090, RTX A6000, RTX 6000 Ada, RTX 4090 and Quadro RTX 8000, held out" *
          doctest::test_suite("accuracy")) {
  // Five configs written from the boards' published figures (session 70), then compared: the GeForce
  // boards' half-rate FP32-accumulate tensor cores, the workstation boards' full rate. BERT SQuAD AMP
  // was slow on every board while it ran under autocast (BERT-large +31% on the RTX A6000, BERT-base
  // +47% on the RTX 4090); as apex O2 runs it, pure fp16, -31% (RTX 6000 Ada BERT-large) .. +9%, hence
  // its own bound.
  const fs::path csv = test::source_dir() / "validation/published/lambda_pytorch/lambda_single_gpu.csv";
  const std::vector<double> errors =
      lambda_errors(workload::read_dle_throughput_csv(csv),
                    {"rtx3090", "rtx_a6000", "rtx6000_ada", "rtx4090", "quadro_rtx8000"}, 25, 35);
  REQUIRE(errors.size() == 30);
  MESSAGE("Lambda rows of the five boards: MAPE " << mean_of(errors) << "% over " << errors.size());
  CHECK(mean_of(errors) < 11);  // 13.4% over 30 (the four RTX boards' 16 ResNet-50 and BERT-large rows: 9.5%; session 70);
                                // 13.6% with the measured GA102 / AD102 L2 rates (session 71); 8.8% since the SQuAD
                                // AMP rows run apex O2's pure fp16 (session 92; -31..+9%, were -2..+47%)
}

TEST_CASE("network validation: NVIDIA's ResNet-50 inference by batch on the V100 and the T4, held out but for the host" *
          doctest::test_suite("accuracy")) {
  // validation/published/dle_resnet50_inference: DeepLearningExamples' ConvNets benchmark_inference
  // (pytorch:21.03), batch 1-256, FP32 (NCHW) and AMP (channels-last). Its validate step adds the loss
  // and the top-1/top-5 accuracy. One parameter is fitted: the host's cost per launch on the DGX-1
  // (56 us, on the V100 FP32 batch-1 row alone); the shipped configs keep NeuSight's host (32.5 us).
  const fs::path csv = test::source_dir() / "validation/published/dle_resnet50_inference/dle_resnet50_inference.csv";
  const auto all = workload::read_dle_throughput_csv(csv);
  REQUIRE(all.size() == 36);
  for (const auto& r : all) {
    CHECK(r.eval_metrics);
    CHECK_FALSE(r.training);
    CHECK(r.layout == (r.precision == workload::Precision::amp_fp16 ? TensorLayout::nhwc : TensorLayout::nchw));
  }
  struct Board {
    const char* config;
    double mape_max, worst_max;
  };
  for (const Board b : {Board{"v100", 4, 10}, Board{"t4", 5, 11}}) {
    CAPTURE(b.config);
    const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu" / (std::string(b.config) + ".yaml"),
                                                             {"host.kernel_overhead=56us"});
    std::vector<workload::MeasuredNetworkRow> rows;
    for (const auto& r : all)
      if (workload::same_gpu(r.gpu, a.accelerator->name())) rows.push_back(r);
    REQUIRE(rows.size() == 18);
    const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
    double mape = 0, worst = 0, gpu_bound_worst = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(rep.rows[i].simulated);
      const double err = 100 * (rep.rows[i].predicted_s / rows[i].measured_s - 1);
      MESSAGE(rows[i].label << ": " << err << "%");
      mape += std::abs(err) / double(rows.size());
      worst = std::max(worst, std::abs(err));
      if (rows[i].batch >= 64) gpu_bound_worst = std::max(gpu_bound_worst, std::abs(err));
    }
    MESSAGE(std::string(b.config) << ": MAPE " << mape << "%, worst " << worst << "%, batch >= 64 worst " << gpu_bound_worst << "%");
    CHECK(mape < b.mape_max);          // v100 3.2%, t4 3.6% (session 65)
    CHECK(worst < b.worst_max);        // v100 9.1% (AMP batch 32), t4 10.5% (AMP batch 8)
    CHECK(gpu_bound_worst < 6);        // the host plays no part there
  }
}

TEST_CASE("network validation: an estimate that needs more memory than the board that ran it is noted") {
  // Published runs fitted their boards. BERT-large SQuAD in FP32 at batch 64 needs far more than a
  // 16 GB V100 holds (batch 8 fits): said in the note, with the board's memory from the GPU's name;
  // the same batch said to run on an 80 GB board, or batch 8 on the 16 GB one, is not noted.
  const fs::path dir = test::temp_dir("network_footprint_note");
  const fs::path file = dir / "throughput.csv";
  std::ofstream(file)
      << "model,framework,container,gpu,precision,batch_per_gpu,seqlen,metric,value,unit,source_file,section_note\n"
      << "BERT-large SQuAD finetune,PyTorch,pytorch:22.10,V100-SXM2-16GB,FP32,64,384,train throughput,12,seq/s,x,y\n"
      << "BERT-large SQuAD finetune,PyTorch,pytorch:22.10,V100-SXM2-16GB,FP32,8,384,train throughput,12,seq/s,x,y\n"
      << "BERT-large SQuAD finetune,PyTorch,pytorch:22.10,V100-SXM2-80GB,FP32,64,384,train throughput,12,seq/s,x,y\n";
  const auto rows = workload::read_dle_throughput_csv(file);
  REQUIRE(rows.size() == 3);
  const LoadedAccelerator a = load_accelerator_with_config(test::source_dir() / "configs/gpu/v100.yaml");
  const NetworkValidationReport rep = validate_networks(*a.accelerator, rows, test::source_dir() / "models", 2);
  REQUIRE(rep.rows.size() == 3);
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  CHECK(rep.rows[0].memory_bytes > 32 * kGiB);
  CHECK(rep.rows[0].device_memory_bytes == doctest::Approx(16 * kGiB));
  CHECK_MESSAGE(rep.rows[0].note.find("more than the 16.0 GiB of the board that ran it") != std::string::npos, rep.rows[0].note);
  CHECK(rep.rows[1].memory_bytes < 16 * kGiB);
  CHECK(rep.rows[1].note.find("more than the") == std::string::npos);
  CHECK(rep.rows[2].memory_bytes == doctest::Approx(rep.rows[0].memory_bytes));
  CHECK(rep.rows[2].note.find("more than the") == std::string::npos);
  // The table carries both sizes.
  const io::Table t = network_validation_rows_table(rep);
  CHECK(std::any_of(t.columns.begin(), t.columns.end(), [](const io::Column& c) { return c.name == "memory_bytes"; }));
}
