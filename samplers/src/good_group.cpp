#include "good_group.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpsearch::sampler_detail {

namespace {

// Ranks 1..n of the values, ties sharing their average rank.
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

}  // namespace

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

void good_group(const ObservationStore& store, double gamma, std::size_t size,
                std::size_t min_trials, std::vector<std::uint32_t>& out) {
  out.clear();
  std::vector<std::uint64_t> lengths;
  store.lengths(lengths);
  const auto reference = std::find_if(lengths.begin(), lengths.end(), [&](std::uint64_t length) {
    return store.observations_at(length) >= std::max<std::size_t>(min_trials, 1);
  });
  if (reference == lengths.end()) {
    store.leaders(size, out);
    return;
  }
  std::vector<double> at_shorter;
  std::vector<double> at_reference;
  std::vector<std::uint32_t> best;
  for (auto it = lengths.begin(); it != lengths.end() && out.size() < size; ++it) {
    const auto n = static_cast<double>(store.observations_at(*it));
    std::size_t share = 0;
    if (it <= reference) {
      share = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(gamma * n)));
    } else {
      store.paired_metrics(*it, *reference, at_shorter, at_reference);
      // rho^2: the share of the reference's ranking the shorter length accounts for. Trusting
      // rho itself let lengths that rank trials poorly (rho 0.3-0.5, the rbv2-svm table)
      // crowd the group; the square keeps them out and changes little where rho is near 1.
      const double rho = at_shorter.size() >= min_trials
                             ? std::max(0.0, rank_correlation(at_shorter, at_reference))
                             : 0.0;
      const double trust = rho * rho;
      share = static_cast<std::size_t>(std::llround(gamma * trust * n));
    }
    store.leaders_at(*it, share, best);
    for (const std::uint32_t trial : best) {
      if (out.size() == size) break;
      if (std::find(out.begin(), out.end(), trial) == out.end()) out.push_back(trial);
    }
  }
}

}  // namespace hpsearch::sampler_detail
