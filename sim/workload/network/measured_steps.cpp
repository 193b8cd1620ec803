// tcsim's own PyTorch training-step timings (validation/gpu/torch_profile.py --time-steps), read as
// whole-network measurements: see measured_networks.h.
#include "workload/network/measured_networks.h"

#include <algorithm>
#include <fstream>

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {

namespace {

constexpr const char* kSuffix = "_steps.csv";

// "# NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, cuDNN 91900, batch 256, precision amp-fp16, channels_last"
struct StepsHeader {
  std::string gpu, precision;
  std::int64_t batch = 0, seq = 0;
  bool channels_last = false;
};

std::string first_line(const std::filesystem::path& file) {
  std::ifstream f(file);
  std::string line;
  std::getline(f, line);
  return line;
}

StepsHeader parse_header(const std::string& line, const std::string& file) {
  const std::string where = location(file, 1, "header comment");
  const std::string expected =
      "expected '# <GPU>, torch <version>, cuDNN <version>, batch <N>, precision <mode>[, channels_last][, seq <N>]' "
      "(validation/gpu/torch_profile.py --time-steps)";
  if (line.empty() || line.front() != '#') throw InputError(where, expected);
  StepsHeader h;
  std::vector<std::string> parts = split(line.substr(1), ',');
  for (auto& p : parts) p = std::string(trim(p));
  if (parts.size() < 5 || parts[0].empty()) throw InputError(where, expected);
  h.gpu = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const std::size_t space = p.find(' ');
    const std::string key = p.substr(0, space);
    const std::string value = space == std::string::npos ? std::string() : std::string(trim(p.substr(space + 1)));
    if (key == "batch") h.batch = parse_dimension(value, file, 1, "batch");
    else if (key == "seq") h.seq = parse_dimension(value, file, 1, "seq");
    else if (key == "precision") h.precision = value;
    else if (p == "channels_last") h.channels_last = true;
    else if (key != "torch" && key != "cuDNN") throw InputError(where, "unknown field '" + p + "'; " + expected);
  }
  if (h.batch == 0 || h.precision.empty()) throw InputError(where, expected);
  return h;
}

}  // namespace

bool is_torch_steps_csv(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (name.size() <= std::string(kSuffix).size() || !name.ends_with(kSuffix)) return false;
  const std::string line = first_line(file);
  return line.rfind("#", 0) == 0 && line.find(", torch ") != std::string::npos &&
         line.find(", precision ") != std::string::npos;
}

std::vector<MeasuredNetworkRow> read_torch_steps_csv(const std::filesystem::path& file) {
  const std::string f = file.string();
  const StepsHeader h = parse_header(first_line(file), f);
  const CsvText csv = read_csv(file);
  const int col = csv.column("step_ms");
  if (col < 0) throw InputError(location(f, csv.header_line, "step_ms"), "missing column (header 'step,step_ms')");
  if (csv.rows.empty()) throw InputError(f, "no timed steps");
  std::vector<double> steps_s;
  for (const CsvRow& r : csv.rows)
    steps_s.push_back(parse_time_seconds(csv.field(r, col), 1e-3, "ms", f, r.line, "step_ms"));
  // The median step as torch_profile.py prints it (the upper middle of an even count; a step is timed
  // between two CUDA events).
  std::sort(steps_s.begin(), steps_s.end());

  MeasuredNetworkRow m;
  m.origin = f;
  m.gpu = h.gpu;
  m.training = true;
  m.optimizer_step = true;
  m.optimizer = "adam";  // torch_profile.py: torch.optim.Adam (fused where the release has it)
  m.batch = h.batch;
  m.seq = h.seq;
  m.measured_s = steps_s[steps_s.size() / 2];
  if (!parse_precision(h.precision, m.precision))
    throw InputError(location(f, 1, "precision"), "unknown precision '" + h.precision + "'; expected " + precision_names());
  m.layout = h.channels_last ? TensorLayout::nhwc : TensorLayout::nchw;
  // The script names its files <model>_<precision>[_cl]_b<batch>_steps.csv (model without dashes).
  const std::string name = file.filename().string();
  const std::string stem = name.substr(0, name.find('_'));
  if (stem == "resnet50") {
    m.model = "resnet50";  // torchvision's ResNet-50 (v1.5), as models/resnet50.yaml
  } else if (stem == "gpt2") {
    m.model = "gpt2";      // Hugging Face GPT2LMHeadModel (GPT-2 small), as models/gpt2.yaml
    if (h.seq == 0)
      m.skip_reason = "the file does not record the sequence length (torch_profile.py's header carries 'seq N' "
                      "since session 43; the trace beside it has the token ids' shape)";
  } else if (stem == "bertbase") {
    m.model = "bert_base";
    m.skip_reason = "torch_profile.py's BERT-base is PyTorch's nn.TransformerEncoder (fused in-projection, post-norm "
                    "layers, a plain vocabulary projection), not models/bert_base.yaml (Hugging Face's BERT)";
  } else {
    throw InputError(f, "unknown model '" + stem + "' in the file name; expected resnet50, gpt2 or bertbase "
                        "(<model>_<precision>[_cl]_b<batch>_steps.csv)");
  }
  m.label = m.model + " train batch " + std::to_string(m.batch) + (m.seq > 0 ? " seq " + std::to_string(m.seq) : "") +
            " " + h.precision + (h.channels_last ? " channels_last" : "") + " (torch_profile steps, " + h.gpu + ")";
  m.group = "torch steps " + m.model + " train";
  return {m};
}

}  // namespace tcsim::workload
