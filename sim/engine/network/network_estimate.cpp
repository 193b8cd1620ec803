#include "engine/network/network_estimate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "common/error.h"
#include "common/text/strings.h"
#include "engine/kernel_key.h"
#include "engine/kernel_runner.h"
#include "engine/launch_host_cost.h"
#include "engine/network/launch_queue.h"
#include "engine/step_clock.h"
#include "systolic/systolic_model.h"

namespace tcsim::engine {

using workload::LayerKind;
using workload::LoweredKernel;

double NetworkEstimate::throughput() const {
  if (step_time_s <= 0) return 0;
  return double(batch) * double(tokens ? std::max<std::int64_t>(1, seq) : 1) / step_time_s;
}

double NetworkEstimate::energy_per_item_j() const {
  const double items = double(batch) * double(tokens ? std::max<std::int64_t>(1, seq) : 1);
  return items > 0 ? energy_j / items : 0;
}

namespace {

bool mentions_padding(const KernelResult& r) {
  for (const auto& n : r.notes)
    if (n.find("multiple of 8") != std::string::npos || n.find("multiples of 8") != std::string::npos) return true;
  return false;
}

std::int64_t round8(std::int64_t v) { return (v + 7) / 8 * 8; }

// A systolic array's note that a kernel fills it poorly (systolic::note_underfill) without its
// prefix, or "".
std::string underfill_detail(const KernelResult& r) {
  constexpr std::string_view prefix = systolic::kUnderfilledNote;
  for (const auto& n : r.notes)
    if (n.rfind(prefix, 0) == 0) return n.substr(prefix.size());
  return "";
}

// Per layer, the kernels that fill a systolic array poorly: their time and the first one's note.
struct Underfill {
  double time_s = 0;
  int kernels = 0;
  std::string first;
};

// The same kernel with its user-visible sizes rounded up to multiples of 8.
Kernel padded_to_8(Kernel k) {
  if (k.kind == Kernel::Kind::conv) {
    k.conv.channels = round8(k.conv.channels);
    k.conv.num_filters = round8(k.conv.num_filters);
  } else {
    k.m = round8(k.m);
    k.n = round8(k.n);
    k.k = round8(k.k);
  }
  return k;
}

// The launch queue: the GPU runs kernels back to back unless the host has not launched the next yet.
// kernel_s: the kernels' own time; gap_s: the stream's gaps before them.
struct QueuedStep {
  double step_s = 0, host_s = 0, kernel_s = 0, gap_s = 0;
};
// kernels[i]'s launches each take gpu_s[i] on the GPU after a queue gap of `gap` (eager launches;
// a CUDA graph's replay has none to speak of: 0.1-0.4 us on the lent H200); graph_host_s >= 0: the
// step is one CUDA graph launch of that host cost.
// host_s[i]: the host's time for each launch of kernels[i].
QueuedStep queue_step(const std::vector<workload::LoweredKernel>& kernels, const std::vector<double>& gpu_s,
                      const std::vector<double>& host_s, const workload::Network& net, double graph_host_s,
                      double gap) {
  // Kernels of a repeat block launch copy by copy: a run of kernels from one block and phase is
  // replayed `count` times, each kernel taking its share of its launches per copy.
  LaunchQueue q(0, gap);  // every launch gives its own host seconds
  auto group_of = [&](const workload::LoweredKernel& k) -> const workload::Layer* {
    const int li = k.layer;
    return li >= 0 && !net.layers[std::size_t(li)].group.empty() ? &net.layers[std::size_t(li)] : nullptr;
  };
  for (std::size_t i = 0; i < kernels.size();) {
    const workload::Layer* g = group_of(kernels[i]);
    std::size_t end = i + 1;
    while (g && end < kernels.size() && group_of(kernels[end]) &&
           group_of(kernels[end])->group == g->group && kernels[end].phase == kernels[i].phase)
      ++end;
    const std::int64_t copies = g ? std::max<std::int64_t>(1, g->count) : 1;
    auto launch_copy = [&](LaunchQueue& queue, std::int64_t c) {
      for (std::size_t j = i; j < end; ++j) {
        const workload::LoweredKernel& k = kernels[j];
        const std::int64_t n = k.kernel.count;
        if (k.host_sync) queue.synchronize();  // each copy's launch waits
        const std::int64_t launches = n * (c + 1) / copies - n * c / copies;
        if (k.sync_each)
          queue.repeat(launches, [&](LaunchQueue& one) {
            one.synchronize();
            one.launch(gpu_s[j], 1, host_s[j]);
            one.synchronize();
          });
        else
          queue.launch(gpu_s[j], launches, host_s[j]);
      }
    };
    // Copies after the first launch alike when every kernel's launches split evenly: replayed in
    // closed form (LaunchQueue::repeat), so the cost does not grow with the repeat count.
    bool even = true;
    for (std::size_t j = i; j < end; ++j) even = even && kernels[j].kernel.count % copies == 0;
    launch_copy(q, 0);
    if (even) q.repeat(copies - 1, [&](LaunchQueue& queue) { launch_copy(queue, 1); });
    else
      for (std::int64_t c = 1; c < copies; ++c) launch_copy(q, c);
    i = end;
  }
  if (graph_host_s >= 0) q.graph_launch(graph_host_s);
  return {q.finish_s(), q.host_s(), q.gpu_busy_s(), q.gaps_s()};
}

// Why the accelerator refuses `probe` (its InputError's message), or nothing when it runs it.
std::optional<std::string> refusal(const Accelerator& acc, const Kernel& probe) {
  try {
    (void)acc.run(probe);
    return std::nullopt;
  } catch (const InputError& e) {
    return std::string(e.what());
  }
}

bool accepts(const Accelerator& acc, const Kernel& probe) { return !refusal(acc, probe); }

// A GEMM in the mode's main operand and accumulator formats: whether the accelerator has the mode.
Kernel precision_probe(workload::Precision p) {
  const workload::PrecisionFormats f = workload::formats_of(p);
  return make_gemm("precision probe", 512, 512, 512, f.gemm_in, f.gemm_acc);
}

void check_precision(const Accelerator& acc, const NetworkRunOptions& opt) {
  if (const auto why = refusal(acc, precision_probe(opt.precision)))
    throw InputError("--precision", std::string(workload::to_string(opt.precision)) + " is not available on " +
                                        acc.name() + ": " + *why);
}

bool fused_attention_available(const Accelerator& acc, const NetworkRunOptions& opt) {
  const workload::PrecisionFormats f = workload::formats_for(opt.precision, opt.training);
  Kernel probe;
  probe.kind = Kernel::Kind::attention;
  probe.name = "attention probe";
  probe.attention = {1, 8, 8, 256, 256, 64, false};
  probe.a_format = probe.b_format = f.quantized_inputs ? f.activation : f.gemm_in;
  probe.c_format = probe.d_format = FormatId::fp32;
  return accepts(acc, probe);
}

// Quantized modes keep attention's GEMMs in their 16-bit activation format, where the accelerator
// has such GEMMs; an array whose MACs take only 8-bit operands (array.formats) gets quantized
// attention instead (LoweringOptions::quantized_attention).
bool needs_quantized_attention(const Accelerator& acc, const NetworkRunOptions& opt) {
  const workload::PrecisionFormats f = workload::formats_for(opt.precision, opt.training);
  return f.quantized_inputs && !accepts(acc, make_gemm("attention probe", 256, 256, 64, f.activation, FormatId::fp32));
}

}  // namespace

workload::Precision default_precision(const Accelerator& acc, bool training) {
  using workload::Precision;
  const std::optional<std::string> why = refusal(acc, precision_probe(Precision::fp32));
  if (!why) return Precision::fp32;
  for (Precision p : {Precision::tf32, Precision::amp_bf16, Precision::amp_fp16, Precision::bf16, Precision::fp16,
                      Precision::int8, Precision::fp8})
    if ((!training || workload::formats_of(p).training_allowed) && accepts(acc, precision_probe(p))) return p;
  throw InputError("--precision", std::string("none given, and ") + acc.name() + " runs none of the " +
                                      (training ? "training " : "") + "precisions (" + *why + ")" +
                                      (training ? "; its formats may be inference ones: try --pass infer" : ""));
}

void require_clock(const Accelerator& acc, const std::string& where) {
  if (acc.clock_hz() > 0) return;
  throw InputError(where + ": clock", "none: " + acc.name() + " counts cycles only (SCALE-Sim semantics), and " +
                                          "a network or sweep estimate is a time; add one to the config (clock: 1GHz) " +
                                          "or override it (--set clock=1GHz, or a sweep axis on clock)");
}

NetworkEstimate estimate_network(const Accelerator& acc, const workload::Network& net, const NetworkRunOptions& opt) {
  require_clock(acc, "config");
  check_precision(acc, opt);
  if (opt.fp32_master && (opt.precision != workload::Precision::fp16 && opt.precision != workload::Precision::bf16))
    throw InputError("--fp32-master", std::string("only with --precision fp16 or bf16 (pure low-precision training), got ") +
                                          workload::to_string(opt.precision) +
                                          ": the amp modes keep fp32 master weights already, fp32 and tf32 train in fp32, "
                                          "fp8 trains with them as Transformer Engine does, int8 is inference-only");
  if (opt.fp32_master && !opt.training)
    throw InputError("--fp32-master", "master weights are the optimizer's: use it with --pass train");
  if (opt.eval_metrics && opt.training)
    throw InputError("--eval-metrics", "an evaluation step's loss and accuracy: use it with --pass infer");
  if (opt.eval_metrics &&
      std::none_of(net.layers.begin(), net.layers.end(), [](const workload::Layer& l) { return l.kind == LayerKind::cross_entropy; }))
    throw InputError("--eval-metrics", net.file + " has no cross_entropy (loss) layer: the accuracy scores the logits it reads");
  workload::LoweringOptions lo;
  lo.precision = opt.precision;
  lo.training = opt.training;
  lo.conv_layout = opt.conv_layout;
  lo.framework = opt.framework;
  lo.fuse_epilogues = opt.fuse_epilogues;
  lo.fuse_residual_adds = acc.reads_epilogue_inputs();
  lo.fuse_batch_norm_relu = opt.fuse_batch_norm_relu;
  lo.optimizer_step = opt.optimizer_step;
  lo.bert_adam = opt.bert_adam;
  lo.fp32_master = opt.fp32_master;
  lo.clip_grad_norm = opt.clip_grad_norm;
  lo.kv_cache_concat = opt.kv_cache_concat;
  lo.kv_cache_cropped = opt.kv_cache_cropped;
  lo.per_sample_readbacks = opt.per_sample_readbacks;
  lo.eval_metrics = opt.eval_metrics;
  lo.fused_attention = fused_attention_available(acc, opt);
  lo.quantized_attention = needs_quantized_attention(acc, opt);
  if (opt.attention == workload::AttentionImpl::fused && !lo.fused_attention)
    throw InputError("--attention", "fused, but " + acc.name() + " has no fused attention kernel in " +
                                        std::string(workload::to_string(opt.precision)) +
                                        " (FlashAttention needs sm_80+ and fp16/bf16); use --attention auto or unfused");
  workload::Network n = net;
  if (opt.attention != workload::AttentionImpl::automatic)
    for (auto& l : n.layers)
      if (l.kind == LayerKind::attention) l.impl = opt.attention;
  workload::Lowering low = workload::lower_network(n, lo);
  // A CUDA graph replays fixed launches: a step that sizes tensors from the GPU's data between its
  // kernels (a mixture of experts' nonzero and .item()) cannot be captured as one.
  if (opt.cuda_graphs)
    for (const auto& k : low.kernels)
      if (k.host_sync && k.layer >= 0) {
        const workload::Layer& l = n.layers[std::size_t(k.layer)];
        throw InputError("--cuda-graphs", "layer '" + l.name + "' (" + l.where + ") reads values back to the host between its kernels (" +
                                              k.kernel.name + ": nonzero or .item()), which one CUDA graph cannot capture; drop --cuda-graphs");
      }

  NetworkEstimate e;
  e.network = net.name;
  e.accelerator = acc.name();
  e.precision = workload::to_string(opt.precision);
  e.pass = opt.training ? "train" : "infer";
  e.batch = net.batch;
  e.seq = net.seq;
  e.past = net.past;
  e.tokens = net.task == "tokens";
  e.sequence = net.has_sequence();
  e.footprint = low.footprint;
  e.device_memory_bytes = acc.memory_bytes();
  e.notes = low.notes;

  // Distinct kernels, simulated once each.
  std::map<std::string, std::size_t> index;
  std::vector<Kernel> unique;
  std::vector<std::size_t> slot(low.kernels.size());
  for (std::size_t i = 0; i < low.kernels.size(); ++i) {
    const std::string key = kernel_key(low.kernels[i].kernel);
    auto [it, fresh] = index.emplace(key, unique.size());
    if (fresh) unique.push_back(low.kernels[i].kernel);
    slot[i] = it->second;
  }
  e.distinct_kernels = std::int64_t(unique.size());

  const double host = opt.cuda_graphs ? 0 : acc.host_overhead_s();
  // Eager PyTorch's training forward ops also record the backward graph: they cost the host more.
  // (TensorFlow and MXNet, as DeepLearningExamples runs them, execute a graph built beforehand.)
  const bool eager_autograd = opt.training && opt.framework == workload::Framework::pytorch;
  const double autograd = eager_autograd ? acc.host_autograd_factor() : 1.0;
  // Each launch's host seconds (launch_host_cost.h), found once: none inside a library's op or
  // under a CUDA graph.
  std::vector<double> host_s(low.kernels.size(), 0.0);
  if (!opt.cuda_graphs)
    for (std::size_t i = 0; i < low.kernels.size(); ++i)
      if (const workload::LoweredKernel& k = low.kernels[i]; !k.library_launch)
        host_s[i] = launch_host_s(acc, &k.kernel, k.phase == workload::StepPhase::forward, autograd);
  const bool classes_differ = std::any_of(kHostOpClasses.begin(), kHostOpClasses.end(), [&](HostOpClass c) {
    return acc.host_op_overhead_s(c) != acc.host_overhead_s();
  });
  const double graph_host_s = opt.cuda_graphs ? acc.host_overhead_s() : -1;
  const double gap = opt.cuda_graphs ? 0 : acc.queue_gap_s();

  // The clock (step_clock.h): a loop repeats the step back to back and the power limit acts on the
  // power averaged over a window longer than its kernels, so they share one clock. The step's power
  // is its kernels' energy at that clock plus idle power while the GPU waits for the host (a kernel
  // the model rejects counts nothing here; it is reported below).
  // Each launch's GPU time from its distinct kernel's outcome (0 where the model rejects it).
  auto launch_times = [&](const std::vector<KernelOutcome>& outcomes) {
    std::vector<double> gpu_s(low.kernels.size(), 0.0);
    for (std::size_t i = 0; i < low.kernels.size(); ++i)
      if (const KernelOutcome& o = outcomes[slot[i]]; o.ok) gpu_s[i] = o.result.time_s;
    return gpu_s;
  };
  const StepClock clock = choose_step_clock(acc, unique, opt.jobs, [&](const std::vector<KernelOutcome>& outcomes) {
    double energy = 0;
    for (std::size_t i = 0; i < low.kernels.size(); ++i)
      if (const KernelOutcome& o = outcomes[slot[i]]; o.ok)
        energy += o.result.get("energy_j").value_or(0) * double(low.kernels[i].kernel.count);
    const QueuedStep q = queue_step(low.kernels, launch_times(outcomes), host_s, net, graph_host_s, gap);
    energy += acc.idle_power_w() * std::max(0.0, q.step_s - q.kernel_s);
    return q.step_s > 0 ? energy / q.step_s : 0.0;
  });
  e.step_clock_hz = clock.clock_hz;
  e.boost_clock_hz = clock.boost_clock_hz;
  e.boost_avg_power_w = clock.boost_power_w;
  e.power_limit_w = clock.limit_w;

  // Each launch with its distinct kernel's outcome at that clock; `not_modelled` counts the
  // memory-bound launches the accelerator does not model (any other rejected kernel is an error
  // naming its layer).
  e.kernels.reserve(low.kernels.size());
  for (std::size_t i = 0; i < low.kernels.size(); ++i) {
    const KernelOutcome& o = clock.outcomes[slot[i]];
    KernelEstimate k;
    k.lowered = low.kernels[i];
    const Kernel& kern = k.lowered.kernel;
    if (!o.ok) {
      const int li = k.lowered.layer;
      if (kern.kind != Kernel::Kind::memory)
        throw InputError(li >= 0 ? net.layers[std::size_t(li)].where : kern.name,
                         (li >= 0 ? "layer '" + net.layers[std::size_t(li)].name + "': " : std::string()) + o.error);
      k.modelled = false;
      // The message names the kernel that was simulated for this key; this launch may be another.
      k.not_modelled_reason = o.where == unique[slot[i]].name ? o.detail : o.error;
      e.not_modelled += kern.count;
    } else {
      k.result = o.result;
      k.result.name = kern.name;
    }
    e.kernels.push_back(std::move(k));
  }

  // Per layer: e.layers[i] is layer i; the step's own kernels get a row after them.
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& l = net.layers[i];
    LayerEstimate r;
    r.layer = int(i);
    r.name = l.name;
    r.kind = workload::to_string(l.kind);
    r.shape = workload::to_string(l.output);
    r.count = l.count;
    if (i < low.epilogue_of.size() && low.epilogue_of[i] >= 0)
      r.flags.push_back("fused into " + net.layers[std::size_t(low.epilogue_of[i])].name + "'s epilogue");
    e.layers.push_back(std::move(r));
  }
  LayerEstimate step;
  step.name = "(step)";
  step.kind = "optimizer";
  std::vector<double> longest(net.layers.size() + 1, 0.0);  // per layer, the step's row last
  std::vector<Underfill> underfill(net.layers.size());
  for (std::size_t i = 0; i < e.kernels.size(); ++i) {
    const KernelEstimate& k = e.kernels[i];  // e.kernels[i] is low.kernels[i]
    const int li = k.lowered.layer;
    LayerEstimate& r = li >= 0 ? e.layers[std::size_t(li)] : step;
    double& top = longest[li >= 0 ? std::size_t(li) : net.layers.size()];
    const std::int64_t n = k.lowered.kernel.count;
    r.launches += n;
    r.host_s += double(n) * host_s[i];
    e.launches += n;
    const double t = k.time_s();
    switch (k.lowered.phase) {
      case workload::StepPhase::forward: r.forward_s += t; break;
      case workload::StepPhase::backward: r.backward_s += t; break;
      case workload::StepPhase::optimizer: r.optimizer_s += t; break;
    }
    if (!k.modelled) {
      r.flags.push_back(k.lowered.kernel.name + " not modelled: " + k.not_modelled_reason);
      continue;
    }
    r.flops += k.result.flops * double(n);
    e.flops += k.result.flops * double(n);
    if (li >= 0)
      if (std::string detail = underfill_detail(k.result); !detail.empty()) {
        Underfill& u = underfill[std::size_t(li)];
        u.time_s += t;
        if (u.kernels++ == 0) u.first = k.lowered.kernel.name + ": " + detail;
      }
    const double kernel_energy = k.result.get("energy_j").value_or(0) * double(n);
    r.energy_j += kernel_energy;
    e.energy_j += kernel_energy;
    if (k.result.get("power_bound").value_or(0) > 0 || e.power_limited()) e.power_bound_launches += n;
    if (t > top) {
      top = t;
      r.bound = k.result.bound;
    }
  }
  if (step.launches > 0) e.layers.push_back(step);

