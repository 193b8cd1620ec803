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
  std::vector<Kernel> gemms;
};
// The forward (or backward) kernels of layer `name` in a lowering: how many, how many make the
// host wait, and the GEMMs.
Count count(const Network& net, const Lowering& low, const std::string& name, StepPhase phase) {
  Count c;
  for (const auto& k : low.kernels) {
    if (k.layer < 0 || net.layers[std::size_t(k.layer)].name != name || k.phase != phase) continue;
    ++c.kernels;
    c.syncs += k.host_sync ? 1 : 0;
    if (k.kernel.kind == Kernel::Kind::gemm) c.gemms.push_back(k.kernel);
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
  CHECK(p.expert_rows(1) == 3);                   // the capacity, padded
  CHECK(p.expert_rows(2) == 6);
  // router over every token + each expert over its rows, for 2 samples
  CHECK(p.forward_macs(2) == doctest::Approx(2.0 * (16 * 32 * 4 + 4 * 3 * 2 * 32 * 64)));
  const Network routed = parse_network(moe_network("routed"), "m.yaml");
  CHECK(layer(routed, "moe").expert_rows(2) == 6);  // per sample min(capacity 3, 16 tokens / 4 experts)
  // Mixtral's router: every token to its top 2 of 4 experts, SwiGLU experts (three matrices).
  const Network topk = parse_network(token_network(R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 4, ffn: 64, router: topk, activation: silu, gated: true}
  - {name: loss, kind: cross_entropy, train_only: true}
)"), "m.yaml");
  const Layer& t = layer(topk, "moe");
  CHECK(t.top_k == 2);
  CHECK(t.params() == 32 * 4 + 4 * 3 * 32 * 64);
  CHECK(t.expert_rows(2) == 2 * 16 * 2 / 4);  // the batch's 32 tokens x 2 choices over 4 experts
  CHECK(t.expert_rows(1) == 8);
  CHECK(t.forward_macs(2) == doctest::Approx(2.0 * 16 * (32 * 4 + 2 * 3 * 32 * 64)));
  const Network wide = parse_network(token_network(R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 4, ffn: 64}
  - {name: loss, kind: cross_entropy, train_only: true}
)"), "m.yaml");
  CHECK(layer(wide, "moe").capacity == 4);  // default: an even share, capacity factor 1
  CHECK(layer(wide, "moe").expert_rows(1) == 4);
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
    REQUIRE(f.gemms.size() == 1 + 4 * 2);  // the router, then w1 and w2 of each expert
    CHECK(f.gemms[0].m == 2 * 16);         // the router over every token of both samples
    CHECK(f.gemms[0].n == 4);
    for (std::size_t g = 1; g < f.gemms.size(); ++g) CHECK(f.gemms[g].m == 2 * 3);  // batch x capacity
    const Lowering train = lower_network(net, fp32(true));
    const Count t = count(net, train, "moe", StepPhase::forward);
    CHECK(t.kernels == f.kernels + 2 + 4);  // the router's jitter (noise, multiply), each expert's dropout
    const Count b = count(net, train, "moe", StepPhase::backward);
    CHECK(b.syncs == 4 * 3);               // per expert: index_put's two gradients, the gather's
    CHECK(b.gemms.size() == 4 * 4 + 2);    // dgrad and wgrad of w1 and w2, the router's two
  }
}

TEST_CASE("moe: the topk router (Mixtral) waits once per expert forward, never backward") {
  const Network net = parse_network(token_network(R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 8, ffn: 64, router: topk, top_k: 2, activation: silu, gated: true}
  - {name: loss, kind: cross_entropy, train_only: true}
)"), "m.yaml");
  const Lowering train = lower_network(net, fp32(true));
  const Count f = count(net, train, "moe", StepPhase::forward);
  CHECK(f.syncs == 8);                    // torch.where on each expert's mask
  REQUIRE(f.gemms.size() == 1 + 8 * 3);   // the router, then w1, w3 and w2 of each expert
  for (std::size_t g = 1; g < f.gemms.size(); ++g) CHECK(f.gemms[g].m == 2 * 16 * 2 / 8);  // 8 rows
  const Count b = count(net, train, "moe", StepPhase::backward);
  CHECK(b.syncs == 0);                    // the backward indexes with the saved int64 indices
  CHECK(b.gemms.size() == 8 * 6 + 2);
}

