// `tcsim run` for `kind: gpu` configs: op-trace CSVs and/or --gemm shapes, simulated on the GPU
// model; a table on stdout, a one-line summary on stderr, and with -o the result folder.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/result_attributes.h"
#include "cli/run/run_request.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "engine/gemm_results_table.h"
#include "engine/kernel_runner.h"
#include "engine/load_accelerator.h"
#include "io/writers.h"
#include "workload/csv/csv_text.h"
#include "workload/csv/op_trace.h"

namespace tcsim::cli {
namespace {

// "MxNxK" or "MxNxKxBATCH".
Kernel parse_gemm_option(const std::string& text, const std::string& formats) {
  const std::vector<std::string> parts = split(to_lower(text), 'x');
  if (parts.size() != 3 && parts.size() != 4)
    throw InputError("--gemm", "expected MxNxK or MxNxKxBATCH (e.g. 4096x4096x4096), got '" + text + "'");
  Kernel k;
  k.kind = Kernel::Kind::gemm;
  k.name = "gemm_" + text;
  static const char* const fields[] = {"m", "n", "k", "batch"};
  std::int64_t v[4] = {0, 0, 0, 1};
  for (std::size_t i = 0; i < parts.size(); ++i) v[i] = workload::parse_dimension(parts[i], "--gemm", 0, fields[i]);
  k.m = v[0];
  k.n = v[1];
  k.k = v[2];
  k.batch = v[3];
  if (!formats.empty()) {
    const std::vector<std::string> f = split(formats, '.');
    if (f.size() != 3 && f.size() != 4)
      throw InputError("--formats", "expected A.B.ACC or A.B.C.D (e.g. f16.f16.f32), got '" + formats + "'");
    static const char* const names[] = {"a", "b", "c", "d"};
    FormatId ids[4];
    for (std::size_t i = 0; i < f.size(); ++i) ids[i] = workload::parse_format_field(f[i], "--formats", 0, names[i]);
    k.a_format = ids[0];
    k.b_format = ids[1];
    k.c_format = ids[2];
    k.d_format = f.size() == 4 ? ids[3] : ids[2];
  }
  return k;
}

int run_gpu(const RunRequest& req) {
  if (!req.topology.empty())
    throw InputError("--topology", "a SCALE-Sim topology needs a systolic config; a GPU config runs op-trace CSVs "
                                   "or --gemm");
  if (req.traces) throw InputError("--traces", "per-cycle traces exist for systolic configs only");
  if (!req.formats.empty() && req.gemms.empty()) throw InputError("--formats", "applies to --gemm; give --gemm MxNxK");
  if (!req.sparse.empty() && req.sparse != "2:4")
    throw InputError("--sparse", "expected 2:4 (the structured sparsity of mma.sp), got '" + req.sparse + "'");
  if (!req.sparse.empty() && req.gemms.empty())
    throw InputError("--sparse", "applies to --gemm; an op trace says it per row (column sparsity)");

  std::vector<Kernel> kernels;
  std::vector<std::string> where;
  for (const auto& file : req.inputs) {
    auto ks = workload::read_op_trace(file, &where);
    kernels.insert(kernels.end(), ks.begin(), ks.end());
  }
  for (const auto& g : req.gemms) {
    kernels.push_back(parse_gemm_option(g, req.formats));
    kernels.back().sparse_a = !req.sparse.empty();
    where.push_back("--gemm " + g);
  }
  if (req.warm_l2)
    for (Kernel& k : kernels) k.l2_warm = true;
  if (kernels.empty())
    throw InputError("tcsim run", req.inputs.empty() ? "nothing to simulate: give an op-trace CSV or --gemm MxNxK"
                                                     : "the op trace has no rows");

  const engine::LoadedAccelerator loaded = engine::load_accelerator_with_config(req.config_path, req.overrides);
  const int jobs = engine::resolve_jobs(req.jobs);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<KernelResult> results = engine::run_kernels(*loaded.accelerator, kernels, jobs, where);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  io::ResultSet rs;
  rs.attributes = result_attributes(req.command_line, req.config_path, loaded.resolved_yaml, loaded.accelerator->name(),
                                    {{"inputs", join(req.inputs, " ")}});
  rs.tables.push_back(engine::gemm_results_table(kernels, results));
  rs.tables.push_back(engine::totals_table(kernels, results));

  if (req.format == "csv") std::cout << io::format_csv(rs.tables[0]);
  else if (req.format == "json") std::cout << io::format_json(rs);
  else std::cout << io::format_text_table(engine::terminal_view(rs.tables[0]));
  std::cout.flush();

  if (!req.output_dir.empty()) io::write_result_folder(req.output_dir, rs, true);

  double total_s = 0, flops = 0, cycles = 0, energy = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    total_s += results[i].time_s * static_cast<double>(kernels[i].count);
    energy += results[i].get("energy_j").value_or(0) * static_cast<double>(kernels[i].count);
    flops += results[i].flops * static_cast<double>(kernels[i].count);
    cycles += results[i].cycles;  // what was simulated: each kernel once
  }
  std::cerr << "tcsim run: " << kernels.size() << " kernels on " << loaded.accelerator->name() << ": total "
            << format_number("%.6g", total_s * 1e6) << " us (x count), " << format_number("%.4g", total_s > 0 ? flops / total_s / 1e12 : 0)
            << " TFLOP/s, " << format_number("%.4g", energy) << " J at "
            << format_number("%.4g", total_s > 0 ? energy / total_s : 0) << " W; simulated " << format_number("%.4g", cycles) << " cycles in " << format_number("%.3g", wall_s) << " s wall = "
            << format_number("%.3g", wall_s > 0 ? cycles / wall_s : 0) << " cycles/s (" << jobs << (jobs == 1 ? " thread)" : " threads)")
            << (req.output_dir.empty() ? "" : "; wrote " + req.output_dir) << "\n";
  return 0;
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_RUN_BACKEND(gpu, "gpu", tcsim::cli::run_gpu)
