// Mixture-of-experts layers, T5's position bias and cross-attention, the eager RMSNorm and the
// scalar multiply (models/README.md), and the Switch Transformer built from them
// (models/switchxl4.yaml): shapes, parameters, MACs, the kernels they lower to, host syncs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "test_support.h"
#include "workload/network/lowering/lowering.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {

// A token network (batch 2, seq 16) with these layers (a YAML list, one layer per line).
std::string token_network(const std::string& layers) {
  return "version: 1\nkind: network\nname: m\ntask: tokens\ndefaults: {batch: 2, seq: 16}\nlayers:" + layers;
}

const Layer& layer(const Network& net, const std::string& name) {
  for (const auto& l : net.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  return net.layers.front();
}

LoweringOptions fp32(bool training) {
  LoweringOptions o;
  o.precision = Precision::fp32;
  o.training = training;
  return o;
}

struct Count {
  int kernels = 0, syncs = 0;
  std::vector<const Kernel*> gemms;
};
// The forward (or backward) kernels of layer `name` in a lowering: how many, how many make the
// host wait, and the GEMMs.
Count count(const Network& net, const Lowering& low, const std::string& name, StepPhase phase) {
  Count c;
  for (const auto& k : low.kernels) {
    if (k.layer < 0 || net.layers[std::size_t(k.layer)].name != name || k.phase != phase) continue;
    ++c.kernels;
    c.syncs += k.host_sync ? 1 : 0;
    if (k.kernel.kind == Kernel::Kind::gemm) c.gemms.push_back(&k.kernel);
  }
  return c;
}

const char* kMoe = R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 4, ffn: 64, capacity: 3, dispatch: DISPATCH, dropout: 0.1, jitter: true}
  - {name: loss, kind: cross_entropy, train_only: true}
)";

std::string moe_network(const std::string& dispatch) {
  std::string layers = kMoe;
  layers.replace(layers.find("DISPATCH"), 8, dispatch);
  return token_network(layers);
}

}  // namespace

TEST_CASE("moe: parameters, MACs and the expert rows of each dispatch") {
  const Network padded = parse_network(moe_network("padded"), "m.yaml");
  const Layer& p = layer(padded, "moe");
  CHECK(p.output == Shape{16, 32});
  CHECK(p.params() == 32 * 4 + 4 * 2 * 32 * 64);  // router + 4 experts, no biases
  CHECK(p.expert_rows() == 3);                    // the capacity, padded
  // router over every token + each expert over its rows, for 2 samples
  CHECK(p.forward_macs(2) == doctest::Approx(2.0 * (16 * 32 * 4 + 4 * 3 * 2 * 32 * 64)));
  const Network routed = parse_network(moe_network("routed"), "m.yaml");
  CHECK(layer(routed, "moe").expert_rows() == 3);  // min(capacity 3, 16 tokens / 4 experts)
  const Network wide = parse_network(token_network(R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 4, ffn: 64}
  - {name: loss, kind: cross_entropy, train_only: true}
)"), "m.yaml");
  CHECK(layer(wide, "moe").capacity == 4);  // default: an even share, capacity factor 1
  CHECK(layer(wide, "moe").expert_rows() == 4);
  CHECK(layer(wide, "moe").dispatch == MoeDispatch::routed);
}

TEST_CASE("moe: the expert loop's gathers and scatters wait for the GPU (nonzero, .item())") {
  for (const char* dispatch : {"padded", "routed"}) {
    const std::string d = dispatch;  // a named copy: INFO captures it
    INFO(d);
    const Network net = parse_network(moe_network(d), "m.yaml");
    const Lowering infer = lower_network(net, fp32(false));
    const Count f = count(net, infer, "moe", StepPhase::forward);
    // per expert: nonzero for the gather and the scatter; padded adds the slices' two .item()s
    CHECK(f.syncs == 4 * (d == "padded" ? 4 : 2));
    REQUIRE(f.gemms.size() == 1 + 4 * 2);  // the router, then wi and wo of each expert
    CHECK(f.gemms[0]->m == 2 * 16);         // the router over every token of both samples
    CHECK(f.gemms[0]->n == 4);
    for (std::size_t g = 1; g < f.gemms.size(); ++g) CHECK(f.gemms[g]->m == 2 * 3);  // batch x rows
    const Lowering train = lower_network(net, fp32(true));
    const Count t = count(net, train, "moe", StepPhase::forward);
    CHECK(t.kernels == f.kernels + 2 + 4);  // the router's jitter (noise, multiply), each expert's dropout
    const Count b = count(net, train, "moe", StepPhase::backward);
    CHECK(b.syncs == 4 * 3);               // per expert: index_put's two gradients, the gather's
    CHECK(b.gemms.size() == 4 * 4 + 2);    // dgrad and wgrad of wi and wo, the router's two
  }
}

