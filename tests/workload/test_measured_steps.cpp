// tcsim's own PyTorch training-step timings (validation/gpu/torch_profile.py --time-steps) read as
// whole-network measurements (workload/network/measured_steps.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "common/error.h"
#include "engine/load_accelerator.h"
#include "engine/network/network_validation.h"
#include "test_support.h"
#include "workload/csv/csv_text.h"
#include "workload/network/measured_networks.h"

using namespace tcsim;
namespace fs = std::filesystem;

namespace {

fs::path write(const fs::path& dir, const std::string& name, const std::string& body) {
  fs::create_directories(dir);
  std::ofstream(dir / name) << body;
  return dir / name;
}

const char* const kSteps = "step,step_ms\n0,30.5\n1,31.5\n2,30.0\n";

// A torch_profile decode run of Llama-2-7B on the H200, fp16, one new token against `past` cached ones.
workload::MeasuredNetworkRow llama2_decode_row(std::int64_t batch, std::int64_t past, double measured_s) {
  workload::MeasuredNetworkRow row;
  row.model = "llama2_7b";
  row.gpu = "NVIDIA H200";
  row.precision = workload::Precision::fp16;
  row.optimizer_step = false;
  row.batch = batch;
  row.seq = 1;
  row.past = past;
  row.measured_s = measured_s;
  return row;
}

}  // namespace

