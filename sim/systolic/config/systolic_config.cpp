#include "systolic/config/systolic_config.h"

#include <algorithm>

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

bool SystolicConfig::takes(FormatId f) const {
  return formats.empty() ||
         std::any_of(formats.begin(), formats.end(), [f](const ArrayFormat& a) { return a.format == f; });
}

std::int64_t SystolicConfig::mac_cycles(FormatId a, FormatId b) const {
  std::int64_t cycles = 1;
  for (const ArrayFormat& f : formats)
    if (f.format == a || f.format == b) cycles = std::max(cycles, f.mac_cycles);
  return cycles;
}

std::string SystolicConfig::formats_text() const {
  if (formats.empty()) return "any";
  std::string text;
  for (const ArrayFormat& f : formats) {
    text += (text.empty() ? "" : ", ") + std::string(format_name(f.format));
    if (f.mac_cycles > 1) text += "/" + std::to_string(f.mac_cycles);
  }
  return text;
}

void SystolicConfig::validate(const std::function<std::string(const std::string& field)>& where) const {
  if (rows < 1 || rows > kMaxArrayDim)
    throw InputError(where("ArrayHeight"), "expected rows in [1, 65536], got " + std::to_string(rows));
  if (cols < 1 || cols > kMaxArrayDim)
    throw InputError(where("ArrayWidth"), "expected columns in [1, 65536], got " + std::to_string(cols));
  if (word_bytes < 1 || word_bytes > 64) throw InputError(where("word_bytes"), "expected a word size in [1, 64] bytes");
  for (const auto& [bytes, field] : {std::pair{ifmap_sram_bytes, "IfmapSramSzkB"}, std::pair{filter_sram_bytes, "FilterSramSzkB"},
                                     std::pair{ofmap_sram_bytes, "OfmapSramSzkB"}})
    if (bytes > kMaxSramBytes)
      throw InputError(where(field), "SRAM of " + std::to_string(bytes) + " bytes; at most 1 GiB (1048576 kB) per operand");
  for (const auto& [offset, field] : {std::pair{ifmap_offset, "IfmapOffset"}, std::pair{filter_offset, "FilterOffset"},
                                      std::pair{ofmap_offset, "OfmapOffset"}})
    if (offset < 0 || offset > kMaxAddressOffset)
      throw InputError(where(field), "expected an address offset in [0, 2^48] words, got " + std::to_string(offset));
  if (!(user_bandwidth_words <= kMaxUserBandwidthWords))
    throw InputError(where("Bandwidth"), "expected at most 2^20 words per cycle");
  if (clock_hz != 0 && !(clock_hz >= kMinClockHz && clock_hz <= kMaxClockHz))
    throw InputError(where("clock"), "expected none or a clock in [1MHz, 10GHz], got " + std::to_string(clock_hz) + " Hz");
  if (dram_bandwidth_bytes_per_s != 0 && !(dram_bandwidth_bytes_per_s > 0 && dram_bandwidth_bytes_per_s <= kMaxDramBytesPerS))
    throw InputError(where("dram_bandwidth"), "expected none or a bandwidth in (0, 1PB/s]");
  for (const ArrayFormat& f : formats) {
    const std::string entry = std::string(format_name(f.format)) + "/" + std::to_string(f.mac_cycles);
    if (f.mac_cycles < 1 || f.mac_cycles > kMaxMacCycles)
      throw InputError(where("formats"), entry + ": expected 1 to " + std::to_string(kMaxMacCycles) + " cycles per MAC");
    if (f.mac_cycles > 1 && semantics == Semantics::scalesim_v2)
      throw InputError(where("formats"), entry + ": a rate below one MAC per cycle needs semantics: faithful "
                                                 "(SCALE-Sim's schedule steps every cycle)");
  }
  if (vector.lanes < 0 || vector.lanes > kMaxVectorLanes)
    throw InputError(where("vector_lanes"), "expected 0 (no vector unit) to 2^20 lanes, got " + std::to_string(vector.lanes));
  if (vector.present() && vector.sram_bytes_per_cycle == 0)
    throw InputError(where("vector_lanes"), "a vector unit needs vector.sram_bandwidth, the bytes per cycle it reads "
                                            "and writes in the activation buffer (like 512B/clk)");
  if (!(vector.sram_bytes_per_cycle >= 0 && vector.sram_bytes_per_cycle <= kMaxVectorBytesPerCycle))
    throw InputError(where("vector_sram_bandwidth"), "expected none or at most 1048576B/clk");
  if (!(vector.latency_cycles >= 0 && vector.latency_cycles <= kMaxVectorLatencyCycles))
    throw InputError(where("vector_latency"), "expected 0 to 1e9 cycles");
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
}

}  // namespace tcsim::systolic
