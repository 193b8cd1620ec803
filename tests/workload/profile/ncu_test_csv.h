#pragma once
// Two small Nsight Compute CSV exports (`ncu --csv`): the raw page (one row per kernel, a units row)
// and the details page (one row per metric). Values are made up; the tests and fuzz_profile's seeds
// use them.
namespace tcsim::test {

inline const char* const kRawCsv =
    "==PROF== Connected to process 1234\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\","
    "\"Device\",\"CC\",\"gpu__time_duration.sum\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"dram__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"%\"\n"
    "\"0\",\"1234\",\"python\",\"host\",\"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(8, 4, 1)\",\"0\",\"8.0\",\"12,345\",\"71.5\",\"40.2\"\n"
    "\"1\",\"1234\",\"python\",\"host\",\"volta_sgemm_128x64_nn\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 4, 1)\",\"0\",\"8.0\","
    "\"2,000\",\"60\",\"n/a\"\n";
inline const char* const kDetailsCsv =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\","
    "\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"1\",\"python\",\"h\",\"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64\",\"1\",\"7\",\"(128, 1, 1)\","
    "\"(66, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"12.35\"\n"
    "\"0\",\"1\",\"python\",\"h\",\"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64\",\"1\",\"7\",\"(128, 1, 1)\","
    "\"(66, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Compute (SM) Throughput\",\"%\",\"71.50\"\n"
    "\"1\",\"1\",\"python\",\"h\",\"elementwise_kernel\",\"1\",\"7\",\"(128, 1, 1)\",\"(66, 1, 1)\",\"0\",\"9.0\","
    "\"GPU Speed Of Light Throughput\",\"Duration\",\"nsecond\",\"3,500\"\n";

}  // namespace tcsim::test
