#include "engine/sweep/sweep_runner.h"

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/version.h"
#include "engine/kernel_key.h"
#include "engine/kernel_runner.h"
#include "engine/sweep/model_cache.h"
#include "engine/sweep/output/sweep_folder.h"
#include "engine/sweep/sweep_progress.h"
#include "engine/sweep/output/sweep_table.h"
#include "io/writers.h"
#include "workload/network/lowering/lowering.h"

namespace tcsim::engine::sweep {
namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bit: stable across runs and machines (std::hash is not).
struct Hasher {
  std::uint64_t h = 1469598103934665603ull;
  void add(const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // separator
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
};

std::string resolved_spec_text(const PreparedSweep& p) {
  const SweepSpec& s = p.spec;
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << s.name;
  e << YAML::Key << "base" << YAML::Value << s.base_as_written;
  e << YAML::Key << "mode" << YAML::Value << (s.zip ? "zip" : "product");
  e << YAML::Key << "axes" << YAML::Value << YAML::BeginSeq;
  for (const auto& a : s.axes) {
    e << YAML::BeginMap << YAML::Key << "name" << YAML::Value << a.name;
    if (!a.path.empty()) e << YAML::Key << "path" << YAML::Value << a.path;
    e << YAML::Key << "values" << YAML::Value << YAML::BeginSeq;
    for (const auto& v : a.values) {
      e << YAML::Flow << YAML::BeginMap << YAML::Key << "label" << YAML::Value << v.label;
      e << YAML::Key << "set" << YAML::Value << YAML::Flow << v.overrides << YAML::EndMap;
    }
    e << YAML::EndSeq << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "constraints" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : s.constraints) e << c.text;
  e << YAML::EndSeq;
  e << YAML::Key << "combinations" << YAML::Value << p.expansion.candidates;
  e << YAML::Key << "dropped_by_constraints" << YAML::Value << p.expansion.dropped;
  e << YAML::Key << "points" << YAML::Value << p.expansion.points.size();
  e << YAML::Key << "workloads" << YAML::Value << YAML::BeginSeq;
  for (const auto& lw : p.workloads) {
    const WorkloadSpec& w = lw.spec;
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << w.name;
    e << YAML::Key << (w.trace ? "trace" : "model") << YAML::Value << w.file_as_written;
    if (!w.trace) {
      e << YAML::Key << "batch" << YAML::Value << lw.network->network.batch;
      if (lw.network->network.has_sequence()) {
        e << YAML::Key << "seq" << YAML::Value << lw.network->network.seq;
        e << YAML::Key << "kv_len" << YAML::Value << lw.network->network.past;
      }
      e << YAML::Key << "precision" << YAML::Value << w.precision << YAML::Key << "pass" << YAML::Value << w.pass;
      // How the framework runs the step, where it differs from tcsim network's defaults.
      const NetworkRunChoices d;
      for (const auto& [k, member] : kRunChoiceText)
        if (w.run.*member != d.*member) e << YAML::Key << k << YAML::Value << w.run.*member;
      for (const auto& [k, member] : kRunChoiceSwitches)
        if (w.run.*member != d.*member) e << YAML::Key << k << YAML::Value << w.run.*member;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "metrics" << YAML::Value << YAML::Flow << (s.metrics.empty() ? metric_names() : s.metrics);
  e << YAML::Key << "detail" << YAML::Value << (s.layer_detail ? "layers" : "none");
  e << YAML::EndMap;
  return std::string("# tcsim sweep: the spec as run (every axis value, the --set overrides it applies, the point count)\n") +
         e.c_str() + "\n";
}

Manifest manifest_of(const PreparedSweep& p, int shard, int shards) {
  Manifest m;
  m.hash = p.hash;
  m.shard = shard;
  m.shards = shards;
  m.tasks = p.tasks();
  m.points = results_columns(p.spec);
  m.layers = layer_columns();
  m.layer_detail = p.spec.layer_detail;
  m.attributes = {{"tcsim_version", kVersion},
                  {"sweep", p.spec.name},
                  {"spec_hash", p.hash},
                  {"points", std::to_string(p.expansion.points.size())},
                  {"workloads", std::to_string(p.workloads.size())}};
  return m;
}

// Creates the folder and its manifest, or checks that it holds this sweep's shard.
void open_folder(const fs::path& dir, const Manifest& want, const std::string& resolved_spec) {
  Manifest have;
  std::error_code ec;
  if (read_manifest(dir, have)) {
    if (have.hash != want.hash)
      throw InputError(dir.string(), "holds another sweep (spec hash " + have.hash + ", this one " + want.hash +
                                         "): remove the folder or choose another -o");
    if (have.shard != want.shard || have.shards != want.shards)
      throw InputError(dir.string(), "holds shard " + std::to_string(have.shard) + "/" + std::to_string(have.shards) +
                                         " of this sweep, not " + std::to_string(want.shard) + "/" + std::to_string(want.shards));
    return;
  }
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw InputError(dir.string(), "exists and is not a sweep output folder: choose an empty or new folder");
  fs::create_directories(dir / "points");
  write_file_atomically(dir / "spec.resolved.yaml", resolved_spec);
  write_file_atomically(dir / "sweep.manifest", encode_manifest(want));  // last: the folder is now a sweep's
}

// A resolved config less its leading comment, which names the config file as the path was written
// (relative or absolute): the same sweep started from another folder is the same sweep.
std::string without_header(const std::string& yaml) {
  std::size_t i = 0;
  while (i < yaml.size() && yaml[i] == '#') {
    const std::size_t nl = yaml.find('\n', i);
    i = nl == std::string::npos ? yaml.size() : nl + 1;
  }
  return yaml.substr(i);
}

}  // namespace

PreparedSweep prepare_sweep(const fs::path& spec_file) {
  PreparedSweep p;
  p.spec = read_sweep_spec(spec_file);
  check_metrics(p.spec);
  for (const auto& w : p.spec.workloads) p.workloads.push_back(load_workload(w, spec_file.string()));
  p.expansion = expand_points(p.spec);
  p.resolved_spec = resolved_spec_text(p);
  Hasher h;
  h.add(p.resolved_spec);
  for (const auto& pt : p.expansion.points) h.add(without_header(pt.resolved_yaml));
  for (const auto& w : p.spec.workloads) h.add(read_file(w.file));
  p.hash = h.hex();
  return p;
}

SweepStats run_sweep(const PreparedSweep& p, const SweepOptions& o) {
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards)
    throw InputError("--shard", "expected I/N with 0 <= I < N, got " + std::to_string(o.shard) + "/" + std::to_string(o.shards));
  const auto t0 = std::chrono::steady_clock::now();
  const Manifest m = manifest_of(p, o.shard, o.shards);
  open_folder(o.out_dir, m, p.resolved_spec);
  std::map<std::size_t, Record> records = read_records(o.out_dir, m);

  SweepStats st;
  std::vector<std::size_t> todo;
  for (std::size_t t = 0; t < p.tasks(); ++t)
    if (m.owns(t)) {
      ++st.shard_tasks;
      if (!records.count(t)) todo.push_back(t);
    }
  st.resumed = st.shard_tasks - todo.size();

  ModelCache cache;
  Progress progress(st.shard_tasks, st.resumed, o.progress_bar, o.log);
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> lookups{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;
  const std::size_t W = p.workloads.size();
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= todo.size() || failed) return;
      const std::size_t task = todo[i];
      try {
        const SweepPoint& pt = p.expansion.points[task / W];
        const auto acc = cache.get(p.spec.base, pt.overrides, pt.resolved_yaml, pt.kind);
        const WorkloadRun run = run_workload(*acc, p.workloads[task % W]);
        lookups += std::uint64_t(run.kernels);
        Record r = make_record(p.spec, pt, task % W, run);
        write_file_atomically(record_path(o.out_dir, task), encode_record(r, p.hash));
        {
          std::lock_guard<std::mutex> lock(mu);
          records.emplace(task, std::move(r));
        }
        progress.tick();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(resolve_jobs(o.jobs), int(std::max<std::size_t>(1, todo.size()))));
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  progress.finish();
  if (error) std::rethrow_exception(error);

  assemble(o.out_dir, m, records);
  st.ran = todo.size();
  st.kernel_lookups = lookups;
  st.model_calls = cache.lookups();
  st.model_hits = cache.hits();
  st.models_built = cache.models_built();
  st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

std::string dry_run_report(const PreparedSweep& p, int jobs, int shard, int shards) {
  if (shards < 1 || shard < 0 || shard >= shards)
    throw InputError("--shard", "expected I/N with 0 <= I < N, got " + std::to_string(shard) + "/" + std::to_string(shards));
  io::Table t;
  t.name = "points";
  t.add_column("point");
  for (const auto& a : p.spec.axes) t.add_column(a.name);
  for (const auto& pt : p.expansion.points) {
    std::vector<io::Cell> row{io::Cell(std::int64_t(pt.index))};
    for (std::size_t a = 0; a < p.spec.axes.size(); ++a) row.emplace_back(p.spec.axes[a].values[pt.value[a]].label);
    t.add_row(std::move(row));
  }
  // The estimate: distinct kernels of each workload (lowered, not simulated) at about 3 ms each,
  // what ResNet-50 training on A100 costs on one core of the development machine (156 kernels, 0.46 s).
  double distinct = 0;
  for (const auto& w : p.workloads) {
    if (!w.network) {
      std::set<std::string> keys;
      for (const auto& k : w.kernels) keys.insert(kernel_key(k));
      distinct += double(keys.size());
      continue;
    }
    workload::LoweringOptions lo;
    lo.precision = w.network->options.precision;
    lo.training = w.network->options.training;
    try {
      const auto low = workload::lower_network(w.network->network, lo);
      std::set<std::string> keys;
      for (const auto& k : low.kernels) keys.insert(kernel_key(k.kernel));
      distinct += double(keys.size());
    } catch (const InputError&) {
      distinct += double(w.network->network.layers.size());
    }
  }
  std::size_t tasks = 0;
  for (std::size_t i = 0; i < p.tasks(); ++i) tasks += i % std::size_t(shards) == std::size_t(shard) ? 1 : 0;
  const double per_point = distinct * 3e-3;  // seconds for all workloads of one point
  const int j = resolve_jobs(jobs);
  char line[512];
  std::snprintf(line, sizeof line,
                "%zu points (%zu combinations, %zu dropped by constraints) x %zu workloads = %zu runs%s; estimated "
                "%.3g s on %d threads (about 3 ms per distinct kernel, %.0f distinct kernels per point; the kernel "
                "cache makes repeated configs cheaper)\n",
                p.expansion.points.size(), p.expansion.candidates, p.expansion.dropped, p.workloads.size(), p.tasks(),
                shards > 1 ? (" (" + std::to_string(tasks) + " in shard " + std::to_string(shard) + "/" + std::to_string(shards) + ")").c_str() : "",
                per_point * double(tasks) / double(p.workloads.size()) / double(j), j, distinct);
  return io::format_text_table(t) + line;
}

void merge_sweeps(const std::vector<fs::path>& dirs, const fs::path& out_dir) {
  if (dirs.empty()) throw InputError("tcsim merge", "expected the output folders of the shards");
  std::vector<Manifest> ms(dirs.size());
  for (std::size_t i = 0; i < dirs.size(); ++i)
    if (!read_manifest(dirs[i], ms[i])) throw InputError(dirs[i].string(), "is not a sweep output folder (no sweep.manifest)");
  const Manifest& first = ms.front();
  std::set<int> seen;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (ms[i].hash != first.hash)
      throw InputError(dirs[i].string(), "is a shard of another sweep (spec hash " + ms[i].hash + ", " + dirs[0].string() +
                                             ": " + first.hash + ")");
    if (ms[i].shards != first.shards)
      throw InputError(dirs[i].string(), "was run as one of " + std::to_string(ms[i].shards) + " shards, " + dirs[0].string() +
                                             " as one of " + std::to_string(first.shards));
    if (!seen.insert(ms[i].shard).second) throw InputError(dirs[i].string(), "repeats shard " + std::to_string(ms[i].shard));
  }
  if (int(seen.size()) != first.shards) {
    std::string missing;
    for (int s = 0; s < first.shards; ++s)
      if (!seen.count(s)) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
    throw InputError("tcsim merge", "shards missing: " + missing + " of " + std::to_string(first.shards));
  }
  std::map<std::size_t, Record> all;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    auto recs = read_records(dirs[i], ms[i]);
    std::size_t owned = 0;
    for (std::size_t t = 0; t < ms[i].tasks; ++t) owned += ms[i].owns(t) ? 1 : 0;
    if (recs.size() != owned)
      throw InputError(dirs[i].string(), "is unfinished: " + std::to_string(recs.size()) + " of " + std::to_string(owned) +
                                             " runs done (run its tcsim sweep --shard command again)");
    all.merge(recs);
  }
  Manifest m = first;
  m.shard = 0;
  m.shards = 1;
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !(fs::is_directory(out_dir, ec) && fs::is_empty(out_dir, ec)))
    throw InputError(out_dir.string(), "exists and is not empty: merge writes a new folder");
  open_folder(out_dir, m, read_file(dirs[0] / "spec.resolved.yaml"));
  for (const auto& [task, r] : all) write_file_atomically(record_path(out_dir, task), encode_record(r, m.hash));
  assemble(out_dir, m, all);
}

}  // namespace tcsim::engine::sweep
