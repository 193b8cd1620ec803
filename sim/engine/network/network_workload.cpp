#include "engine/network/network_workload.h"

#include "common/error.h"
#include "workload/network/reader/network_reader.h"

namespace tcsim::engine {

workload::Precision parse_precision_or_throw(const std::string& text, const std::string& where) {
  workload::Precision p;
  if (!workload::parse_precision(text, p))
    throw InputError(where, "expected one of " + workload::precision_names() + ", got '" + text + "'");
  return p;
}

void apply_run_choices(const NetworkRunChoices& c, NetworkRunOptions& opt,
                       const std::function<std::string(const std::string& key)>& where) {
  if (c.layout == "nhwc") opt.conv_layout = TensorLayout::nhwc;
  else if (c.layout == "nchw") opt.conv_layout = TensorLayout::nchw;
  else throw InputError(where("layout"), "expected nchw or nhwc, got '" + c.layout + "'");
  if (!workload::parse_framework(c.framework, opt.framework))
    throw InputError(where("framework"), "expected pytorch, mxnet or tensorflow, got '" + c.framework + "'");
  if (c.attention == "fused") opt.attention = workload::AttentionImpl::fused;
  else if (c.attention == "unfused") opt.attention = workload::AttentionImpl::unfused;
  else if (c.attention == "auto") opt.attention = workload::AttentionImpl::automatic;
  else throw InputError(where("attention"), "expected auto, fused or unfused, got '" + c.attention + "'");
  if (c.kv_cache != "static" && c.kv_cache != "dynamic" && c.kv_cache != "cropped")
    throw InputError(where("kv_cache"), "expected static, dynamic or cropped, got '" + c.kv_cache + "'");
  opt.kv_cache_concat = c.kv_cache != "static";
  opt.kv_cache_cropped = c.kv_cache == "cropped";
  opt.cuda_graphs = c.cuda_graphs;
  opt.fuse_epilogues = c.fuse_epilogues;
  opt.fuse_batch_norm_relu = c.fuse_bn_relu;
  opt.fp32_master = c.fp32_master;
  opt.eval_metrics = c.eval_metrics;
}

void check_run_choices_fit(const workload::Network& net, const NetworkRunOptions& opt,
                           const std::function<std::string(const std::string& key)>& where) {
  if (opt.kv_cache_concat && !net.has_causal_self_attention())
    throw InputError(where("kv_cache"), std::string(opt.kv_cache_cropped ? "cropped" : "dynamic") +
                                            " grows a decoder's KV cache (Hugging Face's DynamicCache); '" + net.name +
                                            "' has no causal self-attention to keep one");
}

NetworkWorkload read_network_workload(const NetworkWorkloadArgs& a, const std::string& where_precision,
                                      const std::string& where_pass, const std::string& where_seq) {
  if (a.pass != "infer" && a.pass != "train") throw InputError(where_pass, "expected infer or train, got '" + a.pass + "'");
  NetworkWorkload w;
  w.options.precision = parse_precision_or_throw(a.precision, where_precision);
  w.options.training = a.pass == "train";
  workload::NetworkVariables vars;
  vars.batch = a.batch;
  vars.seq = a.seq;
  vars.past = a.kv_len;
  w.network = workload::read_network(a.model, vars);
  if ((a.seq || a.kv_len) && !w.network.has_sequence())
    throw InputError(where_seq, a.model.string() + " is an image network: it has no sequence");
  // A training step runs every token of its sequences through the network; a cache of earlier
  // tokens' keys and values is a decode step's (the measured-steps reader refuses it too).
  if (w.options.training && w.network.past > 0)
    throw InputError(where_pass, "train with a KV cache of " + std::to_string(w.network.past) +
                                     " tokens: a cache is for infer (a decode step); training runs the whole sequence (--seq)");
  return w;
}

}  // namespace tcsim::engine
