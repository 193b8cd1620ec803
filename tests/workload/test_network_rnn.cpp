// Recurrent layers (`kind: rnn`, models/README.md) and sequence networks (`task: sequence`): shapes,
// parameters as PyTorch's nn.LSTM / nn.GRU / nn.RNN count them, MACs, the kernels of cuDNN's
// standard algorithm, and bad input.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/network/lowering/lowering.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {

// A sequence network over 10-wide steps (batch 3, seq 7) with this one rnn layer's fields.
std::string rnn_network(const std::string& fields, const std::string& input = "[10]") {
  return "version: 1\nkind: network\nname: r\ntask: sequence\ninput: " + input +
         "\ndefaults: {batch: 3, seq: 7}\nlayers:\n  - {name: rnn, kind: rnn, " + fields + "}\n";
}

struct Kernels {
  std::int64_t launches = 0;           // every launch of the layer's kernels in the phase
  std::int64_t gemm_launches = 0;
  std::int64_t op_launches = 0;        // launches that are not a library's own (LoweredKernel::library_launch)
  std::int64_t input_gemms = 0;        // GEMMs over every step at once (count 1)
};
// The kernels of the network's rnn layer in a phase.
Kernels kernels(const Lowering& low, StepPhase phase, const Network* net = nullptr) {
  Kernels k;
  for (const auto& l : low.kernels) {
    const bool rnn = net ? l.layer >= 0 && net->layers[std::size_t(l.layer)].kind == LayerKind::rnn : l.layer == 0;
    if (!rnn || l.phase != phase) continue;
    k.launches += l.kernel.count;
    if (l.kernel.kind == Kernel::Kind::gemm) {
      k.gemm_launches += l.kernel.count;
      if (l.kernel.name.find(".input") != std::string::npos) ++k.input_gemms;
    }
    if (!l.library_launch) k.op_launches += l.kernel.count;
  }
  return k;
}

LoweringOptions mode(Precision p, bool training) {
  LoweringOptions o;
  o.precision = p;
  o.training = training;
  o.optimizer_step = false;
  return o;
}

}  // namespace

TEST_CASE("rnn: parameters are PyTorch's, for every cell, stacked and bidirectional") {
  // nn.LSTM(10, 20, num_layers=2, bidirectional=True): per layer and direction weight_ih (80 x in),
  // weight_hh (80 x 20), bias_ih and bias_hh (80 each); the second layer reads 40 features.
  const Network lstm = parse_network(rnn_network("cell: lstm, hidden: 20, layers: 2, bidirectional: true"), "r.yaml");
  const Layer& l = lstm.layers[0];
  CHECK(l.output == Shape{7, 40});
  CHECK(l.params() == 2 * (80 * (10 + 20) + 160) + 2 * (80 * (40 + 20) + 160));  // 15040
  CHECK(l.params() == 15040);
  // nn.GRU(10, 20): 3 gates; nn.RNN(10, 20): one; bias: false drops the 2 x gates x hidden biases.
  CHECK(parse_network(rnn_network("cell: gru, hidden: 20"), "r.yaml").layers[0].params() == 60 * 30 + 120);
  CHECK(parse_network(rnn_network("cell: tanh, hidden: 20"), "r.yaml").layers[0].params() == 20 * 30 + 40);
  CHECK(parse_network(rnn_network("cell: relu, hidden: 20, bias: false"), "r.yaml").layers[0].params() == 20 * 30);
  // cuDNN's skip-input mode: no input weights in the first layer (the input must be hidden wide).
  CHECK(parse_network(rnn_network("cell: lstm, hidden: 10, input_mode: skip"), "r.yaml").layers[0].params() == 40 * 10 + 80);
}

TEST_CASE("rnn: forward MACs are every step's input and recurrent products") {
  const Network n = parse_network(rnn_network("cell: lstm, hidden: 20, layers: 2, bidirectional: true"), "r.yaml");
  // per sample: 7 steps x 2 directions x 80 gate rows x (10 + 20) in the first layer, (40 + 20) in the second
  CHECK(n.layers[0].forward_macs(3) == doctest::Approx(3.0 * 7 * 2 * 80 * (30 + 60)));
  CHECK(n.forward_macs() == doctest::Approx(3.0 * 7 * 2 * 80 * (30 + 60)));
  const Network skip = parse_network(rnn_network("cell: gru, hidden: 10, input_mode: skip"), "r.yaml");
  CHECK(skip.layers[0].forward_macs(1) == doctest::Approx(7.0 * 30 * 10));  // the recurrent product only
}

