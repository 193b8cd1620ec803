// The network file format (models/README.md): variables and expressions, references, repeat
// blocks, shape inference, and an InputError naming file:line, the layer and the field for every
// class of bad input.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "common/error.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {

// An image network over [3, 32, 32] whose layers start on line 7 (one per line).
std::string image_net(const std::string& layers, const std::string& extra = "") {
  return "version: 1\nkind: network\nname: t\ntask: image\ninput: [3, 32, 32]\n" + extra + "layers:\n" + layers;
}
// A token network (seq default 16, constants hidden 64 and heads 4) whose layers start on line 8.
std::string token_net(const std::string& layers) {
  return "version: 1\nkind: network\nname: t\ntask: tokens\ndefaults: {batch: 2, seq: 16}\n"
         "constants: {hidden: 64, heads: 4}\nlayers:\n" + layers;
}

// "where: what" of the InputError parsing `text` throws, or "" when it parses.
std::string error_of(const std::string& text, const NetworkVariables& vars = {}) {
  try {
    parse_network(text, "n.yaml", vars);
  } catch (const InputError& e) {
    return e.where() + ": " + e.detail();
  }
  return "";
}

const Layer& find(const Network& net, const std::string& name) {
  for (const auto& l : net.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  return net.layers.front();
}

const std::string kConv = "  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}\n";

}  // namespace

TEST_CASE("network format: conv, pooling and linear shapes and counts") {
  const Network net = parse_network(
      image_net(kConv +
                "  - {name: c2, kind: conv2d, out_channels: 16, kernel: [3, 5], stride: 2, padding: [0, 2], dilation: 1, groups: 8, bias: true}\n"
                "  - {name: p, kind: avg_pool, kernel: 3}\n"
                "  - {name: f, kind: flatten}\n"
                "  - {name: fc, kind: linear, out_features: 10}\n",
                "defaults: {batch: 4}\n"),
      "n.yaml");
  CHECK(net.batch == 4);
  REQUIRE(net.layers.size() == 5);
  CHECK(net.layers[0].where == "n.yaml:8");
  CHECK(net.layers[0].output == Shape{8, 32, 32});
  const Layer& c2 = net.layers[1];
  CHECK(c2.output == Shape{16, 15, 16});  // (32 - 3) / 2 + 1, (32 + 4 - 5) / 2 + 1
  CHECK(c2.params() == 16 * 1 * 3 * 5 + 16);
  CHECK(c2.forward_macs(1) == 16.0 * 15 * 16 * 1 * 15);
  CHECK(net.layers[2].output == Shape{16, 5, 5});  // stride defaults to the kernel
  CHECK(net.layers[3].output == Shape{400});
  CHECK(net.layers[4].params() == 400 * 10 + 10);
  CHECK(net.params() == (8 * 3 * 9) + (16 * 15 + 16) + 4010);
  CHECK(to_string(Shape{64, 56, 56}) == "[64, 56, 56]");
  CHECK(elements(Shape{}) == 1);
}

TEST_CASE("network format: concat joins its inputs along an axis (channels by default)") {
  const Network net = parse_network(image_net(kConv + "  - {name: c2, kind: conv2d, input: c1, out_channels: 4, kernel: 1}\n"
                                                      "  - {name: j, kind: concat, inputs: [c1, c2, c1]}\n"
                                                      "  - {name: w, kind: concat, inputs: [c1, c1], axis: -1}\n"),
                                    "n.yaml");
  CHECK(find(net, "j").output == Shape{20, 32, 32});
  CHECK(find(net, "j").inputs.size() == 3);
  CHECK(find(net, "w").output == Shape{8, 32, 64});
  CHECK(find(net, "w").axis == 2);  // normalised
  CHECK(find(net, "j").params() == 0);
}

TEST_CASE("network format: add and mul broadcast one input to the other's shape (numpy's rules)") {
  const Network net = parse_network(image_net(kConv + "  - {name: g, kind: global_avg_pool}\n"
                                                      "  - {name: g3, kind: reshape, shape: [8, 1, 1]}\n"
                                                      "  - {name: s, kind: mul, inputs: [g3, c1]}\n"
                                                      "  - {name: w, kind: reshape, input: g, shape: [1, 8]}\n"),
                                    "n.yaml");
  CHECK(find(net, "s").output == Shape{8, 32, 32});  // the larger input's shape, whichever comes first
  CHECK(error_of(image_net(kConv + "  - {name: g, kind: global_avg_pool}\n"
                                   "  - {name: s, kind: add, inputs: [c1, g]}\n"))
            .rfind("n.yaml:9: layer 's': inputs: the inputs of add must have the same shape, or one must broadcast", 0) == 0);
}

