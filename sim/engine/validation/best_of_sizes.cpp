#include "engine/validation/best_of_sizes.h"

#include "common/error.h"
#include "workload/network/measured_networks.h"

namespace tcsim::engine {

BestOfSizesReport validate_best_of_sizes(const Accelerator& acc, const std::vector<workload::BestOfSizesRow>& rows) {
  BestOfSizesReport rep;
  std::vector<double> measured_s, predicted_s;
  for (const auto& m : rows) {
    BestOfSizesResult r;
    r.measured = m;
    if (!workload::same_gpu(m.device, acc.name())) {
      r.skipped = "measured on " + m.device + ", the config is " + acc.name();
      rep.rows.push_back(std::move(r));
      continue;
    }
    try {
      for (const std::int64_t n : m.sizes) {
        Kernel k = make_gemm("mm_" + m.dtype + "_" + std::to_string(n), n, n, n, m.a, m.acc);
        k.d_format = m.d;
        k.layout = Layout::NN;
        const KernelResult res = acc.run(k);
        const double tflops = 2.0 * double(n) * double(n) * double(n) / res.time_s / 1e12;
        if (tflops > r.predicted_tflops) r.predicted_tflops = tflops, r.best_n = n, r.clock_mhz = res.get("clock_mhz").value_or(0);
      }
      r.compared = true;
      r.error_pct = error_pct(1 / m.best_tflops, 1 / r.predicted_tflops);
      measured_s.push_back(1 / m.best_tflops);
      predicted_s.push_back(1 / r.predicted_tflops);
    } catch (const InputError& e) {
      r.skipped = e.what();
    }
    rep.rows.push_back(std::move(r));
  }
  if (!measured_s.empty()) rep.errors = summarize_errors(measured_s, predicted_s);
  return rep;
}

io::Table best_of_sizes_rows_table(const BestOfSizesReport& report) {
  using Col = io::ColumnOf<BestOfSizesResult>;
  auto when = [](auto f) {
    return [f](const BestOfSizesResult& r) { return r.compared ? io::Cell(f(r)) : io::Cell(); };
  };
  const std::vector<Col> cols = {
      {"device", "the board, as the source names it", [](const BestOfSizesResult& r) { return io::Cell(r.measured.device); }},
      {"dtype", "fp32, tf32, fp16 or bf16", [](const BestOfSizesResult& r) { return io::Cell(r.measured.dtype); }},
      {"measured_tflops", "the best measured rate over the sizes",
       [](const BestOfSizesResult& r) { return io::Cell(r.measured.best_tflops); }},
      {"predicted_tflops", "the model's best rate over the same sizes", when([](const auto& r) { return r.predicted_tflops; })},
      {"error_pct", "> 0: the model's best rate is below the measured", when([](const auto& r) { return r.error_pct; })},
      {"best_n", "the size of the model's best rate", when([](const auto& r) { return r.best_n; })},
      {"clock_mhz", "the model's clock at that size", when([](const auto& r) { return r.clock_mhz; })},
      {"environment", "the contributor's note", [](const BestOfSizesResult& r) { return io::Cell(r.measured.environment); }},
      {"origin", "file:line", [](const BestOfSizesResult& r) { return io::Cell(r.measured.origin); }},
      {"skipped", "why a row was not compared", [](const BestOfSizesResult& r) { return io::Cell(r.skipped); }},
  };
  return io::table_of("rows", cols, report.rows);
}

}  // namespace tcsim::engine
