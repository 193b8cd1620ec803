#include "cli/validate/mape_gate.h"

#include <cmath>
#include <iostream>

#include "common/text/strings.h"

namespace tcsim::cli {

int mape_gate(const std::string& verb, bool requested, double max_mape, std::size_t compared, double mape_pct,
              const char* unit) {
  if (!requested) return 0;
  if (compared == 0 || !std::isfinite(mape_pct)) {
    std::cerr << verb << ": no " << unit << " could be compared; --max-mape fails\n";
    return kExitMapeExceeded;
  }
  if (mape_pct > max_mape) {
    std::cerr << verb << ": MAPE " << format_number("%.2f", mape_pct) << "% exceeds --max-mape " << format_number("%g", max_mape)
              << "%\n";
    return kExitMapeExceeded;
  }
  return 0;
}

}  // namespace tcsim::cli
