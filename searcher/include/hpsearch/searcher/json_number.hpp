#pragma once
/// \file
/// Metric values in JSON: numbers, plus the strings "Infinity", "-Infinity" and "NaN" (the
/// form of Determined's snapshots), since JSON itself has no such numbers.

#include <nlohmann/json.hpp>
#include <optional>

namespace hpsearch {

/// A finite double as a JSON number; ±infinity and NaN as the strings above.
[[nodiscard]] nlohmann::json metric_to_json(double value);
/// Inverse of metric_to_json; nullopt for any other JSON value.
[[nodiscard]] std::optional<double> metric_from_json(const nlohmann::json& value);

}  // namespace hpsearch
