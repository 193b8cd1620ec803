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
// "# NVIDIA H200, torch .., cuDNN .., batch 1, precision fp16, seq 1, model llama2_7b, pass infer, kv_len 512"
// "..., kv_len 512, kv_cache appended" (torch_profile.py since its decode stopped cropping the cache)
struct StepsHeader {
  std::string gpu, precision, model, kv_cache;
  std::int64_t batch = 0, seq = 0, kv_len = 0;
  bool channels_last = false, infer = false, cuda_graphs = false;
};

bool is_model_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream f(file);
  std::string line;
  std::getline(f, line);
  return line;
}

StepsHeader parse_header(const std::string& line, const std::string& file) {
  const std::string where = location(file, 1, "header comment");
  const std::string expected =
      "expected '# <GPU>, torch <version>, cuDNN <version>, batch <N>, precision <mode>[, channels_last][, seq <N>]"
      "[, model <name>][, pass train|infer][, kv_len <N>[, kv_cache appended|cropped]][, cuda_graphs]' "
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
    else if (key == "kv_len") h.kv_len = parse_dimension(value, file, 1, "kv_len");
    else if (key == "precision") h.precision = value;
    else if (key == "kv_cache") {
      if (value != "appended" && value != "cropped")
        throw InputError(location(file, 1, "kv_cache"), "expected appended or cropped, got '" + value + "'");
      h.kv_cache = value;
    }
    else if (key == "model") {
      if (!is_model_name(value))
        throw InputError(location(file, 1, "model"), "expected a models/<name>.yaml name (a-z, 0-9, _), got '" + value + "'");
      h.model = value;
    } else if (key == "pass") {
      if (value != "train" && value != "infer")
        throw InputError(location(file, 1, "pass"), "expected train or infer, got '" + value + "'");
      h.infer = value == "infer";
    } else if (p == "channels_last") h.channels_last = true;
    else if (p == "cuda_graphs") h.cuda_graphs = true;
    else if (key != "torch" && key != "cuDNN") throw InputError(where, "unknown field '" + p + "'; " + expected);
  }
  if (h.batch == 0 || h.precision.empty()) throw InputError(where, expected);
  if (h.kv_len > 0 && !h.infer) throw InputError(location(file, 1, "kv_len"), "a KV cache is for 'pass infer'");
  if (!h.kv_cache.empty() && h.kv_len == 0)
    throw InputError(location(file, 1, "kv_cache"), "how the KV cache grew needs its 'kv_len N'");
  if (h.cuda_graphs && !h.infer) throw InputError(location(file, 1, "cuda_graphs"), "CUDA graphs are timed for 'pass infer' only");
  return h;
}

// Spread of a run's steps, (p90 - p10) / median, from which the note below is printed: GPU-bound
// steps on the lent Hopper VMs vary by 0-2%, host-bound ones 5-45% (a shared VM's CPU: the H200
// Llama-3-8B decode ran 28.8 ms for four steps and 44-51 ms for five), so a host-bound comparison
// carries that much measurement noise of its own.
constexpr double kNoisyStepSpread = 0.20;

// `sorted_s` ascending. Nearest-rank p10 and p90 of the steps; empty when they agree within
// kNoisyStepSpread of the median.
std::string step_spread_note(const std::vector<double>& sorted_s) {
  const std::size_t n = sorted_s.size();
  const double p10 = sorted_s[(n - 1) / 10], med = sorted_s[n / 2];
  const double p90 = sorted_s[std::size_t(0.9 * double(n - 1) + 0.5)];
  const double spread = (p90 - p10) / med;
  if (spread < kNoisyStepSpread) return "";
  auto ms = [](double s) { return format_number("%.2f", s * 1e3); };
  return "steps vary " + format_number("%.0f", spread * 100) + "% (p10 " + ms(p10) + " ms, median " + ms(med) +
         " ms, p90 " + ms(p90) + " ms): a busy host; the median is compared";
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
  m.training = !h.infer;
  m.optimizer_step = !h.infer;
  if (!h.infer) m.optimizer = "adam";  // torch_profile.py: torch.optim.Adam (fused where the release has it)
  m.batch = h.batch;
  m.seq = h.seq;
  m.past = h.kv_len;
  m.cuda_graphs = h.cuda_graphs;
  m.measured_s = steps_s[steps_s.size() / 2];
  m.measurement_note = step_spread_note(steps_s);
  if (!parse_precision(h.precision, m.precision))
    throw InputError(location(f, 1, "precision"), "unknown precision '" + h.precision + "'; expected " + precision_names());
  m.layout = h.channels_last ? TensorLayout::nhwc : TensorLayout::nchw;
  const std::string name = file.filename().string();
  const std::string stem = name.substr(0, name.find('_'));
  if (!h.model.empty()) {
    m.model = h.model;  // torch_profile.py builds the network models/<model>.yaml describes
    // Its Hugging Face causal models (GPT-2, Llama) keep a DynamicCache, training included.
    m.kv_cache_concat = h.model.starts_with("gpt") || h.model.starts_with("llama");
    // Decode steps timed before the header said how the cache grew (the first H200 loan's files,
    // validation/measured/H200/networks) cropped it back to kv_len after each step, a non-contiguous
    // view that sends torch.cat down its general kernel (torch_profile.py; the traces beside them
    // show CatArrayBatchedCopy at 405 us a layer's keys at batch 16, kv 1024).
    m.kv_cache_cropped = m.kv_cache_concat && h.kv_len > 0 && h.kv_cache != "appended";
    // Token models: without the file's length the model file's default would be compared silently.
    for (const char* tokens : {"bert", "gpt", "llama", "opt"})
      if (h.model.starts_with(tokens) && h.seq == 0)
        throw InputError(location(f, 1, "seq"), "a token model's step needs its 'seq N' (model " + h.model + ")");
  } else if (stem == "resnet50") {
    // Files before the header named the model: <model>_<precision>[_cl]_b<batch>_steps.csv.
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
    throw InputError(f, "unknown model '" + stem + "' in the file name and no 'model <name>' in the header; expected "
                        "resnet50, gpt2 or bertbase (<model>_<precision>[_cl]_b<batch>_steps.csv)");
  }
  const std::string pass = h.infer ? "infer" : "train";
  m.label = m.model + " " + pass + " batch " + std::to_string(m.batch) + (m.seq > 0 ? " seq " + std::to_string(m.seq) : "") +
            (m.past > 0 ? " kv " + std::to_string(m.past) : "") + " " + h.precision +
            (h.channels_last ? " channels_last" : "") + (h.cuda_graphs ? " cuda_graphs" : "") + " (torch_profile steps, " +
            h.gpu + ")";
  m.group = "torch steps " + m.model + " " + pass;
  return {m};
}

}  // namespace tcsim::workload
