#pragma once
// Private to runner/: what the experiment page draws, computed on the server from the whole
// experiment and cut to what a page can draw quickly (docs/ui.md, "Scale"): best so far,
// learning curves, the trials for parallel coordinates and metric-against-hyperparameter plots,
// a hyperparameter importance estimate, rung occupancy and the worker timeline.

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>

#include "ui/experiment_view.hpp"

namespace hpsearch::ui {

/// At most this many trials in the parallel coordinates, the scatter plots and the timeline.
inline constexpr std::size_t kMaxChartTrials = 1000;
/// At most this many launches in the worker timeline (the latest ones).
inline constexpr std::size_t kMaxChartLaunches = 1000;
/// At most this many learning curves (the best trials').
inline constexpr std::size_t kMaxCurves = 150;

/// A metric as the API writes it: finite values as numbers, others as metric_to_json's strings.
[[nodiscard]] nlohmann::json metric_json(double value);

/// The charts' data (docs/ui.md lists the fields); `id_of` gives a trial's id in the API.
[[nodiscard]] nlohmann::json chart_data(
    const ExperimentView& view, const std::function<nlohmann::json(const TrialView&)>& id_of);

/// Spearman's rank correlation of x and y (ties get their mean rank); 0 if either is constant
/// or there are fewer than 3 pairs.
[[nodiscard]] double spearman(const std::vector<double>& x, const std::vector<double>& y);

/// The correlation ratio eta of y by category (sqrt of the between-group share of y's
/// variance); 0 if y is constant or there are fewer than 3 values.
[[nodiscard]] double correlation_ratio(const std::vector<std::string>& category,
                                       const std::vector<double>& y);

}  // namespace hpsearch::ui
