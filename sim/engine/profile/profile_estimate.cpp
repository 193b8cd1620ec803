#include "engine/profile/profile_estimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "common/error.h"
#include "common/text/strings.h"
#include "engine/kernel_key.h"
#include "engine/kernel_runner.h"
#include "engine/launch_host_cost.h"
#include "engine/network/launch_queue.h"
#include "engine/step_clock.h"
#include "engine/validation/validation_metrics.h"

namespace tcsim::engine {
namespace {

bool on_tensor_cores(const Kernel& k) {
  return k.kind != Kernel::Kind::memory && k.a_format != FormatId::fp32 && k.a_format != FormatId::fp64;
}

}  // namespace

ProfileEstimate estimate_profile(const Accelerator& acc, const workload::Profile& profile,
                                 std::optional<workload::Precision> precision, int jobs) {
  if (precision) {  // a mode the accelerator cannot run at all is an error, as in `tcsim network`
    const workload::PrecisionFormats f = workload::formats_of(*precision);
    try {
      (void)acc.run(make_gemm("precision probe", 512, 512, 512, f.gemm_in, f.gemm_acc));
    } catch (const InputError& err) {
      throw InputError("--precision", std::string(workload::to_string(*precision)) + " is not available on " + acc.name() +
                                          ": " + err.what());
    }
  }
  ProfileEstimate e;
  e.accelerator = acc.name();
  e.mapping = workload::map_profile(profile, precision);
  const auto& calls = e.mapping.calls;

  // Distinct kernels, simulated once each.
  std::unordered_map<std::string, std::size_t> index;
  std::vector<Kernel> unique;
  std::vector<std::vector<std::size_t>> slots(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    if (!calls[c].sim.mapped) continue;
    for (const Kernel& k : calls[c].sim.kernels) {
      auto [it, fresh] = index.emplace(kernel_key(k), unique.size());
      if (fresh) unique.push_back(k);
      slots[c].push_back(it->second);
    }
  }
  e.distinct_kernels = std::int64_t(unique.size());

  // A profile with a backward pass is a training step: its forward ops also recorded the backward
  // graph, which costs the host more (host.autograd_factor).
  const bool training = std::any_of(calls.begin(), calls.end(),
                                    [](const workload::ProfiledCall& c) { return c.phase == workload::ProfilePhase::backward; });
  const double autograd = training ? acc.host_autograd_factor() : 1.0;
  // A launch's host seconds, as a network step's (launch_host_cost.h).
  auto host_cost = [&](const workload::ProfiledCall& call, const Kernel* k) {
    return launch_host_s(acc, k, call.phase == workload::ProfilePhase::forward, autograd);
  };
  // Whether call c's kernels all ran in the model.
  auto simulated = [&](const std::vector<KernelOutcome>& outcomes, std::size_t c) {
    if (!calls[c].sim.mapped) return false;
    for (std::size_t slot : slots[c])
      if (!outcomes[slot].ok) return false;
    return true;
  };
  // The step through the launch queue: simulated calls at their kernels' times, the others at their
  // measured time.
  struct Replayed {
    double step_s = 0, busy_s = 0, simulated_busy_s = 0, simulated_energy_j = 0;
  };
  auto replay = [&](const std::vector<KernelOutcome>& outcomes) {
    LaunchQueue q(0);  // every launch gives its own host seconds
    Replayed r;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const workload::ProfiledCall& call = calls[c];
      if (simulated(outcomes, c)) {
        for (std::size_t i = 0; i < call.sim.kernels.size(); ++i) {
          const KernelResult& k = outcomes[slots[c][i]].result;
          const double n = double(call.sim.kernels[i].count);
          q.launch(k.time_s, call.sim.kernels[i].count, host_cost(call, &call.sim.kernels[i]));
          r.simulated_busy_s += k.time_s * n;
          r.simulated_energy_j += k.get("energy_j").value_or(0) * n;
        }
      } else {
        const std::int64_t n = std::int64_t(call.kernels.size());
        q.launch(call.measured_us * 1e-6 / double(n), n, host_cost(call, nullptr));  // kept as measured
      }
    }
    r.step_s = q.finish_s();
    r.busy_s = q.gpu_busy_s();
    return r;
  };
  // The clock (step_clock.h): a profiled loop's kernels share one, as a network step's do. The calls
  // the model does not run are charged the simulated kernels' average power over their measured time.
  const StepClock clock = choose_step_clock(acc, unique, jobs, [&](const std::vector<KernelOutcome>& outcomes) {
    const Replayed r = replay(outcomes);
    const double kernel_power = r.simulated_busy_s > 0 ? r.simulated_energy_j / r.simulated_busy_s : 0;
    const double energy = r.simulated_energy_j + kernel_power * std::max(0.0, r.busy_s - r.simulated_busy_s) +
                          acc.idle_power_w() * std::max(0.0, r.step_s - r.busy_s);
    return r.step_s > 0 ? energy / r.step_s : 0.0;
  });
  e.step_clock_hz = clock.clock_hz;
  const std::vector<KernelOutcome>& outcomes = clock.outcomes;

