// `tcsim run` for systolic arrays: `kind: systolic` YAML configs and SCALE-Sim .cfg files, with a
// SCALE-Sim topology (--topology, conv or GEMM form), op-trace CSVs and/or --gemm shapes. Prints a table of the
// layers; with -o also writes SCALE-Sim's COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and
// DETAILED_ACCESS_REPORT.csv (byte-compatible with SCALE-Sim v2), our summary.csv, summary.json,
// results.h5 and config.resolved.yaml, and with --traces per-layer SRAM and DRAM traces (traces.h).
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/result_attributes.h"
#include "cli/run/run_request.h"
#include "common/files/atomic_dir.h"
#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"
#include "config/config.h"
#include "io/writers.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/reports/scalesim_reports.h"
#include "systolic/systolic_model.h"
#include "systolic/config/systolic_schema.h"
#include "systolic/traces/traces.h"
#include "workload/csv/op_trace.h"
#include "workload/csv/scalesim_topology.h"

namespace tcsim::cli {
namespace {

struct Job {
  Kernel kernel;
  std::string where;
};

Kernel parse_gemm(const std::string& text) {
  const std::vector<std::string> parts = split(to_lower(text), 'x');
  if (parts.size() != 3 && parts.size() != 4)
    throw InputError("--gemm", "expected MxNxK or MxNxKxBATCH (e.g. 1024x1024x1024), got '" + text + "'");
  std::int64_t v[4] = {0, 0, 0, 1};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::size_t pos = 0;
    try {
      v[i] = std::stoll(parts[i], &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos == 0 || pos != parts[i].size() || v[i] <= 0)
      throw InputError("--gemm", "expected positive integers MxNxK, got '" + text + "'");
  }
  Kernel k = make_gemm("gemm_" + text, v[0], v[1], v[2], FormatId::int8, FormatId::int32);
  k.batch = v[3];
  return k;
}

// Topology rows and --gemm shapes carry no format: SCALE-Sim's 1-byte words, int8 in and int32 out.
// An array that does not take int8 (array.formats) runs them in its native format, the list's first.
Kernel in_native_format(Kernel k, const systolic::SystolicConfig& c) {
  if (c.takes(k.a_format)) return k;
  const FormatId f = c.formats.front().format;
  k.a_format = k.b_format = f;
  k.c_format = k.d_format = format_is_integer(f) ? FormatId::int32 : FormatId::fp32;
  return k;
}

io::Table layers_table(const std::vector<systolic::LayerReport>& rs, const systolic::SystolicConfig& c) {
  io::Table t;
  t.name = "layers";
  t.add_column("layer", "SCALE-Sim LayerID");
  t.add_column("name");
  t.add_column("total_cycles", "SCALE-Sim Total Cycles (scalesim_v2: index of the last cycle)");
  t.add_column("stall_cycles");
  t.add_column("overall_util_pct");
  t.add_column("mapping_efficiency_pct");
  t.add_column("compute_util_pct");
  t.add_column("macs");
  t.add_column("row_folds");
  t.add_column("col_folds");
  t.add_column("fold_cycles");
  for (const char* n : {"sram_ifmap_read_words", "sram_filter_read_words", "sram_ofmap_write_words",
                        "dram_ifmap_read_words", "dram_filter_read_words", "dram_ofmap_write_words"})
    t.add_column(n);
  t.add_column("dram_read_bytes");
  t.add_column("dram_write_bytes");
  if (c.clock_hz > 0) t.add_column("time_us");
  t.add_column("notes");
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    std::vector<io::Cell> row = {static_cast<std::int64_t>(i), r.name, r.total_cycles, r.stall_cycles,
                                 r.overall_util_pct, r.mapping_efficiency_pct, r.compute_util_pct, r.macs,
                                 r.row_folds, r.col_folds, r.fold_cycles, r.sram_ifmap.count, r.sram_filter.count,
                                 r.sram_ofmap.count, r.dram_ifmap.count, r.dram_filter.count, r.dram_ofmap.count,
                                 static_cast<std::int64_t>((r.dram_ifmap.count + r.dram_filter.count) * r.word_bytes),
                                 static_cast<std::int64_t>(r.dram_ofmap.count * r.out_word_bytes)};
    if (c.clock_hz > 0) row.emplace_back(r.time_s * 1e6);
    row.emplace_back(join(r.notes, "; "));
    t.add_row(std::move(row));
  }
  return t;
}

// The columns people read first; everything is in summary.csv.
io::Table terminal_view(const io::Table& full) {
  return io::select_columns(full, {"layer", "name", "total_cycles", "stall_cycles", "overall_util_pct",
                                   "mapping_efficiency_pct", "compute_util_pct", "dram_ifmap_read_words",
                                   "dram_filter_read_words", "dram_ofmap_write_words", "time_us"});
}

int run_systolic(const RunRequest& req) {
  systolic::SystolicConfig cfg;
  std::string resolved;
  if (req.config_kind == "scalesim_cfg") {
    if (!req.overrides.empty())
      throw InputError("--set", "overrides apply to YAML configs; edit the SCALE-Sim .cfg or use a kind: systolic YAML");
    cfg = systolic::read_scalesim_cfg(req.config_path);
    resolved = systolic::format_systolic_yaml(cfg, "resolved from the SCALE-Sim config " + req.config_path);
  } else {
    const config::Config c = config::Config::load(req.config_path, systolic::config_schema(), req.overrides);
    cfg = systolic::config_from(c);
    resolved = c.resolved_yaml();
  }
  const systolic::SystolicModel model(cfg);
  if (!req.formats.empty()) throw InputError("--formats", "not used by systolic configs (SCALE-Sim words are 1 byte)");
  if (!req.sparse.empty()) throw InputError("--sparse", "GPU configs only (mma.sp); systolic configs run dense GEMMs");
  if (req.warm_l2) throw InputError("--warm-l2", "GPU configs only; systolic configs model their SRAMs explicitly");
  if (req.traces && req.output_dir.empty()) throw InputError("--traces", "needs an output folder (-o DIR)");

  std::vector<Job> jobs;
  if (!req.topology.empty()) {
    workload::TopologyKind kind = workload::TopologyKind::detect;
    if (req.topology_kind == "conv") kind = workload::TopologyKind::conv;
    else if (req.topology_kind == "gemm") kind = workload::TopologyKind::gemm;
    else if (!req.topology_kind.empty())
      throw InputError("--topology-kind", "expected conv or gemm, got '" + req.topology_kind + "'");
    for (auto& l : workload::read_scalesim_topology(req.topology, kind))
      jobs.push_back({in_native_format(l.kernel, cfg), location(req.topology, l.line)});
  } else if (!req.topology_kind.empty()) {
    throw InputError("--topology-kind", "applies to --topology");
  }
  // Op-trace CSVs (traces/README.md): each row's GEMM on the array, as a GEMM topology row would run;
  // its formats size the words where the config says so (bytes_from_formats).
  for (const auto& file : req.inputs) {
    std::vector<std::string> origins;
    const std::vector<Kernel> ks = workload::read_op_trace(file, &origins);
    if (ks.empty()) throw InputError(file, "the op trace has no rows");
    for (std::size_t i = 0; i < ks.size(); ++i) {
      if (ks[i].sparse_a)
        throw InputError(origins[i] + ": sparsity", "2:4 sparse rows need a GPU config (mma.sp); systolic arrays run dense GEMMs");
      if (ks[i].l2_warm)
        throw InputError(origins[i] + ": warm_l2", "GPU configs only; systolic configs model their SRAMs explicitly");
      jobs.push_back({ks[i], origins[i]});
    }
  }
  for (const auto& g : req.gemms) jobs.push_back({in_native_format(parse_gemm(g), cfg), "--gemm " + g});
  if (jobs.empty())
    throw InputError("tcsim run", "nothing to simulate: give --topology FILE.csv, an op-trace CSV or --gemm MxNxK");

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<systolic::Layer> layers;
  std::vector<systolic::LayerReport> reports;
  for (const auto& j : jobs) {
    for (const auto& l : model.layers_of(j.kernel, j.where)) {
      layers.push_back(l);
      reports.push_back(model.run_layer(l));
      const std::int64_t batch = j.kernel.kind == Kernel::Kind::gemm ? j.kernel.batch : j.kernel.conv.batch;
      if (batch > 1) reports.back().notes.push_back("batch " + std::to_string(batch) + ": one instance reported");
      if (j.kernel.count > 1)
        reports.back().notes.push_back("count " + std::to_string(j.kernel.count) + ": one run reported");
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  io::ResultSet rs;
  rs.attributes = result_attributes(req.command_line, req.config_path, resolved, model.name(),
                                    {{"semantics", systolic::to_string(cfg.semantics)}, {"topology", req.topology}});
  rs.tables.push_back(layers_table(reports, cfg));

  if (req.format == "csv") std::cout << io::format_csv(rs.tables[0]);
  else if (req.format == "json") std::cout << io::format_json(rs);
  else std::cout << io::format_text_table(terminal_view(rs.tables[0]));
  std::cout.flush();

  if (!req.output_dir.empty()) {
    AtomicDir out(req.output_dir);  // appears only when every file below is written
    const std::filesystem::path dir = out.work();
    io::write_result_dir(dir, rs);
    write_file_atomically(dir / "COMPUTE_REPORT.csv", systolic::compute_report_csv(reports));
    write_file_atomically(dir / "BANDWIDTH_REPORT.csv", systolic::bandwidth_report_csv(reports));
    write_file_atomically(dir / "DETAILED_ACCESS_REPORT.csv", systolic::detailed_access_report_csv(reports));
    if (req.traces) {
      // Check every layer first so that a too-large layer fails before any trace is written.
      auto label = [&](std::size_t i) { return "layer " + std::to_string(i) + " (" + layers[i].name + ")"; };
      std::uint64_t budget = 0;
      try {
        budget = units::parse_bytes(req.traces_max_size);
      } catch (const ParseError& e) {
        throw InputError("--traces-max-size", std::string("expected a size like 1GiB: ") + e.what());
      }
      double cells = 0;
      for (std::size_t i = 0; i < layers.size(); ++i) {
        systolic::check_trace_size(layers[i], cfg, reports[i], label(i));
        cells += double(systolic::trace_cells(layers[i], cfg, reports[i]));
      }
      const double bytes = cells * systolic::kTraceBytesPerCell;
      if (bytes > double(budget))
        throw InputError("--traces-max-size", "the traces of " + std::to_string(layers.size()) + " layers would take about " +
                                                  units::format_bytes(static_cast<std::uint64_t>(bytes)) + " (" +
                                                  format_number("%.3g", cells) + " cells); the budget is " +
                                                  units::format_bytes(budget) + ". Raise it or trace fewer layers.");
      for (std::size_t i = 0; i < layers.size(); ++i)
        systolic::write_layer_traces(dir / ("layer" + std::to_string(i)), layers[i], cfg, reports[i], label(i));
    }
    out.commit();
  }
  double cycles = 0;
  for (const auto& r : reports) cycles += static_cast<double>(r.total_cycles);
  char buf[256];
  std::snprintf(buf, sizeof buf, "tcsim run: %zu layers on %s (%s): %.6g cycles; simulated in %.3g s", reports.size(),
                model.name().c_str(), systolic::to_string(cfg.semantics).c_str(), cycles, wall_s);
  std::cerr << buf << (req.output_dir.empty() ? "" : "; wrote " + req.output_dir) << "\n";
  return 0;
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_RUN_BACKEND(systolic, "systolic", tcsim::cli::run_systolic)
TCSIM_REGISTER_RUN_BACKEND(scalesim_cfg, "scalesim_cfg", tcsim::cli::run_systolic)
