// A tc-golden case directory: the input, split at its first two NUL bytes, becomes the a, b and c
// files of a V100 fp16 case (binary lines), then is read and emulated.
#include "fuzz_support.h"
#include "numerics/golden_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s = tcsim::fuzz::text_of(data, size);
  const auto z1 = s.find('\0');
  const auto z2 = z1 == std::string::npos ? std::string::npos : s.find('\0', z1 + 1);
  const std::string a = s.substr(0, z1);
  const std::string b = z1 == std::string::npos ? "" : s.substr(z1 + 1, z2 == std::string::npos ? std::string::npos : z2 - z1 - 1);
  const std::string c = z2 == std::string::npos ? "" : s.substr(z2 + 1);
  const auto dir = tcsim::fuzz::scratch() / "V100" / "fp16";
  tcsim::fuzz::write_scratch("V100/fp16/a_V100_fp16.txt", a);
  tcsim::fuzz::write_scratch("V100/fp16/b_V100_fp16.txt", b);
  tcsim::fuzz::write_scratch("V100/fp16/c_V100_fp32.txt", c);
  return tcsim::fuzz::run([&] {
    const auto gc = tcsim::num::read_golden_case(dir);
    if (gc.rows > 4096) return;  // the emulation is not the reader under test
    const auto plan = tcsim::num::plan_golden(gc, tcsim::FormatId::fp32, {});
    (void)tcsim::num::emulate_golden(gc, plan, {});
  });
}
