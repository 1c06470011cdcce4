#pragma once
// Small builders for hyperparameter spaces in tests.

#include <string>
#include <utility>
#include <vector>

#include "hpsearch/searcher/hyperparameters.hpp"

namespace hpsearch::testing {

inline HyperparameterSpace space(std::vector<NamedHyperparameter> entries) {
  return HyperparameterSpace(std::move(entries));
}

inline IntHp int_hp(std::int64_t minval, std::int64_t maxval,
                    std::optional<std::uint64_t> count = std::nullopt) {
  return IntHp{minval, maxval, count};
}
inline DoubleHp double_hp(double minval, double maxval,
                          std::optional<std::uint64_t> count = std::nullopt) {
  return DoubleHp{minval, maxval, count};
}
inline LogHp log_hp(double minval, double maxval, double base,
                    std::optional<std::uint64_t> count = std::nullopt) {
  return LogHp{minval, maxval, base, count};
}
inline CategoricalHp categorical(std::vector<nlohmann::json> values) {
  return CategoricalHp{std::move(values)};
}

/// Determined's grid_test `generateHyperparameters(counts)`: "0", "1", ... each double -1..1.
inline HyperparameterSpace double_axes(const std::vector<std::uint64_t>& counts) {
  std::vector<NamedHyperparameter> entries;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    entries.push_back({std::to_string(i), double_hp(-1, 1, counts[i])});
  }
  return space(std::move(entries));
}

}  // namespace hpsearch::testing
