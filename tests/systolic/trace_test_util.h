#pragma once
// Reading back --traces CSVs in the systolic tests: per-file totals to compare with a LayerReport.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

namespace tcsim::systolic_test {

using test::run_tcsim;

struct TraceSummary {
  std::int64_t addresses = 0;  // cells other than the cycle that are not -1
  std::int64_t cells = 0;      // cells other than the cycle (-1 included)
  std::int64_t first = 0, last = 0, rows = 0, max = 0;  // cycles of the first/last row, the latest
  std::int64_t first_busy = -1, last_busy = -1;  // cycles of the first/last row with an address
  bool increasing = true;                        // cycles strictly increase row by row
};

inline TraceSummary summarize(const std::filesystem::path& p) {
  std::ifstream in(p);
  REQUIRE_MESSAGE(in.good(), p.string());
  TraceSummary t;
  std::string line, cell;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::getline(ss, cell, ',');
    const std::int64_t cycle = std::stoll(cell);
    if (t.rows > 0 && cycle <= t.last) t.increasing = false;
    if (t.rows == 0) t.first = t.max = cycle;
    t.max = std::max(t.max, cycle);
    t.last = cycle;
    ++t.rows;
    bool busy = false;
    while (std::getline(ss, cell, ',')) {
      t.cells += !cell.empty();
      const bool a = !cell.empty() && cell != "-1";
      t.addresses += a;
      busy = busy || a;
    }
    if (busy) {
      if (t.first_busy < 0) t.first_busy = cycle;
      t.last_busy = cycle;
    }
  }
  return t;
}

}  // namespace tcsim::systolic_test
