#pragma once
/// \file
/// SpaceEncoding: one map of a hyperparameter space onto the unit cube [0,1]^d and back,
/// shared by every model-based sampler and by the simulator's workloads.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "hpsearch/searcher/hyperparameters.hpp"

namespace hpsearch {

/// One coordinate of the encoding: a leaf hyperparameter that varies (consts have none).
struct EncodedDimension {
  /// What a coordinate holds. Continuous covers double and log (on the exponent).
  enum class Kind { kContinuous, kInteger, kCategorical };

  std::vector<std::string> route;  ///< names from the top level down, e.g. {"optimizer", "lr"}
  Kind kind = Kind::kContinuous;
  /// Categorical: the number of values; integer: the number of integers (at most 2^53 is
  /// exact); continuous: 0.
  double levels = 0;
  std::variant<IntHp, DoubleHp, LogHp, CategoricalHp> hp;

  /// The dotted route, e.g. "optimizer.lr" (for messages).
  [[nodiscard]] std::string name() const;
  friend bool operator==(const EncodedDimension&, const EncodedDimension&) = default;
};

/// The unit-cube encoding of a space. Leaves are visited in sorted route order, depth-first,
/// the same order as the grid's axes; consts take no coordinate and nested spaces are
/// flattened (every leaf of a Determined nest is always present, so nothing is conditional).
///
/// Coordinates:
/// - double: `(v - minval) / (maxval - minval)`;
/// - log: the same on the exponent, `(log_base(v) - minval) / (maxval - minval)`;
/// - int: the centre of the value's cell, `(v - minval + 0.5) / (maxval - minval + 1)`, so every
///   integer owns an equal share of [0, 1];
/// - categorical: the centre of the value's cell, `(index + 0.5) / size`; a model must read it
///   as a label, not as a position (`category`).
///
/// decode inverts each: a continuous coordinate to the value (clamped to [0, 1] first), an
/// integer or categorical coordinate to the cell it falls in. For int and categorical values
/// `decode(encode(h)) == h` exactly; for double and log up to rounding (a few ulps).
class SpaceEncoding {
 public:
  SpaceEncoding() = default;
  /// Precondition: no categorical is empty (config/ refuses that outside the grid).
  explicit SpaceEncoding(const HyperparameterSpace& space);

  [[nodiscard]] std::size_t size() const { return dimensions_.size(); }
  [[nodiscard]] const std::vector<EncodedDimension>& dimensions() const { return dimensions_; }

  /// The coordinates of a configuration sampled from (or valid for) the space. Throws
  /// std::invalid_argument naming the route if a value is missing or does not fit.
  [[nodiscard]] std::vector<double> encode(const nlohmann::json& hparams) const;
  /// Writes the coordinates into `out` (size() values). Throws as encode does.
  void encode(const nlohmann::json& hparams, std::span<double> out) const;
  /// The configuration at a point of the cube, with the space's shape (nested objects, consts
  /// included). Precondition: point.size() == size().
  [[nodiscard]] nlohmann::json decode(std::span<const double> point) const;

  /// The point with every integer and categorical coordinate moved to the centre of its cell:
  /// `encode(decode(point))` without building JSON. Continuous coordinates are clamped.
  void snap(std::span<double> point) const;
  /// The label of a categorical coordinate: the index of its cell.
  [[nodiscard]] static std::size_t category(const EncodedDimension& dimension, double u);

  /// The plain number a leaf's value reads as: the value of an int, double or log
  /// hyperparameter, the index of a categorical's value. Throws std::invalid_argument as encode.
  [[nodiscard]] double numeric(const nlohmann::json& hparams, std::size_t dimension) const;

  friend bool operator==(const SpaceEncoding&, const SpaceEncoding&) = default;

 private:
  void flatten(const HyperparameterSpace& space, std::vector<std::string>& route);
  [[nodiscard]] const nlohmann::json& leaf(const nlohmann::json& hparams,
                                           const EncodedDimension& dimension) const;
  [[nodiscard]] nlohmann::json decode_space(const HyperparameterSpace& space,
                                            std::span<const double> point, std::size_t& next) const;

  HyperparameterSpace space_;
  std::vector<EncodedDimension> dimensions_;
};

}  // namespace hpsearch