TEST_CASE("network models: Mixtral-8x7B's parameters (Hugging Face) and forward MACs (closed form)") {
  const Network net = read_network(test::source_dir() / "models" / "mixtral_8x7b.yaml", {.batch = 2, .seq = 128, .past = {}});
  CHECK(net.params() == 46'702'792'704);
  CHECK(net.reference_params == net.params());
  const double h = 4096, kv = 1024, f = 14336, s = 128;
  // per token: q, k, v, o; the router; 2 of 8 SwiGLU experts; attention over s keys; the LM head
  const double per_token = 32 * (2 * h * h + 2 * h * kv + h * 8 + 2 * 3 * h * f + 2 * 32 * s * 128) + h * 32000;
  CHECK(net.forward_macs() == doctest::Approx(2 * s * per_token).epsilon(1e-12));
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
  struct Bad {
    const char* layer;     // one layer after the embedding
    const char* message;   // a part of the error it must give
  };
  const Bad cases[] = {
      {"{name: moe, kind: moe, experts: 4, ffn: 64, dispatch: scattered}", "moe': dispatch"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, activation: swish}", "expected relu, gelu or silu"},
      {"{name: moe, kind: moe, experts: 0, ffn: 64}", "experts"},
      {"{name: moe, kind: moe, ffn: 64}", "experts: missing"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, router: topk, top_k: 5}", "exceeds the 4 experts"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, router: topk, capacity: 8}", "capacity applies to router: switch"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, top_k: 2}", "router: topk takes top_k"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, router: hash}", "expected switch or topk"},
      {"{name: moe, kind: moe, experts: 4, ffn: 64, dispatch: grouped}", "takes router: topk"},
      {"{name: b, kind: position_bias, input: input, heads: 4, buckets: 1}", "buckets"},
      {"{name: m, kind: mul, scalar: 2, inputs: [emb, emb]}", "takes 1 input"},
      {"{name: a, kind: attention, inputs: [emb, emb, emb], heads: 2, head_dim: 16, causal: true, cross: true}", "cannot be causal"},
  };
  for (const Bad& b : cases) {
    const std::string layer_text = b.layer;  // a named copy: INFO captures it
    INFO(layer_text);
    CHECK(error_of(emb + "\n  - " + layer_text).find(b.message) != std::string::npos);
  }
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
    CHECK(layer(net, "encoder.moe").expert_rows(net.batch) == 64 * net.batch);
    CHECK(layer(net, "lm_head").tied_to == "shared");
  }
}

TEST_CASE("moe: the experts' GEMMs run in the mode's GEMM format; autocast casts each expert's rows in and out") {
  const Network net = parse_network(moe_network("routed"), "m.yaml");
  for (const Precision p : {Precision::tf32, Precision::amp_bf16}) {
    LoweringOptions o;
    o.precision = p;
    o.training = true;
    const Lowering low = lower_network(net, o);
    const Count f = count(net, low, "moe", StepPhase::forward);
    const FormatId want = p == Precision::tf32 ? FormatId::tf32 : FormatId::bf16;
    for (const Kernel& g : f.gemms) CHECK(g.a_format == want);
    int casts_in = 0, casts_out = 0;
    for (const auto& k : low.kernels) {
      const std::string& n = k.kernel.name;
      casts_in += n.find(".cast_in") != std::string::npos && n.find("expert") != std::string::npos ? 1 : 0;
      casts_out += n.find(".cast_out") != std::string::npos ? 1 : 0;
    }
    // tf32 keeps fp32 tensors: no casts; autocast casts each of the 4 experts' rows to bf16 and its
    // output back to the fp32 stream, forward and backward.
    CHECK(casts_in == (p == Precision::tf32 ? 0 : 4 * 2));
    CHECK(casts_out == (p == Precision::tf32 ? 0 : 4 * 2));
  }
}

TEST_CASE("moe: only the experts a decode step's tokens choose run; dispatch: grouped is one kernel per linear, no sync") {
  const std::string grouped = token_network(R"(
  - {name: emb, kind: embedding, vocab: 100, dim: 32}
  - {name: moe, kind: moe, experts: 8, ffn: 64, router: topk, top_k: 2, activation: silu, gated: true, dispatch: DISPATCH}
  - {name: loss, kind: cross_entropy, train_only: true}
)");
  auto with = [&](const std::string& dispatch) {
    std::string text = grouped;
    text.replace(text.find("DISPATCH"), 8, dispatch);
    return text;
  };
  // Batch 2, one token each (a decode step): 4 (token, expert) choices reach at most 4 of the 8 experts.
  NetworkVariables decode;
  decode.seq = 1;
  const Network routed = parse_network(with("routed"), "m.yaml", decode);
  CHECK(layer(routed, "moe").active_experts(2) == 4);
  CHECK(layer(routed, "moe").expert_rows(2) == 1);
  const Count r = count(routed, lower_network(routed, fp32(false)), "moe", StepPhase::forward);
  CHECK(r.syncs == 8);                  // every expert's torch.where
  CHECK(r.gemms.size() == 1 + 4 * 3);   // the router, then the 4 experts with tokens
  const Network net = parse_network(with("grouped"), "m.yaml", decode);
  const Count g = count(net, lower_network(net, fp32(false)), "moe", StepPhase::forward);
  CHECK(g.syncs == 0);
  REQUIRE(g.gemms.size() == 3);         // the router, w1 and w3 stacked, w2
  CHECK(g.gemms[1].batch == 4);        // a grouped GEMM over the experts with tokens
  CHECK(g.gemms[1].n == 2 * 64);
  CHECK(g.gemms[2].batch == 4);
  CHECK(g.gemms[2].m == 1);
  // At seq 16 every expert gets tokens: 2 x 16 x 2 / 8 = 8 rows each.
  const Network prefill = parse_network(with("grouped"), "m.yaml");
  const Count p = count(prefill, lower_network(prefill, fp32(false)), "moe", StepPhase::forward);
  CHECK(p.gemms[1].batch == 8);
  CHECK(p.gemms[1].m == 8);
  CHECK_THROWS_WITH_AS(lower_network(prefill, fp32(true)), doctest::Contains("dispatch: grouped is an inference engine's"),
                       InputError);
}
