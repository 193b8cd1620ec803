// Lowering of recurrent layers (LSTM, GRU, Elman RNN) as cuDNN's standard algorithm runs them
// (CUDNN_RNN_ALGO_STANDARD, what PyTorch's nn.LSTM / nn.GRU / nn.RNN call through _cudnn_rnn;
// Appleyard, Kocisky and Blunsom, "Optimizing Performance of Recurrent Neural Networks on GPUs",
// arXiv:1604.01946, the design of cuDNN's RNN path): per stacked layer,
//  - forward: one GEMM of every step's input against the input weights of all gates (and both
//    directions), then per step and direction the recurrent GEMM of the previous hidden state
//    against the recurrent weights of all gates, and one pointwise kernel that adds the two
//    products and the biases, applies the gates and writes h (and c), keeping the activated gates
//    for the backward pass;
//  - backward data (cudnnRNNBackwardData), in reverse layer order: per step and direction the
//    pointwise backward kernel (the gates' gradients) and the recurrent GEMM that carries the hidden
//    state's gradient to the step before, then one GEMM of every step's gate gradients against the
//    input weights (the input's gradient);
//  - backward weights (cudnnRNNBackwardWeights): one GEMM of the gate gradients of every step
//    against the inputs, one against the previous hidden states, and the biases' column sums.
// The per-step kernels are launched by cuDNN inside one framework op (LoweredKernel::library_launch).
#include <string>

#include "common/error.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload::lowering_detail {

namespace {

// Flops per hidden unit of the pointwise kernels: a sigmoid or tanh is about 8 (an exponential, a
// reciprocal and their range handling), the adds and products one each.
double cell_flops(RnnCell cell, bool backward) {
  switch (cell) {
    case RnnCell::lstm: return backward ? 30 : 48;  // three sigmoids, two tanh, the gate sums and c, h
    case RnnCell::gru: return backward ? 24 : 34;   // two sigmoids, a tanh, the reset product and the blend
    case RnnCell::tanh: return backward ? 3 : 10;
    case RnnCell::relu: return 2;
  }
  return 2;
}

// PyTorch's choice of cuDNN RNN algorithm (aten/src/ATen/native/cudnn/RNN.cpp, get_algo): the
// persistent kernels, which keep the recurrent weights on chip across the steps, for small hidden
// sizes (cuDNN >= 8.2.1: PERSIST_STATIC_SMALL_H) and for single-layer fp16 layers of moderate size
// (PERSIST_STATIC; use_persist_common_heuristics, and the device's: sm_70, or sm_80+ with at least
// 98 SMs, not sm_86). What it would pick for this layer, or "" for the standard algorithm.
std::string pytorch_persistent_algo(const Context& c, const Layer& l) {
  const bool elman = l.rnn_cell == RnnCell::tanh || l.rnn_cell == RnnCell::relu;
  const std::int64_t forward_limit = elman ? 384 : 192, backward_limit = elman ? 256 : 128;
  if (l.hidden <= forward_limit)
    return "CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H (hidden " + std::to_string(l.hidden) + " <= " +
           std::to_string(forward_limit) + (c.opt.training && l.hidden > backward_limit
                                                ? "; the backward pass, above " + std::to_string(backward_limit) + ", is standard)"
                                                : ")");
  const bool fp16 = storage_of(c.f.gemm_in) == FormatId::fp16;
  const std::int64_t b = c.batch;
  if (fp16 && l.rnn_layers == 1 && !l.bidirectional && l.hidden <= 1024 && l.hidden % 128 == 0 &&
      l.input.back() % 128 == 0 && l.rnn_cell != RnnCell::gru && b % 8 == 0 && b <= 128)
    return "CUDNN_RNN_ALGO_PERSIST_STATIC on V100, A100 and H100-class GPUs (one fp16 layer, hidden " +
           std::to_string(l.hidden) + ", batch " + std::to_string(b) + ")";
  return "";
}

}  // namespace