TEST_CASE("network format: a parameter layer is a learned tensor of its shape, read by later layers, with no input") {
  const std::string layers = "  - {name: p, kind: conv2d, out_channels: 8, kernel: 8, stride: 8}\n"  // [8, 4, 4]
                             "  - {name: r, kind: reshape, shape: [16, 8]}\n"
                             "  - {name: cls, kind: parameter, shape: [1, 8]}\n"
                             "  - {name: t, kind: concat, inputs: [cls, r]}\n"
                             "  - {name: pos, kind: parameter, shape: [17, 8]}\n"
                             "  - {name: e, kind: add, inputs: [t, pos]}\n"
                             "  - {name: n, kind: layer_norm}\n";
  const Network net = parse_network(image_net(layers), "n.yaml");
  CHECK(find(net, "cls").inputs.empty());
  CHECK(find(net, "cls").output == Shape{1, 8});
  CHECK(find(net, "cls").params() == 8);
  CHECK(find(net, "pos").params() == 17 * 8);
  CHECK(find(net, "t").output == Shape{17, 8});
  CHECK(find(net, "e").output == Shape{17, 8});
  CHECK(net.params() == 8 * 3 * 64 + 8 + 17 * 8 + 2 * 8);
  CHECK(find(net, "pos").forward_macs(2) == 0);
  // It reads nothing, and needs its shape.
  CHECK(error_of(image_net("  - {name: cls, kind: parameter, input: input, shape: [1, 8]}\n")) ==
        "n.yaml:7: layer 'cls': input: a parameter layer reads no input: it is a learned tensor of `shape`");
  CHECK(error_of(image_net("  - {name: cls, kind: parameter}\n")) ==
        "n.yaml:7: layer 'cls': shape: missing (required for a parameter layer)");
  CHECK(error_of(image_net("  - {name: cls, kind: parameter, shape: [0, 8]}\n")).rfind("n.yaml:7: layer 'cls': shape: ", 0) == 0);
  CHECK(error_of(image_net("  - {name: cls, kind: parameter, shape: [1, 8], out_features: 3}\n"))
            .rfind("n.yaml:7: layer 'cls': out_features: unknown key", 0) == 0);
}

TEST_CASE("network format: layer kinds spell as in the YAML and back") {
  for (int k = 0; k <= static_cast<int>(kLastLayerKind); ++k) {
    LayerKind parsed = LayerKind::linear;
    REQUIRE(parse_layer_kind(to_string(static_cast<LayerKind>(k)), parsed));
    CHECK(static_cast<int>(parsed) == k);
  }
  LayerKind unused = LayerKind::linear;
  CHECK_FALSE(parse_layer_kind("conv3d", unused));
}

