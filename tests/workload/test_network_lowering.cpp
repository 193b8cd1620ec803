// Lowering a network to kernels (workload/network/lowering/lowering.h): the kernels of each pass, their
// counts, bytes and formats per precision mode, autocast casts, gradient accumulation at forks,
// the optimizer, and the memory footprint.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "common/error.h"
#include "workload/network/lowering/lowering.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {

// A token network named g (batch 2, seq 16) with these layers (a YAML list, one layer per line).
std::string token_network(const std::string& layers) {
  return "version: 1\nkind: network\nname: g\ntask: tokens\ndefaults: {batch: 2, seq: 16}\nlayers:" + layers;
}

// An image network named `name` (batch 2) with this input shape, header lines (e.g. an optimizer)
// and layers (a YAML list, one layer per line).
std::string image_network(const std::string& name, const std::string& input, const std::string& header,
                          const std::string& layers) {
  return "version: 1\nkind: network\nname: " + name + "\ntask: image\ninput: " + input + "\ndefaults: {batch: 2}\n" +
         header + "layers:" + layers;
}

// A training step in precision `p`, with the default (PyTorch) kernels.
LoweringOptions training_in(Precision p) {
  LoweringOptions o;
  o.precision = p;
  o.training = true;
  return o;
}

// FP32 training with the default (PyTorch) kernels.
LoweringOptions fp32_training() { return training_in(Precision::fp32); }

// conv (on the input image) -> bn -> relu; a residual block repeated 3 times; pool; fc; loss.
const char* kTinyCnn = R"(version: 1
kind: network
name: tiny
task: image
input: [3, 16, 16]
defaults: {batch: 4}
optimizer: sgd
layers:
  - {name: conv1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: bn1, kind: batch_norm}
  - {name: relu1, kind: relu}
  - repeat: 3
    name: block
    layers:
      - {name: conv, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
      - {name: add, kind: add, inputs: [conv, input]}
  - {name: pool, kind: global_avg_pool}
  - {name: fc, kind: linear, out_features: 10}
  - {name: loss, kind: cross_entropy, train_only: true}
)";

// Two decoder layers of a grouped-query transformer with RoPE and a KV cache.
const char* kTinyDecoder = R"(version: 1
kind: network
name: tiny-llm
task: tokens
defaults: {batch: 2, seq: 8}
constants: {hidden: 64, heads: 8, kv_heads: 2, head_dim: 8}
optimizer: adamw
layers:
  - {name: embed, kind: embedding, vocab: 100, dim: hidden}
  - repeat: 2
    name: layers
    layers:
      - {name: q, kind: linear, out_features: hidden, bias: false}
      - {name: k, kind: linear, input: input, out_features: kv_heads * head_dim, bias: false}
      - {name: v, kind: linear, input: input, out_features: kv_heads * head_dim, bias: false}
      - {name: attn, kind: attention, inputs: [q, k, v], heads: heads, kv_heads: kv_heads, head_dim: head_dim, causal: true}
      - {name: o, kind: linear, out_features: hidden, bias: false}
      - {name: add, kind: add, inputs: [o, input]}
  - {name: head, kind: linear, out_features: 100, bias: false}
)";

const LoweredKernel* find(const Lowering& l, const std::string& name) {
  for (const auto& k : l.kernels)
    if (k.kernel.name == name) return &k;
  return nullptr;
}

int count_named(const Lowering& l, const std::string& prefix) {
  int n = 0;
  for (const auto& k : l.kernels)
    if (k.kernel.name.rfind(prefix, 0) == 0) ++n;
  return n;
}

// A decode step: one new token against a KV cache of `past` tokens.
NetworkVariables one_token_after(std::int64_t past) {
  NetworkVariables v;
  v.seq = 1;
  v.past = past;
  return v;
}

Lowering lower(const char* yaml, Precision p, bool training, NetworkVariables vars = {}, bool fused = false) {
  const Network net = parse_network(yaml, "tiny.yaml", vars);
  LoweringOptions o;
  o.precision = p;
  o.training = training;
  o.fused_attention = fused;
  return lower_network(net, o);
}

}  // namespace

TEST_CASE("lowering: an fp32 inference step is the forward kernels only, with their bytes") {
  const Lowering l = lower(kTinyCnn, Precision::fp32, false);
  for (const auto& k : l.kernels) CHECK(k.phase == StepPhase::forward);
  CHECK(find(l, "loss.log_softmax") == nullptr);  // train_only
  CHECK(count_named(l, "conv1.cast") == 0);       // no casts in fp32
  const LoweredKernel* conv = find(l, "block.conv");
  REQUIRE(conv);
  CHECK(conv->kernel.kind == Kernel::Kind::conv);
  CHECK(conv->kernel.count == 3);  // one kernel per copy of the repeat block
  CHECK(conv->kernel.conv.batch == 4);
  CHECK(conv->kernel.a_format == FormatId::fp32);
  const LoweredKernel* relu = find(l, "relu1");
  REQUIRE(relu);
  CHECK(relu->kernel.kind == Kernel::Kind::memory);
  CHECK(relu->kernel.bytes_read == 4u * 8 * 16 * 16 * 4);  // batch 4, [8,16,16], fp32
  CHECK(relu->kernel.bytes_written == relu->kernel.bytes_read);
  const LoweredKernel* fc = find(l, "fc");
  REQUIRE(fc);
  CHECK(fc->kernel.m == 4);
  CHECK(fc->kernel.n == 10);
  CHECK(fc->kernel.k == 8);
  CHECK(fc->kernel.layout == Layout::NT);
}

TEST_CASE("lowering: training adds data and weight gradients, fork accumulation and the optimizer") {
  const Lowering l = lower(kTinyCnn, Precision::fp32, true);
  CHECK(find(l, "conv1.wgrad"));
  CHECK(find(l, "conv1.dgrad") == nullptr);  // the input images need no gradient
  REQUIRE(find(l, "block.conv.dgrad"));
  CHECK(find(l, "block.conv.dgrad")->kernel.pass == Pass::data_grad);
  CHECK(find(l, "block.conv.dgrad")->kernel.count == 3);
  const LoweredKernel* fcw = find(l, "fc.wgrad");
  REQUIRE(fcw);
  CHECK(fcw->kernel.m == 10);
  CHECK(fcw->kernel.n == 8);
  CHECK(fcw->kernel.k == 4);
  CHECK(fcw->kernel.layout == Layout::TN);
  CHECK(find(l, "loss.log_softmax"));
  // relu1's output feeds block.conv and block.add: its gradient is a sum of two.
  const LoweredKernel* acc = find(l, "relu1.grad_accumulate");
  REQUIRE(acc);
  CHECK(acc->kernel.count == 1);
  // Copies 1 and 2 of the block's add feed the next copy's conv and add; copy 3 only the pool.
  REQUIRE(find(l, "block.add.grad_accumulate"));
  CHECK(find(l, "block.add.grad_accumulate")->kernel.count == 2);
  // Backward kernels come after every forward kernel, the optimizer last.
  bool seen_backward = false;
  for (const auto& k : l.kernels) {
    if (k.phase == StepPhase::backward) seen_backward = true;
    if (seen_backward) CHECK(k.phase != StepPhase::forward);
  }
  CHECK(l.kernels.back().phase == StepPhase::optimizer);
  // SGD with momentum moves 5 fp32 words per parameter (p, g, m read; p, m written).
  const Network net = parse_network(kTinyCnn, "tiny.yaml");
  const double params = double(net.params());
  double opt_bytes = 0;
  for (const auto& k : l.kernels)
    if (k.phase == StepPhase::optimizer)
      opt_bytes += double(k.kernel.bytes_read + k.kernel.bytes_written) * double(k.kernel.count);
  CHECK(opt_bytes == doctest::Approx(20 * params).epsilon(0.01));
  // Footprint: fp32 weights, gradients and one momentum buffer.
  CHECK(l.footprint.weights == doctest::Approx(4 * params));
  CHECK(l.footprint.gradients == doctest::Approx(4 * params));
  CHECK(l.footprint.optimizer == doctest::Approx(4 * params));
  CHECK(l.footprint.master == 0);
  CHECK(l.footprint.activations > 0);
}

TEST_CASE("lowering: every pass of a conv counts the forward's multiply-adds, strided and depthwise too") {
  // A strided data gradient's implicit GEMM runs over every input pixel (stride^2 the useful work):
  // the flops (and TFLOP/s) reported are the useful ones, so a layer never shows more than the peak.
  const char* net = R"(version: 1
kind: network
name: strided
task: image
input: [8, 16, 16]
defaults: {batch: 2}
optimizer: sgd
layers:
  - {name: c0, kind: conv2d, out_channels: 16, kernel: 3, padding: 1}
  - {name: s2, kind: conv2d, out_channels: 32, kernel: 3, stride: 2, padding: 1}
  - {name: dw, kind: conv2d, out_channels: 32, kernel: 3, stride: 2, padding: 1, groups: 32}
  - {name: pool, kind: global_avg_pool}
  - {name: fc, kind: linear, out_features: 10}
  - {name: loss, kind: cross_entropy}
)";
  const Lowering l = lower(net, Precision::fp32, true);
  for (const char* layer : {"s2", "dw"}) {
    CAPTURE(layer);
    const LoweredKernel* fwd = find(l, layer);
    const LoweredKernel* dgrad = find(l, std::string(layer) + ".dgrad");
    const LoweredKernel* wgrad = find(l, std::string(layer) + ".wgrad");
    REQUIRE(fwd);
    REQUIRE(dgrad);
    REQUIRE(wgrad);
    CHECK(dgrad->kernel.macs() == fwd->kernel.macs());
    CHECK(wgrad->kernel.macs() == fwd->kernel.macs());
  }
  CHECK(find(l, "s2")->kernel.macs() == 2.0 * 8 * 8 * 32 * 16 * 9);  // N P Q K C R S
  CHECK(find(l, "dw")->kernel.macs() == 2.0 * 4 * 4 * 32 * 1 * 9);
}