TEST_CASE("rnn: cuDNN's standard algorithm, a GEMM and a pointwise kernel per step, one op per pass") {
  const Network n = parse_network(rnn_network("cell: lstm, hidden: 20, layers: 2, bidirectional: true"), "r.yaml");
  const Lowering low = lower_network(n, mode(Precision::fp32, true));
  const Kernels f = kernels(low, StepPhase::forward), b = kernels(low, StepPhase::backward);
  // forward: per layer one input GEMM, then 7 steps x 2 directions of a recurrent GEMM and a cell kernel
  CHECK(f.input_gemms == 2);
  CHECK(f.gemm_launches == 2 * (1 + 7 * 2));
  CHECK(f.launches == 2 * (1 + 2 * 7 * 2));
  // backward data: per step and direction a cell backward and a recurrent GEMM, then the input's
  // gradient GEMM; backward weights: the input and (per direction) recurrent weight GEMMs, the bias sums
  CHECK(b.gemm_launches == 2 * (7 * 2 + 1) + 2 * (1 + 2));
  CHECK(b.launches == 2 * (2 * 7 * 2 + 1) + 2 * (1 + 2 + 1));
  // The framework dispatches one op per pass (_cudnn_rnn, _cudnn_rnn_backward): the other launches
  // are cuDNN's own.
  CHECK(f.op_launches == 1);
  CHECK(b.op_launches == 1);
  // The recurrent GEMMs take one step's rows and keep their weights in L2 from step to step.
  bool found = false;
  for (const auto& k : low.kernels)
    if (k.kernel.name == "rnn.l1.recurrent" && k.library_launch) {
      found = true;
      CHECK(k.kernel.m == 3);
      CHECK(k.kernel.n == 80);
      CHECK(k.kernel.k == 20);
      CHECK(k.kernel.l2_warm);
    }
  CHECK(found);
  // Kept for backward: the output, and per layer the gates and cell states of every step plus the
  // first layer's output (fp32; the network's input is the caller's, as for every network).
  const double state = 3.0 * 20 * 7 * 2;  // batch x hidden x steps x directions
  CHECK(low.footprint.activations == doctest::Approx(4.0 * (3 * 7 * 40 + (2 * (4 + 1) + 1) * state)));

  // Inference: the forward kernels only, no gates kept (the cell writes h and c).
  const Lowering inf = lower_network(n, mode(Precision::fp32, false));
  CHECK(kernels(inf, StepPhase::backward).launches == 0);
  CHECK(kernels(inf, StepPhase::forward).launches == f.launches);

  // Skip input (DeepBench): no input GEMM, the input's gradient is a sum of the gates' gradients.
  const Network skip = parse_network(rnn_network("cell: gru, hidden: 10, input_mode: skip"), "r.yaml");
  const Lowering s = lower_network(skip, mode(Precision::fp16, true));
  CHECK(kernels(s, StepPhase::forward).input_gemms == 0);
  CHECK(kernels(s, StepPhase::forward).gemm_launches == 7);
  CHECK(kernels(s, StepPhase::backward).gemm_launches == 7 + 1);  // recurrent dgrad per step, the recurrent wgrad
}

TEST_CASE("rnn: autocast runs the layer in fp16, casting its input and weights") {
  const Network n = parse_network(rnn_network("cell: gru, hidden: 16"), "r.yaml");
  const Lowering low = lower_network(n, mode(Precision::amp_fp16, false));
  int casts = 0;
  for (const auto& k : low.kernels) {
    if (k.kernel.memory.op == "cast") ++casts;
    if (k.kernel.kind == Kernel::Kind::gemm) CHECK(k.kernel.a_format == FormatId::fp16);
    if (k.kernel.name == "rnn.l0.gru_cell") CHECK(k.kernel.a_format == FormatId::fp16);
  }
  CHECK(casts == 2);  // the fp32 input and the weights
  CHECK_THROWS_WITH_AS(lower_network(n, mode(Precision::fp8, false)), doctest::Contains("cuDNN has no fp8 recurrent layers"),
                       InputError);
  // fp8 training (Transformer Engine's linears in bf16 autocast): the layer runs in bf16.
  for (const auto& k : lower_network(n, mode(Precision::fp8, true)).kernels)
    if (k.kernel.kind == Kernel::Kind::gemm) CHECK(k.kernel.a_format == FormatId::bf16);
}