TEST_CASE("network format: expressions over constants and variables; seq and past change shapes") {
  const std::string text = token_net(
      "  - {name: emb, kind: embedding, vocab: 1000, dim: hidden}\n"
      "  - {name: qkv, kind: linear, out_features: 3 * hidden}\n"
      "  - {name: attn, kind: attention, heads: heads, head_dim: hidden / heads, causal: true}\n"
      "  - {name: r, kind: reshape, shape: [seq, heads, (hidden - 32) / 2 - 16 / heads * 4 + 0 * past + 16]}\n"
      "  - {name: m, kind: matmul, input: attn, m: seq, k: hidden, n: 8}\n");
  const Network net = parse_network(text, "n.yaml");
  CHECK(net.seq == 16);
  CHECK(net.past == 0);
  CHECK(net.input == Shape{16});
  CHECK(find(net, "qkv").output == Shape{16, 192});
  CHECK(find(net, "attn").output == Shape{16, 64});
  CHECK(find(net, "attn").head_dim == 16);
  CHECK(find(net, "attn").kv_heads == 4);
  CHECK(find(net, "r").output == Shape{16, 4, 16});
  CHECK(find(net, "m").output == Shape{16, 8});
  CHECK(find(net, "m").params() == 64 * 8);

  NetworkVariables decode;
  decode.seq = 1;
  decode.past = 100;
  const Network step = parse_network(text, "n.yaml", decode);
  CHECK(step.input == Shape{1});
  CHECK(find(step, "attn").q_len == 1);
  CHECK(find(step, "attn").kv_len == 101);
  CHECK(find(step, "attn").forward_macs(2) == 2.0 * 2 * 4 * 1 * 101 * 16);
  CHECK(find(step, "m").output == Shape{1, 8});

  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 10, dim: hidden / 3}\n")) ==
        "n.yaml:8: layer 'e': dim: in the expression 'hidden / 3': 64 / 3 is not a whole number (// rounds down)");
  // "//" rounds down (toward minus infinity, as Python's does)
  CHECK(find(parse_network(token_net("  - {name: e, kind: embedding, vocab: 10, dim: (seq * 5 + 31) // 32 - 7 // -2}\n"),
                           "n.yaml"), "e").output == Shape{16, 3 + 4});
  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 10, dim: seq // 0}\n")).find("division by zero") !=
        std::string::npos);
  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 10, dim: width}\n")).find(
            "n.yaml:8: layer 'e': dim: in the expression 'width': unknown name 'width'") == 0);
  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 10, dim: (hidden}\n")).find("expected ')'") !=
        std::string::npos);
  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 10, dim: 99999999999 * 99999999999}\n")).find(
            "overflows") != std::string::npos);
}

TEST_CASE("network format: a KV cache needs causal self-attention and room in a learned position table") {
  // GPT-2's shape: token and learned position embeddings (first_position: the table row of
  // position 0), causal attention over a fused QKV projection.
  const std::string decoder = token_net(
      "  - {name: wte, kind: embedding, vocab: 50, dim: hidden}\n"
      "  - {name: wpe, kind: embedding, input: input, vocab: 20 + 2, dim: hidden, first_position: 2}\n"
      "  - {name: sum, kind: add, inputs: [wte, wpe]}\n"
      "  - {name: qkv, kind: linear, out_features: 3 * hidden}\n"
      "  - {name: attn, kind: attention, heads: heads, head_dim: hidden / heads, causal: true}\n");
  NetworkVariables step{.batch = 1, .seq = 1, .past = 19};
  CHECK(find(parse_network(decoder, "n.yaml", step), "attn").kv_len == 20);  // the table's last position
  CHECK(find(parse_network(decoder, "n.yaml", step), "wpe").first_position == 2);
  CHECK(find(parse_network(decoder, "n.yaml", step), "wte").first_position == -1);  // token ids: no limit
  step.past = 20;
  CHECK(error_of(decoder, step) == "n.yaml:9: layer 'wpe': vocab: a table of 20 learned positions cannot hold past 20 + seq 1 "
                                   "tokens: give past + seq <= 20");
  CHECK(error_of(decoder, {.batch = 1, .seq = 21, .past = {}}).find("cannot hold past 0 + seq 21 tokens") != std::string::npos);
  CHECK(error_of(decoder, {.batch = 1, .seq = 2, .past = std::numeric_limits<std::int64_t>::max()}).find("cannot hold") !=
        std::string::npos);
  CHECK(error_of(token_net("  - {name: p, kind: embedding, vocab: 8, dim: 4, first_position: 8}\n")) ==
        "n.yaml:8: layer 'p': first_position: expected the table row of position 0, 0 to vocab - 1 = 7, got 8");
  CHECK(error_of(token_net("  - {name: p, kind: embedding, vocab: 8, dim: 4, first_position: -1}\n")).find("got -1") !=
        std::string::npos);

  // An encoder's bidirectional attention (and T5's bidirectional position bias) has no KV cache.
  const std::string encoder = token_net(
      "  - {name: e, kind: embedding, vocab: 50, dim: hidden}\n"
      "  - {name: qkv, kind: linear, out_features: 3 * hidden}\n"
      "  - {name: attn, kind: attention, heads: heads, head_dim: hidden / heads}\n");
  CHECK(error_of(encoder).empty());
  CHECK(error_of(encoder, {.batch = 1, .seq = 1, .past = 5}).find(
            "n.yaml:10: layer 'attn': causal: a KV cache (past 5 tokens: --kv-len, a sweep's kv_len or defaults.past) is for causal "
            "self-attention; this layer attends both ways") == 0);
  CHECK(error_of(token_net("  - {name: b, kind: position_bias, heads: 4}\n"), {.batch = 1, .seq = 1, .past = 5})
            .find("n.yaml:8: layer 'b': causal: a KV cache") == 0);
  // (a causal one passes the layer's check; alone, the network has no attention to cache for)
  CHECK(error_of(token_net("  - {name: b, kind: position_bias, heads: 4, causal: true}\n"), {.batch = 1, .seq = 1, .past = 5})
            .find("n.yaml: past: ") == 0);
  // Nor does a network without attention (past would change nothing: an estimate of nothing cached).
  CHECK(error_of(token_net("  - {name: e, kind: embedding, vocab: 50, dim: hidden}\n"), {.batch = 1, .seq = 1, .past = 5}) ==
        "n.yaml: past: a KV cache (past 5 tokens: --kv-len, a sweep's kv_len or defaults.past) needs causal self-attention; 't' has no "
        "attention layer to keep one for");
}