TEST_CASE("lowering: amp-fp16 casts weights and inputs, keeps fp32 where autocast does, scales the loss") {
  const Lowering l = lower(kTinyCnn, Precision::amp_fp16, true);
  const LoweredKernel* cw = find(l, "conv1.cast_w");
  REQUIRE(cw);
  const double w = 8 * 3 * 3 * 3;
  CHECK(cw->kernel.bytes_read == std::uint64_t(4 * w));
  CHECK(cw->kernel.bytes_written == std::uint64_t(2 * w));
  CHECK(cw->kernel.memory.cold);  // the master weights come from DRAM (the last step's optimizer wrote them)
  REQUIRE(find(l, "conv1.cast_w.backward"));
  CHECK_FALSE(find(l, "conv1.cast_w.backward")->kernel.memory.cold);  // the gradient just written
  CHECK(find(l, "conv1.cast_in"));  // the fp32 images are cast to fp16
  CHECK(find(l, "block.conv.cast_in") == nullptr);  // already fp16
  REQUIRE(find(l, "block.conv"));
  CHECK(find(l, "block.conv")->kernel.a_format == FormatId::fp16);
  CHECK(find(l, "block.conv")->kernel.c_format == FormatId::fp32);
  CHECK(find(l, "loss.cast_in"));  // cross_entropy is on autocast's fp32 list
  CHECK(find(l, "grad_scaler.unscale"));
  CHECK(l.footprint.master == doctest::Approx(2 * l.footprint.weights));
  // bf16 autocast needs no loss scaling.
  CHECK(find(lower(kTinyCnn, Precision::amp_bf16, true), "grad_scaler.unscale") == nullptr);
  // Pure fp16: no casts at all.
  CHECK(count_named(lower(kTinyCnn, Precision::fp16, true), "conv1.cast") == 0);
}

TEST_CASE("lowering: pure fp16 with fp32 master weights steps as apex amp O2: fp32 master gradients, a copy back, a zero_ per tensor") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml");
  const double params = double(net.params());
  LoweringOptions o = training_in(Precision::fp16);
  const Lowering pure = lower_network(net, o);
  o.fp32_master = true;
  const Lowering master = lower_network(net, o);
  auto bytes = [](const Lowering& l, const std::string& prefix, bool read) {
    double b = 0;
    for (const auto& k : l.kernels)
      if (k.phase == StepPhase::optimizer && k.kernel.name.rfind(prefix, 0) == 0)
        b += double(read ? k.kernel.bytes_read : k.kernel.bytes_written) * double(k.kernel.count);
    return b;
  };
  // SGD with momentum on the fp32 masters: p, m and the fp32 master gradient read; p and m written.
  CHECK(bytes(master, "optimizer.", true) == doctest::Approx((4 + 4 + 4) * params).epsilon(0.01));
  CHECK(bytes(master, "optimizer.", false) == doctest::Approx((4 + 4) * params).epsilon(0.01));
  CHECK(bytes(pure, "optimizer.", true) == doctest::Approx(3 * 2 * params).epsilon(0.01));  // all fp16
  // The fp16 gradients are unscaled into fresh fp32 ones, then the masters copied into the weights.
  CHECK(bytes(master, "amp.master_grads", true) == doctest::Approx(2 * params).epsilon(0.01));
  CHECK(bytes(master, "amp.master_grads", false) == doctest::Approx(4 * params).epsilon(0.01));
  CHECK(bytes(master, "amp.master_to_model", true) == doctest::Approx(4 * params).epsilon(0.01));
  CHECK(bytes(master, "amp.master_to_model", false) == doctest::Approx(2 * params).epsilon(0.01));
  // zero_grad: one launch per fp16 gradient tensor (6 tensors, the block's conv once per copy: 8 launches).
  CHECK(count_named(master, "amp.zero_grad.") == 6);
  std::int64_t zero_launches = 0;
  for (const auto& k : master.kernels)
    if (k.kernel.name.rfind("amp.zero_grad.", 0) == 0) zero_launches += k.kernel.count;
  CHECK(zero_launches == 8);
  CHECK(bytes(master, "amp.zero_grad.", false) == doctest::Approx(2 * params).epsilon(0.01));
  CHECK(bytes(master, "amp.zero_grad.", true) == 0);
  // Order: master gradients, then the optimizer after the loss scale's overflow .item(), the copy, zero_grad.
  std::vector<std::string> order;
  for (const auto& k : master.kernels)
    if (k.phase == StepPhase::optimizer) order.push_back(k.kernel.name + (k.host_sync ? " (sync)" : ""));
  REQUIRE(order.size() == 3 + 6);
  CHECK(order[0] == "amp.master_grads");
  CHECK(order[1] == "optimizer.sgd (sync)");
  CHECK(order[2] == "amp.master_to_model");
  CHECK(order[3].rfind("amp.zero_grad.", 0) == 0);
  // The network itself is unchanged: no autocast casts, fp16 GEMMs, the same forward and backward.
  CHECK(count_named(master, "conv1.cast") == 0);
  REQUIRE(find(master, "block.conv"));
  CHECK(find(master, "block.conv")->kernel.a_format == FormatId::fp16);
  std::size_t network_kernels = 0;
  for (const auto& k : master.kernels) network_kernels += k.phase != StepPhase::optimizer;
  std::size_t pure_kernels = 0;
  for (const auto& k : pure.kernels) pure_kernels += k.phase != StepPhase::optimizer;
  CHECK(network_kernels == pure_kernels);
  CHECK(find(master, "grad_scaler.unscale") == nullptr);
  CHECK(find(pure, "grad_scaler.unscale") == nullptr);
  // bf16 has no loss scale: the master gradients are a plain copy, and nothing is read back.
  o.precision = Precision::bf16;
  const Lowering bf16 = lower_network(net, o);
  REQUIRE(find(bf16, "amp.master_grads"));
  CHECK(find(bf16, "amp.master_grads")->kernel.memory.op == "copy");
  for (const auto& k : bf16.kernels) CHECK_FALSE(k.host_sync);
  // Footprint: fp16 weights and gradients, fp32 master copy and momentum.
  CHECK(master.footprint.weights == doctest::Approx(2 * params));
  CHECK(master.footprint.master == doctest::Approx(4 * params));
  CHECK(master.footprint.gradients == doctest::Approx(2 * params));
  CHECK(master.footprint.optimizer == doctest::Approx(4 * params));
  CHECK(pure.footprint.master == 0);
  CHECK(pure.footprint.optimizer == doctest::Approx(2 * params));
}

TEST_CASE("lowering: int8 refuses training; quantized modes quantize GEMM inputs") {
  CHECK_THROWS_AS(lower(kTinyCnn, Precision::int8, true), InputError);
  // fp8 trains (Transformer Engine's linears, the convolutions in bf16 as TE runs them).
  const Lowering fp8 = lower(kTinyCnn, Precision::fp8, true);
  CHECK(find(fp8, "conv1")->kernel.a_format == FormatId::bf16);
  const Lowering l = lower(kTinyCnn, Precision::int8, false);
  // An engine's quantize kernel (vectorized), not PyTorch's casting copy: fp16 in, int8 out.
  const LoweredKernel* q = find(l, "block.conv.quantize_in");
  REQUIRE(q);
  CHECK(find(l, "block.conv.cast_in") == nullptr);
  CHECK(q->kernel.memory.op == "quantize");
  CHECK_FALSE(q->kernel.memory.cast);
  const std::int64_t act = 4 * 8 * 16 * 16;  // batch 4, 8 channels of 16 x 16
  CHECK(q->kernel.bytes_read == 2 * act);
  CHECK(q->kernel.bytes_written == act);
  CHECK(q->kernel.count == 3);
  CHECK(find(l, "block.conv")->kernel.a_format == FormatId::int8);
  CHECK(find(l, "block.conv")->kernel.c_format == FormatId::int32);
  // int8 keeps attention in fp16; its unfused GEMMs accumulate in fp32 (no tensor core adds fp16
  // products into s32), the linear layers in s32.
  const Lowering d = lower(kTinyDecoder, Precision::int8, false, {}, false);
  for (const char* name : {"layers.attn.scores", "layers.attn.context"}) {
    const LoweredKernel* g = find(d, name);
    REQUIRE(g);
    CHECK(g->kernel.a_format == FormatId::fp16);
    CHECK(g->kernel.c_format == FormatId::fp32);
  }
  CHECK(find(d, "layers.q")->kernel.a_format == FormatId::int8);
  CHECK(find(d, "layers.q")->kernel.c_format == FormatId::int32);
  // What the GEMMs store: the dequantized activation (fp16) in int8, the inputs' 16-bit format in
  // the 16-bit modes (fp32 accumulation inside), fp32 in fp32 and tf32.
  CHECK(find(d, "layers.q")->kernel.d_format == FormatId::fp16);
  CHECK(find(d, "layers.attn.scores")->kernel.d_format == FormatId::fp16);
  const Lowering amp = lower(kTinyDecoder, Precision::amp_bf16, false);
  CHECK(find(amp, "layers.q")->kernel.c_format == FormatId::fp32);
  CHECK(find(amp, "layers.q")->kernel.d_format == FormatId::bf16);
  CHECK(find(lower(kTinyDecoder, Precision::tf32, false), "layers.q")->kernel.d_format == FormatId::fp32);
}

