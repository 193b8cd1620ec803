// tcsim network: the time of every layer of a network (models/*.yaml) on a hardware config, for
// one inference or training step in a precision mode; --compare runs several modes side by side.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/result_attributes.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"
#include "engine/load_accelerator.h"
#include "engine/network/network_estimate.h"
#include "engine/network/network_tables.h"
#include "engine/network/network_workload.h"
#include "io/writers.h"
#include "workload/network/reader/network_reader.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

std::string gib(double bytes) { return format_number("%.2f GiB", bytes / double(1ull << 30)); }

workload::Precision precision_option(const std::string& text, const char* option) {
  return engine::parse_precision_or_throw(text, option);
}

void print_estimate(const engine::NetworkEstimate& e, bool cuda_graphs, bool dynamic_cache, bool cropped_cache) {
  std::cout << e.network << " on " << e.accelerator << ": " << (e.pass == "train" ? "training" : "inference")
            << " step, batch " << e.batch;
  if (e.sequence) std::cout << ", seq " << e.seq << (e.past > 0 ? ", KV cache " + std::to_string(e.past) : "");
  if (e.tokens && dynamic_cache)
    std::cout << (cropped_cache ? " (Hugging Face DynamicCache, cropped after each step: torch.cat's general kernel every step)"
                                : " (Hugging Face DynamicCache: torch.cat every step)");
  std::cout << ", " << e.precision
            << (e.pass == "train" && e.precision == "fp8" ? " (Transformer Engine: fp8 linears, bf16 autocast elsewhere)" : "")
            << (cuda_graphs ? ", CUDA graphs" : "") << "\n\n";
  std::cout << io::format_text_table(io::select_columns(
      engine::network_layers_table(e),
      {"layer", "kind", "shape", "count", "kernels", "time_us", "tflops", "bound", "share_pct", "flags"}));
  std::cout << "\nTotal: " << format_number("%.4g", e.step_time_s * 1e3) << " ms per step (kernels " << format_number("%.4g", e.gpu_time_s * 1e3)
            << " ms, " << e.launches << " launches";
  if (e.queue_gap_time_s > 0) std::cout << ", of which " << format_number("%.3g", e.queue_gap_time_s * 1e3) << " ms stream gaps";
  if (e.host_time_s > 0) std::cout << ", host " << format_number("%.3g", e.host_time_s * 1e3) << " ms";
  std::cout << "), " << format_number("%.4g", e.step_time_s > 0 ? e.flops / e.step_time_s / 1e12 : 0) << " TFLOP/s, "
            << format_number("%.5g", e.throughput()) << " " << e.throughput_unit() << (e.host_bound ? "  [host-bound]" : "") << "\n";
  if (e.energy_modelled) {
    std::cout << "Energy: " << format_number("%.4g", e.energy_j) << " J per step, " << format_number("%.0f", e.avg_power_w())
              << " W average, " << format_number("%.4g", e.energy_per_item_j() * 1e3) << " mJ per "
              << (e.tokens ? "token" : "sample");
    if (e.power_limited())
      std::cout << "; the " << format_number("%.0f", e.power_limit_w) << " W limit holds the step at "
                << format_number("%.0f", e.step_clock_hz / 1e6) << " MHz (" << format_number("%.0f", e.boost_avg_power_w)
                << " W at the " << format_number("%.0f", e.boost_clock_hz / 1e6) << " MHz boost)";
    else if (e.power_bound_launches > 0)
      std::cout << "; " << e.power_bound_launches << " of " << e.launches
                << " launches run below the boost clock (power limit; kernels.csv: clock_mhz)";
    std::cout << "\n";
  }
  std::cout << "\nMost expensive layers:\n" << io::format_text_table(engine::network_top_layers_table(e, 5));
  const auto& m = e.footprint;
  std::cout << "\nMemory: weights " << gib(m.weights);
  if (m.master > 0) std::cout << ", master weights " << gib(m.master);
  if (m.gradients > 0) std::cout << ", gradients " << gib(m.gradients) << ", optimizer state " << gib(m.optimizer);
  std::cout << ", activations " << gib(m.activations) << (e.pass == "train" ? " (kept for backward)" : " (largest layer)");
  if (m.kv_cache > 0) std::cout << ", KV cache " << gib(m.kv_cache);
  std::cout << "; total " << gib(m.total());
  if (e.device_memory_bytes > 0) std::cout << " of " << gib(e.device_memory_bytes);
  std::cout << "\n";
  if (e.device_memory_bytes > 0 && m.total() > e.device_memory_bytes)
    std::cerr << "tcsim network: warning: the step needs " << gib(m.total()) << ", more than the "
              << gib(e.device_memory_bytes) << " of device memory\n";
  for (const auto& n : e.notes) std::cout << "note: " << n << "\n";
}

