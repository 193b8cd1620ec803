#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "engine/validation/validation_metrics.h"

using namespace tcsim::engine;

TEST_CASE("metrics: hand-computed example") {
  // measured 10, 20, 40, 80; predicted 11 (+10%), 18 (-10%), 40 (0%), 100 (+25%)
  const std::vector<double> m = {10, 20, 40, 80}, p = {11, 18, 40, 100};
  const ErrorSummary s = summarize_errors(m, p);
  CHECK(s.rows == 4);
  CHECK(s.mape_pct == doctest::Approx((10 + 10 + 0 + 25) / 4.0));
  CHECK(s.median_ape_pct == doctest::Approx(10));  // (10 + 10) / 2
  CHECK(s.bias_pct == doctest::Approx((10 - 10 + 0 + 25) / 4.0));
  CHECK(s.max_ape_pct == doctest::Approx(25));
  CHECK(s.worst_row == 3);
  // Pearson by hand: mean m = 37.5, mean p = 42.25
  double sxy = 0, sxx = 0, syy = 0;
  for (int i = 0; i < 4; ++i) {
    sxy += (m[i] - 37.5) * (p[i] - 42.25);
    sxx += (m[i] - 37.5) * (m[i] - 37.5);
    syy += (p[i] - 42.25) * (p[i] - 42.25);
  }
  CHECK(s.pearson == doctest::Approx(sxy / std::sqrt(sxx * syy)));
  CHECK(s.pearson < 1.0);
  CHECK(s.pearson_log > 0.95);
}

TEST_CASE("metrics: exact predictions and proportional predictions") {
  const std::vector<double> m = {1e-6, 1e-3, 2.5e-5};
  const ErrorSummary exact = summarize_errors(m, m);
  CHECK(exact.mape_pct == 0);
  CHECK(exact.median_ape_pct == 0);
  CHECK(exact.worst_row == 0);  // ties: the first row
  CHECK(exact.pearson == doctest::Approx(1.0));
  CHECK(exact.pearson_log == doctest::Approx(1.0));
  std::vector<double> twice;
  for (double v : m) twice.push_back(2 * v);
  const ErrorSummary s = summarize_errors(m, twice);
  CHECK(s.mape_pct == doctest::Approx(100));
  CHECK(s.bias_pct == doctest::Approx(100));
  CHECK(s.pearson == doctest::Approx(1.0));  // correlation ignores scale
}

TEST_CASE("metrics: median, error_pct and degenerate inputs") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(std::isnan(median({})));
  CHECK(error_pct(10, 12) == doctest::Approx(20));
  CHECK(error_pct(10, 8) == doctest::Approx(-20));
  CHECK(std::isnan(pearson_correlation({1}, {2})));
  CHECK(std::isnan(pearson_correlation({1, 1, 1}, {1, 2, 3})));  // constant side
  CHECK(pearson_correlation({1, 2, 3}, {3, 2, 1}) == doctest::Approx(-1.0));
  const ErrorSummary empty = summarize_errors({}, {});
  CHECK(empty.rows == 0);
  CHECK(std::isnan(empty.mape_pct));
  CHECK_THROWS_AS(summarize_errors({1, 2}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(summarize_errors({0}, {1}), std::invalid_argument);
  // A zero prediction has no logarithm: pearson_log is NaN, the rest is defined.
  const ErrorSummary z = summarize_errors({1, 2}, {0, 2});
  CHECK(z.mape_pct == doctest::Approx(50));
  CHECK(std::isnan(z.pearson_log));
}
