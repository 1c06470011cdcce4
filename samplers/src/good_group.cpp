#include "good_group.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpsearch::sampler_detail {

void length_trust(const ObservationStore& store, std::size_t min_trials,
                  std::vector<LengthTrust>& out) {
  out.clear();
  std::vector<std::uint64_t> lengths;
  store.lengths(lengths);
  const auto reference = std::find_if(lengths.begin(), lengths.end(), [&](std::uint64_t length) {
    return store.observations_at(length) >= std::max<std::size_t>(min_trials, 1);
  });
  if (reference == lengths.end()) return;
  std::vector<double> at_shorter;
  std::vector<double> at_reference;
  for (auto it = lengths.begin(); it != lengths.end(); ++it) {
    if (it <= reference) {
      out.push_back({*it, 1.0, it == reference, true, 1.0});
      continue;
    }
    store.paired_metrics(*it, *reference, at_shorter, at_reference);
    // rho^2: the share of the reference's ranking the shorter length accounts for. Trusting
    // rho itself let lengths that rank trials poorly (rho 0.3-0.5, the rbv2-svm table) crowd
    // the good group; the square keeps them out and changes little where rho is near 1.
    const bool measured = at_shorter.size() >= min_trials;
    const double rho = measured ? std::max(0.0, rank_correlation(at_shorter, at_reference)) : 0.0;
    out.push_back({*it, rho * rho, false, measured, rho});
  }
}

void good_group(const ObservationStore& store, double gamma, std::size_t size,
                std::size_t min_trials, std::vector<std::uint32_t>& out) {
  std::vector<LengthTrust> trust;
  length_trust(store, min_trials, trust);
  good_group(store, trust, gamma, size, out);
}

void good_group(const ObservationStore& store, const std::vector<LengthTrust>& trust, double gamma,
                std::size_t size, std::vector<std::uint32_t>& out) {
  out.clear();
  if (trust.empty()) {
    store.leaders(size, out);
    return;
  }
  bool shorter = false;  // past the reference length
  std::vector<std::uint32_t> best;
  for (const LengthTrust& level : trust) {
    if (out.size() >= size) break;
    const auto n = static_cast<double>(store.observations_at(level.length));
    const std::size_t share =
        shorter ? static_cast<std::size_t>(std::llround(gamma * level.trust * n))
                : std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(gamma * n)));
    if (level.reference) shorter = true;
    store.leaders_at(level.length, share, best);
    for (const std::uint32_t trial : best) {
      if (out.size() == size) break;
      if (std::find(out.begin(), out.end(), trial) == out.end()) out.push_back(trial);
    }
  }
}

void thin_by_trust(const ObservationStore& store, const std::vector<LengthTrust>& trust,
                   std::vector<std::uint32_t>& trials) {
  if (trust.empty()) return;
  std::vector<std::size_t> seen(trust.size(), 0);
  std::erase_if(trials, [&](std::uint32_t t) {
    const std::uint64_t length = store.reached(t);
    // `trust` lists lengths longest first.
    const auto it = std::find_if(trust.begin(), trust.end(),
                                 [&](const LengthTrust& l) { return l.length == length; });
    // Unmeasured (too few trials reported at both lengths yet): no evidence either way, kept.
    if (it == trust.end() || !it->measured || it->rho >= 1) return false;
    // Keep an even share rho of this length's trials: the k-th (from 0) is kept when
    // floor((k + 1) * rho) passes an integer.
    const std::size_t k = seen[static_cast<std::size_t>(it - trust.begin())]++;
    const auto before = static_cast<std::uint64_t>(std::floor(static_cast<double>(k) * it->rho));
    const auto after = static_cast<std::uint64_t>(std::floor(static_cast<double>(k + 1) * it->rho));
    return after == before;
  });
}

}  // namespace hpsearch::sampler_detail
