// DeepBench GEMM and convolution CSVs (the first byte picks the precision the file name states).
#include "fuzz_support.h"
#include "workload/measured/deepbench.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* name = data[0] & 1 ? "v100_train_fp16_dense_matrix_multiplication.csv" : "v100_train_fp32_convolution.csv";
  return tcsim::fuzz::run([&] { (void)tcsim::workload::parse_deepbench(tcsim::fuzz::text_of(data + 1, size - 1), name); });
}
