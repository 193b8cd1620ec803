#include "engine/sweep/sweep_workload.h"

#include <set>

#include "common/error.h"
#include "engine/kernel_key.h"
#include "engine/network/network_estimate.h"
#include "workload/csv/op_trace.h"

namespace tcsim::engine::sweep {

LoadedWorkload load_workload(const WorkloadSpec& w, const std::string& spec_file) {
  LoadedWorkload l;
  l.spec = w;
  const std::string where = location(spec_file, w.line, "workloads: " + w.name);
  if (w.trace) {
    l.kernels = workload::read_op_trace(w.file, &l.where);
    if (l.kernels.empty()) throw InputError(where, "the trace " + w.file.string() + " has no rows");
    return l;
  }
  NetworkWorkloadArgs a;
  a.model = w.file;
  a.batch = w.batch;
  a.seq = w.seq;
  a.kv_len = w.kv_len;
  a.precision = w.precision;
  a.pass = w.pass;
  try {
    l.network = read_network_workload(a, where + ".precision", where + ".pass", where + ".seq");
  } catch (const InputError& e) {
    // The model file's own errors (its file, line, layer and field), named as this workload's.
    if (e.where().rfind(spec_file, 0) == 0) throw;
    throw InputError(where, e.what());
  }
  apply_run_choices(w.run, l.network->options, [&](const std::string& key) { return where + "." + key; });
  check_run_choices_fit(l.network->network, l.network->options, [&](const std::string& key) { return where + "." + key; });
  l.network->options.jobs = 1;  // the sweep's pool runs (point, workload) pairs in parallel instead
  return l;
}

WorkloadRun run_workload(const Accelerator& acc, const LoadedWorkload& w) {
  WorkloadRun r;
  try {
    require_clock(acc, "config");  // a point without a clock: its status says so, not 0 s
    if (w.network) {
      const NetworkEstimate e = estimate_network(acc, w.network->network, w.network->options);
      r.item = e.tokens ? "token" : "sample";
      r.items = double(e.batch) * double(e.tokens ? std::max<std::int64_t>(1, e.seq) : 1);
      r.step_time_s = e.step_time_s;
      r.flops = e.flops;
      r.energy_modelled = e.energy_modelled;
      r.energy_j = e.energy_j;
      r.kernels = std::int64_t(e.kernels.size());
      r.distinct_kernels = e.distinct_kernels;
      r.launches = e.launches;
      for (const auto& l : e.layers) r.layers.push_back({l.name, l.kind, l.count, l.time_s(), l.energy_j});
      return r;
    }
    r.item = "trace";
    r.energy_modelled = acc.models_energy();
    std::set<std::string> distinct;
    for (std::size_t i = 0; i < w.kernels.size(); ++i) {
      const Kernel& k = w.kernels[i];
      KernelResult kr;
      try {
        kr = acc.run(k);
      } catch (const InputError& e) {
        throw InputError(i < w.where.size() ? w.where[i] : k.name, e.detail());
      }
      const double n = double(k.count);
      r.step_time_s += kr.time_s * n;
      r.flops += kr.flops * n;
      r.energy_j += kr.get("energy_j").value_or(0) * n;
      r.launches += k.count;
      distinct.insert(kernel_key(k));
      r.layers.push_back({k.name, "kernel", k.count, kr.time_s * n, kr.get("energy_j").value_or(0) * n});
    }
    r.kernels = std::int64_t(w.kernels.size());
    r.distinct_kernels = std::int64_t(distinct.size());
  } catch (const InputError& e) {
    WorkloadRun bad;
    bad.status = std::string(e.what());
    bad.item = r.item;
    return bad;
  }
  return r;
}

}  // namespace tcsim::engine::sweep
