#pragma once
// SCALE-Sim v2's three report files, byte for byte in its format: "LayerID, col, col,\n" headers,
// ", "-separated values, a trailing comma on every line, integers as integers and floats as
// Python's repr() prints them (start/stop cycles are floats: "33.0", "-3243.0").
#include <string>
#include <vector>

#include "systolic/reports/layer_report.h"

namespace tcsim::systolic {

std::string compute_report_csv(const std::vector<LayerReport>& layers);
std::string bandwidth_report_csv(const std::vector<LayerReport>& layers);
std::string detailed_access_report_csv(const std::vector<LayerReport>& layers);

// Python's repr() of a float (shortest round-trip digits, always with a '.' or an exponent).
std::string python_float(double v);

}  // namespace tcsim::systolic
