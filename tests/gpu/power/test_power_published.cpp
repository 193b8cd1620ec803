// Published clocks and board powers under load (validation/published/power/observations.csv), held
// out: the rows marked expect_inside must fall in the published range; the others are printed.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/text/strings.h"
#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"
#include "workload/kernel.h"

namespace tcsim::gpu {
namespace {

// Splits a CSV line with one optional quoted last field (the source).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.push_back(cur), cur.clear();
    else cur += c;
  }
  out.push_back(cur);
  return out;
}

}  // namespace

TEST_CASE("published clocks and powers under load (held out)") {
  const std::vector<std::string> lines = tcsim::test::csv_data_lines("validation/published/power/observations.csv");
  REQUIRE(!lines.empty());
  int checked = 0;
  for (const std::string& line : lines) {
    const auto f = fields(line);
    REQUIRE(f.size() == 9);
    const auto dims = split(f[1], 'x');
    REQUIRE(dims.size() == 3);
    const auto fmt = split(f[2], '.');
    const FormatId ab = *parse_format(fmt[0]), acc = *parse_format(fmt[2]);
    const Kernel k = make_gemm("g", std::stoll(std::string(dims[0])), std::stoll(std::string(dims[1])),
                               std::stoll(std::string(dims[2])), ab, acc);
    const KernelResult r = GpuModel(test::shipped(f[0])).run(k);
    const double value = f[3] == "tflops" ? r.tflops() : r.get(f[3]).value_or(-1);
    const double low = std::stod(f[4]), high = std::stod(f[5]);
    const bool inside = value >= low && value <= high;
    MESSAGE(f[0] << " " << f[1] << " " << f[2] << ": " << f[3] << " " << value << " " << f[6] << " (published " << low
                 << "-" << high << ")" << std::string(inside ? "" : " OUTSIDE"));
    if (f[7] == "1") {
      CHECK_MESSAGE(inside, f[8]);
      ++checked;
    }
  }
  CHECK(checked >= 1);
}

}  // namespace tcsim::gpu
