#include "hpsearch/methods/any_method.hpp"

#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {

std::vector<Operation> AnyMethod::initial_operations(SearchContext& ctx) {
  return std::visit([&](auto& m) { return m.initial_operations(ctx); }, method_);
}

double AnyMethod::progress(const ProgressTotals& totals) const {
  return std::visit([&](const auto& m) { return m.progress(totals); }, method_);
}

nlohmann::json AnyMethod::state() const {
  return std::visit([](const auto& m) { return m.state(); }, method_);
}

void AnyMethod::restore_state(const nlohmann::json& state, const TrialBook& book) {
  std::visit([&](auto& m) { m.restore_state(state, book); }, method_);
  // ASHA keeps per-trial state: it must know every trial the searcher does (its own restore
  // has checked that each of its trials is one). Adaptive ASHA checks its brackets itself.
  if (const auto* asha = std::get_if<AshaSearch>(&method_)) {
    if (asha->trial_indexes().size() != book.trials_requested()) {
      throw ProtocolError(
          "search_method_state.trials: " + std::to_string(asha->trial_indexes().size()) +
          " trial(s), but searcher_state has " + std::to_string(book.trials_requested()));
    }
  }
}

}  // namespace hpsearch
