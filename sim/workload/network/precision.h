#pragma once
// Precision modes of a network run, as frameworks run them (PyTorch autocast / pure casts /
// inference engines): which format each kind of tensor is stored in and which unit does the math.
#include <string>
#include <vector>

#include "numerics/formats/format_id.h"

namespace tcsim::workload {

enum class Precision { fp32, tf32, amp_fp16, amp_bf16, fp16, bf16, fp8, int8 };

struct PrecisionFormats {
  FormatId gemm_in;          // A and B of GEMMs, convolutions and attention
  FormatId gemm_acc;         // the accumulator (Kernel c/d)
  FormatId activation;       // what GEMM-like layers write and elementwise ops keep
  FormatId weights;          // the model's weights as the GEMMs read them
  FormatId kept_fp32;        // output of the ops autocast keeps in fp32 (softmax, norms, loss)
  FormatId master;           // fp32 master weights, gradients and optimizer state (amp); else `weights`
  bool autocast = false;     // weights stored in fp32 and cast per step (PyTorch native AMP)
  bool loss_scaling = false; // dynamic loss scaling: gradients unscaled and checked each step (fp16)
  bool quantized_inputs = false;  // fp8/int8: each GEMM's activation is quantized first
  bool training_allowed = true;
  // Training in fp8, as NVIDIA's Transformer Engine runs it (te.Linear under fp8_autocast with the
  // HYBRID format: e4m3 activations and weights, e5m2 gradients): linear layers run fp8 GEMMs, the
  // rest of the step is autocast bf16 (formats_for).
  bool fp8_linears = false;
};

const char* to_string(Precision p);            // "amp-fp16" ...
// Parses "fp32", "tf32", "amp-fp16", "amp-bf16", "fp16", "bf16", "fp8", "int8"; false if unknown.
bool parse_precision(const std::string& text, Precision& p);
std::string precision_names();                 // "fp32, tf32, amp-fp16, ..." for messages
PrecisionFormats formats_of(Precision p);
// The formats of a step: formats_of(p), except that an fp8 training step is amp-bf16's with
// fp8_linears (int8 does not train: training_allowed).
PrecisionFormats formats_for(Precision p, bool training);

// Bytes of one element of a tensor stored in `f` (fp32 4, fp16 2, e4m3 1, int64 token ids 8 ...).
double bytes_of(FormatId f);

}  // namespace tcsim::workload
