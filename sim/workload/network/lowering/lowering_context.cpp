#include "workload/network/lowering/lowering_context.h"

#include <algorithm>
#include <cmath>

namespace tcsim::workload::lowering_detail {

namespace {
std::uint64_t whole_bytes(double b) { return b <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(b)); }
}  // namespace

FormatId storage_of(FormatId f) { return f == FormatId::tf32 ? FormatId::fp32 : f; }

FormatId wider_of(FormatId a, FormatId b) { return format_bits(b) > format_bits(a) ? b : a; }

Kernel memory_kernel(const std::string& name, const std::string& op, FormatId format, std::int64_t elements,
                     std::int64_t row_length, double read_elems, double write_elems, double flops_per_elem,
                     std::int64_t count, double extra_read_bytes, double extra_write_bytes) {
  Kernel k;
  k.kind = Kernel::Kind::memory;
  k.name = name;
  k.memory.op = op;
  k.memory.elements = elements;
  k.memory.row_length = row_length;
  k.a_format = k.b_format = k.c_format = k.d_format = format;
  const double b = bytes_of(format);
  k.bytes_read = whole_bytes(read_elems * b + extra_read_bytes);
  k.bytes_written = whole_bytes(write_elems * b + extra_write_bytes);
  k.flops_nontensor = flops_per_elem * double(elements);
  k.count = count;
  return k;
}

Kernel bytes_kernel(const std::string& name, const std::string& op, FormatId format, std::int64_t elements,
                    std::int64_t row_length, double read_bytes, double write_bytes, double flops_per_elem,
                    std::int64_t count) {
  return memory_kernel(name, op, format, elements, row_length, 0, 0, flops_per_elem, count, read_bytes, write_bytes);
}

Kernel cast_kernel(const std::string& name, FormatId from, FormatId to, std::int64_t n, std::int64_t count) {
  Kernel k = memory_kernel(name, "cast", to, n, 0, 0, double(n), 1, count, bytes_of(from) * double(n));
  k.memory.cast = casts_dynamically(from, to);  // else vectorized like any copy
  return k;
}

Kernel quantize_kernel(const std::string& name, FormatId from, FormatId to, std::int64_t n, std::int64_t count) {
  // Per element a scale multiply and a rounding, saturating conversion.
  return memory_kernel(name, "quantize", to, n, 0, 0, double(n), 2, count, bytes_of(from) * double(n));
}

Kernel dropout_kernel(const std::string& name, FormatId format, std::int64_t n, std::int64_t count) {
  return memory_kernel(name, "dropout", format, n, 0, double(n), double(n), 2, count, 0, double(n));
}

Kernel dropout_backward_kernel(const std::string& name, FormatId format, std::int64_t n, std::int64_t count) {
  return memory_kernel(name, "dropout_backward", format, n, 0, double(n), double(n), 1, count, double(n), 0);
}

bool casts_dynamically(FormatId from, FormatId to) {
  return from != to && !(from == FormatId::fp32 && (to == FormatId::fp16 || to == FormatId::bf16));
}

Context::Context(const Network& n, const LoweringOptions& o)
    : net(n), opt(o), f(formats_for(o.precision, o.training)), batch(n.batch) {
  if (o.fp32_master) {  // LoweringOptions::fp32_master: the optimizer's copy and state in fp32
    f.master = FormatId::fp32;
    f.loss_scaling = o.precision == Precision::fp16;
  }
  const std::size_t L = n.layers.size();
  out_format.assign(L, FormatId::fp32);
  saved.assign(L, false);
  epilogue_of.assign(L, -1);
  in_batch_norm.assign(L, false);
  backward.resize(L);
  // Readings of each layer's output. A block's layers read its input (the layer just before the
  // block) in the first copy and the block's last layer in the others.
  std::vector<std::int64_t> reads(L, 0);
  auto group_first = [&](const std::string& g) {
    for (std::size_t i = 0; i < L; ++i)
      if (n.layers[i].group == g) return int(i);
    return -1;
  };
  auto group_last = [&](const std::string& g) {
    for (std::size_t i = L; i-- > 0;)
      if (n.layers[i].group == g) return int(i);
    return -1;
  };
  for (const Layer& l : n.layers)
    for (int p : l.inputs) {
      if (p < 0) continue;
      const Layer& prod = n.layers[static_cast<std::size_t>(p)];
      if (!l.group.empty() && prod.group == l.group) {
        reads[std::size_t(p)] += l.count;
      } else if (!l.group.empty() && p == group_first(l.group) - 1) {
        reads[std::size_t(p)] += 1;
        reads[std::size_t(group_last(l.group))] += l.count - 1;
      } else {
        reads[std::size_t(p)] += l.group.empty() ? 1 : l.count;
      }
    }
  grad_adds.assign(L, 0);
  for (std::size_t i = 0; i < L; ++i) grad_adds[i] = std::max<std::int64_t>(0, reads[i] - n.layers[i].count);
  // A position bias without learned buckets (zeros plus the mask) has no gradient to add up.
  for (std::size_t i = 0; i < L; ++i)
    if (n.layers[i].kind == LayerKind::position_bias && n.layers[i].buckets == 0) grad_adds[i] = 0;
}