  e.calls.resize(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const workload::ProfiledCall& call = calls[c];
    CallEstimate& r = e.calls[c];
    e.measured_us += call.measured_us;
    e.measured_tensor_core_us += call.measured_tensor_core_us;
    if (!call.sim.mapped) {
      r.reason = call.sim.reason;
    } else {
      r.simulated = true;
      double longest = -1;
      for (std::size_t i = 0; i < call.sim.kernels.size(); ++i) {
        const KernelOutcome& o = outcomes[slots[c][i]];
        const Kernel& k = call.sim.kernels[i];
        if (!o.ok) {
          r.simulated = false;
          r.reason = "the model cannot run " + k.name + ": " + o.error;
          break;
        }
        const double t = o.result.time_s * 1e6 * double(k.count);
        r.predicted_us += t;
        r.flops += o.result.flops * double(k.count);
        if (on_tensor_cores(k)) r.predicted_tensor_core_us += t;
        if (t > longest) longest = t, r.bound = o.result.bound, r.mapping = o.result.mapping;
      }
    }
    if (r.simulated) {
      e.measured_mapped_us += call.measured_us;
      e.predicted_mapped_us += r.predicted_us;
      e.predicted_tensor_core_us += r.predicted_tensor_core_us;
    } else {
      r.predicted_us = r.predicted_tensor_core_us = r.flops = 0;
      r.bound.clear(), r.mapping.clear();
      e.not_mapped_us += call.measured_us;
      ++e.not_mapped_calls;
    }
  }
  e.predicted_us = e.predicted_mapped_us + e.not_mapped_us;
  const Replayed step = replay(outcomes);
  e.step_us = step.step_s * 1e6;
  e.host_idle_us = std::max(0.0, e.step_us - step.busy_s * 1e6);
  return e;
}

namespace {

struct CallRow {
  const workload::ProfiledCall* call;
  const CallEstimate* est;
};

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }
io::Cell error_cell(double measured, double predicted, bool simulated) {
  if (!simulated || measured <= 0) return io::Cell();
  return error_pct(measured, predicted);
}

}  // namespace

