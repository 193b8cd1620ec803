// The shipped networks (models/*.yaml): each loads, and its parameter count and forward
// multiply-adds match the published figures (torchvision docs, Hugging Face num_parameters()) or,
// for the transformers' MACs, a closed form written here from the architecture.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {

NetworkVariables with_batch(std::int64_t batch) {
  NetworkVariables v;
  v.batch = batch;
  return v;
}

Network load(const std::string& file, const NetworkVariables& vars = {}) {
  return read_network(test::source_dir() / "models" / file, vars);
}

const Layer& layer(const Network& net, const std::string& name) {
  for (const auto& l : net.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  return net.layers.front();
}

// Published GMACs are rounded to 2 decimals: the count must round to them.
void check_gmacs(const Network& net, double published) {
  const double gmacs = net.forward_macs() / static_cast<double>(net.batch) / 1e9;
  INFO(net.name << ": " << gmacs << " GMACs per sample, published " << published);
  CHECK(std::abs(gmacs - published) <= 0.005);
  CHECK(net.reference_gmacs == published);
}

}  // namespace

TEST_CASE("network models: every models/*.yaml loads, cites its source and states a reference") {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "models")) {
    if (e.path().extension() != ".yaml") continue;
    INFO(e.path().filename().string());
    const Network net = read_network(e.path());
    ++n;
    CHECK(!net.name.empty());
    CHECK(!net.source.empty());
    CHECK(!net.reference_source.empty());
    CHECK(net.reference_params > 0);
    CHECK(net.params() > 0);
    CHECK(net.forward_macs() > 0);
    CHECK(net.layers.back().kind == LayerKind::cross_entropy);
    CHECK(net.layers.back().train_only);
  }
  CHECK(n == 21);
}

TEST_CASE("network models: torchvision CNNs match the published parameters and GMACs") {
  struct Case {
    const char* file;
    std::int64_t params;
    double gmacs;
  };
  // torchvision.models docs (weights tables: num_params, GFLOPS, which are multiply-adds)
  const Case cases[] = {{"resnet18.yaml", 11'689'512, 1.81},
                        {"resnet50.yaml", 25'557'032, 4.09},
                        {"vgg16.yaml", 138'357'544, 15.47},
                        {"mobilenet_v2.yaml", 3'504'872, 0.30},
                        {"densenet121.yaml", 7'978'856, 2.83},  // concat layers
                        {"vit_b_16.yaml", 86'567'656, 17.56}};  // parameter layers (class token, position embedding)
  for (const auto& c : cases) {
    INFO(std::string(c.file));
    const Network net = load(c.file);
    CHECK(net.task == "image");
    CHECK(net.params() == c.params);
    CHECK(net.reference_params == c.params);
    check_gmacs(net, c.gmacs);
  }
}

TEST_CASE("network models: ResNet-50 shapes, repeats and batch") {
  const Network net = load("resnet50.yaml", with_batch(2));
  CHECK(net.batch == 2);
  CHECK(net.input == Shape{3, 224, 224});
  CHECK(layer(net, "conv1").output == Shape{64, 112, 112});
  CHECK(layer(net, "maxpool").output == Shape{64, 56, 56});
  CHECK(layer(net, "layer2_0_conv2").output == Shape{128, 28, 28});  // v1.5: the stride is in the 3x3
  CHECK(layer(net, "layer2_0_conv1").output == Shape{128, 56, 56});
  const Layer& last_conv = layer(net, "layer4.conv3");
  CHECK(last_conv.output == Shape{2048, 7, 7});
  CHECK(last_conv.count == 2);
  CHECK(last_conv.group == "layer4");
  CHECK(layer(net, "layer3.conv1").count == 5);
  CHECK(layer(net, "fc").input == Shape{2048});
  CHECK(layer(net, "fc").output == Shape{1000});
  // the block's `input` is the layer feeding its first copy
  const Layer& add = layer(net, "layer1.add");
  REQUIRE(add.inputs.size() == 2);
  CHECK(net.layers[static_cast<std::size_t>(add.inputs[1])].name == "layer1_0_relu3");
  CHECK(net.layers.front().inputs == std::vector<int>{-1});
  // MACs scale with the batch
  CHECK(net.forward_macs() == doctest::Approx(2 * load("resnet50.yaml", with_batch(1)).forward_macs()));
}

