#pragma once
// Plays a whole search in-process: one FIFO queue of operations in emission order, every
// trial created at once when asked, validations answered with a metric from `metric()`.

#include <deque>
#include <utility>
#include <vector>

#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch::bench {

/// The space the ASHA and snapshot benchmarks sample: a log-scaled rate and an integer.
inline const HyperparameterSpace& two_hyperparameters() {
  static const HyperparameterSpace hps(
      {{"lr", LogHp{-5, -1, 10, std::nullopt}}, {"layers", IntHp{1, 8, std::nullopt}}});
  return hps;
}

/// Returns the number of trials created.
template <class S, class Metric>
std::uint64_t play(S& searcher, Metric&& metric) {
  std::deque<Operation> pending;
  std::uint64_t trials = 0;
  const auto take = [&](std::vector<Operation> ops) {
    for (Operation& op : ops) {
      if (!std::holds_alternative<Shutdown>(op)) pending.push_back(std::move(op));
    }
  };
  take(searcher.initial_operations());
  while (!pending.empty()) {
    const Operation op = std::move(pending.front());
    pending.pop_front();
    if (const auto* create = std::get_if<Create>(&op)) {
      ++trials;
      take(searcher.handle(TrialCreated{create->request_id}));
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      take(searcher.handle(ValidationCompleted{validate->request_id, metric(), validate->length}));
    } else if (const auto* close = std::get_if<Close>(&op)) {
      take(searcher.handle(TrialClosed{close->request_id}));
    }
  }
  return trials;
}

}  // namespace hpsearch::bench
