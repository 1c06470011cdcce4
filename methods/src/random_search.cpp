#include "hpsearch/methods/random_search.hpp"

#include <algorithm>

#include "hpsearch/methods/method_state.hpp"
#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {

RandomSearch::RandomSearch(const RandomConfig& config) : config_(config) {}

RandomSearch::RandomSearch(const SingleConfig& config)
    : config_{.max_length = config.max_length, .max_trials = 1, .max_concurrent_trials = 1},
      single_(true) {}

void RandomSearch::launch(std::vector<Operation>& ops, SearchContext& ctx) {
  append_full_trial(ops, sample_create(ctx), config_.max_length);
  ++created_;
}

std::vector<Operation> RandomSearch::initial_operations(SearchContext& ctx) {
  const std::uint64_t n = config_.max_concurrent_trials == 0
                              ? config_.max_trials
                              : std::min(config_.max_trials, config_.max_concurrent_trials);
  std::vector<Operation> ops;
  ops.reserve(3 * n);
  for (std::uint64_t i = 0; i < n; ++i) launch(ops, ctx);
  return ops;
}

std::vector<Operation> RandomSearch::on_event(const TrialCreated&, SearchContext&) {
  return {};
}

std::vector<Operation> RandomSearch::on_event(const ValidationCompleted&, SearchContext&) {
  return {};
}

std::vector<Operation> RandomSearch::on_event(const TrialExitedEarly& event, SearchContext&) {
  // An invalid-hyperparameter trial does not count; the following trial_closed replaces it.
  const bool invalid =
      event.reason == ExitedReason::kInvalidHp || event.reason == ExitedReason::kInitInvalidHp;
  if (invalid && !single_) --created_;
  return {};
}

std::vector<Operation> RandomSearch::on_event(const TrialClosed&, SearchContext& ctx) {
  std::vector<Operation> ops;
  if (created_ < config_.max_trials) launch(ops, ctx);
  return ops;
}

double RandomSearch::progress(const ProgressTotals& totals) const {
  const auto length = static_cast<double>(config_.max_length);
  return (length * static_cast<double>(totals.closed_tracked) + totals.open_units) /
         (length * static_cast<double>(config_.max_trials));
}

nlohmann::json RandomSearch::state() const {
  return {{"search_method_type", single_ ? "single" : "random"},
          {"created_trials", created_},
          {"max_trials", config_.max_trials},
          {"max_length", config_.max_length},
          {"max_concurrent_trials", config_.max_concurrent_trials}};
}

void RandomSearch::restore_state(const nlohmann::json& state, const TrialBook&) {
  method_state::expect_type(state, single_ ? "single" : "random");
  method_state::expect_config(state, "max_trials", config_.max_trials);
  method_state::expect_config(state, "max_length", config_.max_length);
  method_state::expect_config(state, "max_concurrent_trials", config_.max_concurrent_trials);
  const std::uint64_t created = method_state::read_count(state, "created_trials");
  if (created > config_.max_trials) {
    throw ProtocolError("search_method_state.created_trials: " + std::to_string(created) +
                        " exceeds max_trials " + std::to_string(config_.max_trials));
  }
  created_ = created;
}

}  // namespace hpsearch