const Shape& Context::input_shape(int li, std::size_t which) const {
  const Layer& l = layer(li);
  if (which == 0) return l.input;  // what the layer reads (a linear with first_token reads one row)
  const int p = which < l.inputs.size() ? l.inputs[which] : -1;
  return p < 0 ? net.input : layer(p).output;
}

FormatId Context::input_format(int li, std::size_t which) const {
  const Layer& l = layer(li);
  const int p = which < l.inputs.size() ? l.inputs[which] : -1;
  if (p >= 0) return out_format[static_cast<std::size_t>(p)];
  if (net.task == "tokens") return FormatId::int32;  // token ids (their bytes are counted by the embedding)
  // Images and feature sequences arrive in fp32 under autocast (the first layer casts them), else
  // in the mode's format.
  return f.autocast ? FormatId::fp32 : storage_of(f.activation);
}

bool Context::reads_parameter(int li, std::size_t which) const {
  const Layer& l = layer(li);
  const int p = which < l.inputs.size() ? l.inputs[which] : -1;
  return p >= 0 && layer(p).kind == LayerKind::parameter;
}

// A parameter is one tensor per step; every other tensor has one copy per sample.
std::int64_t Context::input_elements(int li, std::size_t which) const {
  return elements(input_shape(li, which)) * (reads_parameter(li, which) ? 1 : batch);
}

std::int64_t Context::output_elements(int li) const {
  return elements(layer(li).output) * (layer(li).kind == LayerKind::parameter ? 1 : batch);
}

void Context::emit_forward(int li, Kernel k, bool host_sync) {
  if (k.kind != Kernel::Kind::memory) k.count = layer(li).count;  // one GEMM-like kernel per copy
  LoweredKernel lk{std::move(k), li, StepPhase::forward};
  lk.host_sync = host_sync;
  forward.push_back(std::move(lk));
}

void Context::emit_backward(int li, Kernel k, bool host_sync) {
  if (!opt.training) return;
  if (k.kind != Kernel::Kind::memory) k.count = layer(li).count;
  LoweredKernel lk{std::move(k), li, StepPhase::backward};
  lk.host_sync = host_sync;
  backward[static_cast<std::size_t>(li)].push_back(std::move(lk));
}

void Context::save_input(int li, std::size_t which) {
  if (!opt.training) return;
  const Layer& l = layer(li);
  const int p = which < l.inputs.size() ? l.inputs[which] : -1;
  if (p >= 0) saved[static_cast<std::size_t>(p)] = true;
  // The network input stays in the data loader's buffers: not counted.
}

void Context::save_extra(int li, double bytes_per_copy) {
  if (opt.training) saved_extra_bytes += bytes_per_copy * double(layer(li).count);
}

int Context::epilogue_producer(int p) const {
  const Layer& l = layer(p);
  if (l.inputs.empty()) return -1;
  return l.kind == LayerKind::add ? *std::max_element(l.inputs.begin(), l.inputs.end()) : l.inputs[0];
}

int Context::gemm_epilogue_root(int p) const {
  for (; p >= 0; p = epilogue_producer(p)) {
    const Layer& l = layer(p);
    if (l.kind == LayerKind::conv2d || l.kind == LayerKind::linear) return p;
    const bool identity = l.kind == LayerKind::flatten || l.kind == LayerKind::reshape ||
                          (l.kind == LayerKind::dropout && !opt.training);
    if (!identity && epilogue_of[std::size_t(p)] < 0) return -1;
  }
  return -1;
}

bool Context::quantized_by_producer(int li, std::size_t which) const {
  if (!opt.fuse_epilogues) return false;
  const Layer& l = layer(li);
  const int p = which < l.inputs.size() ? l.inputs[which] : -1;
  return p >= 0 && gemm_epilogue_root(p) >= 0;  // p < 0: the network's input
}

bool Context::cast_input(int li, std::size_t which, FormatId target) {
  const FormatId from = input_format(li, which);
  target = storage_of(target);
  if (from == target || from == FormatId::int32) return false;
  const Layer& l = layer(li);
  const std::int64_t n = input_elements(li, which);
  const std::string index = which == 0 ? "" : std::to_string(which);
  if (f.quantized_inputs && format_bits(target) == 8) {
    // Inference engines quantize activations with a kernel of their own (x / scale, rounded and
    // saturated), not PyTorch's casting copy; fused epilogues quantize in the producer's epilogue.
    if (!quantized_by_producer(li, which)) emit_forward(li, quantize_kernel(l.name + ".quantize_in" + index, from, target, n, l.count));
    return true;
  }
  emit_forward(li, cast_kernel(l.name + ".cast_in" + index, from, target, n, l.count));
  // The gradient flows back through the cast: read in the target format, written in the source's.
  emit_backward(li, cast_kernel(l.name + ".cast_in" + index + ".backward", target, from, n, l.count));
  return true;
}

}  // namespace tcsim::workload::lowering_detail
