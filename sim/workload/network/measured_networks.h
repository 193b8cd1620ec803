#pragma once
// Whole-network measurements, read as the published files are:
//  - NeuSight model timings (../shared/data/neusight/models/<GPU>/<model>-<inf|train>-<seq>-<batch>[-fusion].json:
//    e2e_latency in ms of one FP32 step; training = forward + loss.backward(), no optimizer step);
//  - NVIDIA DeepLearningExamples throughputs (../shared/data/networks/dle_single_gpu.csv: img/s or
//    seq/s of whole training steps, optimizer and input pipeline included);
//  - DeepBench's recurrent layers on the V100 (../shared/data/deepbench/*recurrent_layers*.csv);
//  - tcsim's own PyTorch step timings (validation/gpu/torch_profile.py --time-steps, e.g.
//    validation/measured/H100/profiles/<model>_<precision>[_cl]_b<batch>_steps.csv: CUDA-event ms of
//    whole training steps with Adam, GradScaler under amp-fp16; the median step is the measurement).
// Each row names the network by its models/<name>.yaml stem. Rows that cannot be compared as they
// stand (an accumulated batch with no per-step size, torch.compile fusion) keep a skip reason.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "workload/kernel.h"
#include "workload/network/lowering/framework.h"
#include "workload/network/precision.h"
#include "workload/network/sequence_mix.h"

namespace tcsim::workload {

struct MeasuredNetworkRow {
  std::string origin;        // "file" or "file:line"
  std::string model;         // models/<model>.yaml
  // Non-empty: the network itself (YAML text in models/README.md's format), for measurements of a
  // single layer that no shipped model holds (DeepBench's RNNs); `model` then only names it.
  std::string model_yaml;
  std::string label;         // e.g. "bert_large train seq 512 batch 2 fp32 (NeuSight)"
  std::string group;         // metrics group, e.g. "neusight bert_large train"
  std::string gpu;           // the GPU as the data names it
  bool training = false;
  bool optimizer_step = true;
  std::string optimizer;     // non-empty: the run's optimizer (sgd, adam, adamw), in place of the model's
  bool bert_adam = false;    // DeepLearningExamples' SQuAD fine-tuning outside fp16 (LoweringOptions::bert_adam)
  bool fp32_master = false;  // pure fp16 network, fp32 master weights (LoweringOptions::fp32_master)
  bool clip_grad_norm = false;  // run_squad.py's GradientClipper every step (LoweringOptions::clip_grad_norm)
  std::int64_t batch = 0, seq = 0;
  std::int64_t past = 0;     // inference: tokens already in the KV cache (decode)
  bool cuda_graphs = false;  // the step ran as one CUDA graph (no per-kernel host launch)
  bool kv_cache_concat = false;  // Hugging Face's DynamicCache (LoweringOptions::kv_cache_concat)
  bool kv_cache_cropped = false; // and cropped back after each step (LoweringOptions::kv_cache_cropped)
  int per_sample_readbacks = 0;  // the timed eval loop's .cpu() copies per sample (LoweringOptions)
  bool eval_metrics = false;     // the timed step adds the loss and top-1/top-5 accuracy (LoweringOptions)
  // Non-empty: the data loader pads each batch to its own length (LDDL's length bins), so one step
  // is the share-weighted mean of the steps at these lengths; `seq` is the maximum.
  std::vector<SequenceShare> seq_mix;
  Precision precision = Precision::fp32;
  TensorLayout layout = TensorLayout::nchw;
  Framework framework = Framework::pytorch;  // whose batch-norm and pooling kernels ran (LoweringOptions)
  bool fuse_batch_norm_relu = false;  // MXNet's fused batch norm + (add +) ReLU kernels (LoweringOptions)
  double measured_s = 0;     // one step
  // The step's forward and backward passes as measured separately (NeuSight's fw_latency and
  // bwall_latency, which sum to its e2e_latency); 0: not measured.
  double measured_forward_s = 0, measured_backward_s = 0;
  // The forward pass was timed right after gc.collect() and torch.cuda.empty_cache() (NeuSight's
  // measure_e2e): validation flags a forward that is long against its backward.
  bool forward_after_empty_cache = false;
  std::string skip_reason;   // non-empty: not comparable as published
  // Non-empty: what the measurement says of itself that bears on the comparison (a step-to-step
  // spread that shows a busy host); printed beside the error, the row is still compared.
  std::string measurement_note;
};

bool is_neusight_model_json(const std::filesystem::path& file);  // by name and the e2e_latency key
bool is_dle_throughput_csv(const std::filesystem::path& file);   // by header
bool is_torch_steps_csv(const std::filesystem::path& file);      // by name (*_steps.csv) and header comment
bool is_deepbench_rnn_csv(const std::filesystem::path& file);    // by header (Hidden units, N, Timesteps, times)

std::vector<MeasuredNetworkRow> read_neusight_model_json(const std::filesystem::path& file);
std::vector<MeasuredNetworkRow> read_dle_throughput_csv(const std::filesystem::path& file);
// One row per file (measured_steps.cpp): the header's `model X` names models/X.yaml (older files:
// the file name's first word; GPT-2 needs the file's 'seq N'; the script's nn.TransformerEncoder
// BERT-base is not models/bert_base.yaml and is skipped, with the reason); `pass infer`, `kv_len N`
// and `cuda_graphs` describe inference steps.
std::vector<MeasuredNetworkRow> read_torch_steps_csv(const std::filesystem::path& file);
// DeepBench's recurrent layers (measured_deepbench_rnn.cpp): one row per layer, its network given
// inline (one `rnn` layer, cuDNN's skip-input mode), forward = the forward call, backward = the
// data and weight gradient calls; the cell and precision come from the file name.
std::vector<MeasuredNetworkRow> read_deepbench_rnn_csv(const std::filesystem::path& file);

// True when a measurement's GPU ("A100-80GB (DGX A100)", "Tesla V100-PCIE-32GB", "V100-PCIE-32GB")
// is the accelerator named `accelerator` ("A100-SXM4-80GB", "V100-PCIe-32GB"): the same family and,
// when both say, the same memory size and form factor (PCIe / SXM). A variant that names another
// board is not its family: "RTX 3090 Ti", "RTX 4090D", "L40S" against an L40, a laptop part.
bool same_gpu(const std::string& measured_gpu, const std::string& accelerator);

// The device memory a measurement's GPU names, in GiB ("A100-80GB (DGX A100)" -> 80, "RTX 4090 24GB"
// -> 24: boards sold as N GB hold N GiB); 0 when the name gives none ("H100 SXM5").
double named_memory_gib(const std::string& measured_gpu);

}  // namespace tcsim::workload
