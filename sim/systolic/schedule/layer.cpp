#include "systolic/schedule/layer.h"

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"
#include "numerics/formats/format_id.h"

namespace tcsim::systolic {

std::int64_t scalesim_out_size(std::int64_t in, std::int64_t filter, std::int64_t stride) {
  return (in - filter + stride + stride - 1) / stride;  // ceil((in - filter + stride) / stride)
}

std::int64_t Layer::ifmap_address(std::int64_t mi, std::int64_t ki) const {
  const std::int64_t oy = mi / out_w, ox = mi % out_w;
  const std::int64_t fy = ki / (filter_w * channels);
  const std::int64_t rem = ki % (filter_w * channels);
  const std::int64_t fx = rem / channels, c = rem % channels;
  const std::int64_t iy = oy * stride_h + fy - pad_h, ix = ox * stride_w + fx - pad_w;
  if (iy < 0 || ix < 0 || iy >= ifmap_h || ix >= ifmap_w) return -1;
  return (iy * ifmap_w + ix) * channels + c;
}

namespace {
void require_positive(std::int64_t v, const std::string& where, const std::string& field) {
  if (v <= 0) throw InputError(where, field + " must be a positive integer, got " + std::to_string(v));
  if (v > workload::kMaxDimension)
    throw InputError(where, field + " must be at most 2^31 (2147483648), got " + std::to_string(v));
}

// Derived sizes, in double (exact enough to compare against the bounds) before any int64 product.
void require_sizes(const Layer& l, const std::string& where) {
  const double m = double(l.out_h) * double(l.out_w), n = double(l.num_filters),
               k = double(l.filter_h) * double(l.filter_w) * double(l.channels);
  const double ifmap = double(l.ifmap_h) * double(l.ifmap_w) * double(l.channels);
  const std::pair<double, const char*> sizes[] = {{ifmap, "the ifmap"}, {k * n, "the filter"}, {m * n, "the ofmap"},
                                                  {m * k, "the im2col ifmap"}};
  for (const auto& [words, what] : sizes)
    if (words > kMaxOperandWords)
      throw InputError(where, std::string(what) + " has " + format_number("%.3g", words) +
                                  " words; at most 2^40 (1.1e12) words per operand");
  if (m * n * k > kMaxLayerMacs)
    throw InputError(where, "the layer has " + format_number("%.3g", m * n * k) + " MACs; at most 2^60 (1.15e18)");
}
}  // namespace

Layer make_layer(const Kernel& kernel, Semantics semantics, const std::string& where) {
  Layer l;
  l.name = kernel.name;
  if (semantics == Semantics::faithful) {
    l.in_bytes = (format_bits(kernel.a_format) + 7) / 8;
    l.out_bytes = (format_bits(kernel.d_format) + 7) / 8;
  }
  if (kernel.kind == Kernel::Kind::memory)
    throw InputError(where, "a systolic array runs GEMM and convolution layers, not memory-bound ops");
  if (kernel.kind == Kernel::Kind::attention)
    throw InputError(where, "a systolic array runs GEMM and convolution layers, not a fused attention kernel "
                            "(lower attention to its two GEMMs)");
  if (kernel.kind == Kernel::Kind::conv && kernel.pass != Pass::forward)
    return make_layer(gemm_view(kernel), semantics, where);  // gradients run as their implicit GEMMs
  if (kernel.kind == Kernel::Kind::conv && (kernel.conv.dilation_h != 1 || kernel.conv.dilation_w != 1))
    throw InputError(where, "dilated convolutions are not modelled on a systolic array");
  if (kernel.kind == Kernel::Kind::conv && kernel.conv.groups > 1 && !kernel.conv.depthwise())
    throw InputError(where, "grouped (non-depthwise) convolutions are not modelled on a systolic array");
  if (kernel.kind == Kernel::Kind::gemm) {
    require_positive(kernel.m, where, "M");
    require_positive(kernel.n, where, "N");
    require_positive(kernel.k, where, "K");
    require_positive(kernel.batch, where, "batch");
    // SCALE-Sim's GEMM form: IFMAP M x K, filter 1 x K, one channel, N filters, stride 1.
    l.ifmap_h = kernel.m;  // batch: the model runs the layer `batch` times
    l.ifmap_w = kernel.k;
    l.filter_h = 1;
    l.filter_w = kernel.k;
    l.channels = 1;
    l.num_filters = kernel.n;
    l.out_h = l.ifmap_h;
    l.out_w = 1;
    require_sizes(l, where);
    return l;
  }
  const ConvShape& c = kernel.conv;
  require_positive(c.ifmap_h, where, "IFMAP Height");
  require_positive(c.ifmap_w, where, "IFMAP Width");
  require_positive(c.filter_h, where, "Filter Height");
  require_positive(c.filter_w, where, "Filter Width");
  require_positive(c.channels, where, "Channels");
  require_positive(c.num_filters, where, "Num Filter");
  require_positive(c.stride_h, where, "Strides");
  require_positive(c.stride_w, where, "Strides");
  require_positive(c.batch, where, "batch");
  if (c.pad_h < 0 || c.pad_w < 0) throw InputError(where, "padding must not be negative");
  if (c.pad_h > workload::kMaxDimension || c.pad_w > workload::kMaxDimension)
    throw InputError(where, "padding must be at most 2^31");
  if (c.depthwise()) throw InputError(where, "internal: depthwise layers must be expanded per channel first");
  l.ifmap_h = c.ifmap_h;  // batch: the model runs the layer `batch` times (SCALE-Sim has batch 1)
  l.ifmap_w = c.ifmap_w;
  l.filter_h = c.filter_h;
  l.filter_w = c.filter_w;
  l.channels = c.channels;
  l.num_filters = c.num_filters;
  l.stride_h = c.stride_h;
  l.stride_w = c.stride_w;
  if (semantics == Semantics::faithful) {
    l.pad_h = c.pad_h;
    l.pad_w = c.pad_w;
  }
  const std::int64_t eff_h = c.ifmap_h + 2 * l.pad_h, eff_w = c.ifmap_w + 2 * l.pad_w;
  if (c.filter_h > eff_h || c.filter_w > eff_w)
    throw InputError(where, "the filter (" + std::to_string(c.filter_h) + "x" + std::to_string(c.filter_w) +
                                ") is larger than the input (" + std::to_string(eff_h) + "x" +
                                std::to_string(eff_w) + ")");
  if (semantics == Semantics::scalesim_v2) {
    l.out_h = scalesim_out_size(c.ifmap_h, c.filter_h, c.stride_h);
    l.out_w = scalesim_out_size(c.ifmap_w, c.filter_w, c.stride_w);
  } else {
    l.out_h = (eff_h - c.filter_h) / c.stride_h + 1;
    l.out_w = (eff_w - c.filter_w) / c.stride_w + 1;
  }
  require_sizes(l, where);
  return l;
}

}  // namespace tcsim::systolic
