// SCALE-Sim topology CSVs (conv and GEMM form) and the layers the systolic model makes of them
// (bounds, derived sizes and the work estimate; layers are not simulated).
#include "fuzz_support.h"
#include "systolic/systolic_model.h"
#include "workload/csv/scalesim_topology.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tcsim::systolic::SystolicModel model(tcsim::systolic::SystolicConfig{});
  return tcsim::fuzz::run([&] {
    for (const auto& l : tcsim::workload::parse_scalesim_topology(tcsim::fuzz::text_of(data, size), "fuzz.csv"))
      (void)model.layers_of(l.kernel, "fuzz.csv");
  });
}
