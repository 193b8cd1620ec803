#include <doctest/doctest.h>

#include <cmath>

#include "engine/gemm_results_table.h"
#include "engine/validation/validation.h"
#include "fake_accelerator.h"

using namespace tcsim;
using namespace tcsim::engine;

namespace {
workload::MeasuredRow row(const std::string& name, std::int64_t m, double time_s, const std::string& group) {
  workload::MeasuredRow r;
  r.kernel = make_gemm(name, m, 100, 50);
  r.time_s = time_s;
  r.group = group;
  r.origin = "m.csv:" + std::to_string(m);
  return r;
}
}  // namespace

TEST_CASE("validate: per-row errors, groups, skipped rows") {
  // The fake runs 1e6 flop/s: a 10x100x50 GEMM (1e5 flops) takes 0.1 s.
  const test::FakeAccelerator acc(1e6);
  const std::vector<workload::MeasuredRow> rows = {
      row("a", 10, 0.1, "g1"),    // exact
      row("b", 20, 0.25, "g1"),   // predicted 0.2: -20%
      row("bad", 30, 1, "g2"),    // rejected by the model
      row("c", 40, 0.5, "g2"),    // predicted 0.4: -20%
      row("d", 10, 0.08, "g2"),   // predicted 0.1: +25%
  };
  const ValidationReport rep = validate(acc, rows, 3);
  REQUIRE(rep.rows.size() == 5);
  CHECK(rep.skipped == 1);
  CHECK(!rep.rows[2].simulated);
  CHECK(rep.rows[2].skip_reason == "fake: cannot run bad");
  REQUIRE(rep.groups.size() == 3);
  CHECK(rep.overall().group == "all");
  CHECK(rep.overall().errors.rows == 4);
  CHECK(rep.overall().errors.mape_pct == doctest::Approx((0 + 20 + 20 + 25) / 4.0));
  CHECK(rep.overall().errors.median_ape_pct == doctest::Approx(20));
  CHECK(rep.overall().worst_name == "d");
  CHECK(rep.overall().worst_origin == "m.csv:10");
  CHECK(rep.groups[1].group == "g1");
  CHECK(rep.groups[1].errors.mape_pct == doctest::Approx(10));
  CHECK(rep.groups[2].group == "g2");
  CHECK(rep.groups[2].errors.rows == 2);

  const io::Table t = validation_rows_table(rep);
  REQUIRE(t.rows.size() == 5);
  auto col = [&](const std::string& n) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].name == n) return i;
    FAIL("no column " << n);
    return std::size_t{0};
  };
  CHECK(std::get<double>(t.rows[1][col("error_pct")]) == doctest::Approx(-20));
  CHECK(std::get<double>(t.rows[1][col("measured_us")]) == doctest::Approx(250000));
  CHECK(std::holds_alternative<std::monostate>(t.rows[2][col("predicted_us")]));
  CHECK(std::get<std::string>(t.rows[2][col("skipped")]) == "fake: cannot run bad");
  // The model's notes, as `tcsim run` prints them; none for a row that was not simulated.
  CHECK(std::get<std::string>(t.rows[1][col("notes")]) == "first note; second note");
  CHECK(std::get<std::string>(t.rows[0][col("notes")]).empty());
  CHECK(std::holds_alternative<std::monostate>(t.rows[2][col("notes")]));
  const io::Table mt = validation_metrics_table(rep);
  CHECK(mt.rows.size() == 3);
  CHECK(std::get<std::int64_t>(mt.rows[0][1]) == 4);
}

TEST_CASE("validate: one group gives only the overall summary; all skipped gives NaNs") {
  const test::FakeAccelerator acc(1e6);
  const ValidationReport one = validate(acc, {row("a", 10, 0.1, "g"), row("b", 10, 0.2, "g")}, 1);
  CHECK(one.groups.size() == 1);
  CHECK(one.overall().errors.mape_pct == doctest::Approx(25));
  const ValidationReport none = validate(acc, {row("bad", 10, 0.1, "g")}, 1);
  CHECK(none.overall().errors.rows == 0);
  CHECK(std::isnan(none.overall().errors.mape_pct));
  CHECK(validation_metrics_table(none).rows.size() == 1);
}

