// Sweep specs (configs/sweeps/*.yaml); the file is written beside configs/sweeps' layout so that a
// `base: ../gpu/a100.yaml` resolves as in the shipped specs.
#include "fuzz_support.h"
#include "engine/sweep/spec/sweep_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool linked = [] {
    std::error_code ec;
    std::filesystem::create_directory_symlink(std::filesystem::path(TCSIM_SOURCE_DIR) / "configs" / "gpu",
                                              tcsim::fuzz::scratch() / "gpu", ec);
    std::filesystem::create_directory_symlink(std::filesystem::path(TCSIM_SOURCE_DIR) / "configs" / "systolic",
                                              tcsim::fuzz::scratch() / "systolic", ec);
    return true;
  }();
  (void)linked;
  const auto file = tcsim::fuzz::write_scratch("sweeps/fuzz.yaml", tcsim::fuzz::text_of(data, size));
  return tcsim::fuzz::run([&] { (void)tcsim::engine::sweep::read_sweep_spec(file); });
}
