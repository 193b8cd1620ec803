#pragma once
// Rows of ubench.csv (benchmark,instruction,formats,metric,value,unit) and the benchmark groups
// that live in their own files.
#include <string>
#include <vector>

#include "device_info.h"

namespace tcv {

struct UbenchRow {
  std::string benchmark, instruction, formats, metric;
  double value = 0;
  std::string unit;
};

struct UbenchOptions {
  bool quick = false;        // fewer footprints and iterations (smoke run)
  double clock_mhz = 0;      // SM clock measured under load, for B/clk conversions
};

// Global-memory pointer chase (L2 / DRAM latency by footprint) and bandwidths; launch overhead;
// the SM clock under load. Appends rows; prints progress.
double measure_sm_clock_mhz(const DeviceInfo& dev);
void bench_memory(const DeviceInfo& dev, const UbenchOptions& opt, std::vector<UbenchRow>& rows);
void bench_launch(const DeviceInfo& dev, std::vector<UbenchRow>& rows);

void print_row(const UbenchRow& r);

}  // namespace tcv
