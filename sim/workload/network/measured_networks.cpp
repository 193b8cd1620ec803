#include "workload/network/measured_networks.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>

#include "common/text/yaml_document.h"
#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {

namespace {

const std::regex kNeusightName(R"(([a-z0-9_]+)-(inf|train)-([0-9]+)-([0-9]+)(-fusion)?\.json)");

std::string upper(std::string s) {
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool is_neusight_model_json(const std::filesystem::path& file) {
  if (!std::regex_match(file.filename().string(), kNeusightName)) return false;
  std::ifstream f(file);
  std::string head(512, '\0');
  f.read(head.data(), std::streamsize(head.size()));
  return head.find("\"e2e_latency\"") != std::string::npos;
}

namespace {

// Hand-written scans, not std::regex: libstdc++'s regex matcher recurses per character and
// overflows the stack on a long field (a 300 kB batch_per_gpu cell crashed tcsim validate).

// " 256 (benchmark.py -b)" -> "256", "(benchmark.py -b)": leading spaces, digits, spaces, the rest.
bool leading_integer(const std::string& text, std::string& digits, std::string& rest) {
  std::size_t i = text.find_first_not_of(" \t");
  if (i == std::string::npos || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  const std::size_t end = std::min(text.find_first_not_of("0123456789", i), text.size());
  digits = text.substr(i, end - i);
  const std::size_t next = text.find_first_not_of(" \t", end);
  rest = next == std::string::npos ? "" : text.substr(next);
  return true;
}

// Whether `name` has `word` (upper case) at `at` as a word of its own: not followed by a letter or
// digit, nor preceded by a digit, nor, when the word starts with a letter, by a letter ("RTX4090"
// has the word 4090; "GH200" has no word H200).
bool word_at(const std::string& name, std::size_t at, const std::string& word) {
  if (name.compare(at, word.size(), word) != 0) return false;
  const std::size_t after = at + word.size();
  if (after < name.size() && std::isalnum(static_cast<unsigned char>(name[after]))) return false;
  if (at == 0) return true;
  const auto before = static_cast<unsigned char>(name[at - 1]);
  return !std::isdigit(before) && !(std::isalpha(before) && std::isalpha(static_cast<unsigned char>(word[0])));
}

// The family name as a word of its own, not followed by a variant's word: "A100" in "A100 80GB" but
// not in "A1000"; "4090" in "RTX 4090" but not in "RTX 4090D"; "3090" not in "RTX 3090 Ti" (84 SMs,
// 450 W), nor any family in a "SUPER" variant; "5090" not in "RTX 5090 D" (the China board, written
// apart); "L40" not in "L40S"; "H200" not in "GH200".
bool has_family(const std::string& name, const std::string& family) {
  for (std::size_t at = name.find(family); at != std::string::npos; at = name.find(family, at + 1)) {
    if (!word_at(name, at, family)) continue;
    const std::size_t next = name.find_first_not_of(' ', at + family.size());
    if (next != std::string::npos && (word_at(name, next, "TI") || word_at(name, next, "SUPER") || word_at(name, next, "D")))
      continue;
    return true;
  }
  return false;
}

// The memory size of a board name: the first run of digits followed by optional spaces and "GB"
// ("A100-SXM4-80GB" -> "80"); empty when there is none.
std::string memory_gb(const std::string& name) {
  for (std::size_t i = 0; i < name.size();) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) { ++i; continue; }
    const std::size_t end = std::min(name.find_first_not_of("0123456789", i), name.size());
    const std::size_t unit = std::min(name.find_first_not_of(" \t", end), name.size());
    if (name.compare(unit, 2, "GB") == 0) return name.substr(i, end - i);
    i = end;
  }
  return "";
}

// "pytorch:21.11", "pytorch-21.03", "21.02-py3" -> 2111, 2103, 2102 (year x 100 + month); 0 when
// the container names no NGC release.
int ngc_release(const std::string& container) {
  for (std::size_t i = 0; i + 5 <= container.size(); ++i) {
    const auto digit = [&](std::size_t k) { return std::isdigit(static_cast<unsigned char>(container[k])) != 0; };
    if (digit(i) && digit(i + 1) && container[i + 2] == '.' && digit(i + 3) && digit(i + 4) &&
        (i == 0 || !digit(i - 1)) && (i + 5 == container.size() || !digit(i + 5)))
      return std::stoi(container.substr(i, 2)) * 100 + std::stoi(container.substr(i + 3, 2));
  }
  return 0;
}

// DeepLearningExamples' PyTorch BERT pre-trains from LDDL's Parquet shards since the 21.11
// container (README changelog, January 2022; its performance tables ran pytorch:21.11-py3), and
// its DGX A100 configs (scripts/configs/pretrain_config.sh: "All configs using bin size=64 with
// phase2 by default for improved throughput") bin phase 2 (seq 512) by 64 tokens; phase 1 (seq
// 128) is unbinned, and a batch of 128-256 Wikipedia sequences always holds one of 128 tokens.
// The caller has mapped the row to the pre-training network already.
bool lddl_binned_phase2(const std::string& framework, const std::string& container, std::int64_t seq) {
  return to_lower(framework) == "pytorch" && ngc_release(container) >= 2111 && seq == 512;
}

}  // namespace

bool is_dle_throughput_csv(const std::filesystem::path& file) {
  std::ifstream f(file);
  std::string first;
  std::getline(f, first);
  return to_lower(first).rfind("model,framework,container,gpu,precision,batch_per_gpu", 0) == 0;
}

std::vector<MeasuredNetworkRow> read_neusight_model_json(const std::filesystem::path& file) {
  std::smatch m;
  const std::string name = file.filename().string();
  if (!std::regex_match(name, m, kNeusightName))
    throw InputError(file.string(), "expected a NeuSight model file named <model>-<inf|train>-<seq>-<batch>[-fusion].json");
  YAML::Node j;  // JSON is YAML
  j = load_yaml_document(read_file(file), file.string(), "JSON");
  if (!j.IsMap() || !j["e2e_latency"])
    throw InputError(file.string() + ": e2e_latency", "expected a JSON object with e2e_latency (ms)");
  double ms = 0;
  try {
    ms = j["e2e_latency"].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(file.string() + ": e2e_latency", "expected a number of milliseconds");
  }
  if (!(ms > 0) || !std::isfinite(ms)) throw InputError(file.string() + ": e2e_latency", "expected a time > 0 ms");
  MeasuredNetworkRow r;
  r.origin = file.string();
  r.model = m[1];
  r.training = m[2] == "train";
  r.optimizer_step = false;  // NeuSight times forward + loss.backward()
  r.seq = parse_dimension(m[3], file.string(), 0, "sequence length in the file name");
  r.batch = parse_dimension(m[4], file.string(), 0, "batch in the file name");
  r.gpu = file.parent_path().filename().string();
  r.measured_s = ms * 1e-3;
  // The two passes, when the file has both and they add up to the step (NeuSight's training runs).
  auto seconds = [&](const char* key) -> double {
    if (!j[key]) return 0;
    double v = -1;
    try {
      v = j[key].as<double>();
    } catch (const YAML::Exception&) {
    }
    if (!(v >= 0) || !std::isfinite(v))
      throw InputError(location(file.string(), j[key].Mark().line + 1, key), "expected a number of milliseconds >= 0");
    return v * 1e-3;
  };
  const double fw = seconds("fw_latency"), bw = seconds("bwall_latency");
  if (r.training && fw > 0 && bw > 0 && std::abs(fw + bw - r.measured_s) <= 1e-3 * r.measured_s)
    r.measured_forward_s = fw, r.measured_backward_s = bw;
  r.forward_after_empty_cache = true;  // trace.py's measure_e2e
  r.label = r.model + (r.training ? " train" : " infer") + " seq " + std::to_string(r.seq) + " batch " +
            std::to_string(r.batch) + " fp32 (NeuSight, " + r.gpu + ")";
  r.group = "neusight " + r.model + (r.training ? " train" : " infer");
  if (m[5].matched) r.skip_reason = "timed with torch.compile fusion, which tcsim does not model";
  return {r};
}

std::vector<MeasuredNetworkRow> read_dle_throughput_csv(const std::filesystem::path& file) {
  const CsvText csv = read_csv(file);
  auto col = [&](const char* n) {
    const int c = csv.column(n);
    if (c < 0) throw InputError(location(file.string(), csv.header_line, n), std::string("missing column ") + n);
    return c;
  };
  const int c_model = col("model"), c_fw = col("framework"), c_container = col("container"), c_gpu = col("gpu"),
            c_prec = col("precision"),
            c_batch = col("batch_per_gpu"), c_seq = col("seqlen"), c_metric = col("metric"), c_value = col("value"),
            c_unit = col("unit");
  // Optional: the tensors' memory format where a set says it (nchw or nhwc); empty keeps the default below.
  const int c_layout = csv.column("memory_format");
  std::vector<MeasuredNetworkRow> out;
  for (const CsvRow& row : csv.rows) {
    if (row.fields.size() != csv.header.size())
      throw InputError(location(file.string(), row.line, ""),
                       "expected " + std::to_string(csv.header.size()) + " fields, got " + std::to_string(row.fields.size()));
    MeasuredNetworkRow r;
    r.origin = file.string() + ":" + std::to_string(row.line);
    const std::string model = csv.field(row, c_model), prec = upper(csv.field(row, c_prec));
    const std::string batch = csv.field(row, c_batch), seq = csv.field(row, c_seq), metric = csv.field(row, c_metric);
    r.gpu = csv.field(row, c_gpu);
    const std::string lm = to_lower(model);
    if (lm.rfind("resnet-50", 0) == 0) r.model = "resnet50";
    else if (lm.rfind("bert-large", 0) == 0)  // SQuAD runs BertForQuestionAnswering: no pooler, no MLM head;
      r.model = lm.find("squad") != std::string::npos ? "bert_large_qa"  // pre-training, the MLM head on the
                : lm.find("pretrain") != std::string::npos ? "bert_large_dle"  // masked tokens only
                                                            : "bert_large";
    else if (lm.rfind("bert-base", 0) == 0)
      r.model = lm.find("squad") != std::string::npos ? "bert_base_qa" : "bert_base";
    else r.model = lm;
    if (prec == "FP32") r.precision = Precision::fp32;
    else if (prec == "TF32") r.precision = Precision::tf32;
    else if (prec == "AMP(FP16)" || prec == "AMP") r.precision = Precision::amp_fp16;
    else throw InputError(location(file.string(), row.line, "precision"), "expected FP32, TF32 or AMP(FP16), got '" + prec + "'");
    // Channels-last tensors in every AMP ResNet-50 run (the data's README).
    if (r.model == "resnet50" && r.precision == Precision::amp_fp16) r.layout = TensorLayout::nhwc;
    const std::string layout = c_layout >= 0 ? to_lower(csv.field(row, c_layout)) : "";
    if (!layout.empty()) {
      if (layout == "nchw") r.layout = TensorLayout::nchw;
      else if (layout == "nhwc") r.layout = TensorLayout::nhwc;
      else
        throw InputError(location(file.string(), row.line, "memory_format"), "expected nchw, nhwc or empty, got '" + layout + "'");
    }
    // Whose batch-norm and pooling kernels ran (Framework): NVIDIA's TensorFlow ResNet-50 runs XLA;
    // MXNet's float32 (TF32) runs keep channels-first tensors, whose BatchNorm calls cuDNN, and its
    // float16 runs NGC's NHWC kernels (below); PaddlePaddle, whose batch norm calls cuDNN as well
    // (its rows carry no batch size), is read as PyTorch.
    const std::string framework = to_lower(csv.field(row, c_fw));
    const bool pytorch = framework == "pytorch";
    if (framework == "mxnet") r.framework = Framework::mxnet;
    else if (framework.rfind("tensorflow", 0) == 0) r.framework = Framework::tensorflow;
    // DeepLearningExamples' MXNet ResNet-50 `runner` passes --fuse-bn-relu 1 --fuse-bn-add-relu 1 (and
    // NHWC conv, batch-norm and pooling layouts) when the dtype is float16, the AMP rows; its
    // benchmark.py calls the runner.
    r.fuse_batch_norm_relu = r.model == "resnet50" && r.precision == Precision::amp_fp16 && framework == "mxnet";
    if (metric == "train throughput") r.training = true;
    else if (metric != "inference throughput")
      throw InputError(location(file.string(), row.line, "metric"), "expected train or inference throughput, got '" + metric + "'");
    const double value = parse_positive(csv.field(row, c_value), file.string(), row.line, "value");
    const std::string unit = csv.field(row, c_unit);
    if (unit != "img/s" && unit != "seq/s")
      throw InputError(location(file.string(), row.line, "unit"), "expected img/s or seq/s, got '" + unit + "'");
    std::string digits, rest;
    if (leading_integer(batch, digits, rest) && to_lower(rest).find("accumulated") == std::string::npos)
      r.batch = parse_dimension(digits, file.string(), row.line, "batch_per_gpu");
    else
      r.skip_reason = batch.empty() ? "no per-GPU batch size published" : "batch '" + batch + "' is not a per-step batch";
    if (r.model.rfind("bert_large", 0) == 0) {
      if (leading_integer(seq, digits, rest)) r.seq = parse_dimension(digits, file.string(), row.line, "seqlen");
      else if (r.skip_reason.empty()) r.skip_reason = "no sequence length";
    }
    if (r.batch > 0) r.measured_s = double(r.batch) / value;
    std::string loader;
    if (r.model == "bert_large_dle" && lddl_binned_phase2(csv.field(row, c_fw), csv.field(row, c_container), r.seq)) {
      r.seq_mix = binned_sequence_mix(wikipedia_pretraining_lengths_512(), 64);
      loader = " LDDL bins of 64";
    }
    // DeepLearningExamples' PyTorch BERT pre-training under --fp16 runs the network in pure fp16, not
    // autocast: scripts/run_pretraining.sh defaults allreduce_post_accumulation_fp16 to "true", and
    // run_pretraining.py then calls model.half() and enters torch.cuda.amp.autocast(enabled=(args.fp16
    // and not args.allreduce_post_accumulation_fp16)), i.e. disabled; FusedLAMBAMP keeps fp32 params
    // and GradScaler scales the loss. (Before LDDL, apex amp.initialize(opt_level="O2"): the same.)
    // Softmax, layer norm, dropout and GELU thus run on fp16 tensors, with no autocast copies.
    // PyTorch's pre-training accumulates the gradients of 32-256 micro-batches per optimizer step
    // (section_note "grad-accum 64" / "32"; its scripts set the accumulation from the global batch),
    // and the throughput is per micro-batch: the optimizer's share of one is under 1/32 of its step,
    // so it is left out. The TensorFlow rows do not say: they keep a step per micro-batch.
    if (r.model == "bert_large_dle" && pytorch) {
      r.optimizer_step = false;
      if (r.training && r.precision == Precision::amp_fp16) {
        r.precision = Precision::fp16;
        r.fp32_master = true;
      }
    }
    // DeepLearningExamples' run_squad.py steps with apex's FusedAdam under --fp16 and with its own
    // BertAdam otherwise: a Python loop over the parameter tensors (LoweringOptions::bert_adam).
    const bool squad = r.model == "bert_large_qa" || r.model == "bert_base_qa";
    r.bert_adam = r.training && squad && pytorch && r.precision != Precision::amp_fp16;
    // Whatever the precision, its training loop clips the gradients every step with its
    // GradientClipper (multi_tensor_l2norm, `.item()`, multi_tensor_scale) before optimizer.step().
    r.clip_grad_norm = r.training && squad && pytorch;
    // Under --fp16 the same script calls apex's amp.initialize(model, optimizer, opt_level="O2",
    // keep_batchnorm_fp32=False) before training (model.half() when it only predicts): the network
    // runs in fp16 with no autocast (softmax, layer norm, dropout and GELU on fp16 tensors), FusedAdam
    // steps fp32 master weights, and a dynamic loss scale unscales the gradients. Lambda's fork runs
    // the same lines (LambdaLabsML/DeepLearningExamples, branch lambda/benchmark). Its published
    // batches say so too: under autocast every one of its SQuAD AMP(FP16) rows would need 1.2-1.45x
    // the board's memory; in fp16, 84-92%, as its TF32 rows.
    if (squad && pytorch && r.precision == Precision::amp_fp16) {
      r.precision = Precision::fp16;
      r.fp32_master = r.training;
    }
    // Its inference throughput times the eval loop (run_squad.py, infer_start .. time_to_infer), which
    // copies each sample's start and end logits to the host after the forward pass, one `.cpu()` at a
    // time: the GPU idles while the host does it.
    if (!r.training && squad && pytorch) r.per_sample_readbacks = 2;
    // Its ConvNets inference throughput (`--mode benchmark_inference`) times image_classification/
    // training.py's validate step: the model and its loss, utils.accuracy's top-1 and top-5, and a
    // torch.cuda.synchronize() (the data loader's time is left out: compute_ips).
    r.eval_metrics = !r.training && r.model == "resnet50" && pytorch;
    r.label = model + " " + csv.field(row, c_fw) + " " + prec + " batch " + (batch.empty() ? "?" : batch) +
              (r.seq ? " seq " + std::to_string(r.seq) : "") + loader +
              (r.precision == Precision::fp16 ? " as model.half()" : "") +
              (layout.empty() ? "" : " " + layout) + " (" + r.gpu + ")";
    r.group = "dle " + r.model + " " + to_lower(prec) + (r.training ? " train" : " infer");
    out.push_back(std::move(r));
  }
  return out;
}

bool same_gpu(const std::string& measured_gpu, const std::string& accelerator) {
  // Upper case, '-' and '_' as spaces: "RTX-6000-Ada-48GB" and "RTX 6000 Ada Generation 48GB" compare.
  const auto words = [](const std::string& s) {
    std::string u = upper(s);
    for (auto& c : u)
      if (c == '-' || c == '_') c = ' ';
    return u;
  };
  const std::string a = words(measured_gpu), b = words(accelerator);
  static const char* const families[] = {"V100", "A100", "H100",  "H200",     "T4",       "A10",
                                         "L4",   "L40",  "L40S",  "3090",     "4090",     "5090",
                                         "A6000", "6000 ADA", "RTX 8000", "PRO 6000"};
  bool family = false;
  for (const char* f : families) {
    const bool in_a = has_family(a, f), in_b = has_family(b, f);
    if (in_a != in_b) return false;
    family |= in_a;
  }
  if (!family) return false;
  const std::string ga = memory_gb(a), gb = memory_gb(b);
  if (!ga.empty() && !gb.empty() && ga != gb) return false;
  const bool pcie_a = a.find("PCIE") != std::string::npos, pcie_b = b.find("PCIE") != std::string::npos;
  // A laptop part shares the desktop's name, not its chip ("RTX 4090 Laptop" is an AD103); a Max-Q
  // or Server Edition board, its power and memory clock ("RTX PRO 6000 Blackwell Max-Q": 300 W, the
  // Server Edition 1597 GB/s, the Workstation Edition 600 W and 1792 GB/s).
  const auto other_form = [](const std::string& s) {
    for (const char* w : {"LAPTOP", "MOBILE", "MAX Q", "SERVER EDITION"})
      if (s.find(w) != std::string::npos) return true;
    return false;
  };
  return pcie_a == pcie_b && other_form(a) == other_form(b);
}

double named_memory_gib(const std::string& measured_gpu) {
  const std::string gb = memory_gb(upper(measured_gpu));
  return gb.empty() ? 0.0 : std::strtod(gb.c_str(), nullptr);  // no throw on a run of 400 digits: inf
}

}  // namespace tcsim::workload
