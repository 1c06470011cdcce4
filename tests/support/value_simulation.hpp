#pragma once
// Determined's value-simulation harness (spec 7.1): predefined trials bound to Creates in
// creation order, operations processed from one FIFO queue in emission order, and a
// snapshot -> restore -> snapshot round trip after every validation (the run continues on the
// restored searcher).

#include <doctest/doctest.h>

#include <deque>
#include <vector>

#include "hpsearch/config/catalog.hpp"

namespace hpsearch::testing {

struct PredefinedTrial {
  enum class Kind { kNormal, kEarlyExit, kInvalid };
  std::vector<std::uint64_t> lengths;  ///< the validate_after lengths it must be given
  std::vector<double> metrics;         ///< what it reports at each of them
  Kind kind = Kind::kNormal;
};

/// Reports `metric` at every length.
inline PredefinedTrial constant_trial(std::vector<std::uint64_t> lengths, double metric) {
  std::vector<double> metrics(lengths.size(), metric);
  return {std::move(lengths), std::move(metrics), PredefinedTrial::Kind::kNormal};
}
/// Reports the given metrics, one per length.
inline PredefinedTrial trial(std::vector<std::uint64_t> lengths, std::vector<double> metrics) {
  return {std::move(lengths), std::move(metrics), PredefinedTrial::Kind::kNormal};
}
/// Reports `metric` at all but the last length, and exits early (user_requested_stop) there.
inline PredefinedTrial early_exit_trial(std::vector<std::uint64_t> lengths, double metric) {
  std::vector<double> metrics(lengths.size(), metric);
  return {std::move(lengths), std::move(metrics), PredefinedTrial::Kind::kEarlyExit};
}
/// Exits with invalid_hp when asked for its first length.
inline PredefinedTrial invalid_trial(std::uint64_t first_length) {
  return {{first_length}, {0.0}, PredefinedTrial::Kind::kInvalid};
}

inline void run_value_simulation(const MethodConfig& config, const HyperparameterSpace& space,
                                 const std::vector<PredefinedTrial>& trials,
                                 bool smaller_is_better = true) {
  Searcher searcher = make_searcher(config, space, 0, smaller_is_better);
  std::deque<Operation> queue;
  const auto take = [&](const std::vector<Operation>& ops) {
    for (const Operation& op : ops) {
      if (!std::holds_alternative<Shutdown>(op)) queue.push_back(op);
    }
  };
  std::map<RequestId, std::size_t> bound;
  std::vector<std::size_t> consumed(trials.size(), 0);
  std::vector<bool> exited(trials.size(), false);
  take(searcher.initial_operations());
  while (!queue.empty()) {
    const Operation op = queue.front();
    queue.pop_front();
    if (const auto* create = std::get_if<Create>(&op)) {
      REQUIRE_MESSAGE(bound.size() < trials.size(), "search method created too many trials");
      bound.emplace(create->request_id, bound.size());
      take(searcher.handle(TrialCreated{create->request_id}));
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      const std::size_t t = bound.at(validate->request_id);
      if (exited[t]) continue;
      const PredefinedTrial& expected = trials[t];
      INFO("trial " << t + 1);
      REQUIRE_MESSAGE(consumed[t] < expected.lengths.size(),
                      "ran out of expected ops trying to train");
      REQUIRE(validate->length == expected.lengths[consumed[t]]);
      const bool last = consumed[t] + 1 == expected.lengths.size();
      if (expected.kind == PredefinedTrial::Kind::kInvalid) {
        exited[t] = true;
        take(searcher.handle(TrialExitedEarly{validate->request_id, ExitedReason::kInvalidHp}));
      } else if (expected.kind == PredefinedTrial::Kind::kEarlyExit && last) {
        exited[t] = true;
        take(searcher.handle(
            TrialExitedEarly{validate->request_id, ExitedReason::kUserRequestedStop}));
      } else {
        take(searcher.handle(ValidationCompleted{validate->request_id,
                                                 expected.metrics[consumed[t]], validate->length}));
      }
      ++consumed[t];
      const std::string saved = searcher.snapshot().dump();
      Searcher restored = make_searcher(config, space, 0, smaller_is_better);
      restored.restore(nlohmann::json::parse(saved));
      REQUIRE(restored.snapshot().dump() == saved);
      searcher = std::move(restored);
    } else if (const auto* close = std::get_if<Close>(&op)) {
      const std::size_t t = bound.at(close->request_id);
      INFO("trial " << t + 1);
      REQUIRE_MESSAGE(consumed[t] == trials[t].lengths.size(), "closed before completion");
      take(searcher.handle(TrialClosed{close->request_id}));
    }
  }
  CHECK(bound.size() == trials.size());
  for (std::size_t t = 0; t < trials.size(); ++t) {
    INFO("trial " << t + 1);
    CHECK(consumed[t] == trials[t].lengths.size());
  }
}

}  // namespace hpsearch::testing
