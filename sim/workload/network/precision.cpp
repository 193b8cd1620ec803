#include "workload/network/precision.h"

namespace tcsim::workload {

namespace {
struct Named {
  Precision p;
  const char* name;
};
constexpr Named kNames[] = {{Precision::fp32, "fp32"},         {Precision::tf32, "tf32"},
                            {Precision::amp_fp16, "amp-fp16"}, {Precision::amp_bf16, "amp-bf16"},
                            {Precision::fp16, "fp16"},         {Precision::bf16, "bf16"},
                            {Precision::fp8, "fp8"},           {Precision::int8, "int8"}};
}  // namespace

const char* to_string(Precision p) {
  for (const auto& n : kNames)
    if (n.p == p) return n.name;
  return "?";
}

bool parse_precision(const std::string& text, Precision& p) {
  for (const auto& n : kNames)
    if (text == n.name) {
      p = n.p;
      return true;
    }
  return false;
}

std::string precision_names() {
  std::string s;
  for (const auto& n : kNames) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

PrecisionFormats formats_of(Precision p) {
  using F = FormatId;
  PrecisionFormats f{};
  switch (p) {
    case Precision::fp32:  // CUDA cores throughout
      f = {F::fp32, F::fp32, F::fp32, F::fp32, F::fp32, F::fp32};
      break;
    case Precision::tf32:  // tensors stay fp32 in memory; GEMMs round their inputs to tf32
      f = {F::tf32, F::fp32, F::fp32, F::fp32, F::fp32, F::fp32};
      break;
    case Precision::amp_fp16:  // torch.autocast(float16): fp32 weights cast per step, fp32 for the fp32-list ops
      f = {F::fp16, F::fp32, F::fp16, F::fp16, F::fp32, F::fp32};
      f.autocast = true;
      f.loss_scaling = true;
      break;
    case Precision::amp_bf16:  // no loss scaling: bf16 has fp32's exponent range
      f = {F::bf16, F::fp32, F::bf16, F::bf16, F::fp32, F::fp32};
      f.autocast = true;
      break;
    case Precision::fp16:  // model.half(): everything fp16, fp32 accumulation inside the GEMMs
      f = {F::fp16, F::fp32, F::fp16, F::fp16, F::fp16, F::fp16};
      break;
    case Precision::bf16:
      f = {F::bf16, F::fp32, F::bf16, F::bf16, F::bf16, F::bf16};
      break;
    case Precision::fp8:  // inference: e4m3 weights and quantized activations, bf16 elsewhere (training: formats_for)
      f = {F::e4m3, F::fp32, F::bf16, F::e4m3, F::bf16, F::e4m3};
      f.quantized_inputs = true;
      break;
    case Precision::int8:  // inference: s8 weights and quantized activations, s32 accumulation, fp16 elsewhere
      f = {F::int8, F::int32, F::fp16, F::int8, F::fp16, F::int8};
      f.quantized_inputs = true;
      f.training_allowed = false;
      break;
  }
  return f;
}

double bytes_of(FormatId f) { return format_bits(f) / 8.0; }

PrecisionFormats formats_for(Precision p, bool training) {
  if (!training || p != Precision::fp8) return formats_of(p);
  PrecisionFormats f = formats_of(Precision::amp_bf16);
  f.fp8_linears = true;
  return f;
}

}  // namespace tcsim::workload