TEST_CASE("network format: matmul of two activations, three-input GQA attention, tied weights, train_only") {
  const Network net = parse_network(
      token_net("  - {name: emb, kind: embedding, vocab: 500, dim: hidden}\n"
                "  - {name: q, kind: linear, out_features: hidden, bias: false}\n"
                "  - {name: k, kind: linear, input: emb, out_features: 32, bias: false}\n"
                "  - {name: v, kind: linear, input: emb, out_features: 32, bias: false}\n"
                "  - {name: a, kind: attention, inputs: [q, k, v], heads: 4, kv_heads: 2, head_dim: 16, impl: fused}\n"
                "  - {name: s, kind: matmul, inputs: [q, a], batch: 4, m: 16, k: 16, n: 16}\n"
                "  - {name: head, kind: linear, input: a, out_features: 500, bias: false, tied_to: emb}\n"
                "  - {name: loss, kind: cross_entropy, train_only: true}\n"),
      "n.yaml");
  CHECK(find(net, "a").impl == AttentionImpl::fused);
  CHECK(find(net, "a").inputs.size() == 3);
  CHECK(find(net, "s").output == Shape{4, 16, 16});
  CHECK(find(net, "s").params() == 0);
  CHECK(find(net, "s").forward_macs(2) == 2.0 * 4 * 16 * 16 * 16);
  CHECK(find(net, "head").params() == 0);
  CHECK(find(net, "loss").output == Shape{1});
  CHECK(find(net, "loss").train_only);
  CHECK(net.params() == 500 * 64 + 64 * 64 + 2 * 64 * 32);
}

TEST_CASE("network format: repeat blocks name their layers group.name and read `input` as the block input") {
  const Network net = parse_network(
      image_net(kConv +
                "  - repeat: 3\n"
                "    name: blk\n"
                "    layers:\n"
                "      - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, padding: 1}\n"
                "      - {name: bn, kind: batch_norm}\n"
                "      - {name: add, kind: add, inputs: [bn, input]}\n"
                "  - {name: after, kind: relu}\n"
                "  - {name: again, kind: add, inputs: [blk.add, c1]}\n"),
      "n.yaml");
  REQUIRE(net.layers.size() == 6);
  CHECK(net.layers[1].name == "blk.c1");
  CHECK(net.layers[1].count == 3);
  CHECK(net.layers[1].group == "blk");
  CHECK(net.layers[1].inputs == std::vector<int>{0});
  CHECK(net.layers[3].inputs == std::vector<int>{2, 0});
  CHECK(net.layers[4].count == 1);
  CHECK(net.layers[4].inputs == std::vector<int>{3});
  CHECK(net.layers[5].inputs == std::vector<int>{3, 0});  // outside the block, c1 is the top-level one
  CHECK(net.params() == 8 * 27 + 3 * (8 * 8 * 9 + 16));
  CHECK(net.forward_macs() == doctest::Approx(32.0 * 32 * 8 * 27 + 3 * 32.0 * 32 * 8 * 72));
}

