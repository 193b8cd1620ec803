// The step driver: forward kernels in layer order; for training, gradient accumulation where a
// tensor feeds several layers, the backward kernels in reverse layer order, the loss-scaler and
// the optimizer; and the memory footprint.
#include "workload/network/lowering/lowering.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload {

using namespace lowering_detail;

const char* to_string(StepPhase p) {
  switch (p) {
    case StepPhase::forward: return "forward";
    case StepPhase::backward: return "backward";
    case StepPhase::optimizer: return "optimizer";
  }
  return "?";
}

namespace {

// The parameter tensors of one copy of a layer, as PyTorch holds them (weights and biases are
// separate tensors; a tied weight is counted, empty, where its layer has a bias). `decayed`: weight
// decay applies (DeepLearningExamples' no_decay: not biases, not the norms' scales and shifts).
struct ParamTensor {
  const char* suffix;
  std::int64_t elements;
  bool decayed;
};
std::vector<ParamTensor> param_tensors(const Layer& l) {
  const std::int64_t p = l.params();
  if (p <= 0) return {};
  switch (l.kind) {
    case LayerKind::conv2d:
    case LayerKind::linear: {
      const std::int64_t bias = l.bias ? (l.kind == LayerKind::linear ? l.out_features : l.out_channels) : 0;
      if (!l.bias) return {{"weight", p, true}};
      return {{"weight", p - bias, true}, {"bias", bias, false}};
    }
    case LayerKind::batch_norm:
    case LayerKind::layer_norm: return {{"weight", p / 2, false}, {"bias", p / 2, false}};
    case LayerKind::rms_norm: return {{"weight", p, false}};
    case LayerKind::moe: {  // the router's weight, then each expert's two or three (no biases)
      const std::int64_t router = l.input.back() * l.experts, expert = l.input.back() * l.ffn;
      std::vector<ParamTensor> t = {{"router.weight", router, true}};
      for (std::int64_t e = 0; e < l.experts; ++e)
        for (std::int64_t m = 0; m < l.expert_matrices(); ++m) t.push_back({"expert.weight", expert, true});
      return t;
    }
    case LayerKind::rnn: {  // nn.LSTM's weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} per direction
      const std::int64_t rows = rnn_gates(l.rnn_cell) * l.hidden;
      std::vector<ParamTensor> t;
      for (std::int64_t j = 0; j < l.rnn_layers; ++j)
        for (std::int64_t d = 0; d < l.rnn_directions(); ++d) {
          if (l.rnn_input_weights(j) > 0) t.push_back({"weight_ih", rows * l.rnn_input_weights(j), true});
          t.push_back({"weight_hh", rows * l.hidden, true});
          if (l.bias) t.insert(t.end(), {{"bias_ih", rows, false}, {"bias_hh", rows, false}});
        }
      return t;
    }
    default: return {{"weight", p, true}};
  }
}

std::int64_t tensors_of(const Layer& l) { return std::int64_t(param_tensors(l).size()); }

// PyTorch's multi_tensor_apply (aten/src/ATen/native/cuda/MultiTensorApply.cuh): one launch takes
// at most depth_to_max_tensors[depth-1] tensors and depth_to_max_blocks[depth-1] chunks of 65536
// elements; launches = the larger of the two limits.
std::int64_t multi_tensor_launches(int depth, std::int64_t tensors, std::int64_t elements) {
  static const int max_tensors[] = {110, 64, 48, 36, 30};
  static const int max_blocks[] = {320, 320, 320, 320, 320};
  const int d = std::clamp(depth, 1, 5) - 1;
  const std::int64_t chunks = (elements + 65535) / 65536 + tensors;  // a tensor's last chunk is partial
  const std::int64_t by_tensors = (tensors + max_tensors[d] - 1) / max_tensors[d];
  const std::int64_t by_chunks = (chunks + max_blocks[d] - 1) / max_blocks[d];
  return std::max<std::int64_t>(1, std::max(by_tensors, by_chunks));
}

// One kernel per parameter tensor, each its own eager launch (`count` copies of a repeated layer's).
template <class Emit>
void per_parameter_tensor(const Network& net, Emit emit) {
  for (const Layer& l : net.layers)
    for (const ParamTensor& t : param_tensors(l))
      if (t.elements > 0) emit(l.name + "." + t.suffix, t.elements, t.decayed, l.count);
}

// DeepLearningExamples' BertAdam (PyTorch/LanguageModeling/BERT/optimization.py, BertAdam.step):
// multi_tensor_l2norm over every gradient and `.item()` of the result (the host waits for the GPU),
// then per parameter tensor, in order: next_m.mul_(b1).add_(1 - b1, grad); next_v.mul_(b2)
// .addcmul_(1 - b2, grad, grad); update = next_m / (next_v.sqrt() + e) (three kernels); with weight
// decay (every tensor but biases and LayerNorm's, run_squad.py's no_decay) update += wd * p.data (two);
// update_with_lr = lr * update; p.data.add_(-update_with_lr) (three). Elements read and written each.
void bert_adam_kernels(Context& c, std::vector<LoweredKernel>& out, std::int64_t params, std::int64_t tensors) {
  const FormatId m = c.f.master;
  const std::int64_t launches = multi_tensor_launches(1, tensors, params);
  Kernel norm = memory_kernel("optimizer.bert_adam.grad_norm", "norm", m, (params + launches - 1) / launches, 0,
                              double(params) / double(launches), 0, 2, launches);
  out.push_back({norm, -1, StepPhase::optimizer});
  struct Op {
    const char* name;
    const char* op;
    double reads, writes;
  };
  static const Op moments[] = {{"m.mul_", "mul", 1, 1},     {"m.add_", "add", 2, 1},  {"v.mul_", "mul", 1, 1},
                               {"v.addcmul_", "addcmul", 3, 1}, {"v.sqrt", "sqrt", 1, 1}, {"add_eps", "add", 1, 1},
                               {"div", "div", 2, 1}};
  static const Op decay[] = {{"wd_mul", "mul", 1, 1}, {"update.add_", "add", 2, 1}};
  static const Op apply[] = {{"lr_mul", "mul", 1, 1}, {"neg", "neg", 1, 1}, {"p.add_", "add", 2, 1}};
  bool first = true;
  auto tensor = [&](const std::string& name, std::int64_t n, bool decayed, std::int64_t count) {
    if (n <= 0) return;
    auto emit = [&](const Op& o) {
      LoweredKernel k{memory_kernel("optimizer.bert_adam." + name + "." + o.name, o.op, m, n, 0, o.reads * double(n),
                                    o.writes * double(n), 1, count),
                      -1, StepPhase::optimizer};
      k.host_sync = first;  // global_grad_norm's .item(): the loop starts on an idle GPU
      first = false;
      out.push_back(std::move(k));
    };
    for (const Op& o : moments) emit(o);
    if (decayed)
      for (const Op& o : decay) emit(o);
    for (const Op& o : apply) emit(o);
  };
  per_parameter_tensor(c.net, tensor);
}

// LoweringOptions::per_sample_readbacks: `per_sample` copies of one row of the output layer per
// sample, each a `.cpu()` the host waits for (a copy of the row's bytes on the GPU side, one op's
// host cost), after the forward pass. The row is the output's elements per sample / per_sample.
void readback_kernels(Context& c, std::vector<LoweredKernel>& out, int per_sample) {
  int last = -1;
  for (int i = 0; i < int(c.net.layers.size()); ++i)
    if (!c.layer(i).train_only) last = i;
  if (last < 0) return;
  const std::int64_t batch = std::max<std::int64_t>(1, c.net.batch);
  const std::int64_t row = std::max<std::int64_t>(1, c.output_elements(last) / batch / per_sample);
  Kernel k = memory_kernel(c.layer(last).name + ".readback", "copy", c.out_format[std::size_t(last)], row, 0,
                           double(row), double(row), 0, batch * per_sample);
  LoweredKernel l{k, last, StepPhase::forward};
  l.sync_each = true;  // the first .cpu() waits for the forward pass, each for its own copy
  out.push_back(std::move(l));
}

// LoweringOptions::eval_metrics: the top-1 and top-5 accuracy of the logits that the loss layer
// reads, as DeepLearningExamples' ConvNets `utils.accuracy(output, target, topk=(1, 5))` computes
// them: `output.topk(5, 1, True, True)` (a radix select per row, then a sort of the five),
// `pred.t().eq(target...)`, and per k `correct[:k].reshape(-1).float().sum(0, keepdim=True)
// .mul_(100 / batch)`; the top-5 slice of the transposed comparison is not contiguous, so its
// reshape copies. A row is one sample's (or token's) scores over the classes, the logits' last dim.
void accuracy_kernels(Context& c, std::vector<LoweredKernel>& out) {
  int logits = -1;
  for (int i = 0; i < int(c.net.layers.size()); ++i) {
    const Layer& l = c.layer(i);
    if (l.kind == LayerKind::cross_entropy && !l.inputs.empty() && l.inputs[0] >= 0) logits = l.inputs[0];
  }
  if (logits < 0) return;  // the engine refuses eval_metrics on a network without a loss layer
  const std::vector<std::int64_t>& shape = c.layer(logits).output;
  const std::int64_t classes = std::max<std::int64_t>(1, shape.empty() ? 1 : shape.back());
  const std::int64_t rows = std::max<std::int64_t>(1, c.output_elements(logits) / classes);
  const std::int64_t top = std::min<std::int64_t>(5, classes);
  const FormatId f = c.out_format[std::size_t(logits)];
  const double e = bytes_of(f), idx = 8.0, flag = 1.0;  // int64 indices and labels, bool comparisons
  const double r = double(rows), t = double(top);
  auto add = [&](Kernel k) { out.push_back({std::move(k), logits, StepPhase::forward}); };
  add(bytes_kernel("accuracy.topk", "reduce", f, rows, classes, r * double(classes) * e, r * t * (e + idx), 1, 1));
  add(bytes_kernel("accuracy.topk.sort", "copy", f, rows * top, top, r * t * (e + idx), r * t * (e + idx), 1, 1));
  add(bytes_kernel("accuracy.eq", "eq", f, rows * top, 0, r * t * idx + r * idx, r * t * flag, 1, 1));
  auto top_k = [&](std::int64_t k) {
    const std::string name = "accuracy.top" + std::to_string(k);
    const double n = r * double(k);
    if (k > 1) add(bytes_kernel(name + ".reshape", "copy", f, rows * k, 0, n * flag, n * flag, 0, 1));
    add(bytes_kernel(name + ".float", "cast", FormatId::fp32, rows * k, 0, n * flag, n * 4, 1, 1));
    add(bytes_kernel(name + ".sum", "reduce", FormatId::fp32, 1, rows * k, n * 4, 4, 1, 1));
    add(bytes_kernel(name + ".mul_", "mul", FormatId::fp32, 1, 0, 4, 4, 1, 1));
  };
  top_k(1);
  if (top > 1) top_k(top);
}

// The formats decide where the gradients and the weights live (LoweringOptions::fp32_master only sets
// them, in Context): autocast casts each weight gradient up to the master format; every other mode
// leaves it in the network's weight format. A master format other than the weights' is a copy the
// step keeps beside them (autocast's fp32 weights, fp32_master's); outside autocast only apex O2
// keeps one (fp32_master), and copies it into the low-format weights with a kernel of its own.
FormatId gradient_format(const PrecisionFormats& f) { return f.autocast ? f.master : storage_of(f.weights); }
bool keeps_master_copy(const PrecisionFormats& f) { return f.master != storage_of(f.weights); }

void optimizer_kernels(Context& c, std::vector<LoweredKernel>& out, std::int64_t params, std::int64_t tensors) {
  if (params <= 0) return;
  const FormatId m = c.f.master;
  const double pb = double(params);
  bool sync_next = false;  // a `.item()` before the next launch: the host waits for the GPU
  auto push = [&](Kernel k) {
    LoweredKernel l{std::move(k), -1, StepPhase::optimizer};
    l.host_sync = sync_next;
    sync_next = false;
    out.push_back(std::move(l));
  };
  // A multi_tensor_apply kernel over every parameter (PyTorch's and apex's amp_C use the same
  // limits); reads and writes in master-format elements per parameter.
  auto step_kernel = [&](const std::string& name, const std::string& op, int depth, double reads, double writes,
                         double flops) {
    const std::int64_t launches = multi_tensor_launches(depth, tensors, params);
    push(memory_kernel(name, op, m, (params + launches - 1) / launches, 0, reads * pb / double(launches),
                       writes * pb / double(launches), flops, launches));
  };
  const double low_bytes = bytes_of(storage_of(c.f.weights));
  // apex amp O2 (LoweringOptions::fp32_master): the gradients the optimizer reads are the fp32
  // master gradients that the unscale writes; elsewhere the backward pass's own.
  const bool apex_o2 = c.opt.fp32_master;
  const FormatId grads = apex_o2 ? m : gradient_format(c.f);
  const double g = bytes_of(grads) / bytes_of(m);  // gradient elements in master-format elements
  if (apex_o2) {
    // post_backward_with_master_weights: a fresh fp32 gradient per master (torch.empty_like), filled
    // by multi_tensor_scale from the low-format gradient times 1/scale with an overflow check; then
    // LossScaler.update_scale reads the overflow flag back (`.item()`).
    step_kernel("amp.master_grads", c.f.loss_scaling ? "unscale" : "copy", 2, low_bytes / bytes_of(m), 1, 1);
    sync_next = c.f.loss_scaling;
  } else if (c.f.loss_scaling) {  // GradScaler.unscale_: multiply every gradient by 1/scale and check for inf/nan
    step_kernel("grad_scaler.unscale", "unscale", 1, g, g, 2);
  }
  if (c.opt.clip_grad_norm) {
    // run_squad.py's GradientClipper.step: multi_tensor_l2norm over the optimizer's gradients,
    // `total_norm.item()`, then multi_tensor_scale of every gradient in place by max_norm / norm.
    step_kernel("grad_clipper.l2norm", "norm", 1, g, 0, 2);
    sync_next = true;
    step_kernel("grad_clipper.scale", "mul", 2, g, g, 1);
  }
  const std::string& opt = c.net.optimizer;
  if (c.opt.bert_adam)
    bert_adam_kernels(c, out, params, tensors);
  else if (opt == "sgd")  // p, grad, momentum read; p, momentum written
    step_kernel("optimizer.sgd", "sgd", 3, 2 + g, 2, 4);
  else  // adam / adamw: p, grad, exp_avg, exp_avg_sq read; p and both moments written
    step_kernel("optimizer." + opt, opt, 4, 3 + g, 3, 12);
  if (apex_o2) {
    // _master_params_to_model_params: multi_tensor_scale of the fp32 masters into the fp16 weights.
    step_kernel("amp.master_to_model", "copy", 2, 1, low_bytes / bytes_of(m), 0);
    // apex's patched zero_grad zeroes each low-format gradient tensor in a Python loop
    // (`param.grad.detach_(); param.grad.zero_()`), one launch per tensor.
    const FormatId lowf = storage_of(c.f.weights);
    per_parameter_tensor(c.net, [&](const std::string& name, std::int64_t n, bool, std::int64_t count) {
      push(memory_kernel("amp.zero_grad." + name, "zero", lowf, n, 0, 0, double(n), 0, count));
    });
  } else if (c.opt.bert_adam) {
    // torch.optim.Optimizer.zero_grad() of PyTorch 1.x (set_to_none=False; BertAdam's defaults have
    // no `foreach`): `p.grad.zero_()` per parameter tensor, one launch each.
    per_parameter_tensor(c.net, [&](const std::string& name, std::int64_t n, bool, std::int64_t count) {
      push(memory_kernel("optimizer.zero_grad." + name, "zero", grads, n, 0, 0, double(n), 0, count));
    });
  }
}

// Transformer Engine's delayed scaling (DelayedScaling: amax_history_len 1024, amax_compute_algo
// "max"): after the forward pass and after the backward pass, one fused multi-tensor kernel
// (amax_and_scale_update) rolls every fp8 tensor's amax history and derives its next scale: the
// forward's two tensors per te.Linear (input, weight), the backward's one (the output gradient).
void fp8_scaling_kernels(Context& c, std::vector<LoweredKernel>& out) {
  const std::int64_t linears = c.fp8_linear_copies;
  if (linears == 0) return;
  constexpr double kHistory = 1024;
  for (const auto& [name, per_linear] : {std::pair<const char*, int>{"fp8.amax_and_scale_update.forward", 2},
                                         std::pair<const char*, int>{"fp8.amax_and_scale_update.backward", 1}}) {
    const std::int64_t tensors = linears * per_linear;
    // Each tensor's history is read and written (rolled), its scale and inverse scale written.
    const double elems = double(tensors) * kHistory;
    out.push_back({memory_kernel(name, "copy", FormatId::fp32, tensors * std::int64_t(kHistory), 0, elems,
                                 elems + 2.0 * double(tensors), 1, 1),
                   -1, StepPhase::optimizer});
  }
}

// Every tensor of the step (and attention's score matrix) must stay far from int64 overflow in the
// byte and FLOP sums: at most 2^48 elements, more than any GPU holds; so must a repeat block's
// copies together (its outputs and its parameters times the repeat count).
void check_sizes(const Network& net) {
  constexpr long double kMax = 281474976710656.0L;  // 2^48
  const long double b = net.batch;
  for (const Layer& l : net.layers) {
    long double n = b * (l.count > 0 ? 1.0L : 0.0L);
    for (auto d : l.output) n *= (long double)d;
    long double scores = 0;
    if (l.kind == LayerKind::attention)
      scores = b * (long double)l.heads * (long double)l.q_len * (long double)l.kv_len;
    if (n > kMax || scores > kMax)
      throw InputError(l.where, "layer '" + l.name + "': " + (n > kMax ? "its output" : "its attention scores") +
                                    " would hold more than 2^48 elements at batch " + std::to_string(net.batch) +
                                    ": reduce --batch, --seq or --kv-len");
    const long double params = l.params_wide();
    if (params > kMax)
      throw InputError(l.where, "layer '" + l.name +
                                    "': its parameters would number more than 2^48: reduce its features, channels or vocabulary");
    const long double copies = (long double)l.count;
    if (copies > 1 && (n * copies > kMax || scores * copies > kMax || params * copies > kMax))
      throw InputError(l.where, "layer '" + l.name + "': its " + std::to_string(l.count) +
                                    " copies (repeat) would hold more than 2^48 elements together at batch " +
                                    std::to_string(net.batch) +
                                    ": reduce the repeat count, --batch, --seq or --kv-len");
  }
}

}  // namespace

