// DeepBench's recurrent-layer results (../shared/data/deepbench/v100_train_<fp16|fp32>_recurrent_layers_
// <vanilla|lstm|gru>.csv): each row a one-layer RNN timed through cuDNN, compared as a one-layer
// network (MeasuredNetworkRow::model_yaml) whose forward is cudnnRNNForwardTraining and whose
// backward is cudnnRNNBackwardData plus cudnnRNNBackwardWeights.
//
// How DeepBench ran them (baidu-research/DeepBench code/nvidia/rnn_bench.cu and cudnn_helper.h):
// one unidirectional layer, CUDNN_SKIP_INPUT (no input GEMM: the input, hidden wide, is added to
// the gates), CUDNN_RNN_ALGO_STANDARD, "vanilla" = CUDNN_RNN_RELU, tensor-op math, input and hidden
// both `Hidden units` wide; each time is the host-timed mean of back-to-back calls.
#include <fstream>
#include <string>

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"
#include "workload/network/measured_networks.h"

namespace tcsim::workload {

namespace {

const char* const kRnnCols[] = {"Hidden units", "N", "Timesteps", "Time Forward (msec)",
                                "Time Backward wrt Inputs (msec)", "Time Backward wrt Weights (msec)"};

bool header_is_rnn(const std::vector<std::string>& header) {
  for (const char* c : kRnnCols) {
    bool found = false;
    for (const auto& h : header) found = found || to_lower(h) == to_lower(c);
    if (!found) return false;
  }
  return true;
}

// The cell and precision a file holds, from its name (DeepBench's section names).
struct RnnFile {
  const char* cell = nullptr;   // rnn layer `cell`
  const char* label = nullptr;  // DeepBench's name
  Precision precision = Precision::fp32;
};

RnnFile rnn_file(const std::filesystem::path& file) {
  const std::string n = to_lower(file.filename().string());
  RnnFile f;
  if (n.find("lstm") != std::string::npos) f.cell = "lstm", f.label = "LSTM";
  else if (n.find("gru") != std::string::npos) f.cell = "gru", f.label = "GRU";
  else if (n.find("vanilla") != std::string::npos) f.cell = "relu", f.label = "vanilla RNN (ReLU)";
  const bool half = n.find("fp16") != std::string::npos, single = n.find("fp32") != std::string::npos;
  if (!f.cell || half == single)
    throw InputError(file.string(), "cannot tell the cell and precision of a DeepBench recurrent-layer file from its name: "
                                    "expected fp16 or fp32 and lstm, gru or vanilla in it (as in v100_train_fp16_recurrent_layers_lstm.csv)");
  f.precision = half ? Precision::fp16 : Precision::fp32;
  return f;
}

}  // namespace

bool is_deepbench_rnn_csv(const std::filesystem::path& file) {
  if (to_lower(file.extension().string()) != ".csv") return false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return false;
  // The header line only (the first that is neither blank nor a '#' comment, csv_text.h's rule):
  // tcsim validate asks this of any first input, kernel sets of 30,000 rows included.
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    try {
      return header_is_rnn(parse_csv(line, file.string()).header);
    } catch (const InputError&) {
      return false;
    }
  }
  return false;
}

std::vector<MeasuredNetworkRow> read_deepbench_rnn_csv(const std::filesystem::path& file) {
  const RnnFile kind = rnn_file(file);
  const CsvText csv = read_csv(file);
  if (!header_is_rnn(csv.header))
    throw InputError(location(csv.file, csv.header_line), std::string("not a DeepBench recurrent-layer CSV (expected the columns ") +
                                                              join(std::vector<std::string>(std::begin(kRnnCols), std::end(kRnnCols)), ", ") + ")");
  int col[std::size(kRnnCols)];
  for (std::size_t i = 0; i < std::size(kRnnCols); ++i) col[i] = csv.column(kRnnCols[i]);
  const int source = csv.column("source");
  std::vector<MeasuredNetworkRow> rows;
  for (const CsvRow& row : csv.rows) {
    const std::string& f = csv.file;
    const long ln = row.line;
    const std::int64_t hidden = parse_dimension(csv.field(row, col[0]), f, ln, kRnnCols[0]);
    const std::int64_t batch = parse_dimension(csv.field(row, col[1]), f, ln, kRnnCols[1]);
    const std::int64_t steps = parse_dimension(csv.field(row, col[2]), f, ln, kRnnCols[2]);
    double t[3];
    for (int i = 0; i < 3; ++i) t[i] = parse_time_seconds(csv.field(row, col[3 + i]), 1e-3, "ms", f, ln, kRnnCols[3 + i]);
    MeasuredNetworkRow r;
    r.origin = location(f, ln);
    r.model = std::string("deepbench_") + kind.cell;
    r.gpu = "V100-SXM2 (DGX-1)";  // DeepBench_NV_V100.xlsx: a DGX-1's V100, CUDA 10.1, cuDNN 7.6.2
    r.training = true;
    r.optimizer_step = false;  // three cuDNN calls, no optimizer
    r.batch = batch;
    r.seq = steps;
    r.precision = kind.precision;
    r.measured_forward_s = t[0];
    r.measured_backward_s = t[1] + t[2];
    r.measured_s = t[0] + t[1] + t[2];
    const std::string src = source >= 0 ? csv.field(row, source) : "DeepBench";
    r.label = std::string(kind.label) + " hidden " + std::to_string(hidden) + " N " + std::to_string(batch) + " T " +
              std::to_string(steps) + " " + to_string(kind.precision) + " (DeepBench " + src + ")";
    r.group = std::string("deepbench ") + kind.cell + " " + to_string(kind.precision);
    r.model_yaml = "version: 1\nkind: network\nname: \"DeepBench " + std::string(kind.label) + "\"\ntask: sequence\ninput: [" +
                   std::to_string(hidden) + "]\nlayers:\n  - {name: rnn, kind: rnn, cell: " + kind.cell +
                   ", hidden: " + std::to_string(hidden) + ", input_mode: skip}\n";
    rows.push_back(std::move(r));
  }
  if (rows.empty()) throw InputError(file.string(), "no rows");
  return rows;
}

}  // namespace tcsim::workload
