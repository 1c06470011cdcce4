#include "good_group.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpsearch::sampler_detail {

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
