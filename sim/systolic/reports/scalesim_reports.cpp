#include "systolic/reports/scalesim_reports.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tcsim::systolic {

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // repr() uses scientific notation when the decimal exponent is < -4 or >= 16.
  const double a = std::fabs(v);
  char buf[64];
  std::to_chars_result r;
  if (a != 0 && (a < 1e-4 || a >= 1e16)) {
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, r.ptr);
    // C++ prints e+16 / e-05 like Python does; Python drops a lone ".0" mantissa fraction too.
    return s;
  }
  r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, r.ptr);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

namespace {
std::string i64(std::int64_t v) { return std::to_string(v); }
}  // namespace

std::string compute_report_csv(const std::vector<LayerReport>& layers) {
  std::string out = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerReport& r = layers[i];
    out += std::to_string(i) + ", " + i64(r.total_cycles) + ", " + i64(r.stall_cycles) + ", " +
           python_float(r.overall_util_pct) + ", " + python_float(r.mapping_efficiency_pct) + ", " +
           python_float(r.compute_util_pct) + ",\n";
  }
  return out;
}

std::string bandwidth_report_csv(const std::vector<LayerReport>& layers) {
  std::string out =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM BW, "
      "Avg OFMAP DRAM BW,\n";
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerReport& r = layers[i];
    out += std::to_string(i) + ", " + python_float(r.avg_bw(r.sram_ifmap)) + ", " +
           python_float(r.avg_bw(r.sram_filter)) + ", " + python_float(r.avg_bw(r.sram_ofmap)) + ", " +
           python_float(LayerReport::dram_bw(r.dram_ifmap)) + ", " + python_float(LayerReport::dram_bw(r.dram_filter)) +
           ", " + python_float(LayerReport::dram_bw(r.dram_ofmap)) + ",\n";
  }
  return out;
}

std::string detailed_access_report_csv(const std::vector<LayerReport>& layers) {
  std::string out = "LayerID";
  for (const char* what : {"SRAM IFMAP", "SRAM Filter", "SRAM OFMAP", "DRAM IFMAP", "DRAM Filter", "DRAM OFMAP"}) {
    const std::string w = what;
    const bool writes = w.find("OFMAP") != std::string::npos;
    out += ", " + w + " Start Cycle, " + w + " Stop Cycle, " + w + (writes ? " Writes" : " Reads");
  }
  out += ",\n";
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerReport& r = layers[i];
    out += std::to_string(i);
    for (const AccessSpan* a :
         {&r.sram_ifmap, &r.sram_filter, &r.sram_ofmap, &r.dram_ifmap, &r.dram_filter, &r.dram_ofmap})
      out += ", " + python_float(a->start) + ", " + python_float(a->stop) + ", " + i64(a->count);
    out += ",\n";
  }
  return out;
}

}  // namespace tcsim::systolic