TEST_CASE("run tables: full, terminal view and totals") {
  const test::FakeAccelerator acc(1e6);
  std::vector<Kernel> ks = {make_gemm("x", 10, 100, 50), make_gemm("y", 200, 100, 50)};
  ks[1].count = 3;
  std::vector<KernelResult> rs = {acc.run(ks[0]), acc.run(ks[1])};
  const io::Table full = gemm_results_table(ks, rs);
  std::vector<std::string> names;
  for (const auto& c : full.columns) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"name", "m", "n", "k", "batch", "formats", "layout", "count", "cycles",
                                          "time_us", "tflops", "bound", "tensor_util_pct", "dram_read_bytes",
                                          "mapping", "notes"});
  CHECK(std::holds_alternative<std::monostate>(full.rows[0][13]));  // x has no dram metric
  CHECK(std::get<std::string>(full.rows[0][5]) == "fp16.fp16.fp32.fp32");
  const io::Table view = terminal_view(full);
  names.clear();
  for (const auto& c : view.columns) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"name", "m", "n", "k", "batch", "time_us", "tflops", "bound",
                                          "tensor_util_pct", "mapping"});
  const io::Table tot = totals_table(ks, rs);
  CHECK(std::get<std::int64_t>(tot.rows[0][1]) == 4);
  CHECK(std::get<double>(tot.rows[0][2]) == doctest::Approx((0.1 + 3 * 2.0) * 1e6));
}

namespace {
// The fake with a host: 30 us per plain op call, 10 us of it before the launch.
class HostFake : public test::FakeAccelerator {
 public:
  using FakeAccelerator::FakeAccelerator;
  double host_overhead_s() const override { return 30e-6; }
  double host_launch_delay_s() const override { return 10e-6; }
};
}  // namespace

TEST_CASE("validate: rows timed around a framework call overlap host and kernel") {
  const HostFake acc(1e12);  // a 10x100x50 GEMM: 1e5 flops = 0.1 us; m = 1000: 10 us
  std::vector<workload::MeasuredRow> rows = {row("tiny", 10, 30e-6, "g"), row("long", 1000, 20e-6, "g"),
                                             row("gpu_only", 1000, 10e-6, "g"), row("module", 10, 60e-6, "g")};
  rows[0].host_calls = 1;  // host-bound: max(30, 10 + 0.1) = 30 us
  rows[1].host_calls = 1;  // max(30, 10 + 10) = 30 us
  rows[3].host_calls = 2;  // 60 us of host, the extra 30 before the launch: max(60, 40 + 0.1)
  const ValidationReport rep = validate(acc, rows, 1);
  CHECK(rep.rows[0].predicted_s() == doctest::Approx(30e-6));
  CHECK(rep.rows[0].result.bound == "host");
  CHECK(rep.rows[1].predicted_s() == doctest::Approx(30e-6));
  CHECK(rep.rows[2].predicted_s() == doctest::Approx(10e-6));  // GPU time only: no host
  CHECK(rep.rows[3].predicted_s() == doctest::Approx(60e-6));
  CHECK(rep.rows[3].result.get("kernel_us").value() == doctest::Approx(0.1));
  // A kernel longer than the host's remaining work ends after it: delay + kernel.
  rows = {row("big", 10000, 1, "g")};
  rows[0].host_calls = 1;
  CHECK(validate(acc, rows, 1).rows[0].predicted_s() == doctest::Approx(10e-6 + 100e-6));
}

