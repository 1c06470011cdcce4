#pragma once
/// \file
/// `grid` (spec 3.4): every point of the grid sampler once.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// Grid search: `points` trials, each `Create, ValidateAfter(max_length), Close`, their
/// configurations from the grid sampler (from the last grid point to the first, as Determined
/// pops the end of its list). Deviations from Determined, both deliberate: an empty grid ends
/// the search at once (the Searcher shuts down when nothing is requested) instead of hanging,
/// and the grid size is in the snapshot, so progress survives a restore.
class GridSearch {
 public:
  /// `points`: the grid's size (the grid sampler's capacity).
  GridSearch(const GridConfig& config, std::uint64_t points);

  std::vector<Operation> initial_operations(SearchContext& ctx);
  std::vector<Operation> on_event(const TrialCreated& event, SearchContext& ctx);
  std::vector<Operation> on_event(const ValidationCompleted& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialExitedEarly& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialClosed& event, SearchContext& ctx);
  /// (max_length x closed trials + units of open trials) / (max_length x grid size); 1 for an
  /// empty grid.
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  [[nodiscard]] std::uint64_t points() const { return points_; }
  [[nodiscard]] std::uint64_t max_length() const { return config_.max_length; }
  friend bool operator==(const GridSearch&, const GridSearch&) = default;

 private:
  void launch(std::vector<Operation>& ops, SearchContext& ctx);

  GridConfig config_;
  std::uint64_t points_ = 0;
  std::uint64_t launched_ = 0;
};

}  // namespace hpsearch