io::Table profile_calls_table(const ProfileEstimate& e, bool replay) {
  std::vector<CallRow> rows;
  for (std::size_t i = 0; i < e.calls.size(); ++i) rows.push_back({&e.mapping.calls[i], &e.calls[i]});
  using C = io::ColumnOf<CallRow>;
  std::vector<C> cols = {
      {"name", "the op call (or the kernel, when no op launched it)", [](const CallRow& r) { return io::Cell(r.call->name); }},
      {"phase", "forward, backward, optimizer, or unknown (no op launched it)", [](const CallRow& r) { return io::Cell(std::string(workload::to_string(r.call->phase))); }},
      {"family", "gemm, conv, attention, elementwise, softmax, norm, reduce, optimizer, other",
       [](const CallRow& r) { return io::Cell(r.call->sim.family); }},
      {"shape", "what tcsim simulates", [](const CallRow& r) { return io::Cell(r.call->sim.shape); }},
      {"kernels", "GPU kernels the call launched", [](const CallRow& r) { return io::Cell(std::int64_t(r.call->kernels.size())); }},
      {"kernel", "its longest kernel's name", [](const CallRow& r) { return io::Cell(r.call->first_kernel); }},
      {"measured_us", "measured kernel time of the call", [](const CallRow& r) { return io::Cell(r.call->measured_us); }},
      {"measured_tensor_core_pct", "share of it in kernels whose names say tensor cores",
       [](const CallRow& r) { return io::Cell(pct(r.call->measured_tensor_core_us, r.call->measured_us)); }},
      {"predicted_us", "tcsim's time of the call (empty: not simulated)",
       [](const CallRow& r) { return r.est->simulated ? io::Cell(r.est->predicted_us) : io::Cell(); }},
  };
  cols.push_back({"measured_tflops", "the call's useful work over its measured time (how close to peak it ran)",
                  [](const CallRow& r) { return r.est->simulated && r.call->measured_us > 0 && r.est->flops > 0 ? io::Cell(r.est->flops / r.call->measured_us * 1e-6) : io::Cell(); }});
  cols.push_back({"predicted_tflops", "the same work over the predicted time",
                  [](const CallRow& r) { return r.est->simulated && r.est->predicted_us > 0 && r.est->flops > 0 ? io::Cell(r.est->flops / r.est->predicted_us * 1e-6) : io::Cell(); }});
  if (replay)
    cols.push_back({"speedup", "measured / predicted",
                    [](const CallRow& r) { return r.est->simulated && r.est->predicted_us > 0 ? io::Cell(r.call->measured_us / r.est->predicted_us) : io::Cell(); }});
  else
    cols.push_back({"error_pct", "(predicted - measured) / measured",
                    [](const CallRow& r) { return error_cell(r.call->measured_us, r.est->predicted_us, r.est->simulated); }});
  cols.push_back({"predicted_tensor_core_pct", "share of the predicted time on tensor cores",
                  [](const CallRow& r) { return r.est->simulated ? io::Cell(pct(r.est->predicted_tensor_core_us, r.est->predicted_us)) : io::Cell(); }});
  cols.push_back({"measured_metrics", "its longest kernel's measured counters (Nsight Compute), unit in the name",
                  [](const CallRow& r) { return io::Cell(r.call->metrics); }});
  cols.push_back({"bound", "what limits its longest kernel", [](const CallRow& r) { return io::Cell(r.est->bound); }});
  cols.push_back({"mapping", "the model's mapping of its longest kernel", [](const CallRow& r) { return io::Cell(r.est->mapping); }});
  cols.push_back({"not_mapped", "why it was not simulated (empty: simulated)", [](const CallRow& r) { return io::Cell(r.est->reason); }});
  cols.push_back({"origin", "where the op is in the profile", [](const CallRow& r) { return io::Cell(r.call->origin); }});
  return io::table_of("calls", cols, rows);
}

