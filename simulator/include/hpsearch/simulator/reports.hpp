#pragma once
/// \file
/// What `searcher-sim run`, `compare` and `preview` compute, as library calls returning data:
/// the program prints these results, the Python module (python/hpsearch) returns them, so both
/// run the same code. JSON shapes: docs/simulator.md (`--json` of each command).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/engine.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {

/// The search seed of a run: `seed` if given, else reproducibility.experiment_seed, else 0.
[[nodiscard]] std::uint32_t search_seed(const ExperimentConfig& config,
                                        std::optional<std::uint32_t> seed);

/// Takes from the config what a run needs (its direction, and its max_restarts unless
/// `options` fixes them), checks that it has a length and that its hyperparameters are the
/// workload's inputs (throws std::invalid_argument naming the difference) and plays the search
/// with `seed`.
[[nodiscard]] RunSummary run_config(const ExperimentConfig& config, std::uint32_t seed,
                                    const Workload& workload, RunOptions options);

/// A run's summary as `searcher-sim run --json` prints it: RunSummary::to_json() with the
/// seed, the workload's name and the number of workers.
[[nodiscard]] nlohmann::json run_json(const RunSummary& summary, std::uint32_t seed,
                                      const Workload& workload, std::uint64_t workers);

/// A comparison as `searcher-sim compare --json` prints it.
[[nodiscard]] nlohmann::json compare_json(const CompareResult& result, const Workload& workload,
                                          std::uint64_t workers);

/// A preview played on simulated workers, and what the workers measured.
struct WorkerPreview {
  PreviewResult result;
  std::uint64_t workers = 0;
  RunSummary summary;
};

/// Determined's preview of the config's search with `seed` (simulate()); throws
/// std::invalid_argument if the config has no length (check_simulated_length).
[[nodiscard]] PreviewResult preview_config(const ExperimentConfig& config, std::uint32_t seed,
                                           const PreviewOptions& preview);

/// Plays the search on `options.workers` simulated workers with `preview`'s metric (its order
/// does not apply: trials act when their training finishes). The config's max_restarts apply
/// unless `options` fixes them.
[[nodiscard]] WorkerPreview preview_on_workers(const ExperimentConfig& config, std::uint32_t seed,
                                               const PreviewOptions& preview, RunOptions options);

/// A preview as `searcher-sim preview --json` prints it: PreviewResult::to_json() with the
/// seed, the searcher's method and sampler names, what `sampler: auto` chose (sampler_choice),
/// the sampler_caution if there is one, and with workers their figures.
[[nodiscard]] nlohmann::json preview_json(const PreviewResult& result,
                                          const ExperimentConfig& config, std::uint32_t seed,
                                          const WorkerPreview* on_workers = nullptr);

}  // namespace hpsearch
