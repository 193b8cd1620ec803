#include "workload/measured/deepbench.h"

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {
namespace {

std::int64_t round_up8(std::int64_t v) { return (v + 7) / 8 * 8; }

// Column names of the sheets (matched case-insensitively).
const char* const kGemmCols[] = {"M", "N", "K", "A Transpose", "B Transpose", "Time (msec)"};
const char* const kConvCols[] = {"W", "H", "C", "N", "K", "S (Filter width)", "R (Filter height)", "pad_w", "pad_h",
                                 "Horizontal stride", "Vertical stride", "Forward (msec)", "wrt Inputs (msec)",
                                 "wrt Parameters (msec)"};

int require(const CsvText& csv, const char* name) {
  int c = csv.column(name);
  if (c < 0) throw InputError(location(csv.file, csv.header_line, name), "missing DeepBench column");
  return c;
}

void set_formats(Kernel& k, DeepBenchPrecision p) {
  if (p == DeepBenchPrecision::fp16_mixed) {
    // gemm_bench.cu's half GEMMs store an fp16 C with beta = 1, read and written: the epilogue
    // moves the 4 bytes per output of an fp32 store, which stands for them here.
    k.a_format = k.b_format = FormatId::fp16;
    k.c_format = k.d_format = FormatId::fp32;
  } else {
    k.a_format = k.b_format = k.c_format = k.d_format = FormatId::fp32;
  }
}

const char* precision_tag(DeepBenchPrecision p) { return p == DeepBenchPrecision::fp16_mixed ? "fp16" : "fp32"; }

bool transpose_flag(const std::string& text, const std::string& file, long line, const std::string& field) {
  const std::string t = to_lower(trim(text));
  if (t == "n") return false;
  if (t == "t") return true;
  throw InputError(location(file, line, field), "expected N or T, got '" + text + "'");
}

std::string source_of(const CsvText& csv, const CsvRow& row) {
  int c = csv.column("source");
  std::string s = c >= 0 ? csv.field(row, c) : "";
  for (char& ch : s)
    if (ch == ' ') ch = '_';
  return s.empty() ? "deepbench" : s;
}

void read_gemm(const CsvText& csv, DeepBenchPrecision p, MeasuredSet& out) {
  const int cm = require(csv, "M"), cn = require(csv, "N"), ck = require(csv, "K");
  const int cat = require(csv, "A Transpose"), cbt = require(csv, "B Transpose"), ct = require(csv, "Time (msec)");
  for (const CsvRow& row : csv.rows) {
    const std::string& f = csv.file;
    const long ln = row.line;
    const std::int64_t m = parse_dimension(csv.field(row, cm), f, ln, "M");
    const std::int64_t n = parse_dimension(csv.field(row, cn), f, ln, "N");
    const std::int64_t kk = parse_dimension(csv.field(row, ck), f, ln, "K");
    const bool at = transpose_flag(csv.field(row, cat), f, ln, "A Transpose");
    const bool bt = transpose_flag(csv.field(row, cbt), f, ln, "B Transpose");
    const double time_s = parse_time_seconds(csv.field(row, ct), 1e-3, "ms", f, ln, "Time (msec)");
    const std::string blas = std::string(at ? "T" : "N") + (bt ? "T" : "N");

    Kernel k;
    k.kind = Kernel::Kind::gemm;
    k.cublas_version = 10.2;  // DeepBench's V100 results: CUDA 10.1.243 (its README), whose cuBLAS is 10.2
    k.name = source_of(csv, row) + "_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk) + "_" +
             blas;
    const bool pad = p == DeepBenchPrecision::fp16_mixed;
    k.m = pad ? round_up8(m) : m;
    k.n = pad ? round_up8(n) : n;
    k.k = pad ? round_up8(kk) : kk;
    set_formats(k, p);
    // Column-major op letters -> row-major Layout: "not transposed" in column-major is "stored
    // transposed" in row-major (see deepbench.h).
    k.layout = at ? (bt ? Layout::NN : Layout::NT) : (bt ? Layout::TN : Layout::TT);
    // Timed as the mean of 400 back-to-back calls (README of the data): operands that fit in L2 stay there.
    k.l2_warm = true;
    out.rows.push_back({std::move(k), time_s, location(f, ln), std::string("gemm ") + precision_tag(p)});
  }
}

void read_conv(const CsvText& csv, DeepBenchPrecision p, MeasuredSet& out) {
  int c[std::size(kConvCols)];
  for (std::size_t i = 0; i < std::size(kConvCols); ++i) c[i] = require(csv, kConvCols[i]);
  for (const CsvRow& row : csv.rows) {
    const std::string& f = csv.file;
    const long ln = row.line;
    auto dim = [&](int i) { return parse_dimension(csv.field(row, c[i]), f, ln, kConvCols[i]); };
    auto nonneg = [&](int i) { return parse_int_in(csv.field(row, c[i]), 0, kMaxDimension, f, ln, kConvCols[i]); };
    ConvShape s;
    s.ifmap_w = dim(0);
    s.ifmap_h = dim(1);
    s.channels = dim(2);
    s.batch = dim(3);
    s.num_filters = dim(4);
    s.filter_w = dim(5);
    s.filter_h = dim(6);
    s.pad_w = nonneg(7);
    s.pad_h = nonneg(8);
    s.stride_w = dim(9);
    s.stride_h = dim(10);
    if (s.filter_w > s.ifmap_w + 2 * s.pad_w)
      throw InputError(location(f, ln, kConvCols[5]), "filter wider than the padded input");
    if (s.filter_h > s.ifmap_h + 2 * s.pad_h)
      throw InputError(location(f, ln, kConvCols[6]), "filter taller than the padded input");
    const std::string shape = std::to_string(s.ifmap_w) + "x" + std::to_string(s.ifmap_h) + "x" +
                              std::to_string(s.channels) + "_n" + std::to_string(s.batch) + "_k" +
                              std::to_string(s.num_filters) + "_" + std::to_string(s.filter_w) + "x" +
                              std::to_string(s.filter_h) + "_s" + std::to_string(s.stride_w);
    // DeepBench's training conv_bench pads the input channels to a multiple of 8 for tensor cores.
    if (p == DeepBenchPrecision::fp16_mixed) s.channels = round_up8(s.channels);
    s.cudnn_version = 7.6;  // DeepBench's V100 results were taken with cuDNN 7.6.2 (its README)
    static const std::pair<Pass, const char*> passes[] = {
        {Pass::forward, "fwd"}, {Pass::data_grad, "dgrad"}, {Pass::weight_grad, "wgrad"}};
    for (int i = 0; i < 3; ++i) {
      const std::string& t = csv.field(row, c[11 + i]);
      if (to_lower(trim(t)).starts_with("n/a")) continue;  // not measured
      Kernel k;
      k.kind = Kernel::Kind::conv;
      k.conv = s;
      k.pass = passes[i].first;
      k.name = source_of(csv, row) + "_" + shape + "_" + passes[i].second;
      set_formats(k, p);
      const double time_s = parse_time_seconds(t, 1e-3, "ms", f, ln, kConvCols[11 + i]);
      out.rows.push_back({std::move(k), time_s, location(f, ln),
                          std::string("conv ") + passes[i].second + " " + precision_tag(p)});
    }
  }
}

}  // namespace

DeepBenchSection deepbench_section(const std::vector<std::string>& header) {
  auto has = [&](const char* name) {
    for (const auto& h : header)
      if (to_lower(h) == to_lower(name)) return true;
    return false;
  };
  bool gemm = true, conv = true;
  for (const char* c : kGemmCols) gemm = gemm && has(c);
  for (const char* c : kConvCols) conv = conv && has(c);
  if (conv) return DeepBenchSection::conv;
  if (gemm) return DeepBenchSection::gemm;
  return DeepBenchSection::unknown;
}

std::optional<DeepBenchPrecision> deepbench_precision_from_name(std::string_view file_name) {
  const std::string n = to_lower(std::filesystem::path(file_name).filename().string());
  const bool half = n.find("fp16") != std::string::npos || n.find("half") != std::string::npos;
  const bool single = n.find("fp32") != std::string::npos || n.find("float") != std::string::npos;
  if (half && !single) return DeepBenchPrecision::fp16_mixed;
  if (single && !half) return DeepBenchPrecision::fp32;
  return std::nullopt;
}

MeasuredSet parse_deepbench(std::string_view text, const std::string& file_name,
                            std::optional<DeepBenchPrecision> precision) {
  const CsvText csv = parse_csv(text, file_name);
  const auto named = deepbench_precision_from_name(file_name);
  if (precision && named && *precision != *named)
    throw InputError(file_name, std::string("the file name says ") + precision_tag(*named) + " but --precision says " +
                                    precision_tag(*precision) + "; drop --precision or rename the file");
  if (!precision) precision = named;
  if (!precision)
    throw InputError(file_name,
                     "cannot tell the DeepBench precision from the file name; name it with fp16 (the \"FP16 ip, "
                     "Mixed math\" sheet) or fp32 (the \"Results FP32\" sheet)");
  MeasuredSet out;
  out.source = file_name;
  switch (deepbench_section(csv.header)) {
    case DeepBenchSection::gemm:
      out.schema = "deepbench-gemm";
      read_gemm(csv, *precision, out);
      break;
    case DeepBenchSection::conv:
      out.schema = "deepbench-conv";
      read_conv(csv, *precision, out);
      break;
    case DeepBenchSection::unknown:
      throw InputError(location(file_name, csv.header_line),
                       "not a DeepBench GEMM or convolution CSV (expected columns M,N,K,A Transpose,B Transpose,"
                       "Time (msec) or the convolution sheet's columns)");
  }
  out.meta.emplace_back("source_format", "DeepBench " + out.schema.substr(10) + " CSV export");
  out.meta.emplace_back("precision", *precision == DeepBenchPrecision::fp16_mixed
                                         ? "fp16 inputs, fp32 accumulation, tensor ops (padded to multiples of 8)"
                                         : "fp32, CUDA cores");
  return out;
}

MeasuredSet read_deepbench(const std::filesystem::path& file, std::optional<DeepBenchPrecision> precision) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  return parse_deepbench(read_file(file), file.string(), precision);
}

}  // namespace tcsim::workload
