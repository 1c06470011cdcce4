#pragma once
/// \file
/// Spearman's rank correlation: TPE's trust in short trainings (good_group) and the web UI's
/// hyperparameter importance read it from here.

#include <span>
#include <vector>

namespace hpsearch {

/// Ranks 1..n of the values, ties sharing their average rank.
[[nodiscard]] std::vector<double> ranks(std::span<const double> values);

/// Spearman's rank correlation of paired values (Pearson's correlation of their ranks, exact
/// with ties), in [-1, 1]; 0 with fewer than 2 pairs or when either side is constant (it then
/// ranks nothing). Pairs beyond the shorter side are ignored.
[[nodiscard]] double rank_correlation(std::span<const double> a, std::span<const double> b);

}  // namespace hpsearch
