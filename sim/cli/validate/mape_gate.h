#pragma once
// --max-mape for every `tcsim validate` and `tcsim replay` input: the exit code once the metrics are
// printed.
#include <cstddef>
#include <string>

namespace tcsim::cli {

constexpr int kExitMapeExceeded = 3;

// 0 when --max-mape was not given (`requested` false) or `mape_pct` is within it; else
// kExitMapeExceeded, saying on stderr (prefixed with `verb`) that no `unit` (row, run, call) could be
// compared or by how much the MAPE exceeds the bound.
int mape_gate(const std::string& verb, bool requested, double max_mape, std::size_t compared, double mape_pct,
              const char* unit);

}  // namespace tcsim::cli
