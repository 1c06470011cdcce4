#include "hpsearch/simulator/compare.hpp"

#include <algorithm>
#include <cmath>

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch {
namespace {

Quartiles quartiles_of(const std::vector<double>& values) {
  Quartiles q;
  q.runs = values.size();
  if (values.empty()) return q;
  q.q1 = quantile(values, 0.25);
  q.median = quantile(values, 0.5);
  q.q3 = quantile(values, 0.75);
  return q;
}

// The best value a run had found by time t, if any.
std::optional<double> best_at(const RunSummary& run, double t) {
  std::optional<double> best;
  for (const auto& [time, value] : run.best_so_far) {
    if (time > t) break;
    best = value;
  }
  return best;
}

}  // namespace

double quantile(std::vector<double> values, double q) {
  HPSEARCH_ASSERT(!values.empty(), "quantile of no values");
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

CompareResult compare_configs(const std::vector<ExperimentConfig>& configs,
                              const std::vector<std::string>& names, const Workload& workload,
                              std::uint64_t seeds, const RunOptions& options,
                              std::vector<double> times, std::optional<double> target) {
  std::vector<std::vector<RunSummary>> runs(configs.size());
  double longest = 0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    check_simulated_length(configs[c].searcher, names[c]);
    check_workload_parameters(workload, configs[c].hyperparameters);
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      RunOptions run_options = options;
      run_options.seed = static_cast<std::uint32_t>(seed);
      run_options.smaller_is_better = configs[c].searcher.smaller_is_better;
      run_options.trace = nullptr;
      run_options.on_progress = nullptr;
      if (!options.faults.max_restarts_fixed) {
        run_options.faults.max_restarts = configs[c].max_restarts;
      }
      Searcher searcher = make_searcher(configs[c].searcher, configs[c].hyperparameters,
                                        static_cast<std::uint32_t>(seed));
      runs[c].push_back(run_simulation(searcher, workload, configs[c].hyperparameters,
                                       configs[c].searcher.max_length.units, run_options));
      longest = std::max(longest, runs[c].back().wall_time);
      if (options.on_progress) {
        const double done = static_cast<double>(c * seeds + seed + 1);
        options.on_progress(done / static_cast<double>(configs.size() * seeds), 0);
      }
    }
  }
  if (times.empty()) times = {0.25 * longest, 0.5 * longest, 0.75 * longest, longest};
  CompareResult result;
  result.times = times;
  for (int k = 1; k <= 100; ++k) result.curve_times.push_back(longest * k / 100);
  result.seeds = seeds;
  result.target = target;
  const std::optional<double> optimum = workload.optimum();
  result.regret = optimum.has_value();
  for (std::size_t c = 0; c < configs.size(); ++c) {
    ConfigComparison comparison;
    comparison.name = names[c];
    const auto at = [&](double t) {
      std::vector<double> values;
      for (const RunSummary& run : runs[c]) {
        if (const auto best = best_at(run, t)) values.push_back(*best - optimum.value_or(0.0));
      }
      return quartiles_of(values);
    };
    for (const double t : times) comparison.at_times.push_back(at(t));
    for (const double t : result.curve_times) comparison.curve.push_back(at(t));
    if (target) {
      std::vector<double> reached;
      for (const RunSummary& run : runs[c]) {
        for (const auto& [time, value] : run.best_so_far) {
          if (value - optimum.value_or(0.0) <= *target) {
            reached.push_back(time);
            break;
          }
        }
      }
      comparison.time_to_target = quartiles_of(reached);
    }
    result.configs.push_back(std::move(comparison));
  }
  return result;
}

}  // namespace hpsearch
