#pragma once
// Private to runner/: the metrics a person looks at, drawn as SVG (with the simulator's canvas,
// hpsearch/plot) from the trials' metrics.jsonl files when a run ends.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpsearch::runner_detail {

/// At most this many trials get a plot of their own (the experiment-wide plots show them all).
inline constexpr std::size_t kMaxTrialPlots = 200;

/// Writes into `directory` (created): `learning_curves.svg` (the searcher metric of every trial
/// against steps_completed), `searcher_metric.svg` (each validation's searcher metric against
/// seconds since the first report, and the best so far) and `trial-N.svg` for trial N (every
/// numeric metric it reported, per group, against steps_completed). `metrics_files[i]` is trial
/// i+1's metrics.jsonl (missing files are trials that reported nothing). Returns
/// {"learning_curves": path, "searcher_metric": path, "trials": [path or null, ...]}.
nlohmann::json write_metric_plots(const std::filesystem::path& directory,
                                  const std::vector<std::filesystem::path>& metrics_files,
                                  const std::string& metric, bool smaller_is_better);

}  // namespace hpsearch::runner_detail