TEST_CASE("lowering: quantized attention (no 16-bit GEMMs on the accelerator) runs Q·Kᵀ and P·V in the 8-bit format") {
  const Network net = parse_network(kTinyDecoder, "tiny.yaml", one_token_after(31));
  LoweringOptions o;
  o.precision = Precision::int8;
  const Lowering kept = lower_network(net, o);  // a GPU's: attention in fp16
  o.quantized_attention = true;                 // an int8-only array's
  const Lowering q = lower_network(net, o);
  for (const char* name : {"layers.attn.scores", "layers.attn.context"}) {
    const LoweredKernel* g = find(q, name);
    REQUIRE(g);
    CHECK(g->kernel.a_format == FormatId::int8);
    CHECK(g->kernel.b_format == FormatId::int8);
    CHECK(g->kernel.c_format == FormatId::int32);
    CHECK(g->kernel.d_format == FormatId::fp16);  // dequantized in the epilogue, as the linear layers'
    CHECK(find(kept, name)->kernel.a_format == FormatId::fp16);
  }
  // The fp16 probabilities are quantized by an engine's kernel, not a casting copy.
  const LoweredKernel* probs = find(q, "layers.attn.probs.quantize");
  REQUIRE(probs);
  CHECK(probs->kernel.memory.op == "quantize");
  CHECK(probs->kernel.bytes_written == 2 * 8 * 1 * 32);  // batch 2, 8 heads, 1 query, 32 keys, 1 byte each
  CHECK(find(kept, "layers.attn.probs.quantize") == nullptr);
  // Q, K and V come out of the projections in fp16 and are quantized before the GEMMs.
  CHECK(find(q, "layers.attn.quantize_in"));
  CHECK(find(q, "layers.attn.quantize_in2"));
  // The cache holds int8 keys and values: half the fp16 cache.
  CHECK(q.footprint.kv_cache == doctest::Approx(kept.footprint.kv_cache / 2));
  CHECK(q.footprint.kv_cache == doctest::Approx(2.0 * 2 * 2 * 32 * 8 * 1 * 2));
  // Outside the quantized modes the option changes nothing.
  o.precision = Precision::fp16;
  const Lowering f16 = lower_network(net, o);
  CHECK(find(f16, "layers.attn.scores")->kernel.a_format == FormatId::fp16);
  CHECK(find(f16, "layers.attn.probs.quantize") == nullptr);
}

TEST_CASE("lowering: attention unfused and fused, grouped-query heads, KV cache") {
  const Lowering u = lower(kTinyDecoder, Precision::fp16, false, one_token_after(31), false);
  const LoweredKernel* scores = find(u, "layers.attn.scores");
  REQUIRE(scores);
  CHECK(scores->kernel.m == 1);       // one new token
  CHECK(scores->kernel.n == 32);      // past + new
  CHECK(scores->kernel.k == 8);
  CHECK(scores->kernel.batch == 2 * 8);
  CHECK(scores->kernel.count == 2);
  CHECK(find(u, "layers.attn.repeat_kv"));  // 2 KV heads expanded to 8
  REQUIRE(find(u, "layers.attn.softmax"));
  CHECK(find(u, "layers.attn.softmax")->kernel.memory.row_length == 32);
  // KV cache: keys and values of 32 tokens, 2 KV heads of 8, fp16, batch 2, 2 layers.
  CHECK(u.footprint.kv_cache == doctest::Approx(2.0 * 2 * 2 * 32 * 8 * 2 * 2));
  REQUIRE(find(u, "layers.attn.kv_cache_write"));
  // An encoder (bidirectional attention, `causal` off) keeps no cache: nothing written, none counted.
  std::string encoder = kTinyDecoder;
  encoder.replace(encoder.find(", causal: true"), std::string(", causal: true").size(), "");
  const Lowering e = lower(encoder.c_str(), Precision::fp16, false, {}, false);
  CHECK(find(e, "layers.attn.kv_cache_write") == nullptr);
  CHECK(e.footprint.kv_cache == 0);

  const Lowering f = lower(kTinyDecoder, Precision::fp16, true, {}, true);
  const LoweredKernel* fa = find(f, "layers.attn");
  REQUIRE(fa);
  CHECK(fa->kernel.kind == Kernel::Kind::attention);
  CHECK(fa->kernel.attention.heads == 8);
  CHECK(fa->kernel.attention.kv_heads == 2);
  CHECK(fa->kernel.attention.causal);
  CHECK(find(f, "layers.attn.backward"));
  CHECK(find(f, "layers.attn.scores") == nullptr);
  CHECK(find(f, "optimizer.adamw"));
  CHECK(f.footprint.optimizer == doctest::Approx(2 * f.footprint.gradients));
}

TEST_CASE("lowering: an attention layer's dropout drops the probabilities in training, unfused only") {
  // Hugging Face's eager attention (BERT's attention_probs_dropout_prob, GPT-2's attn_pdrop): nn.Dropout
  // on softmax's output, in its format, between the softmax and P·V; backward between them too.
  std::string with = kTinyDecoder;
  with.replace(with.find(", causal: true"), std::string(", causal: true").size(), ", causal: true, dropout: 0.1");
  const Lowering t = lower(with.c_str(), Precision::fp32, true);
  const LoweredKernel* d = find(t, "layers.attn.dropout");
  REQUIRE(d);
  const double n = 2.0 * 8 * 8 * 8;  // batch x heads x q x kv
  CHECK(d->kernel.memory.op == "dropout");
  CHECK(d->kernel.memory.elements == std::int64_t(n));
  CHECK(d->kernel.bytes_read == doctest::Approx(4 * n));
  CHECK(d->kernel.bytes_written == doctest::Approx(4 * n + n));  // the kept values and a 1-byte mask
  CHECK(d->kernel.count == 2);
  CHECK(d->phase == StepPhase::forward);
  const LoweredKernel* db = find(t, "layers.attn.dropout.backward");
  REQUIRE(db);
  CHECK(db->phase == StepPhase::backward);
  CHECK(db->kernel.bytes_read == doctest::Approx(4 * n + n));
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < t.kernels.size(); ++i)
      if (t.kernels[i].kernel.name == name) return int(i);
    return -1;
  };
  CHECK(at("layers.attn.softmax") < at("layers.attn.dropout"));
  CHECK(at("layers.attn.dropout") < at("layers.attn.context"));
  CHECK(at("layers.attn.context.grad_v") < at("layers.attn.dropout.backward"));
  CHECK(at("layers.attn.dropout.backward") < at("layers.attn.softmax.backward"));
  // Autograd keeps the dropped probabilities and the mask besides P: 5 bytes per score, 2 layers.
  const Lowering without = lower(kTinyDecoder, Precision::fp32, true);
  CHECK(find(without, "layers.attn.dropout") == nullptr);
  CHECK(t.footprint.activations - without.footprint.activations == doctest::Approx(2 * 5 * n));
  // Inference, and fused attention (its dropout is inside the kernel), launch none.
  CHECK(find(lower(with.c_str(), Precision::fp32, false), "layers.attn.dropout") == nullptr);
  CHECK(find(lower(with.c_str(), Precision::fp16, true, {}, true), "layers.attn.dropout") == nullptr);
  // A probability outside [0, 1) names the layer's field.
  std::string bad = kTinyDecoder;
  bad.replace(bad.find(", causal: true"), std::string(", causal: true").size(), ", causal: true, dropout: 1.0");
  try {
    (void)lower(bad.c_str(), Precision::fp32, true);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("dropout") != std::string::npos);
    CHECK(std::string(e.what()).find("[0, 1)") != std::string::npos);
  }
}

