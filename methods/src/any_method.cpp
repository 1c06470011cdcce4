#include "hpsearch/methods/any_method.hpp"

#include "hpsearch/searcher/errors.hpp"


namespace hpsearch {

std::string method_name(const MethodConfig& config) {
  struct Name {
    std::string operator()(const SingleConfig&) const { return "single"; }
    std::string operator()(const RandomConfig&) const { return "random"; }
    std::string operator()(const GridConfig&) const { return "grid"; }
    std::string operator()(const AshaConfig&) const { return "async_halving"; }
    std::string operator()(const AdaptiveAshaConfig&) const { return "adaptive_asha"; }
  };
  return std::visit(Name{}, config);
}

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
      throw ProtocolError("search_method_state.trials: " +
                          std::to_string(asha->trial_indexes().size()) +
                          " trial(s), but searcher_state has " +
                          std::to_string(book.trials_requested()));
    }
  }
}

AnyMethod make_method(const MethodConfig& config, const HyperparameterSpace& space) {
  struct Make {
    const HyperparameterSpace& space;
    AnyMethod operator()(const SingleConfig& c) const { return AnyMethod(RandomSearch(c)); }
    AnyMethod operator()(const RandomConfig& c) const { return AnyMethod(RandomSearch(c)); }
    AnyMethod operator()(const GridConfig& c) const { return AnyMethod(GridSearch(c, space)); }
    AnyMethod operator()(const AshaConfig& c) const { return AnyMethod(AshaSearch(c)); }
    AnyMethod operator()(const AdaptiveAshaConfig& c) const {
      return AnyMethod(AdaptiveAsha(c));
    }
  };
  return std::visit(Make{space}, config);
}

Searcher make_searcher(const MethodConfig& config, HyperparameterSpace space, std::uint32_t seed) {
  AnyMethod method = make_method(config, space);
  return Searcher(std::move(method), std::move(space), seed);
}

}  // namespace hpsearch
