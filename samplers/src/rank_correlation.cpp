#include "hpsearch/samplers/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

namespace hpsearch {

std::vector<double> ranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // mean of i+1 .. j
    for (std::size_t k = i; k < j; ++k) out[order[k]] = rank;
    i = j;
  }
  return out;
}

double rank_correlation(std::span<const double> a, std::span<const double> b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  const std::vector<double> ra = ranks(a.first(n));
  const std::vector<double> rb = ranks(b.first(n));
  // Pearson's correlation of the ranks (exact with ties, unlike the 1 - 6 sum d^2 form).
  const double mean = 0.5 * static_cast<double>(n + 1);
  double sab = 0;
  double saa = 0;
  double sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (saa <= 0 || sbb <= 0) return 0;
  return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

}  // namespace hpsearch