TEST_CASE("lowering: eager attention copies token-major heads for torch.matmul, at batch > 1 forward, always backward") {
  // BERT-style: q, k, v from linears ([tokens, heads x head_dim]); torch.matmul reshapes the permuted
  // views to [B·H, S, D], a copy each; the keys' copy transposes the innermost dim.
  const char* bert = R"(version: 1
kind: network
name: tiny-bert
task: tokens
defaults: {batch: 2, seq: 16}
constants: {hidden: 64, heads: 4}
layers:
  - {name: embed, kind: embedding, vocab: 100, dim: hidden}
  - {name: q, kind: linear, out_features: hidden}
  - {name: k, kind: linear, input: embed, out_features: hidden}
  - {name: v, kind: linear, input: embed, out_features: hidden}
  - {name: attn, kind: attention, inputs: [q, k, v], heads: heads, head_dim: hidden / heads}
)";
  const double n = 2.0 * 16 * 64;  // batch x seq x heads x head_dim
  const Lowering t = lower(bert, Precision::fp32, true);
  for (const char* which : {"q", "k", "v"}) {
    const LoweredKernel* f = find(t, std::string("attn.split_heads_") + which);
    const LoweredKernel* b = find(t, std::string("attn.split_heads_") + which + ".backward");
    REQUIRE(f);
    REQUIRE(b);
    CHECK(f->phase == StepPhase::forward);
    CHECK(b->phase == StepPhase::backward);
    CHECK(f->kernel.memory.op == "transpose");
    CHECK(f->kernel.bytes_read == doctest::Approx(4 * n));
    CHECK(f->kernel.bytes_written == doctest::Approx(4 * n));
  }
  CHECK(find(t, "attn.split_heads_k")->kernel.memory.lines_per_warp == doctest::Approx(33));  // 32 + 32 x 4 B / 128 B
  CHECK(find(t, "attn.split_heads_q")->kernel.memory.lines_per_warp == 0);
  // The padding mask is broadcast over the heads: the strided kernel, reading the scores and the mask.
  const LoweredKernel* mask = find(t, "attn.mask");
  REQUIRE(mask);
  CHECK(mask->kernel.memory.strided_dims == 3);
  CHECK(mask->kernel.bytes_read == doctest::Approx(4.0 * (2 * 4 * 16 * 16 + 2 * 16)));
  // One sample: the flattening is a view, no forward copy; the gradients are still copied back.
  NetworkVariables one;
  one.batch = 1;
  const Lowering b1 = lower(bert, Precision::fp32, true, one);
  CHECK(find(b1, "attn.split_heads_q") == nullptr);
  CHECK(count_named(b1, "attn.split_heads_") == 3);
  // A rotary decoder (kTinyDecoder with as many KV heads as heads): q and k come out of rope
  // contiguous, only v is copied; a decode step reads keys and values from the cache: no copy.
  std::string llama = kTinyDecoder;
  llama.replace(llama.find("kv_heads: 2"), std::string("kv_heads: 2").size(), "kv_heads: 8");
  llama.replace(llama.find("      - {name: attn"), 0,
                "      - {name: q_rope, kind: rope, input: q}\n      - {name: k_rope, kind: rope, input: k}\n");
  llama.replace(llama.find("inputs: [q, k, v]"), std::string("inputs: [q, k, v]").size(), "inputs: [q_rope, k_rope, v]");
  const Lowering r = lower(llama.c_str(), Precision::fp32, true);
  CHECK(find(r, "layers.attn.split_heads_q") == nullptr);
  CHECK(find(r, "layers.attn.split_heads_k") == nullptr);
  CHECK(find(r, "layers.attn.split_heads_v"));
  CHECK(count_named(lower(llama.c_str(), Precision::fp32, false, one_token_after(31)), "layers.attn.split_heads") == 0);
  // Grouped-query heads: repeat_kv's copy is already contiguous.
  CHECK(find(lower(kTinyDecoder, Precision::fp32, true), "layers.attn.split_heads_v") == nullptr);
}

TEST_CASE("lowering: under autocast the eager softmax reads the 16-bit scores and writes fp32, with no cast kernel") {
  // ATen's autocast runs softmax as fp32_set_opt_dtype: softmax(x, dtype=float).
  std::string enc = kTinyDecoder;
  enc.replace(enc.find(", causal: true"), std::string(", causal: true").size(), ", dropout: 0.1");
  const Lowering t = lower(enc.c_str(), Precision::amp_fp16, true);
  const double n = 2.0 * 8 * 8 * 8;  // batch x heads x q x kv
  CHECK(count_named(t, "layers.attn.softmax.cast") == 0);
  const LoweredKernel* sm = find(t, "layers.attn.softmax");
  REQUIRE(sm);
  CHECK(sm->kernel.bytes_read == doctest::Approx(2 * n));
  CHECK(sm->kernel.bytes_written == doctest::Approx(4 * n));
  const LoweredKernel* smb = find(t, "layers.attn.softmax.backward");
  REQUIRE(smb);
  CHECK(smb->kernel.bytes_read == doctest::Approx(2 * 4 * n));
  CHECK(smb->kernel.bytes_written == doctest::Approx(2 * n));
  // The fp32 probabilities (dropped in fp32) are cast to fp16 for P·V, and their gradient back.
  CHECK(find(t, "layers.attn.probs.cast"));
  CHECK(find(t, "layers.attn.probs.cast.backward"));
  // fp32 runs read and write fp32.
  const Lowering fp32 = lower(enc.c_str(), Precision::fp32, true);
  const LoweredKernel* s32 = find(fp32, "layers.attn.softmax");
  REQUIRE(s32);
  CHECK(s32->kernel.bytes_read == doctest::Approx(4 * n));
  // A softmax layer of its own: the same policy in PyTorch; TensorFlow's mixed precision casts it up.
  const std::string net = token_network(R"(
  - {name: embed, kind: embedding, vocab: 100, dim: 64}
  - {name: fc, kind: linear, out_features: 32}
  - {name: sm, kind: softmax})");
  const double m = 2.0 * 16 * 32;  // batch x seq x features
  LoweringOptions o = training_in(Precision::amp_fp16);
  const Lowering torch = lower_network(parse_network(net, "g.yaml"), o);
  const LoweredKernel* ts = find(torch, "sm");
  REQUIRE(ts);
  CHECK(count_named(torch, "sm.") == 1);  // sm.backward only
  CHECK(ts->kernel.bytes_read == doctest::Approx(2 * m));
  CHECK(ts->kernel.bytes_written == doctest::Approx(4 * m));
  CHECK(find(torch, "sm.backward")->kernel.bytes_written == doctest::Approx(2 * m));
  o.framework = Framework::tensorflow;
  const Lowering tf = lower_network(parse_network(net, "g.yaml"), o);
  REQUIRE(find(tf, "sm"));
  CHECK(count_named(tf, "sm.") > 1);  // its input cast up, and the gradient's cast back
  CHECK(find(tf, "sm")->kernel.bytes_read == doctest::Approx(4 * m));
}

TEST_CASE("lowering: the optimizer launches follow multi_tensor_apply's limits") {
  // Parameter tensors of the tiny CNN: conv1, three block convs (no biases), bn1's two, fc's two.
  const Lowering l = lower(kTinyCnn, Precision::fp32, true);
  const LoweredKernel* sgd = find(l, "optimizer.sgd");
  REQUIRE(sgd);
  CHECK(sgd->kernel.count == 1);  // few tensors, few elements: one launch
  CHECK(l.weight_tensors == 1 + 3 + 2 + 2);
}

TEST_CASE("lowering: BertAdam is a gradient norm read back to the host, then ten kernels per tensor, twelve with decay") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml", {});
  LoweringOptions o;
  o.training = true;
  o.bert_adam = true;
  const Lowering l = lower_network(net, o);
  CHECK_FALSE(find(l, "optimizer.sgd"));
  const LoweredKernel* norm = find(l, "optimizer.bert_adam.grad_norm");
  REQUIRE(norm);
  CHECK_FALSE(norm->host_sync);
  // Weights decay (conv1, the block's conv, fc.weight), biases and batch norm's scale and shift do not.
  CHECK(count_named(l, "optimizer.bert_adam.conv1.weight.") == 12);
  CHECK(count_named(l, "optimizer.bert_adam.block.conv.weight.") == 12);
  CHECK(count_named(l, "optimizer.bert_adam.bn1.") == 2 * 10);
  CHECK(count_named(l, "optimizer.bert_adam.fc.bias.") == 10);
  CHECK(count_named(l, "optimizer.bert_adam.") == 1 + 3 * 12 + 3 * 10);
  // The loop starts after the norm's .item(): its first kernel waits for the GPU, the others queue.
  int syncs = 0;
  for (const auto& k : l.kernels) syncs += k.host_sync ? 1 : 0;
  CHECK(syncs == 1);
  const LoweredKernel* first = find(l, "optimizer.bert_adam.conv1.weight.m.mul_");
  REQUIRE(first);
  CHECK(first->host_sync);
  const LoweredKernel* block = find(l, "optimizer.bert_adam.block.conv.weight.v.addcmul_");
  REQUIRE(block);
  CHECK(block->kernel.count == 3);  // once per copy of the repeated block
  CHECK(block->kernel.bytes_read == 3 * block->kernel.bytes_written);
}

TEST_CASE("lowering: fused epilogues fold conv + batch norm + relu at inference, keep the gradients in training") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml");
  LoweringOptions o;
  o.fuse_epilogues = true;
  const Lowering infer = lower_network(net, o);
  CHECK(find(infer, "conv1"));
  CHECK(find(infer, "bn1") == nullptr);
  CHECK(find(infer, "relu1") == nullptr);  // conv1 + bn1 + relu1 is one kernel
  o.training = true;
  const Lowering train = lower_network(net, o);
  CHECK(find(train, "bn1"));                // training batch norm needs its batch statistics
  CHECK(find(train, "relu1"));              // its producer is bn1, which is not folded
  const Lowering plain = lower(kTinyCnn, Precision::fp32, false);
  CHECK(find(plain, "bn1"));
  CHECK(find(plain, "relu1"));
}

