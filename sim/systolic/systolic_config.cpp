#include "systolic/systolic_config.h"

#include "common/error.h"

namespace tcsim::systolic {

std::string to_string(Dataflow d) {
  switch (d) {
    case Dataflow::os: return "os";
    case Dataflow::ws: return "ws";
    case Dataflow::is: return "is";
  }
  return "?";
}
std::string to_string(BandwidthMode m) { return m == BandwidthMode::calc ? "CALC" : "USER"; }
std::string to_string(Semantics s) { return s == Semantics::scalesim_v2 ? "scalesim_v2" : "faithful"; }

void SystolicConfig::validate(const std::function<std::string(const std::string& field)>& where) const {
  if (rows < 1) throw InputError(where("ArrayHeight"), "expected a positive number of rows, got " + std::to_string(rows));
  if (cols < 1) throw InputError(where("ArrayWidth"), "expected a positive number of columns, got " + std::to_string(cols));
  if (word_bytes < 1) throw InputError(where("word_bytes"), "expected a positive word size");
  // SCALE-Sim splits each read buffer into 100 sets of floor(words/100) words; fewer than 100
  // words leave it no room at all. The write buffer drains in lines of ArrayWidth words.
  auto check_sram = [&](std::uint64_t words, const char* field) {
    if (words < 100)
      throw InputError(where(field), "SRAM too small: " + std::to_string(words) +
                                         " words; SCALE-Sim's buffers need at least 100 words");
  };
  check_sram(ifmap_sram_words(), "IfmapSramSzkB");
  check_sram(filter_sram_words(), "FilterSramSzkB");
  check_sram(ofmap_sram_words(), "OfmapSramSzkB");
  // One fold's stationary tile must fit in half its buffer (the other half is being refilled).
  const std::uint64_t tile = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  const std::uint64_t half_filter = filter_sram_words() / 2, half_ifmap = ifmap_sram_words() / 2;
  if (dataflow == Dataflow::ws && half_filter < tile)
    throw InputError(where("FilterSramSzkB"), "SRAM too small to hold one fold: half the filter SRAM holds " +
                                                   std::to_string(half_filter) + " words, a " + std::to_string(rows) +
                                                   "x" + std::to_string(cols) + " weight tile needs " +
                                                   std::to_string(tile));
  if (dataflow == Dataflow::is && half_ifmap < tile)
    throw InputError(where("IfmapSramSzkB"), "SRAM too small to hold one fold: half the ifmap SRAM holds " +
                                                  std::to_string(half_ifmap) + " words, a " + std::to_string(rows) +
                                                  "x" + std::to_string(cols) + " input tile needs " +
                                                  std::to_string(tile));
  if (bandwidth_mode == BandwidthMode::user && !(user_bandwidth_words >= 1))
    throw InputError(where("Bandwidth"), "expected at least 1 word per cycle in USER bandwidth mode");
  if (clock_hz < 0) throw InputError(where("clock"), "expected a non-negative clock");
}

}  // namespace tcsim::systolic
