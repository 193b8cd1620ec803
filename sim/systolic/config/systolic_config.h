#pragma once
// The hardware description of a systolic array, as plain data. It is filled from a SCALE-Sim
// .cfg file (scalesim_cfg.cpp) or from our YAML config (systolic_schema.cpp, through sim/config).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numerics/formats/format_id.h"

namespace tcsim::systolic {

enum class Dataflow { os, ws, is };       // output, weight, input stationary
enum class BandwidthMode { calc, user };  // SCALE-Sim's InterfaceBandwidth: CALC (estimate) or USER
enum class Semantics { scalesim_v2, faithful };

std::string to_string(Dataflow d);
std::string to_string(BandwidthMode m);
std::string to_string(Semantics s);

// Upper bounds of every parameter (YAML schema and .cfg alike; README "Bounds"). They keep every
// derived address and size far from int64 overflow: an address is an offset plus an index below
// kMaxOperandWords (workload/csv/scalesim_topology.h), both below 2^48.
inline constexpr std::int64_t kMaxArrayDim = 65536;
inline constexpr std::uint64_t kMaxSramBytes = std::uint64_t{1} << 30;  // 1 GiB per operand SRAM
inline constexpr std::int64_t kMaxAddressOffset = std::int64_t{1} << 48;
inline constexpr double kMaxUserBandwidthWords = 1 << 20;
inline constexpr double kMinClockHz = 1e6, kMaxClockHz = 1e10;  // as the GPU schema: 1 MHz .. 10 GHz
inline constexpr double kMaxDramBytesPerS = 1e15;                 // 1 PB/s
inline constexpr std::int64_t kMaxVectorLanes = std::int64_t{1} << 20;
inline constexpr double kMaxVectorBytesPerCycle = 1048576;          // 1 MiB per cycle
inline constexpr double kMaxVectorLatencyCycles = 1e9;

// The vector unit beside the array that runs the memory-bound layers of a network (activations,
// norms, softmax, residual adds, pooling, the optimizer): `lanes` arithmetic results per cycle,
// reading and writing its operands in the on-chip activation buffer (the ifmap SRAM) at
// `sram_bytes_per_cycle`, or streaming them from DRAM when they do not fit there. lanes == 0: no
// vector unit (those layers are reported as not modelled). vector/vector_unit.h has the model.
struct VectorUnit {
  std::int64_t lanes = 0;
  double sram_bytes_per_cycle = 0;
  double latency_cycles = 0;  // fixed cycles per kernel (pipeline fill, issue)
  bool present() const { return lanes > 0; }
};

// One entry of array.formats: an operand format and the cycles one MAC in it takes.
struct ArrayFormat {
  FormatId format = FormatId::int8;
  std::int64_t mac_cycles = 1;
  bool operator==(const ArrayFormat&) const = default;
};
inline constexpr std::int64_t kMaxMacCycles = 64;

struct SystolicConfig {
  std::string name = "systolic";  // SCALE-Sim run_name, or the YAML `name`
  std::int64_t rows = 32;         // R: ArrayHeight
  std::int64_t cols = 32;         // C: ArrayWidth
  Dataflow dataflow = Dataflow::os;
  Semantics semantics = Semantics::scalesim_v2;

  // Operand SRAMs in bytes (each double-buffered 50/50).
  std::uint64_t ifmap_sram_bytes = 64 * 1024;
  std::uint64_t filter_sram_bytes = 64 * 1024;
  std::uint64_t ofmap_sram_bytes = 64 * 1024;
  // Word size in bytes. SCALE-Sim v2 hard-codes 1; faithful semantics may use the operand format.
  std::int64_t word_bytes = 1;
  // Base addresses (words) of each operand, as in SCALE-Sim (only visible in traces).
  std::int64_t ifmap_offset = 0;
  std::int64_t filter_offset = 10000000;
  std::int64_t ofmap_offset = 20000000;

  BandwidthMode bandwidth_mode = BandwidthMode::calc;
  double user_bandwidth_words = 10;  // USER mode: words per cycle per operand (v2 uses one value)

  double clock_hz = 0;  // 0: no clock (cycles only); faithful semantics turns cycles into time
  // Faithful semantics: DRAM bandwidth in bytes/s (with a clock) or, without a clock, the USER
  // bandwidth in words/cycle is used; 0 and no user bandwidth: unlimited.
  double dram_bandwidth_bytes_per_s = 0;
  // Device memory a workload may use (`dram.size`; tcsim network's footprint warning); 0: not given.
  std::uint64_t dram_size_bytes = 0;
  // Faithful semantics: operand sizes come from the kernel's formats instead of word_bytes.
  bool bytes_from_formats = true;

  VectorUnit vector;

  // The operand formats the array's MACs take (`array.formats`), the first one native: a kernel
  // whose A or B is in another format cannot run (TPU v1's MACs are 8-bit integer ones). Empty:
  // any format (SCALE-Sim is format-agnostic). A format may take several cycles per MAC ("bf16/2":
  // half rate; faithful semantics only): the whole pipeline then steps once every that many cycles.
  std::vector<ArrayFormat> formats;
  bool takes(FormatId f) const;
  // Cycles per MAC of a kernel with operands a and b: the slower one's; 1 for any format.
  std::int64_t mac_cycles(FormatId a, FormatId b) const;
  std::string formats_text() const;  // "s8, bf16/2" or "any", as array.formats is written

  // DRAM bytes per cycle in faithful semantics: dram.bandwidth / clock with both given, else the
  // USER interface's words per cycle of `word_bytes` each, else 0: unlimited (CALC mode assumes the
  // DRAM keeps up).
  double dram_bytes_per_cycle(double word_bytes) const {
    if (dram_bandwidth_bytes_per_s > 0 && clock_hz > 0) return dram_bandwidth_bytes_per_s / clock_hz;
    return bandwidth_mode == BandwidthMode::user ? user_bandwidth_words * word_bytes : 0;
  }

  std::uint64_t ifmap_sram_words() const { return ifmap_sram_bytes / static_cast<std::uint64_t>(word_bytes); }
  std::uint64_t filter_sram_words() const { return filter_sram_bytes / static_cast<std::uint64_t>(word_bytes); }
  std::uint64_t ofmap_sram_words() const { return ofmap_sram_bytes / static_cast<std::uint64_t>(word_bytes); }

  // Throws InputError(where(field), ...) for values the model cannot run with; `field` is the
  // SCALE-Sim key name (ArrayHeight, IfmapSramSzkB, ...).
  void validate(const std::function<std::string(const std::string& field)>& where) const;
  void validate(const std::string& where_prefix) const {
    validate([&](const std::string& f) { return where_prefix + f; });
  }
};

}  // namespace tcsim::systolic