TEST_CASE("lowering: fused epilogues take a residual add and its relu into the conv that computes an operand last") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml");
  LoweringOptions o;
  o.fuse_epilogues = true;
  const Lowering infer = lower_network(net, o);
  // block.add = conv + input: the block's conv reads the residual in its epilogue.
  CHECK(find(infer, "block.add") == nullptr);
  REQUIRE(find(infer, "block.conv"));
  CHECK(find(infer, "block.conv")->kernel.epilogue_inputs == 1);
  CHECK(find(infer, "conv1")->kernel.epilogue_inputs == 0);
  o.training = true;  // frameworks train with the add as its own kernel
  const Lowering train = lower_network(net, o);
  CHECK(find(train, "block.add"));
  CHECK(find(train, "block.conv")->kernel.epilogue_inputs == 0);

  // The operand computed last is read elsewhere too: the add keeps its own kernel, and so does the
  // relu after it. Operands of different sizes (a broadcast) do not fold either.
  const std::string shared = image_network("s", "[3, 8, 8]", "", R"(
  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: c2, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: add, kind: add, inputs: [c2, c1]}
  - {name: r, kind: relu}
  - {name: c3, kind: conv2d, input: c2, out_channels: 8, kernel: 1}
  - {name: res, kind: add, inputs: [c3, r]}
  - {name: r2, kind: relu}
)");
  o.training = false;
  const Lowering s = lower_network(parse_network(shared, "s.yaml"), o);
  CHECK(find(s, "add"));
  CHECK(find(s, "r"));
  CHECK(find(s, "c2")->kernel.epilogue_inputs == 0);
  CHECK(find(s, "res") == nullptr);  // c3 is res's only producer read once: it takes r
  CHECK(find(s, "r2") == nullptr);
  CHECK(find(s, "c3")->kernel.epilogue_inputs == 1);

  // Two adds in a row after one conv: its epilogue reads both other operands.
  const std::string chain = image_network("ch", "[3, 8, 8]", "", R"(
  - {name: a, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: b, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: c, kind: conv2d, out_channels: 8, kernel: 1}
  - {name: add1, kind: add, inputs: [a, c]}
  - {name: r1, kind: relu}
  - {name: add2, kind: add, inputs: [b, r1]}
)");
  const Lowering ch = lower_network(parse_network(chain, "ch.yaml"), o);
  CHECK(find(ch, "c")->kernel.epilogue_inputs == 2);
  CHECK(ch.kernels.size() == 3);  // the three convolutions

  // A transformer's residual: linear -> dropout (an identity at inference) -> add.
  const std::string bert = token_network(R"(
  - {name: embed, kind: embedding, vocab: 100, dim: 32}
  - {name: out, kind: linear, out_features: 32}
  - {name: drop, kind: dropout, probability: 0.1}
  - {name: add, kind: add, inputs: [drop, embed]}
  - {name: ln, kind: layer_norm}
)");
  const Lowering b = lower_network(parse_network(bert, "b.yaml"), o);
  CHECK(find(b, "add") == nullptr);
  CHECK(find(b, "out")->kernel.epilogue_inputs == 1);
  CHECK(find(b, "ln"));
}

TEST_CASE("lowering: concat is one copy forward and one of the gradient backward; its inputs' gradients accumulate") {
  const std::string dense = image_network("d", "[3, 8, 8]", "", R"(
  - {name: stem, kind: conv2d, out_channels: 16, kernel: 3, padding: 1}
  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: j1, kind: concat, inputs: [stem, c1]}
  - {name: c2, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: j2, kind: concat, inputs: [stem, c1, c2]}
)");
  LoweringOptions o = training_in(Precision::fp32);
  const Lowering l = lower_network(parse_network(dense, "d.yaml"), o);
  const LoweredKernel* j2 = find(l, "j2");
  REQUIRE(j2);
  const std::int64_t out = 2 * 32 * 8 * 8;  // batch 2, 16 + 8 + 8 channels of 8 x 8
  CHECK(j2->kernel.memory.op == "copy");
  CHECK(j2->kernel.bytes_read == 4 * out);
  CHECK(j2->kernel.bytes_written == 4 * out);
  CHECK(find(l, "j2.backward"));
  // stem feeds c1, j1 and j2: its gradient sums three contributions (two additions, one kernel
  // run twice).
  const LoweredKernel* acc = find(l, "stem.grad_accumulate");
  REQUIRE(acc);
  CHECK(acc->kernel.count == 2);
}

TEST_CASE("lowering: a broadcast mul (squeeze-and-excitation) is the strided kernel; its small operand's gradient a reduction") {
  const std::string se = image_network("se", "[3, 8, 8]", "", R"(
  - {name: conv, kind: conv2d, out_channels: 16, kernel: 3, padding: 1}
  - {name: sq, kind: global_avg_pool}
  - {name: fc, kind: linear, out_features: 16}
  - {name: gate, kind: sigmoid}
  - {name: g3, kind: reshape, shape: [16, 1, 1]}
  - {name: scale, kind: mul, inputs: [conv, g3]}
)");
  LoweringOptions o = training_in(Precision::fp32);
  const Network net = parse_network(se, "se.yaml");
  const Lowering l = lower_network(net, o);
  const LoweredKernel* f = find(l, "scale");
  REQUIRE(f);
  const std::int64_t out = 2 * 16 * 8 * 8;
  CHECK(f->kernel.memory.strided_dims == 2);  // [N * C] x [H * W], the gate broadcast over the second
  CHECK(f->kernel.bytes_read == 4 * (out + 2 * 16));
  const LoweredKernel* r = find(l, "scale.backward_reduce");
  REQUIRE(r);
  CHECK(r->kernel.memory.op == "reduce");
  CHECK(r->kernel.memory.elements == 2 * 16);
  CHECK(r->kernel.memory.row_length == 64);
  CHECK(find(l, "scale.backward_a")->kernel.memory.strided_dims == 2);
  o.conv_layout = TensorLayout::nhwc;  // [N, H, W, C]: the gate varies along C only
  const Lowering cl = lower_network(net, o);
  CHECK(find(cl, "scale")->kernel.memory.strided_dims == 3);
  CHECK(find(cl, "scale.backward_reduce")->kernel.memory.op == "reduce_columns");
}

TEST_CASE("lowering: parameter layers (ViT's class token and position embedding) are read once and broadcast over the batch") {
  const std::string vit = image_network("v", "[3, 32, 32]", "", R"(
  - {name: patch, kind: conv2d, out_channels: 8, kernel: 8, stride: 8}
  - {name: r, kind: reshape, shape: [16, 8]}
  - {name: cls, kind: parameter, shape: [1, 8]}
  - {name: t, kind: concat, inputs: [cls, r]}
  - {name: pos, kind: parameter, shape: [17, 8]}
  - {name: e, kind: add, inputs: [t, pos]}
  - {name: n, kind: layer_norm}
)");
  const Network net = parse_network(vit, "v.yaml");
  LoweringOptions o = fp32_training();
  const Lowering l = lower_network(net, o);
  for (const auto& k : l.kernels) CHECK_MESSAGE(k.layer != 2, k.kernel.name);  // cls itself runs nothing
  const std::int64_t out = 2 * 17 * 8;  // batch 2
  const LoweredKernel* t = find(l, "t");
  REQUIRE(t);
  CHECK(t->kernel.bytes_read == 4 * (8 + 2 * 16 * 8));  // the class token once, the patches per sample
  const LoweredKernel* e = find(l, "e");
  REQUIRE(e);
  CHECK(e->kernel.memory.strided_dims == 2);  // broadcast over the batch
  CHECK(e->kernel.bytes_read == 4 * (out + 17 * 8));
  CHECK(e->kernel.bytes_written == 4 * out);
  const LoweredKernel* r = find(l, "e.backward_reduce");  // the position embedding's gradient: a sum over the batch
  REQUIRE(r);
  CHECK(r->kernel.memory.op == "reduce_columns");
  CHECK(r->kernel.memory.elements == 17 * 8);
  CHECK(r->kernel.memory.row_length == 2);
  // Weights, gradients and Adam's state count the parameters like any weight.
  o.training = false;
  const double fp32_weights = lower_network(net, o).footprint.weights;
  CHECK(fp32_weights == doctest::Approx(4.0 * double(net.params())));
  // Autocast keeps parameters in fp32: the sum with the 16-bit tokens promotes to fp32.
  o.precision = Precision::amp_fp16;
  const Lowering amp = lower_network(net, o);
  CHECK(find(amp, "e")->kernel.bytes_written == 4 * out);
  // At batch 1 nothing is broadcast: a plain add.
  NetworkVariables batch1;
  batch1.batch = 1;
  const Lowering one = lower_network(parse_network(vit, "v.yaml", batch1), fp32_training());
  CHECK(find(one, "e")->kernel.memory.strided_dims == 0);
}

