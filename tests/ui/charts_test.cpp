// The web UI's importance estimate (runner/src/ui/charts.cpp): Spearman's rank correlation and
// the correlation ratio, against values worked out by hand below.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ui/charts.hpp"

using hpsearch::ui::correlation_ratio;
using hpsearch::ui::spearman;

TEST_CASE("spearman: a monotone relation is 1 or -1, whatever its shape") {
  CHECK(spearman({1, 2, 3, 4}, {1, 4, 9, 16}) == doctest::Approx(1.0));
  CHECK(spearman({1, 2, 3, 4}, {16, 9, 4, 1}) == doctest::Approx(-1.0));
  CHECK(spearman({-2, -1, 0, 1, 2}, {4, 1, 0, 1, 4}) ==
        doctest::Approx(0.0));  // best in the middle
}

TEST_CASE("spearman: ties take their mean rank") {
  // x's ranks 1, 2.5, 2.5, 4 and y's 1, 2, 3, 4 (both mean 2.5): deviations (-1.5, 0, 0, 1.5)
  // and (-1.5, -0.5, 0.5, 1.5); sxy = 4.5, sxx = 4.5, syy = 5: rho = 4.5 / sqrt(22.5).
  CHECK(spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(4.5 / std::sqrt(22.5)));
}

TEST_CASE("spearman: too few pairs or a constant say nothing (0)") {
  CHECK(spearman({1, 2}, {2, 1}) == 0.0);
  CHECK(spearman({1, 1, 1}, {1, 2, 3}) == 0.0);
}

TEST_CASE("correlation ratio: the share of variance between the groups, square-rooted") {
  // y = 1, 2 | 3, 4: mean 2.5, total sum of squares 5; group means 1.5 and 3.5, between-group
  // sum 2 * 1 + 2 * 1 = 4: eta = sqrt(4 / 5).
  CHECK(correlation_ratio({"a", "a", "b", "b"}, {1, 2, 3, 4}) == doctest::Approx(std::sqrt(0.8)));
  // Every group the same mean: 0; each value its own group's: 1.
  CHECK(correlation_ratio({"a", "b", "a", "b"}, {1, 1, 3, 3}) == doctest::Approx(0.0));
  CHECK(correlation_ratio({"a", "a", "b", "b"}, {1, 1, 3, 3}) == doctest::Approx(1.0));
  CHECK(correlation_ratio({"a", "b"}, {1, 2}) == 0.0);  // too few values
}
