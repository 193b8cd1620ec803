// The HDF5 form of the measured schema: the bytes as a .h5 file (libhdf5 runs in a child process,
// so each execution forks; slow, but a corrupted file must never take tcsim down).
#include "fuzz_support.h"
#include "workload/measured/measured_h5.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = tcsim::fuzz::write_scratch("fuzz.h5", tcsim::fuzz::text_of(data, size));
  return tcsim::fuzz::run([&] { (void)tcsim::workload::read_measured_h5(file); });
}
