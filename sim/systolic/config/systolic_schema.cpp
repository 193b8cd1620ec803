#include "systolic/config/systolic_schema.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"

namespace tcsim::systolic {

using config::Param;
using config::ParamType;

const config::Schema& config_schema() {
  static const config::Schema schema = [] {
    config::Schema s("systolic", "A systolic array (SCALE-Sim v2 compatible): PEs, dataflow, SRAMs, DRAM interface");
    s.add({"name", ParamType::string, "systolic", "name shown in reports"});
    s.add({"semantics", ParamType::choice, "scalesim_v2",
           "scalesim_v2 reproduces SCALE-Sim v2 exactly; faithful models the hardware (sim/systolic/README.md)",
           -1e300, 1e300, {"scalesim_v2", "faithful"}});
    s.add({"clock", ParamType::string, "none",
           "clock frequency like 700MHz, or none (cycles only; SCALE-Sim has no clock)"});
    s.add({"array.rows", ParamType::integer, "32", "PE rows R (SCALE-Sim ArrayHeight)", 1, 65536});
    s.add({"array.cols", ParamType::integer, "32", "PE columns C (SCALE-Sim ArrayWidth)", 1, 65536});
    s.add({"array.dataflow", ParamType::choice, "os", "os (output), ws (weight) or is (input) stationary", -1e300,
           1e300, {"os", "ws", "is"}});
    s.add({"array.formats", ParamType::string, "any",
           "operand formats the MACs take, the native one first, like int8 or bf16, fp32/4 (/N: N cycles per MAC, "
           "faithful semantics); any: every format (SCALE-Sim is format-agnostic). A GEMM or convolution in "
           "another format is an error"});
    s.add({"sram.ifmap", ParamType::bytes, "64KiB", "ifmap SRAM (double-buffered, 50/50)", 1, double(kMaxSramBytes)});
    s.add({"sram.filter", ParamType::bytes, "64KiB", "filter SRAM (double-buffered, 50/50)", 1, double(kMaxSramBytes)});
    s.add({"sram.ofmap", ParamType::bytes, "64KiB", "ofmap SRAM (double-buffered, 50/50)", 1, double(kMaxSramBytes)});
    s.add({"sram.word_size", ParamType::bytes, "1B", "bytes per word (SCALE-Sim v2: 1)", 1, 64});
    s.add({"sram.bytes_from_formats", ParamType::boolean, "true",
           "faithful: word sizes from the kernel's operand formats instead of sram.word_size"});
    s.add({"address.ifmap_offset", ParamType::integer, "0", "ifmap base address in words (traces)", 0, double(kMaxAddressOffset)});
    s.add({"address.filter_offset", ParamType::integer, "10000000", "filter base address in words (traces)", 0, double(kMaxAddressOffset)});
    s.add({"address.ofmap_offset", ParamType::integer, "20000000", "ofmap base address in words (traces)", 0, double(kMaxAddressOffset)});
    s.add({"dram.mode", ParamType::choice, "calc",
           "calc: SCALE-Sim's estimated (stall-free) bandwidth; user: a fixed interface bandwidth", -1e300, 1e300,
           {"calc", "user"}});
    s.add({"dram.words_per_cycle", ParamType::number, "10", "user mode: DRAM words per cycle per operand", 1,
           kMaxUserBandwidthWords});
    s.add({"dram.bandwidth", ParamType::string, "none",
           "faithful with a clock: DRAM bandwidth like 34GB/s, or none (words_per_cycle in user mode, else unlimited)"});
    s.add({"dram.size", ParamType::bytes, "0B",
           "device memory capacity (tcsim network warns when a step needs more; 0: not given)", 0, 1e15});
    s.add({"vector.lanes", ParamType::integer, "0",
           "vector unit for the memory-bound layers of tcsim network (activations, norms, softmax, adds, pooling, "
           "optimizer): arithmetic results per cycle; 0: none (those layers are reported as not modelled)",
           0, double(kMaxVectorLanes)});
    s.add({"vector.sram_bandwidth", ParamType::string, "none",
           "bytes per cycle the vector unit reads and writes in the activation buffer (sram.ifmap), like 512B/clk; "
           "required with vector.lanes"});
    s.add({"vector.latency", ParamType::cycles, "0cycles", "fixed cycles per vector kernel (pipeline fill, issue)", 0,
           kMaxVectorLatencyCycles});
    return s;
  }();
  return schema;
}

std::vector<ArrayFormat> parse_array_formats(const std::string& text, const std::string& where) {
  if (trim(text) == "any") return {};
  std::vector<ArrayFormat> formats;
  for (const auto& part : split(text, ',')) {
    const std::string_view entry = trim(part);
    const std::size_t slash = entry.find('/');
    const std::string_view name = trim(entry.substr(0, slash));
    const std::optional<FormatId> f = parse_format(name);
    if (!f)
      throw InputError(where, "unknown format '" + std::string(name) +
                                  "'; expected any, or a comma-separated list like int8 or bf16, fp32/4 (fp32, tf32, "
                                  "bf16, fp16, e4m3, e5m2, int8, uint8, int4, ...; /N: N cycles per MAC)");
    ArrayFormat a{*f, 1};
    if (slash != std::string_view::npos) {
      const std::string n(trim(entry.substr(slash + 1)));
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(n, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (n.empty() || used != n.size() || v < 1 || v > kMaxMacCycles)
        throw InputError(where, "'" + std::string(entry) + "': expected FORMAT/N with N the cycles one MAC takes, 1 to " +
                                    std::to_string(kMaxMacCycles) + " (bf16/2: half the native rate)");
      a.mac_cycles = v;
    }
    if (std::any_of(formats.begin(), formats.end(), [&](const ArrayFormat& o) { return o.format == a.format; }))
      throw InputError(where, "format '" + std::string(name) + "' is listed twice");
    formats.push_back(a);
  }
  return formats;
}

SystolicConfig config_from(const config::Config& cfg) {
  SystolicConfig c;
  c.name = cfg.string("name");
  c.semantics = cfg.string("semantics") == "faithful" ? Semantics::faithful : Semantics::scalesim_v2;
  auto optional_unit = [&](const char* path, double (*parse)(std::string_view), const char* example) -> double {
    const std::string text = cfg.string(path);
    if (text == "none") return 0;
    try {
      return parse(text);
    } catch (const ParseError& e) {
      throw InputError(cfg.where(path), std::string("expected none or a value like ") + example + ": " + e.what());
    }
  };
  c.clock_hz = optional_unit("clock", &units::parse_frequency_hz, "700MHz");
  c.rows = cfg.integer("array.rows");
  c.cols = cfg.integer("array.cols");
  const std::string df = cfg.string("array.dataflow");
  c.dataflow = df == "ws" ? Dataflow::ws : df == "is" ? Dataflow::is : Dataflow::os;
  c.formats = parse_array_formats(cfg.string("array.formats"), cfg.where("array.formats"));
  c.ifmap_sram_bytes = cfg.bytes("sram.ifmap");
  c.filter_sram_bytes = cfg.bytes("sram.filter");
  c.ofmap_sram_bytes = cfg.bytes("sram.ofmap");
  c.word_bytes = static_cast<std::int64_t>(cfg.bytes("sram.word_size"));
  c.bytes_from_formats = cfg.boolean("sram.bytes_from_formats");
  c.ifmap_offset = cfg.integer("address.ifmap_offset");
  c.filter_offset = cfg.integer("address.filter_offset");
  c.ofmap_offset = cfg.integer("address.ofmap_offset");
  c.bandwidth_mode = cfg.string("dram.mode") == "user" ? BandwidthMode::user : BandwidthMode::calc;
  c.user_bandwidth_words = cfg.number("dram.words_per_cycle");
  c.dram_bandwidth_bytes_per_s = optional_unit("dram.bandwidth", &units::parse_bandwidth_bytes_per_s, "34GB/s");
  c.dram_size_bytes = cfg.bytes("dram.size");
  c.vector.lanes = cfg.integer("vector.lanes");
  c.vector.sram_bytes_per_cycle = optional_unit("vector.sram_bandwidth", &units::parse_bytes_per_cycle, "512B/clk");
  c.vector.latency_cycles = cfg.cycles("vector.latency");
  if (c.semantics == Semantics::scalesim_v2 && c.word_bytes != 1)
    throw InputError(cfg.where("sram.word_size"), "semantics scalesim_v2 has 1-byte words (SCALE-Sim hard-codes it)");
  static const std::pair<const char*, const char*> fields[] = {
      {"ArrayHeight", "array.rows"},       {"ArrayWidth", "array.cols"},      {"IfmapSramSzkB", "sram.ifmap"},
      {"FilterSramSzkB", "sram.filter"},   {"OfmapSramSzkB", "sram.ofmap"},   {"Bandwidth", "dram.words_per_cycle"},
      {"word_bytes", "sram.word_size"},    {"clock", "clock"},
      {"IfmapOffset", "address.ifmap_offset"}, {"FilterOffset", "address.filter_offset"},
      {"OfmapOffset", "address.ofmap_offset"}, {"dram_bandwidth", "dram.bandwidth"},
      {"vector_lanes", "vector.lanes"},      {"vector_sram_bandwidth", "vector.sram_bandwidth"},
      {"vector_latency", "vector.latency"}, {"formats", "array.formats"}};
  c.validate([&](const std::string& field) {
    for (const auto& [cfg_name, path] : fields)
      if (field == cfg_name) return cfg.where(path);
    return cfg.where("name");
  });
  return c;
}

std::string format_systolic_yaml(const SystolicConfig& c, const std::string& comment) {
  std::ostringstream os;
  if (!comment.empty()) os << "# " << comment << "\n";
  os << "version: 1\nkind: systolic\nname: " << c.name << "\nsemantics: " << to_string(c.semantics)
     << "\nclock: " << (c.clock_hz > 0 ? units::format_frequency(c.clock_hz) : "none") << "\narray:\n  rows: " << c.rows
     << "\n  cols: " << c.cols << "\n  dataflow: " << to_string(c.dataflow) << "\n  formats: " << c.formats_text()
     << "\nsram:\n  ifmap: "
     << units::format_bytes(c.ifmap_sram_bytes) << "\n  filter: " << units::format_bytes(c.filter_sram_bytes)
     << "\n  ofmap: " << units::format_bytes(c.ofmap_sram_bytes) << "\n  word_size: " << c.word_bytes
     << "B\n  bytes_from_formats: " << (c.bytes_from_formats ? "true" : "false") << "\naddress:\n  ifmap_offset: "
     << c.ifmap_offset << "\n  filter_offset: " << c.filter_offset << "\n  ofmap_offset: " << c.ofmap_offset
     << "\ndram:\n  mode: " << (c.bandwidth_mode == BandwidthMode::user ? "user" : "calc")
     << "\n  words_per_cycle: " << c.user_bandwidth_words << "\n  bandwidth: "
     << (c.dram_bandwidth_bytes_per_s > 0 ? units::format_bandwidth(c.dram_bandwidth_bytes_per_s) : "none")
     << "\n  size: " << units::format_bytes(c.dram_size_bytes) << "\n";
  if (c.vector.present())
    os << "vector:\n  lanes: " << c.vector.lanes << "\n  sram_bandwidth: " << c.vector.sram_bytes_per_cycle
       << "B/clk\n  latency: " << c.vector.latency_cycles << "cycles\n";
  return os.str();
}

}  // namespace tcsim::systolic
