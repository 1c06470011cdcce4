#include "hpsearch/methods/grid_search.hpp"

#include <algorithm>

#include "hpsearch/methods/method_state.hpp"
#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {

GridSearch::GridSearch(const GridConfig& config, std::uint64_t points)
    : config_(config), points_(points) {}

void GridSearch::launch(std::vector<Operation>& ops, SearchContext& ctx) {
  append_full_trial(ops, sample_create(ctx), config_.max_length);
  ++launched_;
}

std::vector<Operation> GridSearch::initial_operations(SearchContext& ctx) {
  const std::uint64_t n = config_.max_concurrent_trials == 0
                              ? points_
                              : std::min(points_, config_.max_concurrent_trials);
  std::vector<Operation> ops;
  ops.reserve(3 * n);
  for (std::uint64_t i = 0; i < n; ++i) launch(ops, ctx);
  return ops;
}

std::vector<Operation> GridSearch::on_event(const TrialCreated&, SearchContext&) {
  return {};
}
std::vector<Operation> GridSearch::on_event(const ValidationCompleted&, SearchContext&) {
  return {};
}
// An invalid-hyperparameter grid point is simply done: nothing to replace it with.
std::vector<Operation> GridSearch::on_event(const TrialExitedEarly&, SearchContext&) {
  return {};
}

std::vector<Operation> GridSearch::on_event(const TrialClosed&, SearchContext& ctx) {
  std::vector<Operation> ops;
  if (launched_ < points_) launch(ops, ctx);
  return ops;
}

double GridSearch::progress(const ProgressTotals& totals) const {
  if (points_ == 0) return 1.0;
  const auto length = static_cast<double>(config_.max_length);
  return (length * static_cast<double>(totals.closed) + totals.open_units) /
         (length * static_cast<double>(points_));
}

nlohmann::json GridSearch::state() const {
  return {{"search_method_type", "grid"},
          {"launched_trials", launched_},
          {"grid_size", points_},
          {"max_length", config_.max_length},
          {"max_concurrent_trials", config_.max_concurrent_trials}};
}

void GridSearch::restore_state(const nlohmann::json& state, const TrialBook&) {
  method_state::expect_type(state, "grid");
  method_state::expect_config(state, "grid_size", points_);
  method_state::expect_config(state, "max_length", config_.max_length);
  method_state::expect_config(state, "max_concurrent_trials", config_.max_concurrent_trials);
  const std::uint64_t launched = method_state::read_count(state, "launched_trials");
  if (launched > points_) {
    throw ProtocolError("search_method_state.launched_trials: " + std::to_string(launched) +
                        " exceeds grid_size " + std::to_string(points_));
  }
  launched_ = launched;
}

}  // namespace hpsearch
