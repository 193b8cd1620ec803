#include "engine/gemm_results_table.h"

#include <stdexcept>

#include "common/strings.h"
#include "workload/csv_text.h"

namespace tcsim::engine {

io::Table gemm_results_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results) {
  if (kernels.size() != results.size()) throw std::invalid_argument("gemm_results_table: sizes differ");
  std::vector<std::string> metric_names;
  for (const auto& r : results)
    for (const auto& [name, value] : r.metrics) {
      bool seen = false;
      for (const auto& m : metric_names) seen = seen || m == name;
      if (!seen) metric_names.push_back(name);
    }
  io::Table t;
  t.name = "kernels";
  t.add_column("name", "kernel name");
  t.add_column("m", "GEMM M (a conv: its implicit GEMM)");
  t.add_column("n", "GEMM N");
  t.add_column("k", "GEMM K");
  t.add_column("batch", "batched GEMMs in the kernel");
  t.add_column("formats", "a.b.c.d operand formats");
  t.add_column("layout", "operand layout (tcsim letters, row-major)");
  t.add_column("count", "runs of the kernel");
  t.add_column("cycles", "core-clock cycles of one run");
  t.add_column("time_us", "time of one run");
  t.add_column("tflops", "useful TFLOP/s");
  t.add_column("bound", "what limits the kernel");
  for (const auto& m : metric_names) t.add_column(m, "");
  t.add_column("mapping", "the mapping the model chose");
  t.add_column("notes", "model notes");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Kernel g = gemm_view(kernels[i]);
    const KernelResult& r = results[i];
    std::vector<io::Cell> row(t.columns.size());  // assigned one by one (g++ 12 false -Wmaybe-uninitialized)
    std::size_t c = 0;
    row[c++] = kernels[i].name;
    row[c++] = g.m;
    row[c++] = g.n;
    row[c++] = g.k;
    row[c++] = g.batch;
    row[c++] = (std::string(format_name(g.a_format)) + "." + std::string(format_name(g.b_format)) + "." +
                     std::string(format_name(g.c_format)) + "." + std::string(format_name(g.d_format)));
    row[c++] = std::string(workload::layout_name(g.layout));
    row[c++] = kernels[i].count;
    row[c++] = r.cycles;
    row[c++] = r.time_s * 1e6;
    row[c++] = r.tflops();
    row[c++] = r.bound;
    for (const auto& m : metric_names) {
      if (auto v = r.get(m)) row[c++] = *v;
      else c++;
    }
    row[c++] = r.mapping;
    row[c++] = join(r.notes, "; ");
    t.add_row(std::move(row));
  }
  return t;
}

io::Table terminal_view(const io::Table& full) {
  std::vector<std::size_t> keep;
  for (std::size_t c = 0; c < full.columns.size(); ++c) {
    const std::string& n = full.columns[c].name;
    if (n == "name" || n == "m" || n == "n" || n == "k" || n == "batch" || n == "time_us" || n == "tflops" ||
        n == "bound" || n == "mapping" || n.find("util") != std::string::npos)
      keep.push_back(c);
  }
  io::Table t;
  t.name = full.name;
  for (auto c : keep) t.columns.push_back(full.columns[c]);
  for (const auto& row : full.rows) {
    std::vector<io::Cell> r;
    for (auto c : keep) r.push_back(row[c]);
    t.rows.push_back(std::move(r));
  }
  return t;
}

io::Table totals_table(const std::vector<Kernel>& kernels, const std::vector<KernelResult>& results) {
  double time = 0, flops = 0, cycles = 0;
  std::int64_t runs = 0;
  for (std::size_t i = 0; i < kernels.size() && i < results.size(); ++i) {
    const double c = static_cast<double>(kernels[i].count);
    time += results[i].time_s * c;
    flops += results[i].flops * c;
    cycles += results[i].cycles * c;
    runs += kernels[i].count;
  }
  io::Table t;
  t.name = "totals";
  t.add_column("kernels", "rows");
  t.add_column("runs", "sum of counts");
  t.add_column("total_time_us", "sum of time x count");
  t.add_column("total_cycles", "sum of cycles x count");
  t.add_column("total_flops", "sum of useful flops x count");
  t.add_column("avg_tflops", "total flops / total time");
  std::vector<io::Cell> row(t.columns.size());  // assigned one by one (g++ 12 false -Wmaybe-uninitialized)
    std::size_t c = 0;
  row[c++] = static_cast<std::int64_t>(kernels.size());
  row[c++] = runs;
  row[c++] = time * 1e6;
  row[c++] = cycles;
  row[c++] = flops;
  if (time > 0) row[c++] = flops / time / 1e12;
  else c++;
  t.add_row(std::move(row));
  return t;
}

}  // namespace tcsim::engine