TEST_CASE("network models: MobileNet-v2 depthwise convolutions") {
  const Network net = load("mobilenet_v2.yaml");
  const Layer& dw = layer(net, "b2_dw");
  CHECK(dw.groups == 96);
  CHECK(dw.output == Shape{96, 56, 56});
  CHECK(dw.params() == 96 * 9);
  CHECK(layer(net, "conv_last").output == Shape{1280, 7, 7});
}

namespace {

// Per-token GEMM weights of one transformer layer and the attention MACs of a sequence, closed
// forms from the architectures (BERT: Devlin et al.; GPT-2: Radford et al.; Llama: Touvron et al.).
struct Dims {
  double hidden, heads, kv_heads, head_dim, ffn, layers, vocab;
  bool gated;  // SwiGLU: gate, up and down projections
};
double layer_weight_macs(const Dims& d) {
  const double q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  return d.hidden * q + 2 * d.hidden * kv + q * d.hidden + (d.gated ? 3 : 2) * d.hidden * d.ffn;
}
double attention_macs(const Dims& d, double seq, double past) { return 2 * seq * (seq + past) * d.heads * d.head_dim; }

}  // namespace

TEST_CASE("network models: BERT parameters (Hugging Face) and forward MACs (closed form)") {
  struct Case {
    const char* file;
    std::int64_t backbone;  // BertModel with pooler, Hugging Face num_parameters()
    Dims d;
  };
  const Case cases[] = {{"bert_base.yaml", 109'482'240, {768, 12, 12, 64, 3072, 12, 30522, false}},
                        {"bert_large.yaml", 335'141'888, {1024, 16, 16, 64, 4096, 24, 30522, false}}};
  for (const auto& c : cases) {
    INFO(std::string(c.file));
    const Network net = load(c.file);
    CHECK(net.seq == 512);
    const auto h = static_cast<std::int64_t>(c.d.hidden);
    const std::int64_t mlm_head = h * h + h + 2 * h + 30522;  // transform dense, LayerNorm, decoder bias
    CHECK(net.params() == c.backbone + mlm_head);
    CHECK(net.reference_params == c.backbone);
    const double s = 512;
    const double per_sample = c.d.layers * (s * layer_weight_macs(c.d) + attention_macs(c.d, s, 0)) +
                              c.d.hidden * c.d.hidden +                       // pooler, one token
                              s * (c.d.hidden * c.d.hidden + c.d.hidden * c.d.vocab);  // MLM head
    CHECK(net.forward_macs() == doctest::Approx(per_sample * static_cast<double>(net.batch)).epsilon(1e-12));
    CHECK(layer(net, "pooler").input == Shape{h});
    CHECK(layer(net, "pooler").output == Shape{h});
    CHECK(layer(net, "layer.attention").impl == AttentionImpl::unfused);
    CHECK(layer(net, "mlm_decoder").tied_to == "word");
    CHECK(layer(net, "mlm_decoder").params() == 30522);  // its bias only
  }
}