  // Flags: kernels that pay for sizes that are not multiples of 8, with the time at the fixed size.
  const bool tensor_mode = opt.precision != workload::Precision::fp32;
  for (LayerEstimate& r : e.layers) {
    if (r.layer < 0 || !tensor_mode) continue;
    // cost = the layer's time minus what its useful work would take at the padded size's rate.
    double actual = 0, at_fixed_rate = 0;
    bool padded = false;
    for (const KernelEstimate& k : e.kernels)
      if (k.lowered.layer == r.layer && k.modelled && k.lowered.kernel.kind != Kernel::Kind::memory &&
          mentions_padding(k.result)) {
        padded = true;
        actual += k.time_s();
        try {
          const Kernel padded = padded_to_8(k.lowered.kernel);  // at the step's clock, as the kernel itself ran
          const KernelResult f = e.step_clock_hz > 0 ? acc.run_fixed_clock(padded, e.step_clock_hz) : acc.run(padded);
          at_fixed_rate += f.flops > 0 ? f.time_s * k.result.flops / f.flops * double(k.lowered.kernel.count) : k.time_s();
        } catch (const InputError&) {
          at_fixed_rate += k.time_s();
        }
      }
    if (!padded) continue;
    const auto& l = net.layers[std::size_t(r.layer)];
    std::string sizes;
    if (l.kind == LayerKind::conv2d) {
      const auto& in = l.inputs.empty() || l.inputs[0] < 0 ? net.input : net.layers[std::size_t(l.inputs[0])].output;
      const std::int64_t ch = in.empty() ? 0 : in[0];
      if (ch % 8) sizes += "channels " + std::to_string(ch) + " -> " + std::to_string(round8(ch));
      if (l.out_channels % 8)
        sizes += (sizes.empty() ? "" : ", ") + std::string("filters ") + std::to_string(l.out_channels) + " -> " +
                 std::to_string(round8(l.out_channels));
    } else if (l.kind == LayerKind::linear) {
      if (l.out_features % 8)
        sizes += "out_features " + std::to_string(l.out_features) + " -> " + std::to_string(round8(l.out_features));
    }
    if (sizes.empty()) sizes = "GEMM sizes (tokens x batch) -> multiples of 8";
    r.flags.push_back("sizes not multiples of 8 (padded, or off the tensor cores): " +
                      format_number("%.3g", std::max(0.0, actual - at_fixed_rate) * 1e6) + " of its " +
                      format_number("%.4g", actual * 1e6) + " us; fix: " + sizes);
  }

