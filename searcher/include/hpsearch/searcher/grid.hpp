#pragma once
/// \file
/// The lazy hyperparameter grid (spec section 4.3): size exact, point i computed from i.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "hpsearch/searcher/hyperparameters.hpp"

namespace hpsearch {

/// The Cartesian product of one axis per leaf hyperparameter, axes ordered by sorted route,
/// the first axis varying slowest. Nothing is materialised: memory is O(number of axes plus
/// categorical values) and `point(i)` costs O(number of axes).
class Grid {
 public:
  /// One axis: the values a leaf takes, addressed by its route of names.
  struct Axis {
    std::vector<std::string> route;
    std::variant<std::vector<nlohmann::json>, IntHp, DoubleHp, LogHp> values;
    std::uint64_t size = 0;
    /// The j-th value, computed as Determined does (Go `math.Round` for ints).
    [[nodiscard]] nlohmann::json value(std::uint64_t j) const;
  };

  Grid() = default;
  /// Builds the axes. Throws std::length_error (naming every axis and its size) if the
  /// product does not fit in 64 bits. Precondition: int/double/log leaves have a `count`.
  explicit Grid(const HyperparameterSpace& space);

  /// Number of points; 0 when the space is empty or any axis is empty.
  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] const std::vector<Axis>& axes() const { return axes_; }
  /// Point `index` in product order. Precondition: index < size().
  [[nodiscard]] nlohmann::json point(std::uint64_t index) const;

 private:
  std::vector<Axis> axes_;
  std::uint64_t size_ = 0;
};

}  // namespace hpsearch