TEST_CASE("lowering: fp8 training runs linears as Transformer Engine does, the rest as amp-bf16") {
  const std::string net_text = token_network(R"(
  - {name: emb, kind: embedding, vocab: 1000, dim: 64}
  - {name: ln, kind: layer_norm}
  - {name: fc, kind: linear, out_features: 128}
  - {name: act, kind: gelu}
  - {name: proj, kind: linear, out_features: 64, bias: false}
  - {name: head, kind: linear, out_features: 1001}
  - {name: loss, kind: cross_entropy, train_only: true}
)");
  const Network net = parse_network(net_text, "g.yaml");
  LoweringOptions o = training_in(Precision::fp8);
  const Lowering l = lower_network(net, o);
  const std::int64_t rows = 2 * 16;
  // The input (fp32: autocast keeps layer norms in fp32) cast to e4m3 twice over, as it is and transposed.
  const LoweredKernel* ct = find(l, "fc.cast_transpose");
  REQUIRE(ct);
  CHECK(ct->kernel.bytes_read == 4 * rows * 64);
  CHECK(ct->kernel.bytes_written == 2 * rows * 64);
  const LoweredKernel* cw = find(l, "fc.cast_transpose_w");  // the fp32 master, once per step
  REQUIRE(cw);
  CHECK(cw->kernel.memory.cold);
  CHECK(cw->kernel.bytes_read == 4 * 64 * 128);
  CHECK(cw->kernel.bytes_written == 2 * 64 * 128);
  const LoweredKernel* f = find(l, "fc");
  REQUIRE(f);
  CHECK(f->kernel.a_format == FormatId::e4m3);
  CHECK(f->kernel.b_format == FormatId::e4m3);
  CHECK(f->kernel.d_format == FormatId::bf16);
  const LoweredKernel* dg = find(l, "fc.dgrad");
  REQUIRE(dg);
  CHECK(dg->kernel.a_format == FormatId::e5m2);
  CHECK(dg->kernel.b_format == FormatId::e4m3);
  CHECK(dg->kernel.d_format == FormatId::bf16);
  const LoweredKernel* wg = find(l, "fc.wgrad");
  REQUIRE(wg);
  CHECK(wg->kernel.a_format == FormatId::e5m2);
  CHECK(wg->kernel.d_format == FormatId::fp32);  // into the fp32 master gradient: no cast back
  CHECK(find(l, "fc.cast_transpose_dbias"));     // dY to e5m2 with the bias gradient fused
  CHECK_FALSE(find(l, "fc.bias_grad"));
  CHECK_FALSE(find(l, "fc.cast_w"));
  CHECK(find(l, "fc.cast_in.backward"));  // dX back to the layer norm's fp32
  CHECK(find(l, "proj.grad_cast_transpose"));  // no bias
  CHECK_FALSE(find(l, "proj.cast_in.backward"));  // GELU's output is bf16 already
  // 1001 outputs: not a size TE's fp8 GEMMs take, so the head stays an autocast bf16 linear.
  const LoweredKernel* head = find(l, "head");
  REQUIRE(head);
  CHECK(head->kernel.a_format == FormatId::bf16);
  CHECK(find(l, "head.cast_w"));
  CHECK_FALSE(find(l, "head.cast_transpose"));
  REQUIRE(l.notes.size() == 1);  // and says so, with the size that would put it on the fp8 path
  CHECK(l.notes[0] == "layer 'head' runs in bf16, not fp8: Transformer Engine's fp8 GEMMs take weights of rows a multiple "
                      "of 8 and columns of 16, inputs of rows a multiple of 8; fix: out_features 1001 -> 1008");
  // Delayed scaling: one amax-history update after each pass, over the fp8 tensors of fc and proj.
  const LoweredKernel* fwd = find(l, "fp8.amax_and_scale_update.forward");
  const LoweredKernel* bwd = find(l, "fp8.amax_and_scale_update.backward");
  REQUIRE(fwd);
  REQUIRE(bwd);
  CHECK(fwd->phase == StepPhase::optimizer);
  CHECK(fwd->kernel.memory.elements == 2 * 2 * 1024);
  CHECK(bwd->kernel.memory.elements == 2 * 1 * 1024);
  // The rest is amp-bf16's: the same kernels for the layer norm and the loss, fp32 master weights.
  LoweringOptions bf = o;
  bf.precision = Precision::amp_bf16;
  const Lowering amp = lower_network(net, bf);
  for (const char* name : {"ln", "ln.backward", "act", "loss.log_softmax"}) {
    REQUIRE(find(amp, name));
    REQUIRE(find(l, name));
    CHECK(find(amp, name)->kernel.bytes_read == find(l, name)->kernel.bytes_read);
  }
  CHECK(l.footprint.master == amp.footprint.master);
  // fp8 is still an inference mode without training: quantized GEMM inputs, no TE kernels.
  o.training = false;
  const Lowering infer = lower_network(net, o);
  CHECK(find(infer, "fc.quantize_in"));
  CHECK_FALSE(find(infer, "fc.cast_transpose"));
}

TEST_CASE("lowering: quantized modes with fused epilogues quantize in the producing conv's epilogue") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml");
  LoweringOptions o;
  o.precision = Precision::int8;
  const Lowering eager = lower_network(net, o);
  CHECK(count_named(eager, "block.conv.quantize_in") == 1);
  CHECK(find(eager, "conv1.quantize_in"));
  o.fuse_epilogues = true;
  const Lowering engine = lower_network(net, o);
  // conv1 + bn1 + relu1 and each block's conv + add write int8 for the next conv; the images are
  // quantized by a kernel of their own, and so is the pooled input of the classifier.
  CHECK(find(engine, "block.conv.quantize_in") == nullptr);
  CHECK(find(engine, "conv1.quantize_in"));
  CHECK(find(engine, "fc.quantize_in"));
}

TEST_CASE("lowering: Hugging Face's gelu_new (form: tanh_eager) is eight eager kernels forward and eleven backward") {
  const std::string text = token_network(R"(
  - {name: embed, kind: embedding, vocab: 100, dim: 32}
  - {name: fc, kind: linear, out_features: 64}
  - {name: g, kind: gelu, form: tanh_eager}
  - {name: h, kind: gelu}
  - {name: loss, kind: cross_entropy, train_only: true}
)");
  const Network net = parse_network(text, "g.yaml");
  CHECK(net.layers[2].gelu_form == GeluForm::tanh_eager);
  CHECK(net.layers[3].gelu_form == GeluForm::erf);
  LoweringOptions opt = training_in(Precision::fp32);
  const Lowering step = lower_network(net, opt);
  int fwd = 0, bwd = 0, erf = 0;
  double read = 0, written = 0;
  const double n = 2 * 16 * 64;  // elements of the activation
  for (const auto& s : step.kernels) {
    const std::string& name = s.kernel.name;
    if (name.rfind("h", 0) == 0 && name.find("h.backward") == std::string::npos && s.phase == StepPhase::forward) ++erf;
    if (name.rfind("g.", 0) != 0) continue;
    (s.phase == StepPhase::forward ? fwd : bwd) += 1;
    read += double(s.kernel.bytes_read) / 4, written += double(s.kernel.bytes_written) / 4;
  }
  CHECK(fwd == 8);
  CHECK(bwd == 11);
  CHECK(erf == 1);  // torch.nn.GELU: one kernel
  CHECK(read == doctest::Approx((10 + 17) * n));  // every op's operands, once per kernel
  CHECK(written == doctest::Approx((8 + 11) * n));
}

TEST_CASE("lowering: Hugging Face's rotary embedding (form: eager) is five kernels forward and nine backward") {
  const std::string text = token_network(R"(
  - {name: embed, kind: embedding, vocab: 100, dim: 32}
  - {name: q, kind: linear, out_features: 64}
  - {name: r, kind: rope, form: eager}
  - {name: f, kind: rope, input: q}
  - {name: loss, kind: cross_entropy, train_only: true}
)");
  const Network net = parse_network(text, "r.yaml");
  CHECK(net.layers[2].rope_form == RopeForm::eager);
  CHECK(net.layers[3].rope_form == RopeForm::fused);
  const Lowering step = lower_network(net, training_in(Precision::fp32));
  int fwd = 0, bwd = 0, fused = 0;
  double read[2] = {0, 0}, written[2] = {0, 0};  // forward, backward
  const double n = 2 * 16 * 64;                  // elements of q
  for (const auto& s : step.kernels) {
    const std::string& name = s.kernel.name;
    if (name.rfind("f", 0) == 0 && s.phase == StepPhase::forward) ++fused;
    if (name.rfind("r.", 0) != 0) continue;
    const int b = s.phase == StepPhase::forward ? 0 : 1;
    (b == 0 ? fwd : bwd) += 1;
    read[b] += double(s.kernel.bytes_read) / 4, written[b] += double(s.kernel.bytes_written) / 4;
  }
  CHECK(fwd == 5);  // neg (of a half), cat, x * cos, rotate_half(x) * sin, add
  CHECK(bwd == 9);  // the two products', neg's, each slice's zeros and copy, two gradient sums
  CHECK(fused == 1);
  // x's elements (the cos and sin tables are not counted): neg's half, cat's, the products', the add's two.
  CHECK(read[0] == doctest::Approx((0.5 + 1 + 1 + 1 + 2) * n));
  CHECK(written[0] == doctest::Approx((0.5 + 1 + 1 + 1 + 1) * n));
  CHECK(read[1] == doctest::Approx((1 + 1 + 0.5 + 2 * 0.5 + 2 + 2) * n));
  CHECK(written[1] == doctest::Approx((1 + 1 + 0.5 + 2 * (1 + 0.5) + 1 + 1) * n));
}