TEST_CASE("network models: GPT-2, GPT-3, OPT and Llama parameters (Hugging Face) and forward MACs (closed form)") {
  struct Case {
    const char* file;
    std::int64_t params;
    Dims d;
    std::int64_t seq;
    const char* attn;  // the attention layer's full name
  };
  // GPT2LMHeadModel's count for a config: wte + wpe + layers x (12 h^2 + 13 h) + ln_f (lm_head tied).
  const auto gpt2_params = [](std::int64_t h, std::int64_t layers, std::int64_t positions) {
    return 50257 * h + positions * h + layers * (12 * h * h + 13 * h) + 2 * h;
  };
  CHECK(gpt2_params(1280, 36, 1024) == 774'030'080);  // the closed form gives gpt2-large's published count
  const Case cases[] = {
      {"gpt2.yaml", 124'439'808, {768, 12, 12, 64, 3072, 12, 50257, false}, 1024, "h.attn"},
      {"gpt2_large.yaml", 774'030'080, {1280, 20, 20, 64, 5120, 36, 50257, false}, 1024, "h.attn"},
      // NeuSight's GPT-3 configs (no published checkpoint: the closed form above)
      {"gpt3_xl.yaml", gpt2_params(3072, 24, 2048), {3072, 24, 24, 128, 12288, 24, 50257, false}, 2048, "h.attn"},
      {"gpt3_27.yaml", gpt2_params(2560, 32, 2048), {2560, 32, 32, 80, 10240, 32, 50257, false}, 2048, "h.attn"},
      {"opt_13.yaml", 1'315'758'080, {2048, 32, 32, 64, 8192, 24, 50272, false}, 2048, "layers.attn"},
      {"llama2_7b.yaml", 6'738'415'616, {4096, 32, 32, 128, 11008, 32, 32000, true}, 2048, "layers.attn"},
      {"llama3_8b.yaml", 8'030'261'248, {4096, 32, 8, 128, 14336, 32, 128256, true}, 2048, "layers.attn"},
  };
  for (const auto& c : cases) {
    INFO(std::string(c.file));
    for (const NetworkVariables vars : {NetworkVariables{}, NetworkVariables{.batch = 3, .seq = 1, .past = 700}}) {
      const Network net = load(c.file, vars);
      CHECK(net.params() == c.params);
      CHECK(net.reference_params == c.params);
      const double s = static_cast<double>(vars.seq.value_or(c.seq)), p = static_cast<double>(vars.past.value_or(0));
      CHECK(net.seq == static_cast<std::int64_t>(s));
      // ≈ params·tokens: every weight but the position embeddings is used once per token
      const double per_sample = c.d.layers * (s * layer_weight_macs(c.d) + attention_macs(c.d, s, p)) +
                                s * c.d.hidden * c.d.vocab;  // lm_head
      CHECK(net.forward_macs() == doctest::Approx(per_sample * static_cast<double>(net.batch)).epsilon(1e-12));
      const Layer& attn = layer(net, c.attn);
      CHECK(attn.causal);
      CHECK(attn.q_len == static_cast<std::int64_t>(s));
      CHECK(attn.kv_len == static_cast<std::int64_t>(s + p));
      CHECK(attn.kv_heads == static_cast<std::int64_t>(c.d.kv_heads));
      CHECK(layer(net, "lm_head").output == Shape{static_cast<std::int64_t>(s), static_cast<std::int64_t>(c.d.vocab)});
    }
  }
}

TEST_CASE("network models: learned position tables bound seq and past; encoders take no KV cache") {
  // max_position_embeddings / n_positions of each Hugging Face config (OPT's table holds 2 more rows).
  const struct {
    const char* file;
    std::int64_t positions;
    bool decoder;
  } cases[] = {{"bert_base.yaml", 512, false},  {"bert_large.yaml", 512, false}, {"bert_large_dle.yaml", 512, false},
               {"bert_large_qa.yaml", 512, false}, {"bert_base_qa.yaml", 512, false}, {"gpt2.yaml", 1024, true},
               {"gpt2_large.yaml", 1024, true},
               {"gpt3_xl.yaml", 2048, true},    {"gpt3_27.yaml", 2048, true},     {"opt_13.yaml", 2048, true}};
  for (const auto& c : cases) {
    INFO(c.file);
    CHECK(load(c.file, {.batch = 1, .seq = c.positions, .past = {}}).seq == c.positions);
    CHECK_THROWS_WITH_AS(load(c.file, {.batch = 1, .seq = c.positions + 1, .past = {}}),
                         doctest::Contains("learned positions cannot hold past 0 + seq"), InputError);
    if (c.decoder) {
      CHECK(load(c.file, {.batch = 1, .seq = 1, .past = c.positions - 1}).past == c.positions - 1);
      const std::string bound = "give past + seq <= " + std::to_string(c.positions);
      CHECK_THROWS_WITH_AS(load(c.file, {.batch = 1, .seq = 1, .past = c.positions}), doctest::Contains(bound.c_str()),
                           InputError);
    } else {
      CHECK_THROWS_WITH_AS(load(c.file, {.batch = 1, .seq = 1, .past = 8}), doctest::Contains("attends both ways"), InputError);
    }
  }
  // Rotary positions have no table: Llama decodes past its training context (the cost is still defined).
  CHECK(load("llama2_7b.yaml", {.batch = 1, .seq = 1, .past = 100000}).past == 100000);
  CHECK_THROWS_WITH_AS(load("lstm_lm.yaml", {.batch = 1, .seq = 1, .past = 8}), doctest::Contains("no attention layer"),
                       InputError);
}

TEST_CASE("network models: BERT-large and BERT-base for SQuAD are the encoder and a 2-wide start/end head") {
  struct Case {
    const char* pretraining;
    const char* squad;
    std::int64_t params;
    double hidden;
  };
  for (const Case c : {Case{"bert_large.yaml", "bert_large_qa.yaml", 334'094'338, 1024},
                       Case{"bert_base.yaml", "bert_base_qa.yaml", 108'893'186, 768}}) {
    INFO(c.squad);
    const Network pre = load(c.pretraining, {.batch = 1, .seq = 384, .past = {}});
    const Network qa = load(c.squad);
    CHECK(qa.seq == 384);
    CHECK(qa.params() == c.params);
    CHECK(qa.params() == qa.reference_params);
    CHECK(layer(qa, "qa_outputs").output == Shape{384, 2});
    for (const auto& l : qa.layers) CHECK(l.name.rfind("mlm_", 0) != 0);
    // The same encoder: the pre-training model's MACs less its pooler and MLM head, plus 384 x hidden x 2.
    const double h = c.hidden, v = 30522, s = 384;
    const double heads_macs = h * h + s * (h * h + h * v);
    CHECK(qa.forward_macs() / double(qa.batch) ==
          doctest::Approx(pre.forward_macs() - heads_macs + s * h * 2).epsilon(1e-12));
  }
}

TEST_CASE("network models: DeepLearningExamples' BERT-large pre-training runs its MLM head on the masked tokens") {
  for (const auto& run : {std::pair<std::int64_t, std::int64_t>{128, 20}, {512, 80}, {64, 10}}) {
    const std::int64_t seq = run.first, predictions = run.second;  // named copies: INFO captures them
    INFO("seq " << seq);
    const Network dle = load("bert_large_dle.yaml", {.batch = 2, .seq = seq, .past = {}});
    const Network hf = load("bert_large.yaml", {.batch = 2, .seq = seq, .past = {}});
    CHECK(dle.params() == 336'226'108);
    CHECK(dle.params() == dle.reference_params);
    CHECK(layer(dle, "mlm_dense").input == Shape{predictions, 1024});   // max_predictions_per_seq
    CHECK(layer(dle, "mlm_decoder").output == Shape{predictions, 30522});
    CHECK(layer(dle, "seq_relationship").output == Shape{2});
    // HF's head over every token, less the rows DeepLearningExamples' gather leaves out, plus the NSP head.
    const double s = double(seq), p = double(predictions), h = 1024, v = 30522;
    CHECK(dle.forward_macs() / 2 == doctest::Approx(hf.forward_macs() / 2 - (s - p) * (h * h + h * v) + h * 2).epsilon(1e-12));
  }
}

TEST_CASE("network models: GPT-2's lm_head shares wte; Llama's lm_head is its own") {
  const Network gpt2 = load("gpt2.yaml");
  CHECK(layer(gpt2, "lm_head").tied_to == "wte");
  CHECK(layer(gpt2, "lm_head").params() == 0);
  CHECK(layer(gpt2, "h.attn").input == Shape{1024, 3 * 768});  // fused c_attn QKV
  const Network llama = load("llama2_7b.yaml");
  CHECK(layer(llama, "lm_head").tied_to.empty());
  CHECK(layer(llama, "lm_head").params() == 32000LL * 4096);
  CHECK(layer(llama, "layers.attn").impl == AttentionImpl::automatic);  // fused where the GPU has FlashAttention
  CHECK(layer(llama, "layers.attn").inputs.size() == 3);
}

TEST_CASE("network models: the example in models/README.md parses and counts what it states") {
  const std::string readme = test::slurp(test::source_dir() / "models" / "README.md");
  const auto begin = readme.find("```yaml\n");
  REQUIRE(begin != std::string::npos);
  const auto end = readme.find("```", begin + 8);
  const Network net = parse_network(readme.substr(begin + 8, end - begin - 8), "README.md");
  CHECK(net.params() == net.reference_params);
  CHECK(net.layers.size() == 9);
  CHECK(net.layers[3].name == "block.conv");
  CHECK(net.layers[3].count == 2);
}