TEST_CASE("torch steps: the lent H100's ResNet-50 file reads as one Adam training run, its median step") {
  const fs::path file = test::source_dir() / "validation/measured/H100/profiles/resnet50_amp-fp16_cl_b256_steps.csv";
  REQUIRE(fs::exists(file));
  CHECK(workload::is_torch_steps_csv(file));
  const auto rows = workload::read_torch_steps_csv(file);
  REQUIRE(rows.size() == 1);
  const auto& r = rows.front();
  CHECK(r.skip_reason.empty());
  CHECK(r.model == "resnet50");
  CHECK(r.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(r.batch == 256);
  CHECK(r.precision == workload::Precision::amp_fp16);
  CHECK(r.layout == TensorLayout::nhwc);
  CHECK(r.training);
  CHECK(r.optimizer == "adam");
  CHECK(workload::same_gpu(r.gpu, "H100-SXM5"));
  // The median of the file's own step times, read independently.
  const workload::CsvText csv = workload::read_csv(file);
  std::vector<double> ms;
  for (const auto& row : csv.rows) ms.push_back(std::stod(row.fields.at(1)));
  REQUIRE(ms.size() == 20);
  std::sort(ms.begin(), ms.end());
  CHECK(r.measured_s == doctest::Approx(ms[10] * 1e-3).epsilon(1e-12));
}

TEST_CASE("torch steps: GPT-2 needs its sequence length, the script's BERT-base is not the shipped one") {
  const fs::path dir = test::temp_dir("torch_steps");
  const auto gpt2 = workload::read_torch_steps_csv(
      write(dir, "gpt2_amp-bf16_b16_steps.csv",
            std::string("# NVIDIA H200, torch 2.11.0+cu130, cuDNN 91900, batch 16, precision amp-bf16, seq 1024\n") + kSteps));
  REQUIRE(gpt2.size() == 1);
  CHECK(gpt2[0].skip_reason.empty());
  CHECK(gpt2[0].seq == 1024);
  CHECK(gpt2[0].precision == workload::Precision::amp_bf16);
  CHECK(gpt2[0].layout == TensorLayout::nchw);
  CHECK(gpt2[0].measured_s == doctest::Approx(30.5e-3));
  const auto no_seq = workload::read_torch_steps_csv(write(
      dir, "gpt2_tf32_b8_steps.csv", std::string("# NVIDIA H200, torch 2.11, cuDNN 91900, batch 8, precision tf32\n") + kSteps));
  CHECK(no_seq.at(0).skip_reason.find("sequence length") != std::string::npos);
  const auto bert = workload::read_torch_steps_csv(write(
      dir, "bertbase_tf32_b32_steps.csv", std::string("# NVIDIA H100, torch 2.11, cuDNN 91900, batch 32, precision tf32\n") + kSteps));
  CHECK(bert.at(0).skip_reason.find("nn.TransformerEncoder") != std::string::npos);
}

TEST_CASE("torch steps: a spread of steps that shows a busy host is noted, a steady run is not") {
  const fs::path dir = test::temp_dir("torch_steps_spread");
  const std::string head = "# NVIDIA H200, torch 2.11, cuDNN 91900, batch 256, precision amp-fp16, channels_last\n";
  // Ten steps: nearest-rank p10 = the first, p90 = the ninth, median = the sixth.
  std::string steady = "step,step_ms\n", noisy = steady;
  for (int i = 0; i < 10; ++i) {
    steady += std::to_string(i) + "," + std::to_string(40.0 + 0.1 * i) + "\n";
    noisy += std::to_string(i) + "," + std::to_string(i < 5 ? 29.0 : 44.0) + "\n";
  }
  const auto a = workload::read_torch_steps_csv(write(dir, "resnet50_amp-fp16_cl_b256_steps.csv", head + steady));
  CHECK(a.at(0).measurement_note.empty());
  const auto b = workload::read_torch_steps_csv(write(dir, "resnet50_amp-fp16_cl_b256_steps.csv", head + noisy));
  CHECK(b.at(0).measured_s == doctest::Approx(44e-3));
  // (44 - 29) / 44 = 34%
  CHECK(b.at(0).measurement_note.find("steps vary 34% (p10 29.00 ms, median 44.00 ms, p90 44.00 ms)") != std::string::npos);
  // The lent H200's Llama-3-8B decode (28.8 ms for four steps, 44-51 for five) carries the note.
  const auto llama = workload::read_torch_steps_csv(
      test::source_dir() / "validation/measured/H200/networks/llama38b_infer_bf16_b1_s1_kv512_steps.csv");
  CHECK(llama.at(0).measurement_note.find("steps vary 41%") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("torch steps: bad files are errors naming the file, line and field") {
  const fs::path dir = test::temp_dir("torch_steps_bad");
  const std::string head = "# NVIDIA H100, torch 2.11, cuDNN 91900, batch 32, precision amp-fp16\n";
  struct Case {
    std::string name, body, expect;
  };
  const Case cases[] = {
      {"resnet50_amp-fp16_b32_steps.csv", "# NVIDIA H100, torch 2.11, cuDNN 91900, precision amp-fp16\n" + std::string(kSteps),
       ":1: header comment"},
      {"resnet50_amp-fp16_b32_steps.csv", "# NVIDIA H100, torch 2.11, cuDNN 91900, batch 32, precision fp64\n" + std::string(kSteps),
       "unknown precision 'fp64'"},
      {"resnet50_amp-fp16_b32_steps.csv", "# NVIDIA H100, torch 2.11, batch 32, precision tf32, dtype x\n" + std::string(kSteps),
       "unknown field 'dtype x'"},
      {"vgg16_amp-fp16_b32_steps.csv", head + kSteps, "unknown model 'vgg16'"},
      {"llama_steps.csv", "# H200, torch 2.11, batch 1, precision fp16, seq 1, model Llama-2, pass infer\n" + std::string(kSteps),
       ":1: model"},
      {"llama_steps.csv", "# H200, torch 2.11, batch 1, precision fp16, seq 1, model llama2_7b, pass decode\n" + std::string(kSteps),
       ":1: pass"},
      {"llama_steps.csv", "# H200, torch 2.11, batch 1, precision fp16, seq 1, model llama2_7b, kv_len 512\n" + std::string(kSteps),
       ":1: kv_len"},
      {"llama_steps.csv", "# H200, torch 2.11, batch 1, precision fp16, model llama2_7b, pass infer\n" + std::string(kSteps),
       ":1: seq"},
      {"llama_steps.csv",
       "# H200, torch 2.11, batch 1, precision fp16, seq 1, model llama2_7b, pass infer, kv_len 9, kv_cache paged\n" +
           std::string(kSteps),
       ":1: kv_cache: expected appended or cropped"},
      {"llama_steps.csv", "# H200, torch 2.11, batch 1, precision fp16, seq 1, model llama2_7b, pass infer, kv_cache appended\n" +
                              std::string(kSteps),
       "needs its 'kv_len N'"},
      {"resnet18_steps.csv", "# H200, torch 2.11, batch 1, precision fp32, model resnet18, cuda_graphs\n" + std::string(kSteps),
       ":1: cuda_graphs"},
      {"resnet50_amp-fp16_b32_steps.csv", head + "step,step_ms\n0,30.5\n1,fast\n", ":4: step_ms"},
      {"resnet50_amp-fp16_b32_steps.csv", head + "step,ms\n0,30.5\n", "step_ms"},
      {"resnet50_amp-fp16_b32_steps.csv", head + "step,step_ms\n", "no timed steps"},
  };
  for (const auto& c : cases) {
    const fs::path f = write(dir, c.name, c.body);
    try {
      (void)workload::read_torch_steps_csv(f);
      FAIL("no error for: " << c.body);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK_MESSAGE(what.find(c.name) != std::string::npos, what);
      CHECK_MESSAGE(what.find(c.expect) != std::string::npos, what);
    }
  }
  // Recognised by name and header comment only.
  CHECK_FALSE(workload::is_torch_steps_csv(write(dir, "steps.csv", head + kSteps)));
  CHECK_FALSE(workload::is_torch_steps_csv(write(dir, "resnet50_b32_steps.csv", std::string(kSteps))));
}

TEST_CASE("torch steps: the header names the model, the inference pass, the KV cache and CUDA graphs") {
  // The H200 loan of session 44 (validation/measured/H200/networks): Llama-2-7B decoding one token
  // against 512 cached tokens, and ResNet-50 inference replayed as a CUDA graph.
  const fs::path dir = test::source_dir() / "validation/measured/H200/networks";
  const auto decode = workload::read_torch_steps_csv(dir / "llama27b_infer_fp16_b1_s1_kv512_steps.csv");
  REQUIRE(decode.size() == 1);
  const auto& d = decode.front();
  CHECK(d.skip_reason.empty());
  CHECK(d.model == "llama2_7b");
  CHECK_FALSE(d.training);
  CHECK_FALSE(d.optimizer_step);
  CHECK(d.optimizer.empty());
  CHECK(d.batch == 1);
  CHECK(d.seq == 1);
  CHECK(d.past == 512);
  CHECK_FALSE(d.cuda_graphs);
  CHECK(d.precision == workload::Precision::fp16);
  CHECK(d.group == "torch steps llama2_7b infer");
  CHECK(d.kv_cache_concat);  // transformers' DynamicCache
  // That loan's harness cropped the cache back after each step: its header does not say how the
  // cache grew, and torch_profile.py writes "kv_cache appended" since it stopped cropping.
  CHECK(d.kv_cache_cropped);
  const fs::path tmp = test::temp_dir("torch_steps_kv_cache");
  const std::string appended = "# NVIDIA H200, torch 2.11, cuDNN 91900, batch 1, precision fp16, seq 1, model llama2_7b, "
                               "pass infer, kv_len 522, kv_cache appended\n";
  const auto grown = workload::read_torch_steps_csv(write(tmp, "llama27b_infer_fp16_b1_s1_kv512_steps.csv", appended + kSteps));
  REQUIRE(grown.size() == 1);
  CHECK(grown.front().kv_cache_concat);
  CHECK_FALSE(grown.front().kv_cache_cropped);
  CHECK(grown.front().past == 522);
  std::string said_cropped = appended;
  said_cropped.replace(said_cropped.find("appended"), 8, "cropped");
  CHECK(workload::read_torch_steps_csv(write(tmp, "llama27b_infer_fp16_b1_s1_kv512_steps.csv", said_cropped + kSteps))
            .front()
            .kv_cache_cropped);
  const auto graphs = workload::read_torch_steps_csv(dir / "resnet50_infer_amp-fp16_cl_b1_graphs_steps.csv");
  REQUIRE(graphs.size() == 1);
  CHECK(graphs.front().model == "resnet50");
  CHECK(graphs.front().cuda_graphs);
  CHECK(graphs.front().layout == TensorLayout::nhwc);
  CHECK(graphs.front().past == 0);
  // A model the header names need not be in the file name, and training files name it too.
  const auto vgg = workload::read_torch_steps_csv(dir / "vgg16_tf32_b64_steps.csv");
  REQUIRE(vgg.size() == 1);
  CHECK(vgg.front().model == "vgg16");
  CHECK(vgg.front().training);
  CHECK(vgg.front().optimizer == "adam");
  CHECK_FALSE(vgg.front().kv_cache_concat);
  CHECK_FALSE(vgg.front().kv_cache_cropped);
}

TEST_CASE("network validation: the measured run's KV cache and CUDA graphs reach the estimate") {
  const auto a = engine::load_accelerator_with_config(test::source_dir() / "configs/gpu/h200.yaml");
  std::vector<workload::MeasuredNetworkRow> rows(3, llama2_decode_row(1, 512, 0.03));
  rows[1].cuda_graphs = true;
  rows[2].cuda_graphs = true;
  rows[2].past = 16384;
  const auto rep = engine::validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  REQUIRE(rep.rows.size() == 3);
  for (const auto& r : rep.rows) REQUIRE(r.simulated);
  // Eager, one token's ~550 launches outlast its kernels; as a graph the step is the GPU's alone,
  // and a longer cache is more to read.
  CHECK(rep.rows[0].bound == "host");
  CHECK(rep.rows[1].bound != "host");
  CHECK(rep.rows[1].predicted_s < rep.rows[0].predicted_s);
  CHECK(rep.rows[2].predicted_s > rep.rows[1].predicted_s);
}

TEST_CASE("network validation: a decode step timed with a cropped DynamicCache pays torch.cat's general kernel") {
  // The first H200 loan's Llama-2-7B decode at batch 16 against 1024 cached tokens: its trace shows
  // CatArrayBatchedCopy at ~405 us for each layer's keys and values (validation/measured/H200/networks).
  const auto a = engine::load_accelerator_with_config(test::source_dir() / "configs/gpu/h200.yaml");
  workload::MeasuredNetworkRow row = llama2_decode_row(16, 1024, 0.05);
  row.kv_cache_concat = true;
  row.cuda_graphs = true;  // the GPU's time alone
  std::vector<workload::MeasuredNetworkRow> rows(2, row);
  rows[1].kv_cache_cropped = true;
  const auto rep = engine::validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  REQUIRE(rep.rows.size() == 2);
  for (const auto& r : rep.rows) REQUIRE(r.simulated);
  // 64 cats of 67M fp16 elements: the vectorized copy moves 268 MB each at DRAM speed (~60 us), the
  // general kernel's integer work takes several times that.
  CHECK(rep.rows[1].predicted_s > rep.rows[0].predicted_s + 0.010);
}

TEST_CASE("network validation: a KV cache on an image network names the measured file and the model file") {
  const fs::path dir = test::temp_dir("torch_steps_kv_cnn");
  const fs::path f = write(dir, "resnet50_infer_fp16_b1_steps.csv",
                           std::string("# NVIDIA H200, torch 2.11, cuDNN 1, batch 1, precision fp16, model resnet50, "
                                       "pass infer, kv_len 5\n") + kSteps);
  const auto rows = workload::read_torch_steps_csv(f);
  const auto a = engine::load_accelerator_with_config(test::source_dir() / "configs/gpu/h200.yaml");
  try {
    (void)engine::validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
    FAIL("no error for a KV cache on ResNet-50");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("resnet50_infer_fp16_b1_steps.csv") != std::string::npos, what);
    CHECK_MESSAGE(what.find("resnet50.yaml") != std::string::npos, what);
    CHECK_MESSAGE(what.find("image network") != std::string::npos, what);
  }
}

TEST_CASE("network validation: a run's own optimizer replaces the model's") {
  const auto a = engine::load_accelerator_with_config(test::source_dir() / "configs/gpu/h100.yaml");
  workload::MeasuredNetworkRow row;
  row.model = "resnet50";  // models/resnet50.yaml trains with SGD
  row.gpu = "NVIDIA H100 80GB HBM3";
  row.training = true;
  row.precision = workload::Precision::tf32;
  row.batch = 64;
  row.measured_s = 0.04;
  std::vector<workload::MeasuredNetworkRow> rows(2, row);
  rows[1].optimizer = "adam";
  const auto rep = engine::validate_networks(*a.accelerator, rows, test::source_dir() / "models", 1);
  REQUIRE(rep.rows.size() == 2);
  REQUIRE(rep.rows[0].simulated);
  REQUIRE(rep.rows[1].simulated);
  // Adam reads and writes two moments per weight where SGD keeps one momentum: 25.6M weights more.
  CHECK(rep.rows[1].predicted_s > rep.rows[0].predicted_s);
  CHECK(rep.rows[1].predicted_s < rep.rows[0].predicted_s * 1.05);
}

TEST_CASE("tcsim validate on the lent H100's ResNet-50 training steps") {
  std::string files;
  for (const char* f : {"resnet50_amp-fp16_cl_b256_steps.csv", "resnet50_tf32_b128_steps.csv", "bertbase_tf32_b64_steps.csv"})
    files += " '" + (test::source_dir() / "validation/measured/H100/profiles" / f).string() + "'";
  const auto r = test::run_tcsim("validate -c '" + (test::source_dir() / "configs/gpu/h100.yaml").string() + "'" + files +
                                 " --models '" + (test::source_dir() / "models").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(r.err.find("2 network runs on H100-SXM5") != std::string::npos, r.err);
  CHECK(r.err.find("1 of 3 runs not compared") != std::string::npos);
  CHECK(r.out.find("resnet50 train batch 256 amp-fp16 channels_last") != std::string::npos);
}
