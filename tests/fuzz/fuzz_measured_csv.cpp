// tcsim's measured-data CSV schema (op-trace columns + time_us).
#include "fuzz_support.h"
#include "workload/csv/csv_text.h"
#include "workload/measured/measured.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tcsim::fuzz::run([&] {
    (void)tcsim::workload::measured_from_table(tcsim::workload::parse_csv(tcsim::fuzz::text_of(data, size), "fuzz.csv"));
  });
}
