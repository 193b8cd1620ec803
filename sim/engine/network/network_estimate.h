#pragma once
// Estimates one step of a network on an Accelerator: lowers it (workload/network/lowering/lowering.h),
// simulates each distinct kernel once (identical kernels share one result), adds the host's
// launch costs through a model of the launch queue, and sums per layer.
#include <cstdint>
#include <string>
#include <vector>

#include "workload/accelerator.h"
#include "workload/network/lowering/lowering.h"

namespace tcsim::engine {

struct NetworkRunOptions {
  workload::Precision precision = workload::Precision::fp32;
  bool training = false;
  TensorLayout conv_layout = TensorLayout::nchw;
  workload::Framework framework = workload::Framework::pytorch;  // whose batch-norm and pooling kernels (LoweringOptions)
  workload::AttentionImpl attention = workload::AttentionImpl::automatic;  // overrides every layer's impl unless automatic
  bool fuse_epilogues = false;
  bool fuse_batch_norm_relu = false;  // workload::LoweringOptions::fuse_batch_norm_relu (MXNet's fused batch norms)
  bool optimizer_step = true;  // training: the optimizer's kernels (NeuSight times forward + backward only)
  bool bert_adam = false;      // the optimizer is DeepLearningExamples' BertAdam (LoweringOptions::bert_adam)
  bool fp32_master = false;    // pure fp16/bf16 training with fp32 master weights (LoweringOptions::fp32_master)
  bool clip_grad_norm = false; // DeepLearningExamples' run_squad.py GradientClipper (LoweringOptions::clip_grad_norm)
  bool cuda_graphs = false;  // one graph launch per step instead of one host launch per kernel
  bool kv_cache_concat = false;  // workload::LoweringOptions::kv_cache_concat (Hugging Face's DynamicCache)
  bool kv_cache_cropped = false; // workload::LoweringOptions::kv_cache_cropped (the DynamicCache cropped after each step)
  int per_sample_readbacks = 0;  // workload::LoweringOptions::per_sample_readbacks (an eval loop's .cpu() per sample)
  bool eval_metrics = false;     // workload::LoweringOptions::eval_metrics (a classifier's loss and top-1/top-5 accuracy)
  int jobs = 0;
};

// One lowered kernel and what the model said of it.
struct KernelEstimate {
  workload::LoweredKernel lowered;
  bool modelled = true;
  std::string not_modelled_reason;  // the model's message when !modelled
  KernelResult result;              // of one run
  double time_s() const { return modelled ? result.time_s * double(lowered.kernel.count) : 0; }
};

struct LayerEstimate {
  int layer = -1;              // index in Network::layers; -1: the step's own kernels (optimizer, scaler)
  std::string name, kind, shape;
  std::int64_t count = 1;      // copies (repeat)
  std::int64_t launches = 0;   // kernel launches per step, copies included
  double host_s = 0;           // CPU time to launch them (host.kernel_overhead each, x autograd_factor forward in training)
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
  double flops = 0;
  double energy_j = 0;         // its kernels' energy per step (0 when the accelerator models none)
  std::string bound;           // of its longest kernel; "host" when its kernels are shorter than a launch
  std::vector<std::string> flags;  // padding, off-tensor-core layers, not-modelled kernels
  double time_s() const { return forward_s + backward_s + optimizer_s; }
};

struct NetworkEstimate {
  std::string network, accelerator, precision, pass;
  std::int64_t batch = 1, seq = 0, past = 0;
  bool tokens = false;
  bool sequence = false;  // a token or feature-sequence network: it has a seq
  std::vector<KernelEstimate> kernels;
  std::vector<LayerEstimate> layers;     // network order, then the step's own kernels
  double gpu_time_s = 0;                 // the kernels back to back, with the stream's queue gaps
  double queue_gap_time_s = 0;           // of which the gaps before eager launches (kernel.queue_gap)
  double host_time_s = 0;                // CPU time to launch them (0 with CUDA graphs)
  double step_time_s = 0;                // launch queue: the GPU waits for the host where it must
  bool host_bound = false;               // the GPU idles for the host more than half the step
  double flops = 0;
  // Energy per step: the kernels' (their dynamic, leakage and idle power over their time) plus idle
  // power while the GPU waits for the host. 0 (and energy_modelled false) without an energy model.
  bool energy_modelled = false;
  double energy_j = 0;
  std::int64_t power_bound_launches = 0;  // launches that run below the boost clock (power limit)
  // With a power limit (power.mode boost): the clock the step's kernels share, the highest clock
  // step whose power averaged over the step (idle gaps included) is within the limit, and that
  // average at the boost clock. 0: no limit to enforce (every kernel at the config clock).
  double step_clock_hz = 0, boost_clock_hz = 0, boost_avg_power_w = 0, power_limit_w = 0;
  bool power_limited() const { return step_clock_hz > 0 && step_clock_hz < boost_clock_hz; }
  double avg_power_w() const { return step_time_s > 0 ? energy_j / step_time_s : 0; }
  double energy_per_item_j() const;       // per sample (images) or per token (token models)
  std::int64_t launches = 0;
  std::int64_t distinct_kernels = 0;     // simulated; the rest reused their results
  std::int64_t not_modelled = 0;         // kernels the accelerator does not model (time excluded)
  workload::MemoryFootprint footprint;
  double device_memory_bytes = 0;        // 0: unknown
  std::vector<std::string> notes;
  double throughput() const;             // samples/s (images) or tokens/s (token models)
  const char* throughput_unit() const { return tokens ? "tokens/s" : "samples/s"; }
};

// A network estimate (and a sweep's step time) is a time: throws InputError, naming `where` (the
// config file, or the accelerator), when the accelerator counts cycles only (a systolic config
// with SCALE-Sim semantics and no clock), whose every kernel would otherwise read 0 us.
void require_clock(const Accelerator& acc, const std::string& where);

// The mode a step runs in when none is named: fp32 where the accelerator runs fp32 GEMMs (every GPU),
// else the first of tf32, amp-bf16, amp-fp16, bf16, fp16, int8, fp8 it runs (training: of those that
// train), so an int8-only systolic array (tpu_v1) runs int8. Throws InputError (--precision) naming
// what the accelerator refused when it runs none of them.
workload::Precision default_precision(const Accelerator& acc, bool training);

// Throws InputError when the accelerator has no clock (require_clock), when it cannot run the
// precision (naming it), for a kernel the
// model rejects that is a GEMM, convolution or attention kernel (naming its layer), and for
// lowering errors. Memory-bound kernels a model rejects (a systolic config without a vector unit)
// are kept, marked not modelled, and counted.
NetworkEstimate estimate_network(const Accelerator& acc, const workload::Network& net, const NetworkRunOptions& opt);

}  // namespace tcsim::engine
