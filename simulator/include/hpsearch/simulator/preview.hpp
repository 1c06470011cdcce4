#pragma once
/// \file
/// Preview: plays a whole search with instant trials (Determined's `searcher.Simulate`, spec
/// 6.1) and reports which lengths each trial was trained to.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"

namespace hpsearch {

/// Which trial acts next: the first in creation order that has an operation pending (fifo),
/// or a uniformly random one among them, ordered by request id (random).
enum class PickOrder { kFifo, kRandom };

/// The metric every validation reports: 1 (constant), uniform in [0, 1) (random), or the
/// 1-based order in which the trial was created (trial-id: later trials are worse).
enum class PreviewMetric { kConstant, kRandom, kTrialId };

struct PreviewOptions {
  PickOrder order = PickOrder::kFifo;
  PreviewMetric metric = PreviewMetric::kConstant;
  /// Seeds the pick order and random metrics (Boost.Random MT19937); the searcher's own seed
  /// is separate.
  std::uint32_t seed = 0;
  /// If set, every step is written here as one JSON line {"in": <event>, "out": <response>},
  /// in the drive protocol's forms, so the trace replays through `searcher-sim drive`.
  std::ostream* trace = nullptr;
};

/// What a whole search did, summarised as Determined's preview table summarises it: how many
/// trials, and how many trained to each sequence of lengths. Its size does not grow with the
/// number of trials (a grid of 10^12 points previews in a few bytes).
struct PreviewResult {
  std::uint64_t trials = 0;  ///< trials created
  /// Trials per sequence of validate_after lengths completed, keyed like Determined's preview
  /// ("1000 3000"; "" for a trial that completed none).
  std::map<std::string, std::uint64_t> sequences;
  Shutdown shutdown;
  double progress = 0;

  /// Counts one more trial that completed `lengths`, in order.
  void add_trial(const std::vector<std::uint64_t>& lengths, std::uint64_t count = 1);
  /// `{"results": {"1000": 8, ...}, "trials": N, "shutdown": {...}, "progress": p}`.
  [[nodiscard]] nlohmann::json to_json() const;
};

/// The searcher misbehaved during a preview (a self-check of spec 6.1 failed).
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs the search to its Shutdown. Throws SimulationError if progress does not start at 0,
/// decreases, or does not end at 1, if operations remain after the Shutdown, or if the search
/// never shuts down.
[[nodiscard]] PreviewResult simulate(Searcher& searcher, const PreviewOptions& options);

/// What simulate() finds for a grid search, from the grid's size alone (each point trains
/// once to max_length, the search ends without cancel or failure): O(1) in the grid's size.
[[nodiscard]] PreviewResult grid_preview(const GridSearch& grid);

/// The line above the table: the method (how long trials train), the sampler (which
/// configurations they get), the metric and its direction, max_length and the seed; for
/// `sampler: auto`, a second line with what it chose and why (`choice`, from choose_sampler);
/// then a blank line.
void print_preview_header(const SearcherSettings& searcher, std::uint32_t seed, std::ostream& out,
                          const SamplerChoice* choice = nullptr);

/// The `det preview-search` table: "This search will create a total of N trial(s)." and one
/// row per length sequence with run-length grouping ("1 x train to 1000 batches").
void print_preview_table(const PreviewResult& result, const std::string& unit, std::ostream& out);

}  // namespace hpsearch
