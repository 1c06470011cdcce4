#pragma once
/// \file
/// `grid` (spec 3.4), over the lazy Grid.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/grid.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// Grid search: every point once, launched from the last grid point to the first (Determined
/// pops the end of its list), each `Create, ValidateAfter(max_length), Close`. Deviations from
/// Determined, both deliberate: an empty grid ends the search at once (the Searcher shuts down
/// when nothing is requested) instead of hanging, and the grid size is in the snapshot, so
/// progress survives a restore.
class GridSearch {
 public:
  /// Throws std::length_error if the grid has more than 2^64 - 1 points.
  GridSearch(const GridConfig& config, const HyperparameterSpace& space);

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

  [[nodiscard]] const Grid& grid() const { return grid_; }
  friend bool operator==(const GridSearch& a, const GridSearch& b) {
    return a.config_ == b.config_ && a.launched_ == b.launched_ &&
           a.grid_.size() == b.grid_.size();
  }

 private:
  void launch(std::vector<Operation>& ops, SearchContext& ctx);

  GridConfig config_;
  Grid grid_;
  std::uint64_t launched_ = 0;
};

}  // namespace hpsearch
