#pragma once
// Error metrics of predicted against measured times (`tcsim validate`).
//   error_pct  = (predicted - measured) / measured * 100   (signed: > 0 means the model is slow)
//   APE        = |error_pct|
//   MAPE       = mean APE; median APE (mean of the two middle values for an even count)
//   bias       = mean signed error_pct
//   worst      = the row with the largest APE (the first one on ties)
//   pearson    = Pearson correlation of predicted vs measured; pearson_log the same on log10 of
//                both (small and large kernels weigh alike). NaN with fewer than 2 rows or when
//                either side is constant.
#include <cstddef>
#include <vector>

namespace tcsim::engine {

struct ErrorSummary {
  std::size_t rows = 0;
  double mape_pct = 0;
  double median_ape_pct = 0;
  double bias_pct = 0;
  double max_ape_pct = 0;
  std::size_t worst_row = 0;   // index into the inputs
  double pearson = 0;
  double pearson_log = 0;
};

double error_pct(double measured, double predicted);
double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y);
double median(std::vector<double> values);  // NaN for an empty list

// measured and predicted have the same length; every measured value is > 0 and every predicted
// value >= 0 (std::invalid_argument otherwise: a caller bug). Empty input gives rows = 0 and NaNs.
ErrorSummary summarize_errors(const std::vector<double>& measured, const std::vector<double>& predicted);

}  // namespace tcsim::engine