io::Table profile_families_table(const ProfileEstimate& e, bool replay) {
  struct Family {
    std::string name;
    std::int64_t calls = 0, simulated = 0;
    double measured_us = 0, measured_sim_us = 0, predicted_us = 0;
    std::vector<double> m, p;
    std::map<std::string, double> bound_us;
  };
  std::vector<Family> fams;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < e.calls.size(); ++i) {
    const auto& call = e.mapping.calls[i];
    const auto& est = e.calls[i];
    auto [it, fresh] = at.emplace(call.sim.family, fams.size());
    if (fresh) {
      Family f;
      f.name = call.sim.family;
      fams.push_back(std::move(f));
    }
    Family& f = fams[it->second];
    ++f.calls;
    f.measured_us += call.measured_us;
    if (est.simulated) {
      ++f.simulated;
      f.measured_sim_us += call.measured_us;
      f.predicted_us += est.predicted_us;
      f.bound_us[est.bound] += est.predicted_us;
      if (call.measured_us > 0) f.m.push_back(call.measured_us), f.p.push_back(est.predicted_us);
    }
  }
  const double total = e.measured_us, predicted_total = e.predicted_us;
  using C = io::ColumnOf<Family>;
  std::vector<C> cols = {
      {"family", "op family", [](const Family& f) { return io::Cell(f.name); }},
      {"calls", "op calls", [](const Family& f) { return io::Cell(f.calls); }},
      {"simulated", "of them simulated", [](const Family& f) { return io::Cell(f.simulated); }},
      {"measured_us", "measured kernel time", [](const Family& f) { return io::Cell(f.measured_us); }},
      {"measured_share_pct", "of the measured kernel time",
       [total](const Family& f) { return io::Cell(pct(f.measured_us, total)); }},
      {"predicted_us", "predicted time of the simulated calls", [](const Family& f) { return io::Cell(f.predicted_us); }},
      {"predicted_share_pct", "of the predicted step (unmapped calls at their measured time)",
       [predicted_total](const Family& f) {
         return io::Cell(pct(f.predicted_us + (f.measured_us - f.measured_sim_us), predicted_total));
       }},
  };
  if (replay) {
    cols.push_back({"speedup", "measured / predicted over the simulated calls",
                    [](const Family& f) { return f.predicted_us > 0 ? io::Cell(f.measured_sim_us / f.predicted_us) : io::Cell(); }});
  } else {
    cols.push_back({"error_pct", "of the family's summed time (simulated calls)",
                    [](const Family& f) { return f.simulated ? io::Cell(error_pct(f.measured_sim_us, f.predicted_us)) : io::Cell(); }});
    cols.push_back({"mape_pct", "mean absolute error of its calls",
                    [](const Family& f) { return f.m.empty() ? io::Cell() : io::Cell(summarize_errors(f.m, f.p).mape_pct); }});
  }
  cols.push_back({"bound", "what limits most of its predicted time", [](const Family& f) {
                    std::string best;
                    double t = -1;
                    for (const auto& [b, us] : f.bound_us)
                      if (us > t) t = us, best = b;
                    return io::Cell(best);
                  }});
  return io::table_of("families", cols, fams);
}

io::Table profile_not_mapped_table(const ProfileEstimate& e) {
  struct Entry {
    std::string name, family, reason;
    std::int64_t calls = 0, kernels = 0;
    double measured_us = 0;
  };
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < e.calls.size(); ++i) {
    if (e.calls[i].simulated) continue;
    const auto& call = e.mapping.calls[i];
    const std::string key = call.name + '\n' + e.calls[i].reason;
    auto [it, fresh] = at.emplace(key, entries.size());
    if (fresh) {
      Entry x;
      x.name = call.name, x.family = call.sim.family, x.reason = e.calls[i].reason;
      entries.push_back(std::move(x));
    }
    Entry& x = entries[it->second];
    ++x.calls;
    x.kernels += std::int64_t(call.kernels.size());
    x.measured_us += call.measured_us;
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.measured_us > b.measured_us; });
  const double total = e.measured_us;
  using C = io::ColumnOf<Entry>;
  return io::table_of("not_mapped",
                      std::vector<C>{
                          {"name", "op (or kernel) not simulated", [](const Entry& x) { return io::Cell(x.name); }},
                          {"family", "op family", [](const Entry& x) { return io::Cell(x.family); }},
                          {"calls", "op calls", [](const Entry& x) { return io::Cell(x.calls); }},
                          {"kernels", "GPU kernels", [](const Entry& x) { return io::Cell(x.kernels); }},
                          {"measured_us", "their measured time", [](const Entry& x) { return io::Cell(x.measured_us); }},
                          {"measured_share_pct", "of all measured kernel time",
                           [total](const Entry& x) { return io::Cell(pct(x.measured_us, total)); }},
                          {"reason", "why", [](const Entry& x) { return io::Cell(x.reason); }},
                      },
                      entries);
}