void print_compare(const std::vector<engine::NetworkEstimate>& modes) {
  const auto& e = modes.front();
  std::cout << e.network << " on " << e.accelerator << ": " << (e.pass == "train" ? "training" : "inference")
            << " step, batch " << e.batch << (e.sequence ? ", seq " + std::to_string(e.seq) : "") << "\n\n";
  std::cout << io::format_text_table(engine::network_compare_table(modes));
  std::cout << "\nWhere the time goes, per layer kind (time_us and speedup per mode):\n"
            << io::format_text_table(engine::network_compare_by_kind_table(modes));
  for (const auto& line : engine::compare_summary(modes)) std::cout << line << "\n";
}

int network_verb(const std::vector<std::string>& args) {
  std::string config_path, model, output_dir, format = "table", precision = "fp32", pass = "infer", compare;
  std::vector<std::string> overrides, positional;
  std::int64_t batch = 0, seq = 0, kv_len = -1;
  engine::NetworkRunChoices run;
  int jobs = 0;
  po::options_description opts("Options");
  std::string clock_mode;
  opts.add_options()
      ("config,c", po::value(&config_path)->required(), "hardware config (configs/gpu/*.yaml or configs/systolic/*.yaml)")
      ("clock", po::value(&clock_mode), kClockHelp)
      ("set", po::value(&overrides)->composing(), "override a config value: --set dram.bandwidth=3TB/s (repeatable)")
      ("batch", po::value(&batch), "samples per step (default: the model's)")
      ("seq", po::value(&seq), "tokens per sample (token models; default: the model's)")
      ("kv-len", po::value(&kv_len), "tokens already in the KV cache (decode: --seq 1 --kv-len 4096)")
      ("pass", po::value(&pass), "infer or train (forward + backward + optimizer)")
      ("precision", po::value(&precision), "fp32, tf32, amp-fp16, amp-bf16, fp16, bf16, fp8, int8 (int8 and fp8 inference as an engine runs them; "
                                           "fp8 training as Transformer Engine does: fp8 linears in bf16 autocast. Default fp32; where the "
                                           "accelerator runs no fp32 GEMMs, as an int8-only systolic array, the first mode it runs)")
      ("compare", po::value(&compare), "comma-separated precisions to compare, e.g. fp32,tf32,amp-fp16,amp-bf16")
      ("fp32-master", po::bool_switch(&run.fp32_master), "with --precision fp16/bf16 --pass train: fp32 master weights and optimizer "
                                                    "state beside the pure low-precision network, stepped as apex amp O2 steps them (gradients unscaled "
                                                    "into fp32 master gradients, the masters copied back, zero_grad per tensor)")
      ("cuda-graphs", po::bool_switch(&run.cuda_graphs), "launch the step as one CUDA graph (no per-kernel host cost)")
      ("kv-cache", po::value(&run.kv_cache), "static (new tokens written in place, as serving engines do; default) or "
                                        "dynamic (Hugging Face's DynamicCache: torch.cat copies the whole cache every step) or "
                                        "cropped (the same, the cache cropped back after each step: a non-contiguous view, torch.cat's slow path)")
      ("layout", po::value(&run.layout), "convolution tensors: nchw (PyTorch default) or nhwc (channels-last)")
      ("attention", po::value(&run.attention), "auto (fused where the GPU and precision allow), fused or unfused")
      ("fuse-epilogues", po::bool_switch(&run.fuse_epilogues), "fold biases, inference batch norms, activations and residual adds into the preceding conv/linear epilogue, which in int8/fp8 also quantizes the next layer's input (inference engines: TensorRT, cuDNN's conv-bias-add-activation)")
      ("framework", po::value(&run.framework), "whose batch-norm and pooling kernels run: pytorch (cuDNN's per-channel or persistent "
                                           "batch norms, ATen's max pooling; default), mxnet (cuDNN's batch norms on nchw tensors, "
                                           "its element-parallel ones on nhwc) or tensorflow (XLA's element-parallel kernels)")
      ("fuse-bn-relu", po::bool_switch(&run.fuse_bn_relu), "a ReLU after a batch norm, or a residual add and its ReLU, run inside the "
                                                       "batch-norm kernels (MXNet's --fuse-bn-relu / --fuse-bn-add-relu, cuDNN's fused batch-norm ops)")
      ("eval-metrics", po::bool_switch(&run.eval_metrics), "with --pass infer: the step also computes the loss and the top-1 and "
                                                       "top-5 accuracy of the output, as a classifier's validation loop does "
                                                       "(DeepLearningExamples' ConvNets benchmark_inference)")
      ("output,o", po::value(&output_dir), "write summary.csv (layers), kernels.csv, totals.csv, memory.csv, "
                                           "summary.json, results.h5, config.resolved.yaml here")
      ("jobs,j", po::value(&jobs), "worker threads (default: all cores)")
      ("format", po::value(&format), "terminal output: table, csv or json")
      ("model", po::value(&positional)->composing(), "the network (models/*.yaml)");
  po::positional_options_description pos;
  pos.add("model", -1);
  po::variables_map vm;
  const std::string example =
      "  tcsim network -c configs/gpu/a100.yaml models/resnet50.yaml --batch 256 --precision amp-fp16 --pass train\n"
      "  tcsim network -c configs/gpu/h100.yaml models/llama2_7b.yaml --seq 1 --kv-len 4096 --batch 16 --precision fp16\n"
      "  tcsim network -c configs/gpu/v100.yaml models/bert_large.yaml --pass train --compare fp32,amp-fp16 -o out/bert";
  if (!parse_options(args, "tcsim network -c CONFIG MODEL.yaml [options]", example, opts, &pos, vm)) return 0;
  apply_clock_option(clock_mode, overrides);
  if (positional.size() != 1) throw InputError("tcsim network", "expected one model file (models/*.yaml)");
  model = positional[0];
  check_format_option(format);
  if (pass != "infer" && pass != "train") throw InputError("--pass", "expected infer or train, got '" + pass + "'");
  if (vm.count("batch") && batch <= 0) throw InputError("--batch", "expected a positive number of samples");
  if (vm.count("seq") && seq <= 0) throw InputError("--seq", "expected a positive number of tokens");
  if (vm.count("kv-len") && kv_len < 0) throw InputError("--kv-len", "expected 0 or more cached tokens");
  if (pass == "train" && vm.count("kv-len") && kv_len > 0)
    throw InputError("--kv-len", "a KV cache is for --pass infer (a decode step); training runs the whole sequence (--seq)");
  if (vm.count("jobs") && jobs < 1) throw InputError("--jobs", "expected at least 1 thread");
  if (vm.count("output") && output_dir.empty()) throw InputError("--output", "expected a folder name");

  engine::NetworkRunOptions opt;
  opt.training = pass == "train";
  opt.jobs = jobs;
  engine::apply_run_choices(run, opt, [](const std::string& key) {
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
  });

  std::vector<workload::Precision> modes;
  if (!compare.empty()) {
    if (vm.count("precision")) throw InputError("--compare", "give either --precision or --compare");
    for (const auto& p : split(compare, ',')) modes.push_back(precision_option(std::string(trim(p)), "--compare"));
  } else {
    modes.push_back(precision_option(precision, "--precision"));
  }
  // The accelerator is needed before the workload is read: with no --precision it picks the mode.
  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(config_path, overrides);
  if (compare.empty() && !vm.count("precision")) {
    modes.front() = engine::default_precision(*loaded.accelerator, opt.training);
    if (modes.front() != workload::Precision::fp32)
      std::cerr << "tcsim network: --precision " << workload::to_string(modes.front()) << ": " << loaded.accelerator->name()
                << " does not run fp32, the default, and this is the first mode it runs\n";
  }

  engine::NetworkWorkloadArgs wargs;
  wargs.model = model;
  wargs.pass = pass;
  wargs.precision = workload::to_string(modes.front());
  if (vm.count("batch")) wargs.batch = batch;
  if (vm.count("seq")) wargs.seq = seq;
  if (vm.count("kv-len")) wargs.kv_len = kv_len;
  const workload::Network net =
      engine::read_network_workload(wargs, "--precision", "--pass", vm.count("seq") ? "--seq" : "--kv-len").network;
  engine::check_run_choices_fit(net, opt, [](const std::string& key) { return key == "kv_cache" ? "--kv-cache" : "--" + key; });

  engine::require_clock(*loaded.accelerator, config_path);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<engine::NetworkEstimate> estimates;
  for (auto m : modes) {
    opt.precision = m;
    estimates.push_back(engine::estimate_network(*loaded.accelerator, net, opt));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  io::ResultSet rs;
  rs.attributes = result_attributes("tcsim network " + join(args, " "), config_path, loaded.resolved_yaml,
                                    loaded.accelerator->name(), {{"model_file", model}, {"network", net.name}});
  const engine::NetworkEstimate& main = estimates.front();
  rs.tables.push_back(engine::network_layers_table(main));
  rs.tables.push_back(engine::network_kernels_table(main));
  rs.tables.push_back(engine::network_totals_table(main));
  rs.tables.push_back(engine::network_memory_table(main));
  if (estimates.size() > 1) {
    rs.tables.push_back(engine::network_compare_table(estimates));
    rs.tables.push_back(engine::network_compare_by_kind_table(estimates));
  }

  if (format == "csv") std::cout << io::format_csv(estimates.size() > 1 ? engine::network_compare_table(estimates) : rs.tables[0]);
  else if (format == "json") std::cout << io::format_json(rs);
  else if (estimates.size() > 1) print_compare(estimates);
  else print_estimate(main, opt.cuda_graphs, opt.kv_cache_concat, opt.kv_cache_cropped);
  std::cout.flush();
  if (!output_dir.empty()) io::write_result_folder(output_dir, rs, true);

  std::int64_t distinct = 0;
  for (const auto& e : estimates) distinct += e.distinct_kernels;
  std::cerr << "tcsim network: " << net.name << ", " << estimates.size() << (estimates.size() == 1 ? " mode, " : " modes, ")
            << distinct << " distinct kernels simulated in " << format_number("%.3g", wall) << " s ("
            << format_number("%.3g", wall > 0 ? double(distinct) / wall : 0) << " kernels/s)"
            << (output_dir.empty() ? "" : "; wrote " + output_dir) << "\n";
  return 0;
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(network, "network", "estimate every layer of a network (models/*.yaml) for one inference or training step",
                    tcsim::cli::network_verb)