void lower_rnn(Context& c, int li) {
  const Layer& l = c.layer(li);
  const Shape& in = c.input_shape(li, 0);
  if (in.size() != 2)
    throw InputError(l.where, "layer '" + l.name + "': rnn needs a [seq, features] input, got " + to_string(in));
  // fp8 training runs only Transformer Engine's linears in fp8: the layer runs in bf16 autocast there.
  if (c.opt.precision == Precision::fp8 && !c.f.fp8_linears)
    throw InputError(l.where, "layer '" + l.name + "': cuDNN has no fp8 recurrent layers; run it in fp16, bf16 or int8");
  const FormatId g = c.f.gemm_in, act = storage_of(g);
  c.cast_input(li, 0, storage_of(g));  // cuDNN runs the whole layer in one data type
  cast_weights(c, li, l.params());
  c.out_format[static_cast<std::size_t>(li)] = act;
  if (const std::string algo = pytorch_persistent_algo(c, l); !algo.empty())
    c.notes.push_back("layer '" + l.name + "': PyTorch would run cuDNN's persistent kernel here, " + algo +
                      ", which keeps the recurrent weights on chip across the steps; the estimate is the standard "
                      "algorithm's per-step kernels, likely slower than what runs");

  const std::int64_t B = c.batch, T = l.q_len, H = l.hidden, D = l.rnn_directions();
  const std::int64_t G = rnn_gates(l.rnn_cell), GH = G * H, steps = T * D * l.count;
  const bool lstm = l.rnn_cell == RnnCell::lstm;
  const double state = double(B) * double(H);  // one step's hidden state, one direction
  const std::string cell = std::string(to_string(l.rnn_cell)) + "_cell";
  // Each kernel keeps the launch count it is given (its steps; Context::emit_* would make a GEMM one
  // launch per copy). The op's first launch pays the framework's dispatch; the rest are cuDNN's.
  bool first_of_op = true;
  auto emit = [&](bool forward, const Kernel& k) {
    if (!forward && !c.opt.training) return;
    auto& list = forward ? c.forward : c.backward[static_cast<std::size_t>(li)];
    auto push = [&](std::int64_t launches, bool library) {
      LoweredKernel lk{k, li, forward ? StepPhase::forward : StepPhase::backward};
      lk.kernel.count = launches;
      lk.library_launch = library;
      list.push_back(std::move(lk));
    };
    if (!first_of_op) push(k.count, true);
    else {
      push(1, false);
      if (k.count > 1) push(k.count - 1, true);
    }
    first_of_op = false;
  };
  auto recurrent_gemm = [&](const std::string& name, std::int64_t n, std::int64_t k, Layout layout, Pass pass) {
    Kernel r = gemm(c, name, B, n, k, 1, layout, pass, g);
    r.count = steps;
    r.l2_warm = true;  // every step reads the same recurrent weights: they stay in L2 when they fit
    return r;
  };

  // cuDNN's dropout between stacked layers (training): on every layer's output but the last.
  auto dropped = [&](std::int64_t j) { return c.opt.training && l.probability > 0 && j + 1 < l.rnn_layers; };
  for (std::int64_t j = 0; j < l.rnn_layers; ++j) {
    const std::string n = l.name + ".l" + std::to_string(j);
    const std::int64_t I = l.rnn_layer_input(j);
    const bool input_gemm = l.rnn_input_weights(j) > 0;
    if (input_gemm) {
      Kernel x = gemm(c, n + ".input", B * T, D * GH, I, 1, Layout::NT, Pass::forward, g);
      x.count = l.count;
      emit(true, x);
    }
    emit(true, recurrent_gemm(n + ".recurrent", GH, H, Layout::NT, Pass::forward));
    // Reads both products (skip input: the input itself, once for all gates), c_{t-1} and the two
    // biases; writes h and c, and in training the activated gates into the reserve space.
    const double reads = (double(G) + (input_gemm ? double(G) : 1.0) + (lstm ? 1.0 : 0.0)) * state;
    const double writes = (1.0 + (lstm ? 1.0 : 0.0) + (c.opt.training ? double(G) : 0.0)) * state;
    emit(true, memory_kernel(n + "." + cell, cell, act, B * H, 0, reads, writes, cell_flops(l.rnn_cell, false), steps,
                             (l.bias ? 2.0 : 0.0) * double(GH) * bytes_of(act)));
    if (dropped(j)) emit(true, dropout_kernel(n + ".dropout", act, B * T * D * H, l.count));
  }
  if (!c.opt.training) return;

  first_of_op = true;  // _cudnn_rnn_backward: BackwardData for every layer, then BackwardWeights
  for (std::int64_t j = l.rnn_layers; j-- > 0;) {
    const std::string n = l.name + ".l" + std::to_string(j);
    const std::int64_t I = l.rnn_layer_input(j);
    if (dropped(j)) emit(false, dropout_backward_kernel(n + ".dropout.backward", act, B * T * D * H, l.count));
    // The output's and the recurrent gradient, the kept gates, c_t and c_{t-1}, dc in; the gates'
    // gradients (and dc_{t-1}) out.
    const double reads = (2.0 + double(G) + (lstm ? 3.0 : 0.0)) * state;
    const double writes = (double(G) + (lstm ? 1.0 : 0.0)) * state;
    emit(false, memory_kernel(n + "." + cell + "_backward", cell + "_backward", act, B * H, 0, reads, writes,
                              cell_flops(l.rnn_cell, true), steps));
    emit(false, recurrent_gemm(n + ".recurrent.dgrad", H, GH, Layout::NN, Pass::data_grad));
    if (l.rnn_input_weights(j) > 0) {
      Kernel x = gemm(c, n + ".input.dgrad", B * T, I, D * GH, 1, Layout::NN, Pass::data_grad, g);
      x.count = l.count;
      emit(false, x);
    } else {  // skip input: the input's gradient is the sum of its gates' gradients
      const std::int64_t x = B * T * I;
      emit(false, memory_kernel(n + ".input.dgrad", "add", act, x, 0, double(G) * double(x) * double(D), double(x), double(G),
                                l.count));
    }
  }
  for (std::int64_t j = 0; j < l.rnn_layers; ++j) {
    const std::string n = l.name + ".l" + std::to_string(j);
    const std::int64_t I = l.rnn_layer_input(j), rows = B * T;
    if (l.rnn_input_weights(j) > 0) {
      Kernel x = gemm(c, n + ".input.wgrad", D * GH, I, rows, 1, Layout::TN, Pass::weight_grad, g);
      x.count = l.count;
      emit(false, x);
    }
    Kernel w = gemm(c, n + ".recurrent.wgrad", GH, H, rows, 1, Layout::TN, Pass::weight_grad, g);
    w.count = D * l.count;
    emit(false, w);
    if (l.bias) {  // both biases get the gates' gradients summed over the steps
      const std::int64_t cols = D * GH;
      emit(false, memory_kernel(n + ".bias.wgrad", "reduce_columns", act, cols, rows, double(rows) * double(cols),
                                2.0 * double(cols), double(rows), l.count));
    }
  }
  // Kept for the backward pass: the input, every layer's output (the last is the layer's own), the
  // activated gates and, for an LSTM, every step's cell state.
  c.save_input(li, 0);
  c.save_output(li);
  const double seq_state = double(T) * double(D) * state;
  const double dropped_layers = l.probability > 0 ? double(l.rnn_layers - 1) : 0.0;  // their outputs after dropout
  c.save_extra(li, (double(l.rnn_layers) * (double(G) + (lstm ? 1.0 : 0.0)) + double(l.rnn_layers - 1) + dropped_layers) *
                       seq_state * bytes_of(act));
}

}  // namespace tcsim::workload::lowering_detail
