#include "workload/measured/neusight.h"

#include <set>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"

namespace tcsim::workload {
namespace {

int require(const CsvText& csv, const char* name) {
  const int c = csv.column(name);
  if (c < 0) throw InputError(location(csv.file, csv.header_line, name), "missing NeuSight column");
  return c;
}

// The memory-bound ops: full-size tensors read, and the formula's arithmetic per element with a
// function evaluation (erf, tanh, pow) counted as one operation (the routines' instructions are
// the model's business: special-function unit, memory_launch.cpp).
struct MemoryOp {
  const char* csv_name;
  const char* op;      // MemoryShape::op
  int inputs;          // full-size tensors read
  double flops;        // per element
  double host_calls;   // host work of NeuSight's call path (host_calls(), below)
};
const MemoryOp kMemoryOps[] = {
    {"add", "add", 2, 1, 1},      {"mul", "mul", 2, 1, 1},      {"div", "div", 2, 1, 1},
    {"pow", "pow", 2, 1, 1},      {"tanh", "tanh", 1, 1, 1},    {"addu", "add", 1, 1, 1.16},
    {"mulu", "mul", 1, 1, 1.16},  {"divu", "div", 1, 1, 1.16},  {"powu", "pow", 1, 1, 1.11},
    {"relu", "relu", 1, 1, 1.21}, {"gelu", "gelu", 1, 5, 1.17},
};

// CALIBRATION (of the data set, not of a GPU): NeuSight calls torch.add/mul/div/pow/tanh directly
// (1 host call), the *u ops through a lambda with a Python scalar, relu/gelu/softmax/ln through
// nn.Module objects (neusight/Dataset/collect.py), whose Python wrappers add host work before the
// launch. The factors are the V100 floors (median of rows under 200k elements) over the direct
// calls' floor (32.4 us); on the A100 host (floor 26.6 us) the same ratios are 1.18-1.19 (scalar),
// 1.19 (relu), 1.15 (gelu), 1.26 (softmax), 1.75 (ln): within 0.05.
// torch.bmm (a cuBLAS call), nn.Linear (module, addmm with a cublasLt bias epilogue) and nn.Conv2d
// (module, cuDNN) likewise: bmm from the 10th percentile of its rows under 2 MFLOP (their median
// still holds kernel time; A100: 1.18), linear from the median of those rows (A100: 2.08).
// conv: an nn.Conv2d call's host work grows with the number of convolution shapes the process has
// run before it. PyTorch 2.1.x keeps cuDNN v8 execution plans in a per-thread LRU cache
// (pytorch/pytorch#104369) whose lookup calls std::list::size() three times, and the 2.1 wheels use
// GCC's old C++ ABI, where size() walks the whole list (fixed in 2.2 by pytorch/pytorch#114110, the
// fix for #108474 "CNN w variable sized input performance regression"). NeuSight times every conv
// shape in one process in file order (the "Torch Version" column says p2.1.0), so row i's lookup
// walks one cached plan per distinct shape so far: the floor of the small-kernel rows rises from
// ~80 us at the top of the V100 file to ~320 us at its bottom (A100 80GB host: ~40 -> ~330 us),
// where the other ops' floors stay flat.
// CALIBRATION fitted on all V100 PCIe conv rows (a scan of base in steps of 0.25 calls and of the
// per-plan cost in steps of 0.000125 calls, with the cuDNN 8 GPU model of sim/gpu): the module and
// cuDNN v8 call path = 2.0 calls (nn.Linear's path is 2.02), each cached plan 0.0015 calls (49 ns
// on the 32.5 us host: three list walks of ~16 ns per node). V100 conv 15.14 -> 9.59% MAPE; held
// out, A100 80GB PCIe conv 20.27 -> 15.23% (the earlier constant 5.5 calls for every row).
constexpr double kSoftmaxHostCalls = 1.26;
constexpr double kLayerNormHostCalls = 1.80;
constexpr double kBmmHostCalls = 1.22;
constexpr double kLinearHostCalls = 2.02;
constexpr double kConvHostCalls = 2.0;
constexpr double kConvCachedPlanHostCalls = 0.0015;

// Whether a "Torch Version" value ("p2.1.0", "2.1.2+cu121") is a 2.1.x release: the releases whose
// cuDNN plan cache walks a list on every lookup (see above).
bool walks_plan_list(std::string_view version) {
  if (!version.empty() && (version.front() == 'p' || version.front() == 'v')) version.remove_prefix(1);
  return version.starts_with("2.1.") || version == "2.1";
}

Kernel fp32_kernel(Kernel::Kind kind, std::string name) {
  Kernel k;
  k.kind = kind;
  k.name = std::move(name);
  k.a_format = k.b_format = k.c_format = k.d_format = FormatId::fp32;
  return k;
}

}  // namespace

bool is_neusight_header(const std::vector<std::string>& header) {
  bool op = false, latency = false;
  for (const auto& h : header) {
    op = op || to_lower(h) == "opname";
    latency = latency || to_lower(h) == "latency";
  }
  return op && latency;
}

MeasuredSet neusight_from_table(const CsvText& csv) {
  const std::string& f = csv.file;
  const int c_op = require(csv, "OPName"), c_lat = require(csv, "Latency");
  const int c_dev = csv.column("Device");
  const int c_torch = csv.column("Torch Version");
  std::set<std::string> conv_shapes;  // distinct conv shapes timed so far: cached cuDNN plans
  MeasuredSet out;
  out.source = f;
  out.schema = "neusight-kernels";
  std::string device;
  for (const CsvRow& row : csv.rows) {
    const long ln = row.line;
    const std::string op = to_lower(trim(csv.field(row, c_op)));
    const double time_s = parse_time_seconds(csv.field(row, c_lat), 1e-3, "ms", f, ln, "Latency");
    if (device.empty() && c_dev >= 0) device = csv.field(row, c_dev);
    auto dim = [&](const char* col) { return parse_dimension(csv.field(row, require(csv, col)), f, ln, col); };
    MeasuredRow m;
    m.time_s = time_s;
    m.origin = location(f, ln);
    if (op == "bmm" || op == "linear") {
      const std::int64_t b = dim("B"), mm = dim("M"), n = dim("N"), kk = dim("K");
      const std::string shape = std::to_string(b) + "x" + std::to_string(mm) + "x" + std::to_string(n) + "x" +
                                std::to_string(kk);
      m.kernel = fp32_kernel(Kernel::Kind::gemm, op + "_" + shape);
      if (op == "bmm") {
        m.kernel.m = mm, m.kernel.n = kk, m.kernel.k = n, m.kernel.batch = b;
        m.kernel.layout = Layout::NN;
      } else {
        m.kernel.m = b * mm, m.kernel.n = kk, m.kernel.k = n;
        m.kernel.layout = Layout::NT;  // y = x W^T: the K x N weight read transposed
      }
      m.group = op + " fp32";
      m.host_calls = op == "bmm" ? kBmmHostCalls : kLinearHostCalls;
    } else if (op == "conv") {
      ConvShape s;
      s.batch = dim("B");
      s.channels = dim("Input_Channel");
      s.num_filters = dim("Output_Channel");
      s.filter_h = s.filter_w = dim("Kernel_Szie");
      s.ifmap_h = s.ifmap_w = dim("Input_Size");
      s.stride_h = s.stride_w = dim("Stride");
      s.pad_h = s.pad_w =
          parse_int_in(csv.field(row, require(csv, "Padding")), 0, kMaxDimension, f, ln, "Padding");
      if (s.filter_h > s.ifmap_h + 2 * s.pad_h)
        throw InputError(location(f, ln, "Kernel_Szie"), "filter larger than the padded input");
      s.layout = TensorLayout::nchw;
      m.kernel = fp32_kernel(Kernel::Kind::conv,
                             "conv_n" + std::to_string(s.batch) + "_c" + std::to_string(s.channels) + "_k" +
                                 std::to_string(s.num_filters) + "_r" + std::to_string(s.filter_h) + "_i" +
                                 std::to_string(s.ifmap_h) + "_s" + std::to_string(s.stride_h) + "_p" +
                                 std::to_string(s.pad_h));
      m.kernel.conv = s;
      m.kernel.pass = Pass::forward;
      m.group = "conv fwd fp32";
      conv_shapes.insert(m.kernel.name);
      const bool walks = c_torch >= 0 && walks_plan_list(trim(csv.field(row, c_torch)));
      m.host_calls = kConvHostCalls + (walks ? kConvCachedPlanHostCalls * double(conv_shapes.size()) : 0.0);
    } else {
      const std::int64_t b = dim("B"), h = dim("H");
      const std::uint64_t e = std::uint64_t(b) * std::uint64_t(h);
      m.kernel = fp32_kernel(Kernel::Kind::memory, op + "_" + std::to_string(b) + "x" + std::to_string(h));
      if (op == "softmax") {
        m.kernel.memory = {"softmax", b * h, h};
        m.kernel.bytes_read = 4 * e, m.kernel.bytes_written = 4 * e;
        m.kernel.flops_nontensor = 5.0 * double(e);  // max, subtract, exp, sum, divide
        m.group = "softmax fp32";
        m.host_calls = kSoftmaxHostCalls;
      } else if (op == "ln") {
        m.kernel.memory = {"layer_norm", b * h, h};
        // x, gamma and beta in; y, and the saved mean and rstd per row out.
        m.kernel.bytes_read = 4 * e + 8 * std::uint64_t(h), m.kernel.bytes_written = 4 * e + 8 * std::uint64_t(b);
        m.kernel.flops_nontensor = 8.0 * double(e);  // mean 1, variance 3, normalise 2, scale and shift 2
        m.group = "layer_norm fp32";
        m.host_calls = kLayerNormHostCalls;
      } else {
        const MemoryOp* mo = nullptr;
        for (const auto& x : kMemoryOps)
          if (op == x.csv_name) mo = &x;
        if (!mo)
          throw InputError(location(f, ln, "OPName"),
                           "unknown NeuSight op '" + op +
                               "'; expected bmm, linear, conv, softmax, ln, add, mul, div, pow, addu, mulu, divu, "
                               "powu, relu, gelu or tanh");
        m.kernel.memory = {mo->op, b * h, 0};
        m.kernel.bytes_read = 4 * e * std::uint64_t(mo->inputs), m.kernel.bytes_written = 4 * e;
        m.kernel.flops_nontensor = mo->flops * double(e);
        m.group = "elementwise fp32";
        m.host_calls = mo->host_calls;
      }
    }
    out.rows.push_back(std::move(m));
  }
  out.meta.emplace_back("source_format", "NeuSight kernel CSV (PyTorch op timed with CUDA events, host overhead included)");
  if (!device.empty()) out.meta.emplace_back("gpu", device);
  return out;
}

MeasuredSet parse_neusight(std::string_view text, const std::string& file_name) {
  const CsvText csv = parse_csv(text, file_name);
  if (!is_neusight_header(csv.header))
    throw InputError(location(file_name, csv.header_line), "not a NeuSight kernel CSV (expected OPName and Latency columns)");
  return neusight_from_table(csv);
}

MeasuredSet read_neusight(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  return parse_neusight(read_file(file), file.string());
}

}  // namespace tcsim::workload
