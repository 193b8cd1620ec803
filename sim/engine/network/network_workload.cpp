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
  if ((a.seq || a.kv_len) && w.network.task != "tokens")
    throw InputError(where_seq, a.model.string() + " is an image network: it has no sequence");
  return w;
}

}  // namespace tcsim::engine