TEST_CASE("rnn: bad input names the file, line, layer and field") {
  auto error_of = [](const std::string& yaml) -> std::string {
    try {
      parse_network(yaml, "r.yaml");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  struct Case {
    std::string yaml, expected;
  };
  const Case cases[] = {
      {rnn_network("cell: lstm"), "r.yaml:8: layer 'rnn': hidden: missing (required for a rnn layer)"},
      {rnn_network("hidden: 8"), "r.yaml:8: layer 'rnn': cell: missing (required for a rnn layer)"},
      {rnn_network("cell: lstmm, hidden: 8"), "r.yaml:8: layer 'rnn': cell: expected lstm, gru, tanh or relu, got 'lstmm'"},
      {rnn_network("cell: gru, hidden: 0"), "r.yaml:8: layer 'rnn': hidden: expected a positive integer, got 0"},
      {rnn_network("cell: gru, hidden: 8, input_mode: skip"),
       "r.yaml:8: layer 'rnn': input_mode: input_mode: skip adds the input to the gates as it is: its 10 features must equal hidden 8"},
      {rnn_network("cell: gru, hidden: 8, input_mode: none"), "r.yaml:8: layer 'rnn': input_mode: expected linear or skip, got 'none'"},
      {rnn_network("cell: gru, hidden: 8, heads: 2"), "r.yaml:8: layer 'rnn': heads: unknown key for a rnn layer"},
      {"version: 1\nkind: network\nname: r\ntask: sequence\ndefaults: {batch: 3, seq: 7}\nlayers:\n  - {name: rnn, kind: rnn, cell: gru, hidden: 8}\n",
       "r.yaml:1: input: missing (a sequence network's features per step: [features])"},
      {rnn_network("cell: gru, hidden: 8", "[10, 2]"), "r.yaml:5: input: expected [features], e.g. [161]: each step's input width"},
      {"version: 1\nkind: network\nname: r\ntask: image\ninput: [3, 8, 8]\nlayers:\n  - {name: rnn, kind: rnn, cell: gru, hidden: 8}\n",
       "r.yaml:7: layer 'rnn': input: a rnn layer expects an input [seq, features], got [3, 8, 8]"},
  };
  for (const Case& c : cases) {
    INFO(c.yaml);
    CHECK(error_of(c.yaml).rfind(c.expected, 0) == 0);
    if (error_of(c.yaml).rfind(c.expected, 0) != 0) MESSAGE(error_of(c.yaml));
  }
}

TEST_CASE("task: sequence takes seq from the defaults or the caller, and feature vectors as input") {
  const Network n = parse_network(rnn_network("cell: lstm, hidden: 4"), "r.yaml", NetworkVariables{5, 11, std::nullopt});
  CHECK(n.batch == 5);
  CHECK(n.seq == 11);
  CHECK(n.input == Shape{11, 10});
  CHECK(n.layers[0].output == Shape{11, 4});
}

TEST_CASE("models/lstm_lm.yaml: PyTorch's word_language_model (medium, tied): parameters and MACs in closed form") {
  const Network net = read_network(test::source_dir() / "models" / "lstm_lm.yaml");
  // Embedding 33278 x 650; two LSTM layers of 4 x 650 x (650 + 650) weights and 2 x 4 x 650 biases;
  // the decoder's bias (its weight is the embedding's).
  const std::int64_t lstm = 2 * (4 * 650 * (650 + 650) + 2 * 4 * 650);
  CHECK(net.params() == 33278 * 650 + lstm + 33278);
  CHECK(net.params() == net.reference_params);
  CHECK(net.batch == 20);
  CHECK(net.seq == 35);
  // Per token: both layers' input and recurrent products, then the decoder.
  CHECK(net.forward_macs() == doctest::Approx(20.0 * 35 * (2 * 4 * 650 * (650 + 650) + 650.0 * 33278)));
  // Training: cuDNN's dropout between the two layers, forward and backward.
  LoweringOptions o = mode(Precision::fp32, true);
  const Lowering low = lower_network(net, o);
  int dropouts = 0;
  for (const auto& k : low.kernels)
    if (k.kernel.name.rfind("rnn.l0.dropout", 0) == 0) ++dropouts;
  CHECK(dropouts == 2);
  CHECK(kernels(lower_network(net, mode(Precision::fp32, false)), StepPhase::forward, &net).launches == 2 * (1 + 2 * 35));
}

TEST_CASE("rnn: the lowering says where PyTorch would run cuDNN's persistent kernels instead") {
  auto notes = [](const std::string& fields, Precision p, const std::string& input = "[10]") {
    std::string all;
    for (const auto& n : lower_network(parse_network(rnn_network(fields, input), "r.yaml"), mode(p, true)).notes) all += n + "\n";
    return all;
  };
  // Small hidden sizes: PERSIST_STATIC_SMALL_H forward (LSTM <= 192), the backward only up to 128.
  CHECK(notes("cell: lstm, hidden: 128", Precision::fp32).find("PERSIST_STATIC_SMALL_H (hidden 128 <= 192)") != std::string::npos);
  CHECK(notes("cell: lstm, hidden: 160", Precision::fp32).find("the backward pass, above 128, is standard") != std::string::npos);
  CHECK(notes("cell: relu, hidden: 384", Precision::fp32).find("PERSIST_STATIC_SMALL_H") != std::string::npos);
  CHECK(notes("cell: gru, hidden: 256", Precision::fp32).empty());
  // One fp16 layer of 128-multiples at a batch that is a multiple of 8 up to 128 (batch 3 here: no).
  CHECK(notes("cell: lstm, hidden: 512", Precision::amp_fp16, "[512]").empty());
  const std::string b8 = "version: 1\nkind: network\nname: r\ntask: sequence\ninput: [512]\ndefaults: {batch: 8, seq: 7}\n"
                         "layers:\n  - {name: rnn, kind: rnn, cell: lstm, hidden: 512}\n";
  const auto low = lower_network(parse_network(b8, "r.yaml"), mode(Precision::amp_fp16, true));
  REQUIRE(low.notes.size() == 1);
  CHECK(low.notes[0].find("CUDNN_RNN_ALGO_PERSIST_STATIC on V100, A100 and H100-class GPUs") != std::string::npos);
  CHECK(lower_network(parse_network(b8, "r.yaml"), mode(Precision::fp32, true)).notes.empty());  // fp32: standard
}
