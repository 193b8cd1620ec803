#pragma once
// The device memory one step of a network needs, by kind, in bytes (all copies of repeated layers).
namespace tcsim::workload {

struct MemoryFootprint {
  double weights = 0;      // the weights as the GEMMs read them (autocast: the per-step low-precision copies)
  double master = 0;       // fp32 master weights kept beside them (autocast modes, LoweringOptions::fp32_master)
  double gradients = 0;    // training
  double optimizer = 0;    // training: momentum (sgd) or first and second moments (adam/adamw)
  double activations = 0;  // training: tensors kept for the backward pass; inference: the largest
                           // live input + output of one layer
  double kv_cache = 0;     // inference of token models: keys and values of past + new tokens
  double total() const { return weights + master + gradients + optimizer + activations + kv_cache; }
};

}  // namespace tcsim::workload
