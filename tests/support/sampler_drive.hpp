#pragma once
// Plays a sampler alone, one trial at a time: propose, observe the objective at one length,
// finish. Returns the objective of each proposal in order.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/searcher/rng.hpp"

namespace hpsearch::testing {

template <class S>
std::vector<double> drive_sequential(S& sampler, std::uint32_t seed, std::uint32_t trials,
                                     const std::function<double(const nlohmann::json&)>& f,
                                     std::vector<nlohmann::json>* proposals = nullptr,
                                     std::uint64_t length = 1) {
  Rng rng(seed);
  std::vector<double> values;
  for (std::uint32_t t = 0; t < trials; ++t) {
    const nlohmann::json h = sampler.propose(rng, t);
    sampler.on_pending(t, length);
    const double value = f(h);
    sampler.observe(t, length, value);
    sampler.on_finished(t);
    values.push_back(value);
    if (proposals != nullptr) proposals->push_back(h);
  }
  return values;
}

/// The median (mean of the middle two for an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace hpsearch::testing
