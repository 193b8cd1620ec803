// SCALE-Sim .cfg files, and one small layer on the array they describe.
#include "fuzz_support.h"
#include "systolic/config/scalesim_cfg.h"
#include "systolic/systolic_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tcsim::fuzz::run([&] {
    const tcsim::systolic::SystolicModel model(tcsim::systolic::parse_scalesim_cfg(tcsim::fuzz::text_of(data, size), "fuzz.cfg"));
    (void)model.run(tcsim::make_gemm("g", 40, 36, 20));
  });
}
