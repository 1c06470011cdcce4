#pragma once
/// \file
/// `random` and `single` (spec 3.2 and 3.3).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// Random search: each trial is `Create, ValidateAfter(max_length), Close`; a closed trial
/// frees its slot for the next one until max_trials were created. Errored and canceled trials
/// count against max_trials; invalid-hyperparameter trials are replaced (not in single mode).
class RandomSearch {
 public:
  explicit RandomSearch(const RandomConfig& config);
  /// Single mode: one trial, never replaced (Determined since 0.17.5).
  explicit RandomSearch(const SingleConfig& config);

  std::vector<Operation> initial_operations(SearchContext& ctx);
  std::vector<Operation> on_event(const TrialCreated& event, SearchContext& ctx);
  std::vector<Operation> on_event(const ValidationCompleted& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialExitedEarly& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialClosed& event, SearchContext& ctx);
  /// Closed tracked trials count max_length, open ones their reported units, over
  /// max_length x max_trials.
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  friend bool operator==(const RandomSearch&, const RandomSearch&) = default;

 private:
  void launch(std::vector<Operation>& ops, SearchContext& ctx);

  RandomConfig config_;
  bool single_ = false;
  std::uint64_t created_ = 0;
};

}  // namespace hpsearch
