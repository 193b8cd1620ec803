// Lowering of a mixture-of-experts layer as eager PyTorch runs Hugging Face's Switch Transformer
// (SwitchTransformersTop1Router, SwitchTransformersSparseMLP) or Mixtral (MixtralSparseMoeBlock):
// the router's kernels, then a Python loop over the experts whose gathers and scatters size their
// outputs from the GPU's data (`nonzero`, `torch.where`: the host waits for the GPU), then the
// routing weights applied to the result.
#include <algorithm>

#include "common/error.h"
#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload::lowering_detail {

namespace {

// The layer's kernels, with their bytes given directly (int64 indices, boolean masks and fp32
// router probabilities beside activations of the mode's format).
class MoeKernels {
 public:
  MoeKernels(Context& c, int li) : c_(c), li_(li), l_(c.layer(li)) {}

  // An elementwise or reduction kernel: `elements` outputs (a reduction's rows of `row` inputs).
  Kernel mem(const std::string& suffix, const char* op, std::int64_t elements, std::int64_t row, double read_bytes,
             double write_bytes) const {
    return bytes_kernel(l_.name + suffix, op, FormatId::fp32, elements, row, read_bytes, write_bytes, 1, l_.count);
  }
  void fwd(const std::string& suffix, const char* op, std::int64_t elements, std::int64_t row, double rd, double wr,
           bool sync = false) {
    c_.emit_forward(li_, mem(suffix, op, elements, row, rd, wr), sync);
  }
  void bwd(const std::string& suffix, const char* op, std::int64_t elements, std::int64_t row, double rd, double wr,
           bool sync = false) {
    c_.emit_backward(li_, mem(suffix, op, elements, row, rd, wr), sync);
  }
  // torch.nonzero of a boolean mask over `n` elements selecting `chosen`: a count, read back by the
  // host (it sizes the output), then the selection writing the int64 indices.
  void nonzero(bool backward, const std::string& suffix, std::int64_t n, std::int64_t chosen, bool sync_before = false) {
    auto emit = backward ? &MoeKernels::bwd : &MoeKernels::fwd;
    (this->*emit)(suffix + ".nonzero_count", "reduce", 1, n, double(n), 8, sync_before);
    (this->*emit)(suffix + ".nonzero", "nonzero", n, 0, double(n), 8.0 * double(chosen), true);
  }
  // What both routers start with: training's multiplicative jitter on the input (HF's
  // router_jitter_noise) and the classifier over every token.
  void router_forward(FormatId h, FormatId gemm_fmt) {
    const std::int64_t N = c_.batch * l_.q_len, d = l_.input.back();
    const double nd = double(N) * double(d) * bytes_of(h);
    if (c_.opt.training && l_.jitter) {
      fwd(".router.jitter_noise", "uniform", N * d, 0, 0, nd);
      fwd(".router.jitter", "mul", N * d, 0, 2 * nd, nd);
    }
    c_.emit_forward(li_, gemm(c_, l_.name + ".router", N, l_.experts, d, 1, Layout::NT, Pass::forward, gemm_fmt));
  }
  // And end their backward with: the classifier's gradients, the jitter's.
  void router_backward(FormatId h, FormatId gemm_fmt) {
    const std::int64_t N = c_.batch * l_.q_len, d = l_.input.back(), E = l_.experts;
    const double nd = double(N) * double(d) * bytes_of(h);
    c_.emit_backward(li_, gemm(c_, l_.name + ".router.dgrad", N, d, E, 1, Layout::NN, Pass::data_grad, gemm_fmt));
    c_.emit_backward(li_, gemm(c_, l_.name + ".router.wgrad", E, d, N, 1, Layout::TN, Pass::weight_grad, gemm_fmt));
    if (l_.jitter) bwd(".router.jitter.backward", "mul", N * d, 0, 2 * nd, nd);
  }

