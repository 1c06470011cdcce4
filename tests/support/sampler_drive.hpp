#pragma once
// Plays a sampler alone, one trial at a time: propose, observe the objective at one length,
// finish. Returns the objective of each proposal in order.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpsearch/searcher/rng.hpp"
#include "support/spaces.hpp"

namespace hpsearch::testing {

/// The unit cube [0,1]^d as doubles x0, x1, ...
inline HyperparameterSpace cube(int d) {
  std::vector<NamedHyperparameter> entries;
  for (int i = 0; i < d; ++i) {
    std::string name = "x";
    name += std::to_string(i);
    entries.push_back({name, double_hp(0, 1)});
  }
  return space(std::move(entries));
}

/// A sphere centred at 0.8 in every coordinate of a cube: 0 at the optimum, up to d * 0.64.
inline double sphere(const nlohmann::json& h) {
  double sum = 0;
  for (const auto& [name, value] : h.items()) sum += std::pow(value.get<double>() - 0.8, 2);
  return sum;
}

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

/// The distance from a proposal's (x0, x1) to the nearest point of trials [first, last) in
/// the sampler's store (two-dimensional unit-cube spaces).
template <class S>
double nearest_point(const S& sampler, std::uint32_t first, std::uint32_t last,
                     const nlohmann::json& h) {
  double d = 1e9;
  for (std::uint32_t t = first; t < last; ++t) {
    const auto p = sampler.store().point(t);
    d = std::min(d, std::hypot(p[0] - h["x0"].get<double>(), p[1] - h["x1"].get<double>()));
  }
  return d;
}

/// The median (mean of the middle two for an even count).
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace hpsearch::testing
