// Op-trace CSVs, and the size bounds every kernel is checked against.
#include "fuzz_support.h"
#include "workload/csv/op_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tcsim::fuzz::run([&] {
    for (const auto& k : tcsim::workload::parse_op_trace(tcsim::fuzz::text_of(data, size), "fuzz.csv"))
      (void)tcsim::kernel_size_problem(k);
  });
}