 private:
  Context& c_;
  int li_;
  const Layer& l_;
};

// One expert's feed-forward network over `rows` tokens gathered in the layer's input format `h`,
// forward: their cast to the GEMM format (autocast, quantized modes), w1 (and w3 when gated), the
// activation (times w3's output when gated) and training's dropout in the mode's activation format,
// w2, and its output's cast back to `h` (HF's `.to(dtype)` before the scatter). Names
// `<layer>.expertN.w1` ...
void expert_forward(Context& c, int li, const std::string& e, std::int64_t rows, FormatId h, FormatId gemm_fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t d = l.input.back(), F = l.ffn, a = rows * F;
  const FormatId in = storage_of(gemm_fmt), act = storage_of(c.f.activation);
  const double ab = double(a) * bytes_of(act);
  if (in != h)
    c.emit_forward(li, c.f.quantized_inputs ? quantize_kernel(e + ".quantize_in", h, in, rows * d, l.count)
                                            : cast_kernel(e + ".cast_in", h, in, rows * d, l.count));
  c.emit_forward(li, gemm(c, e + ".w1", rows, F, d, 1, Layout::NT, Pass::forward, gemm_fmt));
  if (l.gated) c.emit_forward(li, gemm(c, e + ".w3", rows, F, d, 1, Layout::NT, Pass::forward, gemm_fmt));
  const double act_flops = l.activation == LayerKind::relu ? 1 : 8;
  c.emit_forward(li, bytes_kernel(e + ".act", to_string(l.activation), act, a, 0, ab, ab, act_flops, l.count));
  if (l.gated) c.emit_forward(li, bytes_kernel(e + ".gate_mul", "mul", act, a, 0, 2 * ab, ab, 1, l.count));
  if (c.opt.training && l.probability > 0) c.emit_forward(li, dropout_kernel(e + ".dropout", act, a, l.count));
  if (c.f.quantized_inputs) c.emit_forward(li, quantize_kernel(e + ".quantize_hidden", act, in, a, l.count));
  c.emit_forward(li, gemm(c, e + ".w2", rows, d, F, 1, Layout::NT, Pass::forward, gemm_fmt));
  if (act != h) c.emit_forward(li, cast_kernel(e + ".cast_out", act, h, rows * d, l.count));
}

// Its backward in autograd's order; kept for it: the input rows, the activation's input and output
// (and w3's output), the dropout mask and output.
void expert_backward(Context& c, int li, const std::string& e, std::int64_t rows, FormatId h, FormatId gemm_fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t d = l.input.back(), F = l.ffn, a = rows * F;
  const FormatId in = storage_of(gemm_fmt), act = storage_of(c.f.activation);
  const double ab = double(a) * bytes_of(act);
  if (act != h) c.emit_backward(li, cast_kernel(e + ".cast_out.backward", h, act, rows * d, l.count));
  c.emit_backward(li, gemm(c, e + ".w2.dgrad", rows, F, d, 1, Layout::NN, Pass::data_grad, gemm_fmt));
  c.emit_backward(li, gemm(c, e + ".w2.wgrad", d, F, rows, 1, Layout::TN, Pass::weight_grad, gemm_fmt));
  if (l.probability > 0) c.emit_backward(li, dropout_backward_kernel(e + ".dropout.backward", act, a, l.count));
  if (l.gated) {
    c.emit_backward(li, bytes_kernel(e + ".gate_mul.backward_a", "mul", act, a, 0, 2 * ab, ab, 1, l.count));
    c.emit_backward(li, bytes_kernel(e + ".gate_mul.backward_b", "mul", act, a, 0, 2 * ab, ab, 1, l.count));
  }
  const double act_flops = l.activation == LayerKind::relu ? 1 : 8;
  c.emit_backward(li, bytes_kernel(e + ".act.backward", to_string(l.activation), act, a, 0, 2 * ab, ab, act_flops, l.count));
  if (l.gated) {
    c.emit_backward(li, gemm(c, e + ".w3.dgrad", rows, d, F, 1, Layout::NN, Pass::data_grad, gemm_fmt));
    c.emit_backward(li, gemm(c, e + ".w3.wgrad", F, d, rows, 1, Layout::TN, Pass::weight_grad, gemm_fmt));
  }
  c.emit_backward(li, gemm(c, e + ".w1.dgrad", rows, d, F, 1, Layout::NN, Pass::data_grad, gemm_fmt));
  c.emit_backward(li, gemm(c, e + ".w1.wgrad", F, d, rows, 1, Layout::TN, Pass::weight_grad, gemm_fmt));
  const double rd = double(rows * d) * bytes_of(in);
  if (l.gated)  // the input's two gradients
    c.emit_backward(li, bytes_kernel(e + ".grad_add", "add", in, rows * d, 0, 2 * rd, rd, 1, l.count));
  if (in != h) c.emit_backward(li, cast_kernel(e + ".cast_in.backward", in, h, rows * d, l.count));
  c.save_extra(li, rd + ab * (l.gated ? 3 : 1) + (l.probability > 0 ? double(a) * (bytes_of(act) + 1) : 0));
}

// Hugging Face's MixtralSparseMoeBlock: softmax over the experts, the top_k and their weights
// renormalised, then per expert torch.where on its one-hot mask (nonzero: the host waits), a gather
// of its tokens, the expert times each token's weight, and index_add_ into the zeroed output.
// Backward needs no sync: the saved indices are int64.
void lower_topk_moe(Context& c, int li, MoeKernels& k, FormatId h, FormatId gemm_fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t B = c.batch, T = l.q_len, d = l.input.back(), E = l.experts, K = l.top_k;
  const std::int64_t N = B * T, rows = l.expert_rows(B);
  const double hb = bytes_of(h), nd = double(N) * double(d), ne = double(N) * double(E), nk = double(N) * double(K);
  const double rd = double(rows) * double(d);
  const bool training = c.opt.training;
  k.router_forward(h, gemm_fmt);
  k.fwd(".router.softmax", "softmax", N * E, E, ne * hb, 4 * ne);
  k.fwd(".router.topk", "reduce", N * K, E, 4 * ne, 12 * nk);
  k.fwd(".router.sum", "reduce", N, K, 4 * nk, 4.0 * double(N));
  k.fwd(".router.normalise", "div", N * K, 0, 4 * nk + 4.0 * double(N), 4 * nk);
  if (h != FormatId::fp32) c.emit_forward(li, cast_kernel(l.name + ".router.cast", FormatId::fp32, h, N * K, l.count));
  k.fwd(".output_zero", "fill", N * d, 0, 0, nd * hb);
  k.fwd(".one_hot_zero", "fill", N * K * E, 0, 0, 8 * nk * double(E));
  k.fwd(".one_hot", "scatter", N * K, 0, 8 * nk, 8 * nk);
  // Every expert's torch.where(mask) waits for the GPU; one with no tokens stops there (HF's
  // `if top_x.shape[0] == 0: continue`).
  const std::int64_t active = l.active_experts(B);
  for (std::int64_t x = 0; x < E; ++x) {
    const std::string e = ".expert" + std::to_string(x);
    k.nonzero(false, e + ".where", N * K, x < active ? rows : 0);  // the token and slot indices
    if (x >= active) continue;
    k.fwd(e + ".gather", "index", rows * d, 0, rd * hb + 8.0 * double(rows), rd * hb);
    expert_forward(c, li, l.name + e, rows, h, gemm_fmt);
    k.fwd(e + ".weight_gather", "index", rows, 0, 16.0 * double(rows) + double(rows) * hb, double(rows) * hb);
    Kernel weigh = k.mem(e + ".weigh", "mul", rows * d, 0, rd * hb + double(rows) * hb, rd * hb);
    weigh.memory.strided_dims = 2;
    c.emit_forward(li, weigh);
    k.fwd(e + ".index_add", "index_add", rows * d, 0, 2 * rd * hb + 8.0 * double(rows), rd * hb);
  }
  if (!training) return;
  for (std::int64_t x = active - 1; x >= 0; --x) {
    const std::string e = ".expert" + std::to_string(x);
    k.bwd(e + ".index_add.backward", "index", rows * d, 0, rd * hb + 8.0 * double(rows), rd * hb);
    Kernel weigh = k.mem(e + ".weigh.backward_a", "mul", rows * d, 0, rd * hb + double(rows) * hb, rd * hb);
    weigh.memory.strided_dims = 2;
    c.emit_backward(li, weigh);
    k.bwd(e + ".weigh.backward_b", "mul", rows * d, 0, 2 * rd * hb, rd * hb);
    k.bwd(e + ".weigh.backward_reduce", "reduce", rows, d, rd * hb, double(rows) * hb);
    k.bwd(e + ".weight_gather.backward_zero", "fill", N * K, 0, 0, nk * hb);
    k.bwd(e + ".weight_gather.backward", "index_put", rows, 0, 16.0 * double(rows) + double(rows) * hb, double(rows) * hb);
    expert_backward(c, li, l.name + e, rows, h, gemm_fmt);
    k.bwd(e + ".gather.backward_zero", "fill", N * d, 0, 0, nd * hb);
    k.bwd(e + ".gather.backward", "index_put", rows * d, 0, rd * hb + 8.0 * double(rows), rd * hb);
  }
  // The routing weights' gradients (one per expert) and the input's (the gathers' and the router's).
  Kernel acc_w = k.mem(".routing_weights.grad_accumulate", "add", N * K, 0, 2 * nk * hb, nk * hb);
  acc_w.count = l.count * std::max<std::int64_t>(1, active - 1);
  c.emit_backward(li, acc_w);
  Kernel acc = k.mem(".grad_accumulate", "add", N * d, 0, 2 * nd * hb, nd * hb);
  acc.count = l.count * active;
  c.emit_backward(li, acc);
  k.bwd(".router.normalise.backward", "div", N * K, 0, 8 * nk + 4.0 * double(N), 4 * nk);
  k.bwd(".router.normalise.backward_reduce", "reduce", N, K, 8 * nk, 4.0 * double(N));
  k.bwd(".router.sum.backward", "add", N * K, 0, 4 * nk + 4.0 * double(N), 4 * nk);
  k.bwd(".router.topk.backward_zero", "fill", N * E, 0, 0, 4 * ne);
  k.bwd(".router.topk.backward", "scatter", N * K, 0, 12 * nk, 4 * nk);
  k.bwd(".router.softmax.backward", "softmax_backward", N * E, E, 8 * ne, ne * hb);
  k.router_backward(h, gemm_fmt);
  c.save_input(li, 0);
  c.save_extra(li, 4 * ne + 12 * nk + 16.0 * double(rows * active) + (l.jitter ? nd * hb : 0));
}

// An inference engine's fused MoE (vLLM's fused_moe, model_executor/layers/fused_moe): the router's
// GEMM, one topk_softmax kernel (softmax, top-k, renormalisation), moe_align_block_size (the
// (token, expert) pairs sorted by expert and padded to the GEMM's row block), a grouped GEMM over
// every expert for w1 (w1 and w3 stacked when gated), the activation (silu_and_mul when gated), a
// grouped GEMM for w2 with the routing weights applied in its epilogue, and moe_sum over each token's
// top_k outputs. The GPU sizes everything: no host sync. Inference only.
void lower_grouped_moe(Context& c, int li, FormatId h, FormatId gemm_fmt) {
  const Layer& l = c.layer(li);
  if (c.opt.training)
    throw InputError(l.where, "layer '" + l.name + "': dispatch: grouped is an inference engine's fused MoE kernel; "
                              "train with dispatch: routed");
  const std::int64_t B = c.batch, T = l.q_len, d = l.input.back(), E = l.experts, K = l.top_k, F = l.ffn;
  const std::int64_t N = B * T, rows = l.expert_rows(B), pairs = N * K;
  const double hb = bytes_of(h), ne = double(N) * double(E), nk = double(pairs);
  auto mem = [&](const std::string& suffix, const char* op, FormatId f, std::int64_t n, std::int64_t row, double rd, double wr) {
    c.emit_forward(li, bytes_kernel(l.name + suffix, op, f, n, row, rd, wr, 1, l.count));
  };
  c.emit_forward(li, gemm(c, l.name + ".router", N, E, d, 1, Layout::NT, Pass::forward, gemm_fmt));
  mem(".topk_softmax", "softmax", FormatId::fp32, N * E, E, ne * hb, 8 * nk);
  // Only the experts with tokens run (the grid covers the sorted tokens' blocks).
  const std::int64_t active = l.active_experts(B);
  mem(".align_block_size", "moe_align", FormatId::fp32, pairs, 0, 4 * nk, 8 * nk + 4.0 * double(active * rows));
  const std::int64_t up = l.gated ? 2 * F : F;
  c.emit_forward(li, gemm(c, l.name + ".experts.w1", rows, up, d, active, Layout::NT, Pass::forward, gemm_fmt));
  const FormatId act = storage_of(c.f.activation);
  const std::int64_t hidden = active * rows * F;
  const double ab = double(hidden) * bytes_of(act);
  if (l.gated)
    mem(".experts.act_and_mul", l.activation == LayerKind::silu ? "silu_and_mul" : "gelu_and_mul", act, hidden, F, 2 * ab, ab);
  else
    mem(".experts.act", to_string(l.activation), act, hidden, 0, ab, ab);
  if (c.f.quantized_inputs)
    c.emit_forward(li, quantize_kernel(l.name + ".experts.quantize_hidden", act, storage_of(gemm_fmt), hidden, l.count));
  c.emit_forward(li, gemm(c, l.name + ".experts.w2", rows, d, F, active, Layout::NT, Pass::forward, gemm_fmt));
  mem(".moe_sum", "reduce", h, N * d, K, nk * double(d) * hb, double(N * d) * hb);
}

// Hugging Face's Switch Transformer (SwitchTransformersTop1Router, SwitchTransformersSparseMLP;
// `padded`: NeuSight's patched forward): the top-1 router with its capacity, then per expert a
// boolean-mask gather, the expert, and a scatter into a copy of the input, each through nonzero.
void lower_switch_moe(Context& c, int li, MoeKernels& k, FormatId h, FormatId gemm_fmt) {
  const Layer& l = c.layer(li);
  const std::int64_t B = c.batch, T = l.q_len, d = l.input.back(), E = l.experts;
  const std::int64_t N = B * T;                    // tokens
  const std::int64_t rows = l.expert_rows(B);      // each expert GEMM's rows
  const std::int64_t chosen = l.routed_rows(B);    // tokens each expert takes
  const bool padded = l.dispatch == MoeDispatch::padded;
  const bool training = c.opt.training;
  const double hb = bytes_of(h);
  const double nd = double(N) * double(d), ne = double(N) * double(E);
  // The router (in fp32, HF's router_dtype): training's multiplicative jitter on its input, the
  // classifier, softmax, the top-1 expert as a one-hot mask, its running count per expert over the
  // sequence (cumsum) against the capacity, and each token's top probability.
  k.router_forward(h, gemm_fmt);
  k.fwd(".router.softmax", "softmax", N * E, E, 4 * ne, 4 * ne);
  k.fwd(".router.argmax", "reduce", N, E, 4 * ne, 8.0 * double(N));
  k.fwd(".router.one_hot_zero", "fill", N * E, 0, 0, 8 * ne);
  k.fwd(".router.one_hot", "scatter", N, 0, 8.0 * double(N), 8.0 * double(N));
  k.fwd(".router.cumsum", "cumsum", N * E, T, 8 * ne, 8 * ne);  // along the sequence: a serial scan
  k.fwd(".router.capacity_mask", "le", N * E, 0, 8 * ne, ne);
  k.fwd(".router.mask", "mul", N * E, 0, 9 * ne, 8 * ne);
  k.fwd(".router.max", "reduce", N, E, 4 * ne, 12.0 * double(N));

  // Dispatch: the output starts as a copy of the input (tokens past the capacity keep it).
  k.fwd(".argmax", "reduce", N, E, 8 * ne, 8.0 * double(N));
  k.fwd(".clone", "copy", N * d, 0, nd * hb, nd * hb);
  if (padded) k.fwd(".buffer_zero", "fill", rows * d, 0, 0, double(rows * d) * hb);
  const double cd = double(chosen) * double(d);
  for (std::int64_t x = 0; x < E; ++x) {
    const std::string e = ".expert" + std::to_string(x);
    const std::string full = l.name + e;
    k.fwd(e + ".mask", "copy", N, 0, 8.0 * double(N), double(N));  // router_mask[:, :, e].bool()
    if (padded) k.fwd(e + ".count", "reduce", 1, N, double(N), 8);  // torch.count_nonzero
    k.nonzero(false, e + ".gather", N, chosen);
    k.fwd(e + ".gather", "index", chosen * d, 0, cd * hb + 8.0 * double(chosen), cd * hb);
    // padded: buffer[:num_chosen] = tokens; the slice bound is the count's .item()
    if (padded) k.fwd(e + ".fill_buffer", "copy", chosen * d, 0, cd * hb, cd * hb, true);
    expert_forward(c, li, full, rows, h, gemm_fmt);
    // next_states[mask] = out[:num_chosen] (padded: another .item()), an index_put through nonzero
    k.nonzero(false, e + ".scatter", N, chosen, padded);
    k.fwd(e + ".scatter", "index_put", chosen * d, 0, cd * hb + 8.0 * double(chosen), cd * hb);
  }
  // Each token's output times its routing probability (broadcast over the features).
  Kernel combine = k.mem(".combine", "mul", N * d, 0, nd * hb + 4.0 * double(N), nd * hb);
  combine.memory.strided_dims = 2;
  c.emit_forward(li, combine);

  if (!training) return;
  // Backward, in autograd's order.
  Kernel combine_grad = combine;
  combine_grad.name = l.name + ".combine.backward_a";
  c.emit_backward(li, combine_grad);
  k.bwd(".combine.backward_b", "mul", N * d, 0, 2 * nd * hb, nd * hb);
  k.bwd(".combine.backward_reduce", "reduce", N, d, nd * hb, 4.0 * double(N));
  for (std::int64_t x = E - 1; x >= 0; --x) {
    const std::string e = ".expert" + std::to_string(x);
    const std::string full = l.name + e;
    // index_put_'s gradients: the values' is grad[mask] (nonzero, gather), the rest's is the
    // gradient with those rows zeroed (a clone, nonzero, index_put of zeros).
    k.nonzero(true, e + ".scatter.backward_values", N, chosen);
    k.bwd(e + ".scatter.backward_values", "index", chosen * d, 0, cd * hb + 8.0 * double(chosen), cd * hb);
    k.bwd(e + ".scatter.backward_self.clone", "copy", N * d, 0, nd * hb, nd * hb);
    k.bwd(e + ".scatter.backward_self.zeros", "fill", chosen * d, 0, 0, cd * hb);
    k.nonzero(true, e + ".scatter.backward_self", N, chosen);
    k.bwd(e + ".scatter.backward_self", "index_put", chosen * d, 0, cd * hb + 8.0 * double(chosen), cd * hb);
    if (padded) {  // out[:num_chosen]'s gradient into the buffer's rows (slice_backward)
      k.bwd(e + ".slice.backward_zero", "fill", rows * d, 0, 0, double(rows * d) * hb);
      k.bwd(e + ".slice.backward", "copy", chosen * d, 0, cd * hb, cd * hb);
      // The buffer's rows past this expert's tokens were the previous expert's output: its gradient
      // adds what flows back from the next expert's input.
      if (x < E - 1) k.bwd(e + ".buffer.grad_accumulate", "add", rows * d, 0, 2.0 * double(rows * d) * hb, double(rows * d) * hb);
    }
    expert_backward(c, li, full, rows, h, gemm_fmt);
    if (padded) {  // buffer[:num_chosen] = tokens (CopySlices): the tokens' gradient is the slice's
      k.bwd(e + ".fill_buffer.backward", "copy", chosen * d, 0, cd * hb, cd * hb);
      k.bwd(e + ".fill_buffer.backward_zero", "fill", chosen * d, 0, 0, cd * hb);
    }
    // x[mask]'s gradient: zeros of the input's size, then an accumulating index_put through nonzero.
    k.bwd(e + ".gather.backward_zero", "fill", N * d, 0, 0, nd * hb);
    k.nonzero(true, e + ".gather.backward", N, chosen);
    k.bwd(e + ".gather.backward", "index_put", chosen * d, 0, cd * hb + 8.0 * double(chosen), cd * hb);
  }
  // The router's input gets the clone's, each gather's and the classifier's gradients.
  k.bwd(".grad_accumulate", "add", N * d, 0, 2 * nd * hb, nd * hb);
  Kernel acc = k.mem(".grad_accumulate_experts", "add", N * d, 0, 2 * nd * hb, nd * hb);
  acc.count = l.count * E;
  c.emit_backward(li, acc);
  // max's gradient (zeros, then a scatter of the top probability's), softmax's, the classifier's.
  k.bwd(".router.max.backward_zero", "fill", N * E, 0, 0, 4 * ne);
  k.bwd(".router.max.backward", "scatter", N, 0, 12.0 * double(N), 4.0 * double(N));
  k.bwd(".router.softmax.backward", "softmax_backward", N * E, E, 8 * ne, 4 * ne);
  k.router_backward(h, gemm_fmt);

  // Kept for the backward (besides the experts'): the input, the router's probabilities and
  // choices, the jitter noise.
  c.save_input(li, 0);
  c.save_extra(li, 4 * ne + 8.0 * double(N) + (l.jitter ? nd * hb : 0));
}

}  // namespace

void lower_moe(Context& c, int li) {
  const Layer& l = c.layer(li);
  const FormatId h = c.input_format(li, 0);
  const FormatId gemm_fmt = c.f.gemm_in;
  c.cast_input(li, 0, storage_of(gemm_fmt));  // for the router's classifier (autocast, quantized modes)
  cast_weights(c, li, l.params());
  c.out_format[static_cast<std::size_t>(li)] = h;
  MoeKernels k(c, li);
  if (l.dispatch == MoeDispatch::grouped) lower_grouped_moe(c, li, h, gemm_fmt);
  else if (l.router == MoeRouter::topk) lower_topk_moe(c, li, k, h, gemm_fmt);
  else lower_switch_moe(c, li, k, h, gemm_fmt);
}

}  // namespace tcsim::workload::lowering_detail