TEST_CASE("position bias, score-biased and cross attention: shapes, kernels and gradients") {
  const std::string layers = R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 64}
  - {name: bias, kind: position_bias, input: input, heads: 4}
  - {name: zero_bias, kind: position_bias, input: input, heads: 4, buckets: 0}
  - {name: drop, kind: dropout, input: emb, probability: 0.1}
  - repeat: 3
    name: block
    layers:
      - {name: q, kind: linear, out_features: 64, bias: false}
      - {name: k, kind: linear, input: q, out_features: 64, bias: false}
      - {name: v, kind: linear, input: q, out_features: 64, bias: false}
      - {name: attn, kind: attention, inputs: [q, k, v, bias], heads: 4, head_dim: 16, dropout: 0.1}
      - {name: ck, kind: linear, input: drop, out_features: 64, bias: false}
      - {name: cv, kind: linear, input: drop, out_features: 64, bias: false}
      - {name: cross, kind: attention, inputs: [attn, ck, cv, zero_bias], heads: 4, head_dim: 16, cross: true}
  - {name: norm, kind: rms_norm, form: eager}
  - {name: scale, kind: mul, scalar: 0.125}
  - {name: loss, kind: cross_entropy, train_only: true}
)";
  const Network net = parse_network(token_network(layers), "m.yaml");
  CHECK(layer(net, "bias").output == Shape{4, 16, 16});
  CHECK(layer(net, "bias").params() == 32 * 4);      // T5's 32 buckets per head
  CHECK(layer(net, "zero_bias").params() == 0);
  CHECK(layer(net, "block.cross").kv_len == 16);
  CHECK(layer(net, "scale").output == Shape{16, 64});
  const Lowering low = lower_network(net, fp32(true));
  auto names_of = [&](const std::string& l, StepPhase ph) {
    std::vector<std::string> out;
    for (const auto& k : low.kernels)
      if (k.layer >= 0 && net.layers[std::size_t(k.layer)].name == l && k.phase == ph) out.push_back(k.kernel.name);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  const auto attn = names_of("block.attn", StepPhase::forward);
  CHECK(has(attn, "block.attn.score_bias"));  // the bias replaces the scale and the mask
  CHECK_FALSE(has(attn, "block.attn.scale"));
  CHECK_FALSE(has(attn, "block.attn.mask"));
  // The learned bias is read by 3 copies: two gradient additions; the zero bias has no gradient.
  CHECK(has(names_of("bias", StepPhase::backward), "bias.grad_accumulate"));
  CHECK(names_of("zero_bias", StepPhase::backward).empty());
  for (const auto& k : low.kernels)
    if (k.kernel.name == "bias.grad_accumulate") CHECK(k.kernel.count == 2);
  CHECK(has(names_of("bias", StepPhase::backward), "bias.embedding.backward"));
  // Hugging Face's eager RMSNorm: six kernels forward, fourteen backward in fp32.
  CHECK(names_of("norm", StepPhase::forward).size() == 6);
  CHECK(names_of("norm", StepPhase::backward).size() == 14);
  CHECK(names_of("scale", StepPhase::forward).size() == 1);
}

TEST_CASE("moe, position bias and score-biased attention: bad input names the field") {
  auto error_of = [](const std::string& layers) -> std::string {
    try {
      parse_network(token_network(layers), "m.yaml");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string emb = "\n  - {name: emb, kind: embedding, vocab: 100, dim: 32}";
  CHECK(error_of(emb + "\n  - {name: moe, kind: moe, experts: 4, ffn: 64, dispatch: scattered}").find("moe': dispatch") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: moe, kind: moe, experts: 4, ffn: 64, activation: swish}").find("expected relu, gelu or silu") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: moe, kind: moe, experts: 0, ffn: 64}").find("experts") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: moe, kind: moe, ffn: 64}").find("experts: missing") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: b, kind: position_bias, input: input, heads: 4, buckets: 1}").find("buckets") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: m, kind: mul, scalar: 2, inputs: [emb, emb]}").find("takes 1 input") != std::string::npos);
  CHECK(error_of(emb + "\n  - {name: a, kind: attention, inputs: [emb, emb, emb], heads: 2, head_dim: 16, causal: true, cross: true}").find("cannot be causal") != std::string::npos);
  // A bias of the wrong shape (8 heads for a 2-head attention).
  const std::string e = error_of(emb + "\n  - {name: b, kind: position_bias, input: input, heads: 8}" +
                                 "\n  - {name: a, kind: attention, inputs: [emb, emb, emb, b], heads: 2, head_dim: 16}");
  CHECK(e.find("score bias") != std::string::npos);
  CHECK(e.find("[2, 16, 16]") != std::string::npos);
}

TEST_CASE("network models: the Switch Transformer's parameters and MACs (closed form from its config)") {
  const double d = 1024, inner = 32 * 128, ff = 16384, experts = 4, capacity = 64, vocab = 32128, heads = 32;
  const double attn = 4 * d * inner, dense = 2 * d * ff, sparse = d * experts + experts * 2 * d * ff;
  const double encoder = 24 * (attn + d) + 12 * (dense + d) + 12 * (sparse + d) + 32 * heads + d;
  const double decoder = 24 * (2 * attn + 2 * d) + 12 * (dense + d) + 12 * (sparse + d) + 32 * heads + d;
  const double params = vocab * d + encoder + decoder;  // lm_head tied to the shared embedding
  for (const NetworkVariables vars : {NetworkVariables{}, NetworkVariables{.batch = 2, .seq = 2048, .past = {}}}) {
    const Network net = read_network(test::source_dir() / "models" / "switchxl4.yaml", vars);
    CHECK(double(net.params()) == params);
    CHECK(net.reference_params == net.params());
    const double s = double(net.seq);
    CHECK(s == (vars.seq ? 2048 : 512));
    // 24 + 48 attention projections' worth of q, k, v, o per token; 24 dense feed-forwards and
    // routers per token; each expert over batch x capacity rows; 72 score matrices; the LM head.
    const double per_sample = s * (72 * attn + 24 * dense + 24 * d * experts) + 24 * experts * capacity * 2 * d * ff +
                              72 * 2 * heads * s * s * 128 + s * d * vocab;
    CHECK(net.forward_macs() == doctest::Approx(per_sample * double(net.batch)).epsilon(1e-12));
    CHECK(layer(net, "decoder.cross_attn").kv_len == net.seq);
    CHECK(layer(net, "decoder.cross_attn").inputs.size() == 4);
    CHECK(layer(net, "encoder.moe").expert_rows() == 64);
    CHECK(layer(net, "lm_head").tied_to == "shared");
  }
}