namespace {

std::string bottleneck(const ProfileEstimate& e) {
  if (e.step_us > 0 && e.host_idle_us > 0.5 * e.step_us) return "host: the GPU waits for kernel launches";
  std::map<std::string, double> fam_us;
  std::map<std::string, std::map<std::string, double>> fam_bound;
  for (std::size_t i = 0; i < e.calls.size(); ++i) {
    const auto& call = e.mapping.calls[i];
    const auto& est = e.calls[i];
    const double t = est.simulated ? est.predicted_us : call.measured_us;
    fam_us[call.sim.family] += t;
    fam_bound[call.sim.family][est.simulated ? est.bound : "as measured"] += t;
  }
  std::string fam, bound;
  double best = -1;
  for (const auto& [f, t] : fam_us)
    if (t > best) best = t, fam = f;
  double b = -1;
  for (const auto& [name, t] : fam_bound[fam])
    if (t > b) b = t, bound = name;
  return fam + " (" + format_number("%.0f", pct(best, e.predicted_us)) + "% of the kernel time, " + bound + ")";
}

}  // namespace

io::Table profile_step_table(const ProfileEstimate& e, bool replay) {
  io::Table t;
  t.name = "step";
  std::vector<io::Cell> row;
  auto add = [&](const char* name, const char* desc, io::Cell v) {
    t.add_column(name, desc);
    row.push_back(std::move(v));
  };
  add("accelerator", "the config simulated", e.accelerator);
  add("kernels", "GPU kernels in the profile", std::int64_t(e.mapping.kernels));
  add("calls", "op calls (kernels grouped by the op that launched them)", std::int64_t(e.calls.size()));
  add("distinct_kernels", "tcsim kernels simulated (repeated shapes once)", e.distinct_kernels);
  add("not_mapped_calls", "op calls not simulated", e.not_mapped_calls);
  add("measured_kernel_time_us", "all kernels' measured durations", e.measured_us);
  add("measured_span_us", "measured step on the GPU: first kernel start to last kernel end", e.mapping.span_us);
  add("mapped_share_pct", "of the measured kernel time, in simulated calls", pct(e.measured_mapped_us, e.measured_us));
  add("not_mapped_us", "measured time of the calls not simulated", e.not_mapped_us);
  add("measured_tensor_core_pct", "of the measured kernel time, in kernels whose names say tensor cores",
      pct(e.measured_tensor_core_us, e.measured_us));
  add("predicted_tensor_core_pct", "of the predicted kernel time, in tensor-core GEMM, conv and attention kernels",
      pct(e.predicted_tensor_core_us, e.predicted_us));
  add("predicted_mapped_us", "predicted time of the simulated calls", e.predicted_mapped_us);
  if (!replay)
    add("mapped_error_pct", "(predicted - measured) / measured over the simulated calls",
        e.measured_mapped_us > 0 ? io::Cell(error_pct(e.measured_mapped_us, e.predicted_mapped_us)) : io::Cell());
  add("predicted_kernel_time_us", "simulated calls predicted, the rest as measured", e.predicted_us);
  add("predicted_step_us", "the launch queue: predicted kernels and host launches", e.step_us);
  add("host_idle_us", "of it, the GPU waiting for kernel launches", e.host_idle_us);
  add("clock_mhz", "the clock the step's kernels share under the power limit (empty: no limit to enforce)",
      e.step_clock_hz > 0 ? io::Cell(e.step_clock_hz / 1e6) : io::Cell());
  if (replay)
    add("speedup", "measured span / predicted step", e.step_us > 0 ? io::Cell(e.mapping.span_us / e.step_us) : io::Cell());
  add("bottleneck", "the op family with the most predicted time, and what bounds it (or the host)", bottleneck(e));
  t.add_row(std::move(row));
  return t;
}

}  // namespace tcsim::engine
