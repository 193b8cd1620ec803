#pragma once
// Lowers a Network to the kernels a framework launches for one inference or training step in a
// precision mode: GEMM-like layers to GEMM / convolution / fused-attention kernels (forward, and
// for training the data and weight gradients), the other layers to memory-bound kernels with their
// bytes, plus what the mode adds (autocast weight and activation casts, quantization, loss-scaling,
// the optimizer step). The rules and their sources are in sim/workload/README.md.
#include <string>
#include <vector>

#include "workload/kernel.h"
#include "workload/network/lowering/framework.h"
#include "workload/network/lowering/memory_footprint.h"
#include "workload/network/network.h"
#include "workload/network/precision.h"

namespace tcsim::workload {

enum class StepPhase { forward, backward, optimizer };
const char* to_string(StepPhase p);

struct LoweredKernel {
  Kernel kernel;       // kernel.count = how many times one step runs it (repeats included)
  int layer = -1;      // index into Network::layers; -1 for step-level kernels (optimizer, scaler)
  StepPhase phase = StepPhase::forward;
  // The host waits for the GPU to finish everything before it launches this kernel (the step read
  // a value back, a `.item()`, or sized a tensor by the GPU's data: `nonzero`), once per copy of its
  // layer: the kernels after it cannot be queued ahead.
  bool host_sync = false;
  // Every launch of it waits for the GPU before it and the host waits for it to finish (a blocking
  // copy back to the host: `.cpu()`), so its launches run one at a time, host and GPU in turn.
  bool sync_each = false;
  // Launched by a library inside the framework op of the kernel before it (cuDNN's RNN steps): the
  // host pays the op's dispatch once, at its first kernel, not per launch.
  bool library_launch = false;
};

struct LoweringOptions {
  Precision precision = Precision::fp32;
  bool training = false;
  TensorLayout conv_layout = TensorLayout::nchw;  // nhwc: channels-last tensors, no cuDNN transposes
  // Whose kernels run the layers that frameworks implement differently (Framework, above).
  Framework framework = Framework::pytorch;
  // Whether the accelerator runs fused attention kernels in this mode (the engine asks it);
  // layers with impl `automatic` use them when true, `fused` layers require them.
  bool fused_attention = false;
  // Quantized modes (int8, fp8) keep attention's GEMMs in 16 bits, as inference engines do on GPUs
  // (Q·Kᵀ and P·V read fp16 activations). An accelerator without 16-bit GEMMs (a TPU v1-like
  // int8 array) quantizes Q, K, V and the probabilities too, as fully quantized attention does
  // (FasterTransformer's int8 mode 2, TensorRT's int8 MHA): the engine sets this when the
  // accelerator refuses a GEMM in the mode's activation format.
  bool quantized_attention = false;
  // Bias and activation folded into the preceding GEMM/conv epilogue (inference engines; eager
  // PyTorch fuses only a linear layer's bias).
  bool fuse_epilogues = false;
  // With fuse_epilogues: residual adds run in the epilogue of the conv/linear before them, which
  // reads the other operand (Kernel::epilogue_inputs). Only for accelerators that cost that read
  // (Accelerator::reads_epilogue_inputs); elsewhere the adds keep their own kernels.
  bool fuse_residual_adds = true;
  // MXNet's fused batch norms (NGC builds: BatchNorm with act_type 'relu' and BatchNormAddRelu, the
  // NHWC kernels of src/operator/nn/cudnn/nhwc_batch_norm*.h), which DeepLearningExamples' MXNet
  // ResNet-50 runner turns on under float16 (`--fuse-bn-relu 1 --fuse-bn-add-relu 1`): a ReLU that
  // only reads a batch norm's output, or a residual add of a batch norm's output whose sum only a
  // ReLU reads, runs inside the batch-norm kernels (forward and backward).
  bool fuse_batch_norm_relu = false;
  bool optimizer_step = true;  // training: include the optimizer (and loss-scaler) kernels
  // The optimizer is NVIDIA DeepLearningExamples' BertAdam (PyTorch/LanguageModeling/BERT/
  // optimization.py), what its run_squad.py trains with outside fp16: the global gradient norm
  // read back to the host, then a Python loop over the parameter tensors, ten elementwise kernels
  // each (twelve with weight decay), instead of a fused multi-tensor step; then PyTorch 1.x's
  // zero_grad, one `zero_` per gradient tensor.
  bool bert_adam = false;
  // Pure fp16/bf16 training with fp32 master weights, as apex amp O2 steps them (apex/amp/
  // _process_optimizer.py): the network runs in the low format (its weights, activations and
  // gradients); after the backward pass each low-format gradient is unscaled into a fresh fp32
  // master gradient (multi_tensor_scale; fp16's dynamic loss scale then reads its overflow flag
  // back, an `.item()`), the optimizer steps the fp32 masters and its fp32 state, a multi_tensor_scale
  // copies the masters into the low-format weights, and the patched zero_grad zeroes each
  // low-format gradient tensor in a Python loop. (DeepLearningExamples' BERT pre-training, model.half()
  // with FusedLAMBAMP's fp32 params, is timed without its optimizer: optimizer_step false.) Only with
  // Precision::fp16 or bf16 (the engine checks).
  bool fp32_master = false;
  // DeepLearningExamples' run_squad.py GradientClipper, every training step between the backward
  // pass and the optimizer: multi_tensor_l2norm over the optimizer's gradients, `.item()` of the
  // norm (the host waits for the GPU), then multi_tensor_scale of every gradient in place.
  bool clip_grad_norm = false;
  // Hugging Face's DynamicCache (transformers' default): each attention layer appends its new keys
  // and values with torch.cat, copying the whole cache every step, instead of writing the new
  // tokens in place (a static or paged cache, as serving engines do). A decode step's one-token
  // append concatenates contiguous tensors (ATen's vectorized copy); a multi-token append (prefill,
  // training with use_cache) concatenates the new keys' transposed view (the general kernel).
  bool kv_cache_concat = false;
  // With kv_cache_concat: the cache is cropped back after each step (DynamicCache.crop, which keeps
  // a slice of the longer tensor: a non-contiguous view), so even a one-token append takes
  // torch.cat's general per-element kernel (CatArrayBatchedCopy on non-contiguous inputs), not the
  // vectorized copy. The first H200 loan's decode steps ran so (validation/gpu/torch_profile.py).
  bool kv_cache_cropped = false;
  // Inference: after the forward pass the host reads the output back one sample at a time, this
  // many tensors per sample (DeepLearningExamples' run_squad.py eval loop: the start and end logits
  // of each sample, `batch_start_logits[i].detach().cpu().tolist()`, two per sample). Each is a
  // device-to-host copy of one row of the output layer, with the host waiting for it; the first
  // waits for the whole forward pass. 0: the step ends with the forward's kernels.
  int per_sample_readbacks = 0;
  // Inference: the timed step is a classifier's evaluation step, which also computes the loss (the
  // model's train-only cross_entropy layer) and the top-1 and top-5 accuracy of its logits
  // (DeepLearningExamples' ConvNets validate step: `loss, output = model_and_loss(input, target)`,
  // `utils.accuracy(output, target, topk=(1, 5))`, then `torch.cuda.synchronize()`): a dozen tiny
  // kernels, each an eager op's host cost. false: the step ends with the network's output.
  bool eval_metrics = false;
};

struct Lowering {
  std::vector<LoweredKernel> kernels;  // in launch order: forward, backward (reverse layer order), optimizer
  std::vector<std::string> notes;      // decisions worth telling the user (attention fell back to unfused ...)
  MemoryFootprint footprint;
  std::int64_t weight_tensors = 0;     // parameter tensors (weights and biases), repeats included
  // Per layer: the conv/linear layer in whose epilogue it runs (fused epilogues), or -1.
  std::vector<int> epilogue_of;
};

// Throws InputError (naming the layer's file:line) for a layer the mode cannot lower, e.g.
// training in an inference-only precision (int8), or `impl: fused` attention without fused kernels.
Lowering lower_network(const Network& net, const LoweringOptions& options);

}  // namespace tcsim::workload