  // Flags: kernels whose dimensions fill a systolic array poorly, with their share of the layer.
  for (std::size_t i = 0; i < underfill.size(); ++i) {
    const Underfill& u = underfill[i];
    if (u.kernels == 0) continue;
    LayerEstimate& r = e.layers[i];
    r.flags.push_back(std::string(systolic::kUnderfilledNote) + format_number("%.4g", u.time_s * 1e6) + " of its " +
                      format_number("%.4g", r.time_s() * 1e6) + " us in " + std::to_string(u.kernels) + " such kernel" +
                      (u.kernels > 1 ? "s" : "") + "; " + u.first);
  }

  const QueuedStep queued = queue_step(low.kernels, launch_times(clock.outcomes), host_s, net, graph_host_s, gap);
  e.gpu_time_s = queued.kernel_s + queued.gap_s;
  e.queue_gap_time_s = queued.gap_s;
  e.host_time_s = queued.host_s;
  e.step_time_s = queued.step_s;
  e.host_bound = e.step_time_s > 0 && (e.step_time_s - e.gpu_time_s) > 0.5 * e.step_time_s;
  e.energy_modelled = acc.models_energy();
  if (e.energy_modelled) e.energy_j += acc.idle_power_w() * std::max(0.0, e.step_time_s - queued.kernel_s);
  for (LayerEstimate& r : e.layers)
    if (r.launches > 0 && r.time_s() < r.host_s) r.bound = "host";
  if (e.host_bound)
    e.notes.push_back("host-bound: the GPU waits " + format_number("%.3g", (e.step_time_s - e.gpu_time_s) * 1e3) +
                      " ms of the step for kernel launches (" +
                      (classes_differ ? std::string("host.op_overhead.* by class") : format_number("%.3g", host * 1e6) + " us each") +
                      (autograd != 1.0 ? ", x" + format_number("%.3g", autograd) + " in the forward pass: autograd" : "") +
                      "); --cuda-graphs removes most of it");
  if (e.power_limited())
    e.notes.push_back("power-limited step: " + format_number("%.0f", e.boost_avg_power_w) + " W averaged over the step at the " +
                      format_number("%.0f", e.boost_clock_hz / 1e6) + " MHz boost clock, over the " +
                      format_number("%.0f", e.power_limit_w) + " W limit; the step's kernels share " +
                      format_number("%.0f", e.step_clock_hz / 1e6) +
                      " MHz (the limit acts on the power averaged over a window longer than the step's kernels)");
  if (e.not_modelled > 0)
    e.notes.push_back(std::to_string(e.not_modelled) + " kernel launches are not modelled on " + acc.name() +
                      " (memory-bound ops): their time is not in the totals");
  return e;
}

}  // namespace tcsim::engine
