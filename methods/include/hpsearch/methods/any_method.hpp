#pragma once
/// \file
/// AnyMethod: the closed set of search methods behind one value type (config/catalog.hpp makes
/// them and the Searcher over them).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <variant>
#include <vector>

#include "hpsearch/methods/adaptive_asha.hpp"
#include "hpsearch/methods/asha.hpp"
#include "hpsearch/methods/grid_search.hpp"
#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/methods/pbt.hpp"
#include "hpsearch/methods/random_search.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// One of the built-in methods; every call dispatches with std::visit.
class AnyMethod {
 public:
  using Variant = std::variant<RandomSearch, GridSearch, AshaSearch, AdaptiveAsha, PbtSearch>;

  explicit AnyMethod(Variant method) : method_(std::move(method)) {}

  std::vector<Operation> initial_operations(SearchContext& ctx);
  template <class E>
  std::vector<Operation> on_event(const E& event, SearchContext& ctx) {
    return std::visit([&](auto& m) { return m.on_event(event, ctx); }, method_);
  }
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  [[nodiscard]] const Variant& variant() const { return method_; }
  friend bool operator==(const AnyMethod&, const AnyMethod&) = default;

 private:
  Variant method_;
};

}  // namespace hpsearch