Lowering lower_network(const Network& net, const LoweringOptions& options) {
  check_sizes(net);
  Context c(net, options);
  if (options.training && !c.f.training_allowed)
    throw InputError("--precision", std::string(to_string(options.precision)) +
                                        " is an inference precision; train in fp32, tf32, amp-fp16, amp-bf16, fp16, bf16 or fp8");
  if (options.training && net.optimizer != "sgd" && net.optimizer != "adam" && net.optimizer != "adamw")
    throw InputError(net.file + ": optimizer", "expected sgd, adam or adamw, got '" + net.optimizer + "'");

  for (int i = 0; i < int(net.layers.size()); ++i) {
    const Layer& l = net.layers[static_cast<std::size_t>(i)];
    // An evaluation step computes the loss (LoweringOptions::eval_metrics).
    const bool evaluated = options.eval_metrics && l.kind == LayerKind::cross_entropy;
    if (l.train_only && !options.training && !evaluated) {  // e.g. the loss: absent from an inference step
      c.out_format[static_cast<std::size_t>(i)] = c.input_format(i, 0);
      continue;
    }
    switch (l.kind) {
      case LayerKind::conv2d: lower_conv2d(c, i); break;
      case LayerKind::linear: lower_linear(c, i); break;
      case LayerKind::matmul: lower_matmul(c, i); break;
      case LayerKind::attention: lower_attention(c, i); break;
      case LayerKind::moe: lower_moe(c, i); break;
      case LayerKind::position_bias: lower_position_bias(c, i); break;
      case LayerKind::rnn: lower_rnn(c, i); break;
      default: lower_memory_layer(c, i); break;
    }
  }

  Lowering out;
  out.kernels = std::move(c.forward);
  if (!options.training && options.eval_metrics) accuracy_kernels(c, out.kernels);
  if (!options.training && options.per_sample_readbacks > 0) readback_kernels(c, out.kernels, options.per_sample_readbacks);
  std::int64_t params = 0, tensors = 0;
  for (const Layer& l : net.layers) {
    params += l.params() * l.count;
    tensors += tensors_of(l) * l.count;
  }
  out.weight_tensors = tensors;

  if (options.training) {
    for (int i = int(net.layers.size()) - 1; i >= 0; --i) {
      const Layer& l = net.layers[static_cast<std::size_t>(i)];
      // A tensor read by several layers gets the sum of their gradients: one add per extra reader.
      const std::int64_t adds = c.grad_adds[static_cast<std::size_t>(i)];
      if (adds > 0) {
        const FormatId fmt = c.out_format[static_cast<std::size_t>(i)];
        const std::int64_t n = c.output_elements(i);
        Kernel k = memory_kernel(l.name + ".grad_accumulate", "add", fmt, n, 0, 2.0 * double(n), double(n), 1, adds);
        out.kernels.push_back({k, i, StepPhase::backward});
      }
      for (auto& k : c.backward[static_cast<std::size_t>(i)]) out.kernels.push_back(std::move(k));
    }
    if (c.f.fp8_linears) fp8_scaling_kernels(c, out.kernels);
    if (options.optimizer_step) optimizer_kernels(c, out.kernels, params, tensors);
  }

  // Memory footprint.
  MemoryFootprint& m = out.footprint;
  const double p = double(params);
  m.weights = p * bytes_of(storage_of(c.f.weights));
  if (keeps_master_copy(c.f)) m.master = p * bytes_of(c.f.master);
  if (options.training) {
    const double mb = bytes_of(c.f.master);
    m.gradients = p * bytes_of(gradient_format(c.f));
    if (options.optimizer_step) m.optimizer = p * mb * (net.optimizer == "sgd" ? 1.0 : 2.0);
    double saved = c.saved_extra_bytes;
    for (std::size_t i = 0; i < net.layers.size(); ++i)
      if (c.saved[i])
        saved += double(c.output_elements(int(i))) * bytes_of(c.out_format[i]) * double(net.layers[i].count);
    m.activations = saved;
  } else {
    double peak = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const double o = double(c.output_elements(int(i))) * bytes_of(c.out_format[i]);
      const double in = double(c.input_elements(int(i), 0)) * bytes_of(c.input_format(int(i), 0));
      peak = std::max(peak, o + in);
    }
    m.activations = peak;
    m.kv_cache = c.kv_cache_bytes;
  }
  out.notes = std::move(c.notes);
  std::size_t fused = 0, first = 0;
  for (std::size_t i = c.epilogue_of.size(); i-- > 0;)
    if (c.epilogue_of[i] >= 0) ++fused, first = i;
  if (fused > 0)
    out.notes.push_back(std::to_string(fused) + " layers fused into the preceding conv/linear epilogue (first: " +
                        net.layers[first].name + ")");
  out.epilogue_of = std::move(c.epilogue_of);
  std::int64_t in_batch_norm = 0;  // copies included
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (c.in_batch_norm[i]) in_batch_norm += net.layers[i].count;
  if (in_batch_norm > 0)
    out.notes.push_back(std::to_string(in_batch_norm) + " ReLU and residual-add layers run inside the batch-norm kernels before "
                        "them (fused batch norm + ReLU and batch norm + add + ReLU kernels)");
  for (const Layer& l : net.layers)
    if (l.kind == LayerKind::attention) {
      const bool biased = l.inputs.size() == 4;  // a score bias keeps attention unfused
      const bool fused =
          !biased && (l.impl == AttentionImpl::fused || (l.impl == AttentionImpl::automatic && options.fused_attention));
      out.notes.push_back(std::string("attention runs ") +
                          (fused ? "as one fused (FlashAttention-style) kernel"
                                 : biased ? "unfused: two batched GEMMs, the score bias's add and softmax kernels (eager PyTorch)"
                                          : "unfused: two batched GEMMs, scale, mask and softmax kernels (eager PyTorch)") +
                          (!biased && l.impl == AttentionImpl::automatic && !options.fused_attention
                               ? " (no fused kernel on this accelerator in this precision)"
                               : ""));
      break;
    }
  return out;
}

}  // namespace tcsim::workload
