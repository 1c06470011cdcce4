#pragma once
/// \file
/// Hyperparameter spaces (spec section 4) and random sampling from them.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hpsearch/searcher/rng.hpp"

namespace hpsearch {

/// A fixed value of any JSON type (also what a bare YAML value becomes).
struct ConstHp {
  nlohmann::json value;
  friend bool operator==(const ConstHp&, const ConstHp&) = default;
};

/// Integers in [minval, maxval], both inclusive. `count` is used only by the grid.
struct IntHp {
  std::int64_t minval = 0;
  std::int64_t maxval = 0;
  std::optional<std::uint64_t> count;
  friend bool operator==(const IntHp&, const IntHp&) = default;
};

/// Doubles in [minval, maxval). `count` is used only by the grid.
struct DoubleHp {
  double minval = 0;
  double maxval = 0;
  std::optional<std::uint64_t> count;
  friend bool operator==(const DoubleHp&, const DoubleHp&) = default;
};

/// `base ^ e` with the exponent e uniform in [minval, maxval).
struct LogHp {
  double minval = 0;
  double maxval = 0;
  double base = 10;
  std::optional<std::uint64_t> count;
  friend bool operator==(const LogHp&, const LogHp&) = default;
};

/// One of a list of values of any JSON type.
struct CategoricalHp {
  std::vector<nlohmann::json> values;
  friend bool operator==(const CategoricalHp&, const CategoricalHp&) = default;
};

struct NamedHyperparameter;

/// A map from names to hyperparameters, kept sorted by name (byte-wise), which is the order
/// every sampler and the grid visit it in. A nested hyperparameter is itself a space.
class HyperparameterSpace {
 public:
  HyperparameterSpace() = default;
  /// Sorts the entries by name. Precondition: names are unique (config/ guarantees it).
  explicit HyperparameterSpace(std::vector<NamedHyperparameter> entries);

  [[nodiscard]] const std::vector<NamedHyperparameter>& entries() const { return entries_; }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

  friend bool operator==(const HyperparameterSpace& a, const HyperparameterSpace& b);

 private:
  std::vector<NamedHyperparameter> entries_;
};

using Hyperparameter =
    std::variant<ConstHp, IntHp, DoubleHp, LogHp, CategoricalHp, HyperparameterSpace>;

struct NamedHyperparameter {
  std::string name;
  Hyperparameter value;
  friend bool operator==(const NamedHyperparameter&, const NamedHyperparameter&) = default;
};

/// Draws one sample: a JSON object with a value per name (nested spaces give nested objects).
/// Names are visited in sorted order at every level, so the draws are a function of the seed
/// (Determined visits nested maps in random order; this is the documented deviation). Draws:
/// const none; int `minval + below(maxval - minval + 1)`; double `uniform`; log
/// `go::pow(base, uniform)` (Go's math.Pow); categorical `values[below(size)]`.
/// Precondition: no categorical is empty (config/ refuses that unless the searcher is grid).
[[nodiscard]] nlohmann::json sample(const HyperparameterSpace& space, Rng& rng);
/// Draws one hyperparameter's value with the draws `sample` makes for it (Determined's
/// `sampleOne`; a nested space gives a nested sample).
[[nodiscard]] nlohmann::json sample_one(const Hyperparameter& hp, Rng& rng);

}  // namespace hpsearch