TEST_CASE("validate: a loop's time per call holds the stream's queue gap; profiled and host-timed rows do not") {
  class GapFake : public test::FakeAccelerator {
   public:
    using FakeAccelerator::FakeAccelerator;
    double queue_gap_s() const override { return 1.5e-6; }
    double host_overhead_s() const override { return 30e-6; }
    double host_launch_delay_s() const override { return 10e-6; }
    KernelResult run(const Kernel& k) const override {
      KernelResult r = FakeAccelerator::run(k);
      if (k.m == 2000) r.set("launches", 2);  // a split-K GEMM and its reduction
      return r;
    }
  };
  const GapFake acc(1e12);  // 1000 x 100 x 50: 10 us
  std::vector<workload::MeasuredRow> rows = {row("loop", 1000, 12e-6, "g"), row("profiled", 1000, 10e-6, "g"),
                                             row("around a call", 1000, 30e-6, "g"), row("split", 2000, 24e-6, "g")};
  rows[1].kernel.profiled = true;
  rows[2].host_calls = 1;
  const ValidationReport rep = validate(acc, rows, 1);
  CHECK(rep.rows[0].predicted_s() == doctest::Approx(11.5e-6));
  CHECK(rep.rows[0].result.get("queue_gap_us").value() == doctest::Approx(1.5));
  CHECK(rep.rows[1].predicted_s() == doctest::Approx(10e-6));  // CUPTI durations: no gap
  CHECK_FALSE(rep.rows[1].result.get("queue_gap_us"));
  CHECK(rep.rows[2].predicted_s() == doctest::Approx(30e-6));  // on an idle GPU: the host's launch, no queue
  CHECK(rep.rows[3].predicted_s() == doctest::Approx(20e-6 + 2 * 1.5e-6));  // one gap per launch
}

TEST_CASE("validate: durations the profiler truncated are compared as it reports them") {
  // Vidur's A100 profiles hold whole microseconds, each kernel's duration cut (libkineto's nsToUs):
  // the prediction loses half a microsecond per launch in expectation; below 1 us, half of it.
  const test::FakeAccelerator acc(1e12);  // 10 x 100 x 50: 0.1 us; m = 1000: 10 us
  std::vector<workload::MeasuredRow> rows = {row("long", 1000, 9e-6, "g"), row("tiny", 10, 1e-6, "g"),
                                             row("exact", 1000, 10e-6, "g")};
  rows[0].truncated_to_s = rows[1].truncated_to_s = 1e-6;
  const ValidationReport rep = validate(acc, rows, 1);
  CHECK(rep.rows[0].predicted_s() == doctest::Approx(9.5e-6));
  CHECK(rep.rows[0].result.get("untruncated_us").value() == doctest::Approx(10));
  CHECK(rep.rows[1].predicted_s() == doctest::Approx(0.05e-6));
  CHECK(rep.rows[2].predicted_s() == doctest::Approx(10e-6));  // not truncated: as the model says
  CHECK_FALSE(rep.rows[2].result.get("untruncated_us"));
}

TEST_CASE("validate: a truncated row loses half the resolution per kernel launch") {
  // A split-K GEMM is two kernels, each cut on its own.
  class TwoLaunches : public test::FakeAccelerator {
    KernelResult run(const Kernel& k) const override {
      KernelResult r = FakeAccelerator::run(k);
      r.set("launches", 2);
      return r;
    }
  };
  std::vector<workload::MeasuredRow> rows = {row("split", 1000, 9e-6, "g")};
  rows[0].truncated_to_s = 1e-6;
  CHECK(validate(TwoLaunches(), rows, 1).rows[0].predicted_s() == doctest::Approx(9e-6));
}

TEST_CASE("validate: a row whose time sums several runs of its kernel predicts them all") {
  // Vidur's phi-2 add is two elementwise kernels in one profiler range (Kernel::count = 2); each is
  // truncated on its own.
  const test::FakeAccelerator acc(1e12);  // m = 1000: 10 us a run
  std::vector<workload::MeasuredRow> rows = {row("twice", 1000, 20e-6, "g"), row("twice_cut", 1000, 19e-6, "g")};
  rows[0].kernel.count = rows[1].kernel.count = 2;
  rows[1].truncated_to_s = 1e-6;
  const ValidationReport rep = validate(acc, rows, 1);
  CHECK(rep.rows[0].predicted_s() == doctest::Approx(20e-6));
  CHECK(rep.rows[0].result.get("launches").value() == doctest::Approx(2));
  CHECK(rep.rows[0].result.flops == doctest::Approx(2 * 2.0 * 1000 * 100 * 50));
  CHECK(rep.rows[1].predicted_s() == doctest::Approx(19e-6));  // 2 x (10 - 0.5)
}
