#pragma once
/// \file
/// Compare: several configs, each simulated over K seeds on the same workload and workers;
/// quartiles of the best metric (regret when the workload's optimum is known) at fixed times
/// and of the time to reach a target.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/engine.hpp"

namespace hpsearch {

/// The q-quantile of `values` by linear interpolation between order statistics (Hyndman and
/// Fan's type 7, numpy's default). Precondition: values is not empty, q in [0, 1].
[[nodiscard]] double quantile(std::vector<double> values, double q);

/// Quartiles of some values, and how many runs had one.
struct Quartiles {
  std::optional<double> q1, median, q3;  ///< empty when no run had a value
  std::uint64_t runs = 0;
};

/// One config's results.
struct ConfigComparison {
  std::string name;
  std::vector<Quartiles> at_times;  ///< best metric (or regret) at each of CompareResult::times
  Quartiles time_to_target;         ///< over the runs that reached the target
  std::vector<Quartiles> curve;     ///< the same at each of CompareResult::curve_times
};

struct CompareResult {
  std::vector<double> times;
  std::vector<double> curve_times;  ///< 100 even steps up to the longest run, for plots
  bool regret = false;              ///< values are best - optimum
  std::optional<double> target;
  std::uint64_t seeds = 0;
  std::vector<ConfigComparison> configs;
};

/// Runs every config with searcher seeds 0..seeds-1 (the cost noise seeded alike). `times`
/// empty: 25%, 50%, 75% and 100% of the longest run. Deterministic. Throws what
/// run_simulation and check_workload_parameters throw.
[[nodiscard]] CompareResult compare_configs(const std::vector<ExperimentConfig>& configs,
                                            const std::vector<std::string>& names,
                                            const Workload& workload, std::uint64_t seeds,
                                            const RunOptions& options, std::vector<double> times,
                                            std::optional<double> target);

}  // namespace hpsearch
