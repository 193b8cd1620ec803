// Kernels that fill a systolic array poorly: SystolicModel::run notes the dimensions each array
// side holds and what would fill it, and `tcsim network` flags their layers with the time spent in
// them (as it flags GPU layers whose sizes are not multiples of 8).
#include <doctest/doctest.h>

#include <string>

#include "config/config.h"
#include "systolic/config/systolic_schema.h"
#include "systolic/systolic_model.h"
#include "test_support.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

SystolicModel array_256(const char* dataflow) {
  const std::string yaml = std::string("version: 1\nkind: systolic\nname: a\nsemantics: faithful\nclock: 1GHz\narray:\n") +
                           "  rows: 256\n  cols: 256\n  dataflow: " + dataflow + "\nsram:\n  ifmap: 4MiB\n  filter: 4MiB\n" +
                           "  ofmap: 4MiB\n";
  return SystolicModel(config_from(config::Config::from_yaml_text(yaml, config_schema(), "a.yaml")));
}

std::string underfill_note(const KernelResult& r) {
  for (const auto& n : r.notes)
    if (n.rfind("under-filled array: ", 0) == 0) return n;
  return "";
}

std::string csv_row(const std::string& csv, const std::string& first_field) {
  const auto at = csv.find("\n" + first_field + ",");
  REQUIRE_MESSAGE(at != std::string::npos, first_field);
  return csv.substr(at + 1, csv.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("systolic mapping: a kernel below half the PEs is noted with the dimensions each side holds") {
  const KernelResult small = array_256("ws").run(make_gemm("g", 64, 64, 64, FormatId::int8, FormatId::int32));
  CHECK(underfill_note(small) ==
        "under-filled array: 6.25% of the PEs hold work (ws maps K = 64 onto 256 rows, N = 64 onto 256 columns); "
        "K a multiple of 256 and N of 256 fill it");
  // os holds M x N, is K x M (fold_schedule.cpp).
  const Kernel tall = make_gemm("g", 1000, 64, 300, FormatId::int8, FormatId::int32);
  CHECK(underfill_note(array_256("os").run(tall)).find("os maps M = 1000 onto 256 rows, N = 64 onto 256 columns") !=
        std::string::npos);
  // is holds K 300 x M 1000 in 2 x 4 folds: 300000 of 524288 PE slots (57%), above the threshold.
  CHECK(underfill_note(array_256("is").run(tall)).empty());
  const Kernel wide = make_gemm("g", 100, 64, 300, FormatId::int8, FormatId::int32);
  CHECK(underfill_note(array_256("is").run(wide)).find("is maps K = 300 onto 256 rows, M = 100 onto 256 columns") !=
        std::string::npos);
  // At or above half: no note. 512 fills the ws array exactly; 200 x 256 is 78%.
  CHECK(underfill_note(array_256("ws").run(make_gemm("g", 64, 512, 512, FormatId::int8, FormatId::int32))).empty());
  CHECK(underfill_note(array_256("ws").run(make_gemm("g", 64, 256, 200, FormatId::int8, FormatId::int32))).empty());
}

TEST_CASE("tcsim network on a systolic array flags the layers whose kernels fill it poorly") {
  const auto dir = test::temp_dir("array_mapping_flags");
  const auto r = test::run_tcsim("network -c '" + (test::source_dir() / "configs/systolic/tpu_v1.yaml").string() + "' '" +
                                 (test::source_dir() / "models/bert_base.yaml").string() +
                                 "' --batch 8 --seq 128 --precision int8 --set vector.lanes=256 "
                                 "--set vector.sram_bandwidth=512B/clk -o '" + (dir / "out").string() + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string summary = test::slurp(dir / "out" / "summary.csv");
  // Attention's per-head GEMMs reduce over head_dim 64 (scores) on 256 PE rows: 12.5% of the PEs.
  const std::string attention = csv_row(summary, "layer.attention");
  CHECK_MESSAGE(attention.find("under-filled array: ") != std::string::npos, attention);
  CHECK(attention.find("in 2 such kernels; layer.attention.scores: 12.5% of the PEs hold work (ws maps K = 64 onto 256 "
                       "rows, N = 128 onto 256 columns)") != std::string::npos);
  // The projections (K = N = 768, three full folds each way) fill it.
  CHECK(csv_row(summary, "layer.query").find("under-filled") == std::string::npos);
  CHECK(csv_row(summary, "layer.ffn_in").find("under-filled") == std::string::npos);
}
