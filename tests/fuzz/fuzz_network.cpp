// Network model YAML (models/*.yaml): the reader with its shape inference and expressions.
#include "fuzz_support.h"
#include "workload/network/reader/network_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tcsim::fuzz::run([&] { (void)tcsim::workload::parse_network(tcsim::fuzz::text_of(data, size), "fuzz.yaml"); });
}