TEST_CASE("lowering: under autocast gelu_new is fp32 from torch.pow on, and a residual add of two formats casts") {
  // The H200 GPT-2 AMP trace's ops (validation/measured/H200/networks): pow is on autocast's fp32
  // list, so x is cast up, type promotion keeps fp32 to the output, and the next linear casts down.
  const std::string text = token_network(R"(
  - {name: embed, kind: embedding, vocab: 100, dim: 64}
  - {name: fc, kind: linear, out_features: 64}
  - {name: g, kind: gelu, form: tanh_eager}
  - {name: proj, kind: linear, out_features: 64}
  - {name: res, kind: add, inputs: [proj, embed]}
  - {name: loss, kind: cross_entropy, train_only: true}
)");
  const Network net = parse_network(text, "g.yaml");
  LoweringOptions opt = training_in(Precision::amp_bf16);
  const Lowering step = lower_network(net, opt);
  const double n = 2 * 16 * 64;
  std::vector<std::string> forward, backward;
  double fp32_written = 0;
  for (const auto& s : step.kernels) {
    const std::string& name = s.kernel.name;
    if (name.rfind("g.", 0) != 0) continue;
    (s.phase == StepPhase::forward ? forward : backward).push_back(name.substr(2));
    if (s.phase == StepPhase::forward && s.kernel.d_format == FormatId::fp32) fp32_written += double(s.kernel.bytes_written);
  }
  const std::vector<std::string> want_forward = {"mul", "pow.cast_in", "pow", "mul_1", "add", "mul_2", "tanh", "add_1", "mul_3"};
  CHECK(forward == want_forward);
  CHECK(backward.size() == 15);
  // pow's cast and the seven ops after it write fp32
  CHECK(fp32_written == doctest::Approx(8 * 4 * n));
  const LoweredKernel* mixed = find(step, "g.add");
  REQUIRE(mixed);
  CHECK(mixed->kernel.memory.cast);
  CHECK(double(mixed->kernel.bytes_read) == doctest::Approx((2 + 4) * n));  // x in bf16, x^3 scaled in fp32
  // The GELU's fp32 output is cast down for the next linear, and back up for its gradient.
  REQUIRE(find(step, "proj.cast_in"));
  REQUIRE(find(step, "proj.cast_in.backward"));
  // The embedding's fp32 output plus the bf16 projection: the unrolled casting add, and the
  // projection's gradient cast down.
  const LoweredKernel* res = find(step, "res");
  REQUIRE(res);
  CHECK(res->kernel.memory.cast);
  CHECK(res->kernel.d_format == FormatId::fp32);
  CHECK(double(res->kernel.bytes_read) == doctest::Approx((2 + 4) * n));
  REQUIRE(find(step, "res.backward_cast"));
  CHECK(find(step, "res.backward_cast")->kernel.d_format == FormatId::bf16);
  // Without autocast nothing changes: eight and eleven kernels, no casts.
  opt.precision = Precision::fp32;
  const Lowering fp32 = lower_network(net, opt);
  CHECK_FALSE(find(fp32, "g.pow.cast_in"));
  CHECK_FALSE(find(fp32, "res.backward_cast"));
  CHECK_FALSE(find(fp32, "res")->kernel.memory.cast);
}

TEST_CASE("lowering: channels-first training batch norm runs cuDNN's per-channel kernels; channels-last or other frameworks do not") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml", {});
  LoweringOptions o = fp32_training();
  const Lowering nchw = lower_network(net, o);
  REQUIRE(find(nchw, "bn1"));
  CHECK(find(nchw, "bn1")->kernel.memory.op == "batch_norm_nchw");
  REQUIRE(find(nchw, "bn1.backward"));
  CHECK(find(nchw, "bn1.backward")->kernel.memory.op == "batch_norm_nchw_backward");
  // row_length: one channel's elements (the CTA's stream)
  const std::int64_t channels = find(nchw, "bn1")->kernel.memory.elements / find(nchw, "bn1")->kernel.memory.row_length;
  CHECK(channels > 1);
  o.conv_layout = TensorLayout::nhwc;  // channels-last: cuDNN's persistent kernels, x read once
  const Lowering nhwc = lower_network(net, o);
  CHECK(find(nhwc, "bn1")->kernel.memory.op == "batch_norm_nhwc");
  CHECK(find(nhwc, "bn1.backward")->kernel.memory.op == "batch_norm_nhwc_backward");
  CHECK(find(nhwc, "bn1")->kernel.bytes_read * 2 == find(nchw, "bn1")->kernel.bytes_read);
  o.framework = Framework::mxnet;  // MXNet's channels-last batch norms: NGC's element-parallel kernels
  CHECK(find(lower_network(net, o), "bn1")->kernel.memory.op == "batch_norm");
  o.conv_layout = TensorLayout::nchw;  // its channels-first BatchNorm calls cuDNN, as PyTorch's does
  const Lowering mxnet_nchw = lower_network(net, o);
  CHECK(find(mxnet_nchw, "bn1")->kernel.memory.op == "batch_norm_nchw");
  CHECK(find(mxnet_nchw, "bn1.backward")->kernel.memory.op == "batch_norm_nchw_backward");
  CHECK(find(mxnet_nchw, "bn1")->kernel.bytes_read == find(nchw, "bn1")->kernel.bytes_read);
  o.framework = Framework::tensorflow;  // XLA's fusions: element-parallel
  CHECK(find(lower_network(net, o), "bn1")->kernel.memory.op == "batch_norm");
  CHECK(find(lower_network(net, o), "bn1.backward")->kernel.memory.op == "batch_norm");
  o.framework = Framework::pytorch;
  o.training = false;  // inference: one pass with the running statistics
  const Lowering infer = lower_network(net, o);
  const LoweredKernel* bn_infer = find(infer, "bn1");
  REQUIRE(bn_infer);
  CHECK(bn_infer->kernel.memory.op == "batch_norm");
  o.conv_layout = TensorLayout::nhwc;  // channels-last inference: cuDNN's per-image kernel
  const Lowering infer_nhwc = lower_network(net, o);
  const LoweredKernel* bn_nhwc = find(infer_nhwc, "bn1");
  REQUIRE(bn_nhwc);
  CHECK(bn_nhwc->kernel.memory.op == "batch_norm_inference_nhwc");
  CHECK(bn_nhwc->kernel.memory.row_length * net.batch == bn_nhwc->kernel.memory.elements);  // one image's elements
  CHECK(bn_nhwc->kernel.bytes_read == bn_infer->kernel.bytes_read);
}

TEST_CASE("lowering: MXNet's fused batch norms take in a ReLU, or a residual add and its ReLU, forward and backward") {
  // bn1 -> relu1 (BatchNorm with act_type relu); bn2 + relu1 -> relu2 (BatchNormAddRelu); bn3 is read
  // twice (relu3 and tap), so it stays apart.
  const Network net = parse_network(image_network("block", "[8, 8, 8]", "optimizer: sgd\n", R"(
  - {name: conv1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: bn1, kind: batch_norm}
  - {name: relu1, kind: relu}
  - {name: conv2, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: bn2, kind: batch_norm}
  - {name: add, kind: add, inputs: [bn2, relu1]}
  - {name: relu2, kind: relu}
  - {name: conv3, kind: conv2d, out_channels: 8, kernel: 1}
  - {name: bn3, kind: batch_norm}
  - {name: relu3, kind: relu}
  - {name: tap, kind: add, inputs: [relu3, bn3]}
  - {name: pool, kind: global_avg_pool}
  - {name: fc, kind: linear, out_features: 10}
  - {name: loss, kind: cross_entropy, train_only: true}
)"),
                                    "block.yaml");
  LoweringOptions o = fp32_training();
  o.framework = Framework::tensorflow;  // element-parallel batch norms
  const Lowering plain = lower_network(net, o);
  o.fuse_batch_norm_relu = true;
  const Lowering fused = lower_network(net, o);
  for (const char* gone : {"relu1", "relu1.backward", "add", "relu2", "relu2.backward"}) {
    CHECK(find(plain, gone));
    CHECK_MESSAGE(find(fused, gone) == nullptr, gone);
  }
  for (const char* kept : {"relu3", "relu3.backward", "tap", "relu1.grad_accumulate"}) CHECK_MESSAGE(find(fused, kept), kept);
  const double n = 2 * 8 * 8 * 8;  // elements of each activation
  auto bytes = [](const Lowering& l, const char* name) {
    const LoweredKernel* k = find(l, name);
    REQUIRE(k);
    return std::pair{k->kernel.bytes_read, k->kernel.bytes_written};
  };
  // A ReLU alone costs no traffic: its backward recomputes the mask from x.
  CHECK(bytes(fused, "bn1") == bytes(plain, "bn1"));
  CHECK(bytes(fused, "bn1.backward") == bytes(plain, "bn1.backward"));
  // The add: the residual read, a one-bit ReLU mask written, the residual's gradient written back.
  CHECK(bytes(fused, "bn2").first == doctest::Approx(bytes(plain, "bn2").first + 4 * n));
  CHECK(bytes(fused, "bn2").second == doctest::Approx(bytes(plain, "bn2").second + n / 8));
  CHECK(bytes(fused, "bn2.backward").first == doctest::Approx(bytes(plain, "bn2.backward").first + n / 8));
  CHECK(bytes(fused, "bn2.backward").second == doctest::Approx(bytes(plain, "bn2.backward").second + 4 * n));
  CHECK(bytes(fused, "bn3") == bytes(plain, "bn3"));
  // The fused kernels write what the ReLUs wrote (the next convolutions keep it) and keep the mask.
  CHECK(fused.footprint.activations == doctest::Approx(plain.footprint.activations + n / 8));
  CHECK(std::any_of(fused.notes.begin(), fused.notes.end(), [](const std::string& s) {
    return s.find("3 ReLU and residual-add layers run inside the batch-norm kernels") != std::string::npos;
  }));
}

TEST_CASE("lowering: PyTorch's training batch norm counts its batches with an op of its own") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml", {});
  LoweringOptions o = fp32_training();
  const Lowering train = lower_network(net, o);
  const LoweredKernel* counter = find(train, "bn1.num_batches_tracked");
  REQUIRE(counter);
  CHECK(counter->phase == StepPhase::forward);
  CHECK(counter->kernel.memory.elements == 1);  // one int64, read and written
  CHECK(counter->kernel.bytes_read == 8);
  CHECK(counter->kernel.bytes_written == 8);
  for (Framework f : {Framework::mxnet, Framework::tensorflow}) {  // other frameworks keep no such counter
    o.framework = f;
    CHECK_FALSE(find(lower_network(net, o), "bn1.num_batches_tracked"));
  }
  o.framework = Framework::pytorch;
  o.training = false;  // inference does not count
  CHECK_FALSE(find(lower_network(net, o), "bn1.num_batches_tracked"));
}

