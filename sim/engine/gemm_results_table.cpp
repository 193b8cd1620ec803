#include "engine/gemm_results_table.h"

#include <algorithm>
#include <stdexcept>

#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::engine {

namespace {

struct KernelRow {
  const Kernel* kernel;
  Kernel gemm;  // gemm_view(*kernel)
  const KernelResult* result;
};

std::string formats_text(const Kernel& g) {
  return std::string(format_name(g.a_format)) + "." + std::string(format_name(g.b_format)) + "." +
         std::string(format_name(g.c_format)) + "." + std::string(format_name(g.d_format));
}

}  // namespace

io::Table gemm_results_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results) {
  if (kernels.size() != results.size()) throw std::invalid_argument("gemm_results_table: sizes differ");
  using Col = io::ColumnOf<KernelRow>;
  std::vector<Col> cols = {
      {"name", "kernel name", [](const KernelRow& r) { return io::Cell(r.kernel->name); }},
      {"m", "GEMM M (a conv: its implicit GEMM)", [](const KernelRow& r) { return io::Cell(r.gemm.m); }},
      {"n", "GEMM N", [](const KernelRow& r) { return io::Cell(r.gemm.n); }},
      {"k", "GEMM K", [](const KernelRow& r) { return io::Cell(r.gemm.k); }},
      {"batch", "batched GEMMs in the kernel", [](const KernelRow& r) { return io::Cell(r.gemm.batch); }},
      {"formats", "a.b.c.d operand formats", [](const KernelRow& r) { return io::Cell(formats_text(r.gemm)); }},
      {"layout", "operand layout (tcsim letters, row-major)",
       [](const KernelRow& r) { return io::Cell(std::string(workload::layout_name(r.gemm.layout))); }},
      {"count", "runs of the kernel", [](const KernelRow& r) { return io::Cell(r.kernel->count); }},
      {"cycles", "core-clock cycles of one run", [](const KernelRow& r) { return io::Cell(r.result->cycles); }},
      {"time_us", "time of one run", [](const KernelRow& r) { return io::Cell(r.result->time_s * 1e6); }},
      {"tflops", "useful TFLOP/s", [](const KernelRow& r) { return io::Cell(r.result->tflops()); }},
      {"bound", "what limits the kernel", [](const KernelRow& r) { return io::Cell(r.result->bound); }},
  };
  std::vector<std::string> metric_names;  // the union of the results' metrics, first-seen order
  for (const auto& r : results)
    for (const auto& [name, value] : r.metrics)
      if (std::find(metric_names.begin(), metric_names.end(), name) == metric_names.end()) metric_names.push_back(name);
  for (const auto& m : metric_names)
    cols.push_back({m, "", [m](const KernelRow& r) {
                      const auto v = r.result->get(m);
                      return v ? io::Cell(*v) : io::Cell();
                    }});
  cols.push_back({"mapping", "the mapping the model chose", [](const KernelRow& r) { return io::Cell(r.result->mapping); }});
  cols.push_back({"notes", "model notes", [](const KernelRow& r) { return io::Cell(join(r.result->notes, "; ")); }});
  std::vector<KernelRow> rows;
  for (std::size_t i = 0; i < kernels.size(); ++i) rows.push_back({&kernels[i], gemm_view(kernels[i]), &results[i]});
  return io::table_of("kernels", cols, rows);
}

io::Table terminal_view(const io::Table& full) {
  return io::select_columns_if(full, [](const std::string& n) {
    return n == "name" || n == "m" || n == "n" || n == "k" || n == "batch" || n == "time_us" || n == "tflops" ||
           n == "bound" || n == "mapping" || n.find("util") != std::string::npos || n == "clock_mhz" ||
           n == "avg_power_w";
  });
}

io::Table totals_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results) {
  struct Totals {
    double time = 0, flops = 0, cycles = 0, energy = 0;
    std::int64_t runs = 0, kernels = 0;
  } s;
  bool energy = false;
  for (std::size_t i = 0; i < kernels.size() && i < results.size(); ++i) {
    const double c = static_cast<double>(kernels[i].count);
    s.time += results[i].time_s * c;
    s.flops += results[i].flops * c;
    s.cycles += results[i].cycles * c;
    s.runs += kernels[i].count;
    if (const auto j = results[i].get("energy_j")) s.energy += *j * c, energy = true;
  }
  s.kernels = static_cast<std::int64_t>(kernels.size());
  using Col = io::ColumnOf<Totals>;
  std::vector<Col> cols = {
      {"kernels", "rows", [](const Totals& t) { return io::Cell(t.kernels); }},
      {"runs", "sum of counts", [](const Totals& t) { return io::Cell(t.runs); }},
      {"total_time_us", "sum of time x count", [](const Totals& t) { return io::Cell(t.time * 1e6); }},
      {"total_cycles", "sum of cycles x count", [](const Totals& t) { return io::Cell(t.cycles); }},
      {"total_flops", "sum of useful flops x count", [](const Totals& t) { return io::Cell(t.flops); }},
      {"avg_tflops", "total flops / total time",
       [](const Totals& t) { return t.time > 0 ? io::Cell(t.flops / t.time / 1e12) : io::Cell(); }},
  };
  if (energy) {
    cols.push_back({"total_energy_j", "sum of energy x count", [](const Totals& t) { return io::Cell(t.energy); }});
    cols.push_back({"avg_power_w", "total energy / total time",
                    [](const Totals& t) { return t.time > 0 ? io::Cell(t.energy / t.time) : io::Cell(); }});
    cols.push_back({"tflops_per_w", "total flops / total energy",
                    [](const Totals& t) { return t.energy > 0 ? io::Cell(t.flops / t.energy / 1e12) : io::Cell(); }});
  }
  return io::table_of("totals", cols, std::vector<Totals>{s});
}

}  // namespace tcsim::engine
