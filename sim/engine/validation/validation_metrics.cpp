#include "engine/validation/validation_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tcsim::engine {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double error_pct(double measured, double predicted) { return (predicted - measured) / measured * 100.0; }

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson_correlation: lengths differ");
  const std::size_t n = x.size();
  if (n < 2) return kNaN;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0 || syy <= 0) return kNaN;
  return sxy / std::sqrt(sxx * syy);
}

ErrorSummary summarize_errors(const std::vector<double>& measured, const std::vector<double>& predicted) {
  if (measured.size() != predicted.size()) throw std::invalid_argument("summarize_errors: lengths differ");
  ErrorSummary s;
  s.rows = measured.size();
  if (s.rows == 0) {
    s.mape_pct = s.median_ape_pct = s.bias_pct = s.max_ape_pct = s.pearson = s.pearson_log = kNaN;
    return s;
  }
  std::vector<double> ape(s.rows), log_m(s.rows), log_p(s.rows);
  double sum_ape = 0, sum_err = 0;
  for (std::size_t i = 0; i < s.rows; ++i) {
    if (!(measured[i] > 0) || !(predicted[i] >= 0))
      throw std::invalid_argument("summarize_errors: measured must be > 0 and predicted >= 0");
    const double e = error_pct(measured[i], predicted[i]);
    ape[i] = std::fabs(e);
    sum_ape += ape[i];
    sum_err += e;
    if (ape[i] > s.max_ape_pct || i == 0) {
      s.max_ape_pct = ape[i];
      s.worst_row = i;
    }
    log_m[i] = std::log10(measured[i]);
    log_p[i] = predicted[i] > 0 ? std::log10(predicted[i]) : -std::numeric_limits<double>::infinity();
  }
  s.mape_pct = sum_ape / static_cast<double>(s.rows);
  s.bias_pct = sum_err / static_cast<double>(s.rows);
  s.median_ape_pct = median(ape);
  s.pearson = pearson_correlation(measured, predicted);
  const bool finite_logs = std::all_of(log_p.begin(), log_p.end(), [](double v) { return std::isfinite(v); });
  s.pearson_log = finite_logs ? pearson_correlation(log_m, log_p) : kNaN;
  return s;
}

}  // namespace tcsim::engine