TEST_CASE("lowering: a layer's parameters and a repeat block's copies are held below 2^48 elements") {
  auto error_of = [](const std::string& yaml) -> std::string {
    try {
      (void)lower(yaml.c_str(), Precision::fp32, true);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string head = "version: 1\nkind: network\nname: t\ntask: tokens\ndefaults: {batch: 1, seq: 1}\nlayers:\n";
  // 2^33 x 2^33 embedding weights: each dimension is fine, their product overflows int64.
  const std::string huge_table = error_of(head + "  - {name: w, kind: embedding, vocab: 8589934592, dim: 8589934592}\n");
  CHECK(huge_table.find("tiny.yaml:7: layer 'w': its parameters would number more than 2^48") != std::string::npos);
  // A block of 4096 x 4096 linears is fine 1000 times, not 10^13 times.
  const std::string block = head +
                            "  - {name: w, kind: embedding, vocab: 100, dim: 4096}\n"
                            "  - repeat: COPIES\n    name: l\n"
                            "    layers:\n      - {name: fc, kind: linear, out_features: 4096}\n";
  auto with = [&](const char* copies) {
    std::string y = block;
    return y.replace(y.find("COPIES"), 6, copies);
  };
  CHECK(error_of(with("1000")).empty());
  const std::string many = error_of(with("10000000000000"));
  CHECK(many.find("tiny.yaml:11: layer 'l.fc': its 10000000000000 copies (repeat) would hold more than 2^48") !=
        std::string::npos);
}

TEST_CASE("lowering: PyTorch's max pooling carries its window and format, and its backward zeroes the input gradient") {
  const Network net = parse_network(image_network("stem", "[3, 32, 32]", "", R"(
  - {name: conv1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}
  - {name: maxpool, kind: max_pool, kernel: 3, stride: 2, padding: 1}
  - {name: fc, kind: linear, out_features: 10}
)"),
                                    "stem.yaml", {});
  LoweringOptions o = training_in(Precision::fp32);
  o.conv_layout = TensorLayout::nhwc;
  const Lowering step = lower_network(net, o);
  const LoweredKernel* f = find(step, "maxpool");
  const LoweredKernel* zero = find(step, "maxpool.backward_zero");
  const LoweredKernel* b = find(step, "maxpool.backward");
  REQUIRE(f);
  REQUIRE(zero);
  REQUIRE(b);
  PoolShape want;
  want.n = 2, want.c = 8, want.h = want.w = 32, want.p = want.q = 16;
  want.kernel_h = want.kernel_w = 3, want.stride_h = want.stride_w = 2, want.pad_h = want.pad_w = 1;
  want.channels_last = true;
  CHECK(f->kernel.memory.pool == want);
  want.backward = true;
  CHECK(b->kernel.memory.pool == want);
  CHECK(zero->kernel.memory.op == "fill");
  CHECK(zero->kernel.bytes_written == 2 * 8 * 32 * 32 * 4);
  // The zero fill comes before the kernel that adds each output's gradient at its argmax.
  std::size_t at_zero = 0, at_backward = 0;
  for (std::size_t i = 0; i < step.kernels.size(); ++i) {
    if (step.kernels[i].kernel.name == "maxpool.backward_zero") at_zero = i;
    if (step.kernels[i].kernel.name == "maxpool.backward") at_backward = i;
  }
  CHECK(at_zero + 1 == at_backward);
  o.framework = Framework::mxnet;  // another framework's pooling: the generic kernel, no fill
  const Lowering other = lower_network(net, o);
  CHECK(find(other, "maxpool")->kernel.memory.pool.n == 0);
  CHECK(find(other, "maxpool.backward_zero") == nullptr);
}

TEST_CASE("lowering: Hugging Face's DynamicCache copies the whole cache with torch.cat, keys and values, every step") {
  const Network net = parse_network(kTinyDecoder, "tiny.yaml", one_token_after(31));
  LoweringOptions o;
  o.precision = Precision::fp16;
  o.kv_cache_concat = true;
  const Lowering d = lower_network(net, o);
  // One new token: a contiguous append, ATen's vectorized cat (a copy) of the 32-token cache, twice.
  const LoweredKernel* k = find(d, "layers.attn.kv_cache_cat_k");
  REQUIRE(k);
  REQUIRE(find(d, "layers.attn.kv_cache_cat_v"));
  CHECK(find(d, "layers.attn.kv_cache_write") == nullptr);
  CHECK(k->kernel.memory.op == "copy");
  CHECK(k->kernel.memory.elements == 2 * 2 * 32 * 8);  // batch x KV heads x (past + new) x head_dim
  CHECK(k->kernel.bytes_read == 2 * 2 * 32 * 8 * 2);
  CHECK(k->kernel.count == 2);
  // The cache's footprint is the same either way.
  o.kv_cache_concat = false;
  const Lowering s = lower_network(net, o);
  CHECK(d.footprint.kv_cache == doctest::Approx(s.footprint.kv_cache));
  CHECK(find(s, "layers.attn.kv_cache_write"));
  // Several new tokens (prefill; training with use_cache): the projection's transposed view, the
  // general per-element kernel.
  const Network prefill = parse_network(kTinyDecoder, "tiny.yaml", {});
  o.kv_cache_concat = true;
  CHECK(find(lower_network(prefill, o), "layers.attn.kv_cache_cat_v")->kernel.memory.op == "cat");
  // A cache cropped back after each step (DynamicCache.crop: a view of the longer tensor) sends even
  // one token's append down the general kernel, the same bytes.
  o.kv_cache_cropped = true;
  const Lowering cropped = lower_network(net, o);
  const LoweredKernel* c = find(cropped, "layers.attn.kv_cache_cat_k");
  REQUIRE(c);
  CHECK(c->kernel.memory.op == "cat");
  CHECK(find(cropped, "layers.attn.kv_cache_cat_v")->kernel.memory.op == "cat");
  CHECK(c->kernel.memory.elements == k->kernel.memory.elements);
  CHECK(c->kernel.bytes_read == k->kernel.bytes_read);
  CHECK(c->kernel.bytes_written == k->kernel.bytes_written);
  o.kv_cache_cropped = false;
  o.training = true;
  const Lowering t = lower_network(prefill, o);
  REQUIRE(find(t, "layers.attn.kv_cache_cat_k"));
  CHECK(t.footprint.kv_cache == 0);  // training keeps no cache beyond the step
}

TEST_CASE("lowering: run_squad.py's gradient clipper reads the norm back, then scales every gradient; BertAdam zeroes per tensor") {
  const Network net = parse_network(kTinyCnn, "tiny.yaml", {});
  const double params = double(net.params());
  LoweringOptions o;
  o.training = true;
  o.bert_adam = true;
  const Lowering plain = lower_network(net, o);
  CHECK_FALSE(find(plain, "grad_clipper.l2norm"));
  // PyTorch 1.x zero_grad without foreach: one zero_ per fp32 gradient tensor, after the step.
  CHECK(count_named(plain, "optimizer.zero_grad.") == 6);
  CHECK(plain.kernels.back().kernel.name.rfind("optimizer.zero_grad.", 0) == 0);
  o.clip_grad_norm = true;
  const Lowering clipped = lower_network(net, o);
  std::vector<const LoweredKernel*> opt;
  for (const auto& k : clipped.kernels)
    if (k.phase == StepPhase::optimizer) opt.push_back(&k);
  REQUIRE(opt.size() >= 3);
  CHECK(opt[0]->kernel.name == "grad_clipper.l2norm");
  CHECK_FALSE(opt[0]->host_sync);
  CHECK(opt[1]->kernel.name == "grad_clipper.scale");
  CHECK(opt[1]->host_sync);  // after total_norm.item()
  CHECK(double(opt[1]->kernel.bytes_read) * double(opt[1]->kernel.count) == doctest::Approx(4 * params).epsilon(0.01));
  CHECK(double(opt[1]->kernel.bytes_written) * double(opt[1]->kernel.count) == doctest::Approx(4 * params).epsilon(0.01));
  CHECK(opt[2]->kernel.name == "optimizer.bert_adam.grad_norm");
  int syncs = 0;
  for (const auto& k : clipped.kernels) syncs += k.host_sync ? 1 : 0;
  CHECK(syncs == 2);  // the clipper's norm, then BertAdam's own
  CHECK(clipped.kernels.size() == plain.kernels.size() + 2);
  // Under apex O2 it clips the fp32 master gradients, after the overflow check's .item().
  LoweringOptions h = training_in(Precision::fp16);
  h.fp32_master = true;
  h.clip_grad_norm = true;
  const Lowering o2 = lower_network(net, h);
  REQUIRE(find(o2, "grad_clipper.l2norm"));
  CHECK(find(o2, "grad_clipper.l2norm")->host_sync);
  CHECK(double(find(o2, "grad_clipper.l2norm")->kernel.bytes_read) * double(find(o2, "grad_clipper.l2norm")->kernel.count) ==
        doctest::Approx(4 * params).epsilon(0.01));
  CHECK(find(o2, "grad_clipper.scale")->host_sync);
  CHECK_FALSE(find(o2, "optimizer.sgd")->host_sync);
}