TEST_CASE("network format: bad input names file:line, the layer and the field") {
  struct Case {
    const char* what;
    std::string text;
    std::string expected;  // the start of "where: what"
  };
  const Case cases[] = {
      {"unknown key", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernal: 3}\n"),
       "n.yaml:7: layer 'c1': kernal: unknown key for a conv2d layer (expected one of: name, kind, input, train_only, "
       "out_channels, kernel, stride, padding, dilation, groups, bias); did you mean 'kernel'?"},
      {"unknown kind", image_net("  - {name: c1, kind: conv3d}\n"), "n.yaml:7: layer 'c1': kind: unknown layer kind 'conv3d'"},
      {"gelu form", image_net("  - {name: g, kind: gelu, form: sigmoid}\n"),
       "n.yaml:7: layer 'g': form: expected erf or tanh_eager, got 'sigmoid'"},
      {"rope form", token_net("  - {name: e, kind: embedding, vocab: 10, dim: hidden}\n"
                              "  - {name: r, kind: rope, form: fast}\n"),
       "n.yaml:9: layer 'r': form: expected fused or eager, got 'fast'"},
      {"linear tokens", token_net("  - {name: e, kind: embedding, vocab: 10, dim: hidden}\n"
                                  "  - {name: f, kind: linear, out_features: 8, tokens: seq + 1}\n"),
       "n.yaml:9: layer 'f': tokens: reads 17 rows of an input of 16"},
      {"linear tokens and first_token", token_net("  - {name: e, kind: embedding, vocab: 10, dim: hidden}\n"
                                                  "  - {name: f, kind: linear, out_features: 8, tokens: 2, first_token: true}\n"),
       "n.yaml:9: layer 'f': tokens: tokens and first_token exclude each other"},
      {"missing field", image_net("  - {name: c1, kind: conv2d, kernel: 3}\n"),
       "n.yaml:7: layer 'c1': out_channels: missing (required for a conv2d layer)"},
      {"missing name", image_net("  - {kind: relu}\n"), "n.yaml:7: layers[0].name: missing"},
      {"zero size", image_net("  - {name: c1, kind: conv2d, out_channels: 0, kernel: 3}\n"),
       "n.yaml:7: layer 'c1': out_channels: expected a positive integer, got 0"},
      {"negative size", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, stride: -1}\n"),
       "n.yaml:7: layer 'c1': stride: expected a positive integer or [height, width], got -1"},
      {"negative padding", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, padding: [1, -1]}\n"),
       "n.yaml:7: layer 'c1': padding: expected a non-negative integer or [height, width], got -1"},
      {"kernel too large", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernel: 35, padding: 1}\n"),
       "n.yaml:7: layer 'c1': kernel: the height kernel spans 35 but the padded input is 34"},
      {"dilated kernel too large", image_net("  - {name: p, kind: max_pool, kernel: [1, 40]}\n"),
       "n.yaml:7: layer 'p': kernel: the width kernel spans 40 but the padded input is 32"},
      {"groups", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, groups: 2}\n"),
       "n.yaml:7: layer 'c1': groups: groups 2 does not divide the 3 input channels"},
      {"add shapes", image_net(kConv + "  - {name: c2, kind: conv2d, out_channels: 4, kernel: 1}\n"
                                       "  - {name: s, kind: add, inputs: [c1, c2]}\n"),
       "n.yaml:9: layer 's': inputs: the inputs of add must have the same shape, or one must broadcast to the other "
       "(numpy's rules, aligned from the right), got [8, 32, 32] and [4, 32, 32]"},
      {"concat shapes", image_net(kConv + "  - {name: p, kind: max_pool, kernel: 2}\n"
                                          "  - {name: j, kind: concat, inputs: [c1, p]}\n"),
       "n.yaml:9: layer 'j': inputs: the inputs of concat must agree on every dimension but axis 0, got [8, 32, 32] and [8, 16, 16]"},
      {"concat axis", image_net(kConv + "  - {name: j, kind: concat, inputs: [c1, c1], axis: 3}\n"),
       "n.yaml:8: layer 'j': axis: expected an axis in [-3, 2] for inputs [8, 32, 32], got 3"},
      {"concat arity", image_net(kConv + "  - {name: j, kind: concat, inputs: [c1]}\n"),
       "n.yaml:8: layer 'j': inputs: a concat layer takes 2 inputs, got 1"},
      {"add arity", image_net(kConv + "  - {name: s, kind: add, inputs: [c1]}\n"),
       "n.yaml:8: layer 's': inputs: a add layer takes 2 inputs, got 1"},
      {"undefined reference", image_net(kConv + "  - {name: r, kind: relu, input: c9}\n"),
       "n.yaml:8: layer 'r': input: no layer named 'c9' before this one; did you mean 'c1'?"},
      {"later reference", image_net(kConv + "  - {name: r, kind: relu, input: r2}\n  - {name: r2, kind: relu}\n"),
       "n.yaml:8: layer 'r': input: layer 'r2' is defined later (line 9)"},
      {"self reference", image_net(kConv + "  - {name: r, kind: relu, input: r}\n"),
       "n.yaml:8: layer 'r': input: a layer cannot read itself"},
      {"duplicate name", image_net(kConv + "  - {name: c1, kind: relu}\n"),
       "n.yaml:8: layer 'c1': name: duplicate name (already used at line 7)"},
      {"nested repeat", image_net("  - repeat: 2\n    name: a\n    layers:\n      - repeat: 2\n        name: b\n"
                                  "        layers: [{name: r, kind: relu}]\n"),
       "n.yaml:10: layer 'b': repeat: nested repeats are not supported"},
      {"block member by short name", image_net(kConv + "  - repeat: 2\n    name: blk\n    layers: [{name: r, kind: relu}]\n"
                                                       "  - {name: x, kind: add, inputs: [c1, r]}\n"),
       "n.yaml:11: layer 'x': inputs: no layer named 'r' before this one; did you mean 'blk.r'"},
      {"block named like a layer", image_net(kConv + "  - repeat: 2\n    name: c1\n    layers: [{name: r, kind: relu}]\n"),
       "n.yaml:8: layer 'c1': name: a repeat block and a layer (line 7) share this name"},
      {"repeat changes shape", image_net("  - repeat: 2\n    name: blk\n    layers:\n" + std::string("    ") + kConv),
       "n.yaml:7: layer 'blk': repeat: the block's output [8, 32, 32] differs from its input [3, 32, 32]"},
      {"repeat count", image_net("  - repeat: 0\n    name: blk\n    layers: [{name: r, kind: relu}]\n"),
       "n.yaml:7: layer 'blk': repeat: expected a positive number of copies, got 0"},
      {"input rank", image_net("  - {name: f, kind: flatten}\n  - {name: c, kind: conv2d, out_channels: 8, kernel: 1}\n"),
       "n.yaml:8: layer 'c': input: a conv2d layer expects an input [C, H, W], got [3072]"},
      {"reshape count", image_net("  - {name: r, kind: reshape, shape: [3, 32, 31]}\n"),
       "n.yaml:7: layer 'r': shape: reshape to [3, 32, 31] (2976 elements) from [3, 32, 32] (3072 elements)"},
      {"tied shape", token_net("  - {name: emb, kind: embedding, vocab: 500, dim: hidden}\n"
                               "  - {name: head, kind: linear, out_features: 400, tied_to: emb}\n"),
       "n.yaml:9: layer 'head': tied_to: the weight of 'emb' is [500, 64], this layer's is [400, 64]"},
      {"train_only consumer", token_net("  - {name: emb, kind: embedding, vocab: 500, dim: hidden}\n"
                                        "  - {name: d, kind: dropout, probability: 0.1, train_only: true}\n"
                                        "  - {name: r, kind: relu}\n"),
       "n.yaml:10: layer 'r': input: reads train_only layer 'd', so it must be train_only too"},
      {"attention widths", token_net("  - {name: emb, kind: embedding, vocab: 500, dim: hidden}\n"
                                     "  - {name: a, kind: attention, heads: heads, head_dim: 16}\n"),
       "n.yaml:9: layer 'a': input: a fused QKV input needs (heads + 2 kv_heads) * head_dim = 192 features, got [16, 64]"},
      {"bad bool", image_net("  - {name: c1, kind: conv2d, out_channels: 8, kernel: 3, bias: yes}\n"),
       "n.yaml:7: layer 'c1': bias: expected true or false, got 'yes'"},
      {"dropout probability", image_net("  - {name: d, kind: dropout, probability: 1.5}\n"),
       "n.yaml:7: layer 'd': probability: expected a probability in [0, 1), got 1.5"},
      {"unknown top-level key", "version: 1\nkind: network\nname: t\ntask: image\ninputs: [3, 8, 8]\n",
       "n.yaml:5: inputs: unknown key for a network file"},
      {"wrong version", "version: 2\nkind: network\nname: t\ntask: image\n", "n.yaml:1: version: expected version: 1"},
      {"wrong task", "version: 1\nkind: network\nname: t\ntask: audio\n", "n.yaml:4: task: expected image"},
      {"tokens with input", "version: 1\nkind: network\nname: t\ntask: tokens\ndefaults: {seq: 4}\ninput: [4]\nlayers: []\n",
       "n.yaml:6: input: a token network's input is [seq] token ids"},
      {"image with seq", image_net(kConv, "defaults: {batch: 2, seq: 4}\n"),
       "n.yaml:6: defaults.seq: unknown key for defaults (image networks take only batch)"},
      {"tokens without seq", "version: 1\nkind: network\nname: t\ntask: tokens\nlayers: [{name: r, kind: relu}]\n",
       "n.yaml: seq: no sequence length"},
      {"constant shadows a variable", "version: 1\nkind: network\nname: t\ntask: tokens\ndefaults: {seq: 4}\n"
                                      "constants: {hidden: 64, seq: 4}\nlayers: [{name: r, kind: relu}]\n",
       "n.yaml:6: constants.seq: 'seq' is a variable; it cannot be a constant"},
      {"not YAML", "version: 1\nlayers: [\n", "n.yaml:"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const std::string err = error_of(c.text);
    INFO(err);
    CHECK(err.rfind(c.expected, 0) == 0);
  }
}

