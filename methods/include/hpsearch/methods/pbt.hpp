#pragma once
/// \file
/// `pbt`: population-based training as Determined 0.17 ran it (spec 3.10).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// PBT's explore step (Determined's `exploreParams`): for each top-level hyperparameter in
/// name order, one unit draw decides resampling (`< resample_probability`: a fresh draw of that
/// hyperparameter); otherwise a second decides the direction (`< 0.5`: times 1 - factor, else
/// times 1 + factor): an int is floored (down) or ceiled (up), ints, doubles and logs are
/// clamped to their range; const, categorical and nested values are kept (both draws made).
[[nodiscard]] nlohmann::json pbt_explore(const nlohmann::json& params,
                                         const HyperparameterSpace& space, const PbtConfig& config,
                                         Rng& rng);

/// The population's rounds. A round ends when every member has reported (a validation, or an
/// early exit, which counts as the worst metric); then, ranked by (metric, request id): the
/// last int(truncate_fraction x population) are closed, the first as many are cloned (a
/// Create whose checkpoint is the parent, trained length_per_round from that checkpoint), and
/// the rest continue one more round. After num_rounds rounds every member is closed.
///
/// Deviations from Determined, each for a case where Determined stalls or is random:
/// - the round's quorum is the current population, not population_size: when an early-exited
///   trial ranks among the best it has no clone, and Determined then waits for a result that
///   never comes;
/// - the final Closes come in ranked order (Determined: Go's random map order);
/// - an early exit of a trial the method already closed is ignored (Determined would count it
///   into the next round).
class PbtSearch {
 public:
  PbtSearch(const PbtConfig& config, HyperparameterSpace space);

  std::vector<Operation> initial_operations(SearchContext& ctx);
  std::vector<Operation> on_event(const TrialCreated& event, SearchContext& ctx);
  std::vector<Operation> on_event(const ValidationCompleted& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialExitedEarly& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialClosed& event, SearchContext& ctx);
  /// Rounds done plus the share of the current round reported, over num_rounds.
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  [[nodiscard]] const PbtConfig& config() const { return config_; }
  friend bool operator==(const PbtSearch&, const PbtSearch&) = default;

 private:
  struct Trial {
    RequestId id;
    nlohmann::json params;
    std::uint64_t rounds_completed = 0;
    std::optional<double> metric;  ///< its result in the current round
    bool early_exit = false;
    bool member = true;  ///< in the population (not closed by the method)
    friend bool operator==(const Trial&, const Trial&) = default;
  };

  void add_trial(const Create& create);
  std::vector<Operation> report(std::uint32_t trial, double metric, SearchContext& ctx);
  std::vector<Operation> end_round(SearchContext& ctx);

  PbtConfig config_;
  HyperparameterSpace space_;
  std::vector<Trial> trials_;
  std::uint64_t rounds_completed_ = 0;
  std::uint64_t population_ = 0;  ///< members in the current round
  std::uint64_t reported_ = 0;    ///< members with a metric in the current round
};

}  // namespace hpsearch
