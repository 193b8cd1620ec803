// Length-binned data loaders (workload/network/sequence_mix.h) and the DeepLearningExamples rows
// that ran one (workload/network/measured_networks.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "test_support.h"
#include "workload/network/measured_networks.h"
#include "workload/network/sequence_mix.h"

using namespace tcsim;
using namespace tcsim::workload;

TEST_CASE("sequence mix: Graphcore's Wikipedia histogram as published") {
  const auto h = wikipedia_pretraining_lengths_512();
  REQUIRE(h.size() == 512);
  const std::int64_t total = std::accumulate(h.begin(), h.end(), std::int64_t{0});
  CHECK(total == 16279552);  // "Packed 16279552 sequences" (the packing tutorial's README)
  CHECK(h.back() == 3815044);
  double tokens = 0;
  for (std::size_t i = 0; i < h.size(); ++i) tokens += double(i + 1) * double(h[i]);
  // "Speed-up theoretical limit: 2.0013": max length / mean real length.
  CHECK(512.0 / (tokens / double(total)) == doctest::Approx(2.0013).epsilon(5e-5));
}

TEST_CASE("sequence mix: bins of 64 over Wikipedia at 512 pad to the bin edges") {
  const auto mix = binned_sequence_mix(wikipedia_pretraining_lengths_512(), 64);
  REQUIRE(mix.size() == 8);
  double sum = 0;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    CHECK(mix[i].seq == std::int64_t(64 * (i + 1)));
    sum += mix[i].share;
  }
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(mix.front().share == doctest::Approx(2863079.0 / 16279552.0).epsilon(1e-12));  // 1-64 tokens
  CHECK(mix.back().share == doctest::Approx(4428329.0 / 16279552.0).epsilon(1e-12));   // 449-512
  // Padded to 279 tokens on average, against 512 without bins and 255.8 real tokens.
  double mean = 0;
  for (const auto& m : mix) mean += m.share * double(m.seq);
  CHECK(mean == doctest::Approx(279.21).epsilon(1e-4));
}

TEST_CASE("sequence mix: a bin size that does not divide the maximum; empty bins; errors") {
  const auto mix = binned_sequence_mix(wikipedia_pretraining_lengths_512(), 100);
  REQUIRE(mix.size() == 6);
  CHECK(mix.back().seq == 512);  // 501-512: padded to the maximum, not to 600
  const std::vector<std::int64_t> sparse = {0, 0, 5, 0, 0, 0, 15, 0};
  const auto two = binned_sequence_mix(sparse, 2);
  REQUIRE(two.size() == 2);
  CHECK(two[0].seq == 4);
  CHECK(two[0].share == doctest::Approx(0.25));
  CHECK(two[1].seq == 8);
  CHECK_THROWS_AS(binned_sequence_mix(sparse, 0), std::invalid_argument);
  const std::vector<std::int64_t> none = {0, 0, 0};
  CHECK_THROWS_AS(binned_sequence_mix(none, 1), std::invalid_argument);
  CHECK_THROWS_AS(binned_sequence_mix(std::vector<std::int64_t>{}, 64), std::invalid_argument);
}

TEST_CASE("DLE reader: PyTorch BERT phase 2 from the 21.11 container on ran LDDL's bins of 64; SQuAD runs the QA model") {
  const auto dir = test::temp_dir("dle_lddl");
  const auto csv = dir / "dle.csv";
  std::ofstream(csv)
      << "model,framework,container,gpu,precision,batch_per_gpu,seqlen,metric,value,unit,source_file,section_note\n"
         "BERT-large pretrain,PyTorch,pytorch:21.11,A100-80GB (DGX A100),AMP(FP16),32,512,train throughput,210,seq/s,x,\n"
         "BERT-large pretrain,PyTorch,pytorch:21.11,A100-80GB (DGX A100),AMP(FP16),256,128,train throughput,580,seq/s,x,\n"
         "BERT-large pretrain,TensorFlow1,20.06-py3,A100-40GB (DGX A100),AMP(FP16),16,512,train throughput,70.856,seq/s,x,\n"
         "BERT-large pretrain,PyTorch,pytorch:21.03,A100-80GB (DGX A100),AMP(FP16),32,512,train throughput,200,seq/s,x,\n"
         "BERT-large SQuAD finetune,PyTorch,pytorch:22.06,A100-80GB (DGX A100),AMP(FP16),32,512,train throughput,100,seq/s,x,\n"
         "BERT-large SQuAD finetune,PyTorch,pytorch:21.11,A100-80GB (DGX A100),TF32,32,384?,train throughput,61.5,seq/s,x,\n"
         "BERT-large SQuAD inference,PyTorch,pytorch:21.11,A100-80GB (DGX A100),TF32,32,384,inference throughput,216,seq/s,x,\n"
         "BERT-large SQuAD finetune,TensorFlow1,20.06-py3,A100-40GB (DGX A100),TF32,16,384?,train throughput,61.364,seq/s,x,\n";
  const auto rows = read_dle_throughput_csv(csv);
  REQUIRE(rows.size() == 8);
  // run_squad.py: apex's FusedAdam under --fp16, its BertAdam otherwise; inference has no optimizer,
  // TensorFlow its own fused update.
  CHECK_FALSE(rows[4].bert_adam);
  CHECK(rows[5].bert_adam);
  CHECK_FALSE(rows[6].bert_adam);
  CHECK_FALSE(rows[7].bert_adam);
  CHECK_FALSE(rows[0].bert_adam);  // pre-training steps with a fused LAMB
  // run_squad.py's timed eval loop copies each sample's start and end logits back one at a time.
  CHECK(rows[6].per_sample_readbacks == 2);
  for (int i : {0, 1, 2, 3, 4, 5, 7}) CHECK(rows[std::size_t(i)].per_sample_readbacks == 0);
  REQUIRE(rows[0].seq_mix.size() == 8);
  CHECK(rows[0].seq == 512);
  CHECK(rows[0].seq_mix.back().seq == 512);
  CHECK(rows[0].label.find("LDDL bins of 64") != std::string::npos);
  CHECK(rows[1].seq_mix.empty());  // phase 1: unbinned, every batch holds a 128-token sequence
  CHECK(rows[2].seq_mix.empty());  // TensorFlow's TFRecords: padded to 512
  CHECK(rows[3].seq_mix.empty());  // before LDDL
  CHECK(rows[4].seq_mix.empty());  // SQuAD features are padded to max_seq_length
  CHECK(rows[0].model == "bert_large_dle");  // DeepLearningExamples' pre-training network
  CHECK(rows[4].model == "bert_large_qa");  // BertForQuestionAnswering: no pooler, no MLM head
  CHECK(rows[4].seq == 512);
  std::filesystem::remove_all(dir);
}
