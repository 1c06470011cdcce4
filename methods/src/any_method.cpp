#include "hpsearch/methods/any_method.hpp"


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
}

}  // namespace hpsearch