TEST_CASE("network format: bad variables") {
  const std::string text = token_net("  - {name: e, kind: embedding, vocab: 10, dim: hidden}\n");
  NetworkVariables v;
  v.batch = 0;
  CHECK(error_of(text, v) == "n.yaml: batch: expected a positive batch size, got 0");
  v = {};
  v.past = -1;
  CHECK(error_of(text, v) == "n.yaml: past: expected a KV-cache length of 0 or more, got -1");
  v = {};
  v.seq = 8;
  CHECK(error_of(image_net(kConv), v).rfind("n.yaml:4: task: seq and past apply to token and sequence networks", 0) == 0);
}

TEST_CASE("network format: a bad default is an error even where the command line replaces it") {
  const std::string layers = "constants: {hidden: 64}\nlayers:\n  - {name: e, kind: embedding, vocab: 10, dim: hidden}\n";
  auto net = [&](const std::string& defaults) {
    return "version: 1\nkind: network\nname: t\ntask: tokens\ndefaults: " + defaults + "\n" + layers;
  };
  const NetworkVariables given{.batch = 2, .seq = 4, .past = 0};
  CHECK(error_of(net("{batch: -3, seq: 16}"), given) == "n.yaml:5: defaults.batch: expected a positive batch size, got -3");
  CHECK(error_of(net("{batch: 1, seq: 0}"), given) == "n.yaml:5: defaults.seq: expected a positive sequence length, got 0");
  CHECK(error_of(net("{batch: 1, seq: 8, past: -1}"), given) ==
        "n.yaml:5: defaults.past: expected a KV-cache length of 0 or more, got -1");
  CHECK(error_of(net("{batch: nan, seq: 8}"), given) ==
        "n.yaml:5: defaults.batch: in the expression 'nan': expected an integer, got the name 'nan' (no names are defined here)");
  CHECK(error_of(net("{batch: 3, seq: 8}"), given).empty());
  CHECK(parse_network(net("{batch: 3, seq: 8}"), "n.yaml", given).batch == 2);  // the command line wins
  CHECK(parse_network(net("{batch: 3, seq: 8}"), "n.yaml").batch == 3);
}

TEST_CASE("network format: read_network reads a file and names it in errors") {
  CHECK_THROWS_AS(read_network("/nonexistent/net.yaml"), InputError);
}
