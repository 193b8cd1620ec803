// DeepBench V100 GEMMs (shared/data/deepbench, measured on a DGX-1 V100): the model's mean
// absolute percentage error over the 160 GEMM rows of each sheet. Issue targets: FP16 (tensor
// cores, half GEMMs padded to multiples of 8) <= 10%, FP32 (CUDA cores) <= 15%. Today: FP16 9.71%,
// FP32 7.38% (see sim/gpu/README.md, "Accuracy").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "gpu/gpu_model.h"
#include "gpu/gpu_test_util.h"
#include "workload/measured/deepbench.h"

namespace tcsim::gpu {
namespace {

double mape(const GpuModel& model, const std::filesystem::path& csv, int stride, std::size_t& rows) {
  const workload::MeasuredSet set = workload::read_deepbench(csv);
  double sum = 0;
  rows = 0;
  for (std::size_t i = 0; i < set.rows.size(); i += stride) {
    const auto& row = set.rows[i];
    const KernelResult r = model.run(row.kernel);
    sum += std::abs(r.time_s - row.time_s) / row.time_s;
    ++rows;
  }
  return rows ? 100 * sum / double(rows) : 0;
}

}  // namespace

TEST_CASE("DeepBench V100 GEMM: MAPE of the V100 config") {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: DeepBench MAPE test skipped");
    return;
  }
  const auto dir = shared / "data" / "deepbench";
#ifdef TCSIM_SANITIZED
  const int stride = 8;  // a sample: the sanitizer build only checks that the path runs cleanly
#else
  const int stride = 1;
#endif
  GpuModel model(test::shipped("v100"));
  std::size_t n16 = 0, n32 = 0;
  const double fp16 = mape(model, dir / "v100_train_fp16_dense_matrix_multiplication.csv", stride, n16);
  const double fp32 = mape(model, dir / "v100_train_fp32_dense_matrix_multiplication.csv", stride, n32);
  char buf[160];
  std::snprintf(buf, sizeof buf, "DeepBench V100 GEMM MAPE: fp16 %.2f%% (%zu rows), fp32 %.2f%% (%zu rows)", fp16, n16,
                fp32, n32);
  MESSAGE(buf);
#ifndef TCSIM_SANITIZED
  CHECK(n16 == 160);
  CHECK(n32 == 160);
  CHECK(fp16 <= 10.0);
  CHECK(fp32 <= 15.0);
  if (fp16 > 10.0) MESSAGE("FP16 MAPE above the issue's 10% target");
#endif
}

}  // namespace tcsim::gpu
