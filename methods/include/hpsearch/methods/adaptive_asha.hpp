#pragma once
/// \file
/// `adaptive_asha`: brackets of ASHA run as a tournament (spec 3.7 and 3.8).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "hpsearch/methods/asha.hpp"
#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// One bracket: an ASHA with this many rungs, trials and concurrency.
struct Bracket {
  std::uint64_t num_rungs = 1;
  std::uint64_t max_trials = 1;
  std::uint64_t max_concurrent_trials = 1;
  friend bool operator==(const Bracket&, const Bracket&) = default;
};

/// `min(max_rungs, int(ln(max_length)/ln(d)) + 1, int(ln(max_trials)/ln(d)) + 1)`, natural logs
/// in double, as Determined computes it (so ln(1000)/ln(10) = 2.9999999999999996 gives 3).
[[nodiscard]] std::uint64_t adaptive_max_rungs(const AdaptiveAshaConfig& config);

/// Rung counts per bracket, most aggressive first: from `bracket_rungs` if given, else from
/// the mode over adaptive_max_rungs.
[[nodiscard]] std::vector<std::uint64_t> adaptive_bracket_rungs(const AdaptiveAshaConfig& config);

/// Trials per bracket: `w_i = d^(r_i-1) / r_i`, `t_i = max(int(w_i / sum(w) * T), 1)`, the
/// remainder to the first bracket (Determined's getBracketMaxTrials).
[[nodiscard]] std::vector<std::uint64_t> bracket_max_trials(
    std::uint64_t max_trials, double divisor, const std::vector<std::uint64_t>& rungs);

/// Concurrency per bracket (getBracketMaxConcurrentTrials): with 0, each bracket gets
/// max(t of the last bracket, int(d)); else max(C, brackets) spread evenly, the first brackets
/// taking the remainder.
[[nodiscard]] std::vector<std::uint64_t> bracket_max_concurrent_trials(
    std::uint64_t max_concurrent_trials, double divisor, const std::vector<std::uint64_t>& trials);

/// All brackets of a config.
[[nodiscard]] std::vector<Bracket> adaptive_brackets(const AdaptiveAshaConfig& config);

/// Adaptive ASHA: each bracket is an AshaSearch; every event goes to the bracket that created
/// the trial; progress is the mean of the brackets' progress.
class AdaptiveAsha {
 public:
  explicit AdaptiveAsha(const AdaptiveAshaConfig& config);

  std::vector<Operation> initial_operations(SearchContext& ctx);
  template <class E>
  std::vector<Operation> on_event(const E& event, SearchContext& ctx) {
    const std::uint32_t bracket = bracket_of(ctx.trial);
    std::vector<Operation> ops = brackets_[bracket].on_event(event, ctx);
    route(ops, bracket);
    return ops;
  }
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  [[nodiscard]] const std::vector<AshaSearch>& brackets() const { return brackets_; }
  friend bool operator==(const AdaptiveAsha& a, const AdaptiveAsha& b) {
    return a.brackets_ == b.brackets_;
  }

 private:
  [[nodiscard]] std::uint32_t bracket_of(std::uint32_t trial) const;
  void route(const std::vector<Operation>& ops, std::uint32_t bracket);

  AdaptiveAshaConfig config_;
  std::vector<AshaSearch> brackets_;
  std::vector<std::uint32_t> trial_bracket_;  // search-wide trial index -> bracket
};

}  // namespace hpsearch
