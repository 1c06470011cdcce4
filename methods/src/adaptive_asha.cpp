#include "hpsearch/methods/adaptive_asha.hpp"

#include <algorithm>
#include <cmath>

#include "hpsearch/methods/method_state.hpp"
#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/go_math.hpp"

namespace hpsearch {
namespace {
// Go's int(x) for the small positive values here.
std::uint64_t truncate(double x) {
  return x <= 0 ? 0 : static_cast<std::uint64_t>(x);
}
}  // namespace

std::uint64_t adaptive_max_rungs(const AdaptiveAshaConfig& config) {
  const double log_divisor = go::log(config.divisor);
  const std::uint64_t by_length =
      truncate(go::log(static_cast<double>(config.max_length)) / log_divisor) + 1;
  const std::uint64_t by_trials =
      truncate(go::log(static_cast<double>(config.max_trials)) / log_divisor) + 1;
  return std::min({config.max_rungs, by_length, by_trials});
}

std::vector<std::uint64_t> adaptive_bracket_rungs(const AdaptiveAshaConfig& config) {
  std::vector<std::uint64_t> rungs = config.bracket_rungs;
  if (rungs.empty()) {
    const std::uint64_t max_rungs = adaptive_max_rungs(config);
    std::uint64_t first = 1;
    if (config.mode == AdaptiveMode::kStandard) first = (max_rungs - 1) / 2 + 1;
    if (config.mode == AdaptiveMode::kAggressive) first = max_rungs;
    for (std::uint64_t r = first; r <= max_rungs; ++r) rungs.push_back(r);
  }
  std::sort(rungs.begin(), rungs.end(), std::greater<>());
  return rungs;
}

std::vector<std::uint64_t> bracket_max_trials(std::uint64_t max_trials, double divisor,
                                              const std::vector<std::uint64_t>& rungs) {
  std::vector<double> weights;
  double total = 0;
  for (const std::uint64_t r : rungs) {
    weights.push_back(go::pow(divisor, static_cast<double>(r - 1)) / static_cast<double>(r));
    total += weights.back();
  }
  std::vector<std::uint64_t> trials;
  std::uint64_t allocated = 0;
  for (const double w : weights) {
    trials.push_back(
        std::max<std::uint64_t>(truncate((w / total) * static_cast<double>(max_trials)), 1));
    allocated += trials.back();
  }
  if (!trials.empty() && allocated < max_trials) trials.front() += max_trials - allocated;
  return trials;
}

std::vector<std::uint64_t> bracket_max_concurrent_trials(std::uint64_t max_concurrent_trials,
                                                         double divisor,
                                                         const std::vector<std::uint64_t>& trials) {
  const std::uint64_t brackets = trials.size();
  if (max_concurrent_trials == 0) {
    const std::uint64_t each = std::max(trials.back(), truncate(divisor));
    return std::vector<std::uint64_t>(brackets, each);
  }
  const std::uint64_t total = std::max(max_concurrent_trials, brackets);
  std::vector<std::uint64_t> out(brackets, total / brackets);
  for (std::uint64_t i = 0; i < total % brackets; ++i) ++out[i];
  return out;
}

std::vector<Bracket> adaptive_brackets(const AdaptiveAshaConfig& config) {
  const std::vector<std::uint64_t> rungs = adaptive_bracket_rungs(config);
  const std::vector<std::uint64_t> trials =
      bracket_max_trials(config.max_trials, config.divisor, rungs);
  const std::vector<std::uint64_t> concurrency =
      bracket_max_concurrent_trials(config.max_concurrent_trials, config.divisor, trials);
  std::vector<Bracket> brackets;
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    brackets.push_back(Bracket{rungs[i], trials[i], concurrency[i]});
  }
  return brackets;
}

AdaptiveAsha::AdaptiveAsha(const AdaptiveAshaConfig& config) : config_(config) {
  for (const Bracket& bracket : adaptive_brackets(config)) {
    brackets_.emplace_back(AshaConfig{.max_length = config.max_length,
                                      .max_trials = bracket.max_trials,
                                      .num_rungs = bracket.num_rungs,
                                      .divisor = config.divisor,
                                      .max_concurrent_trials = bracket.max_concurrent_trials,
                                      .stop_once = config.stop_once});
  }
}

std::uint32_t AdaptiveAsha::bracket_of(std::uint32_t trial) const {
  HPSEARCH_ASSERT(trial < trial_bracket_.size(), "adaptive ASHA event for an unknown trial");
  return trial_bracket_[trial];
}

void AdaptiveAsha::route(const std::vector<Operation>& ops, std::uint32_t bracket) {
  for (const Operation& op : ops) {
    if (const auto* create = std::get_if<Create>(&op)) {
      if (trial_bracket_.size() <= create->trial_index) {
        trial_bracket_.resize(create->trial_index + 1, 0);
      }
      trial_bracket_[create->trial_index] = bracket;
    }
  }
}

std::vector<Operation> AdaptiveAsha::initial_operations(SearchContext& ctx) {
  std::vector<Operation> ops;
  for (std::uint32_t b = 0; b < brackets_.size(); ++b) {
    std::vector<Operation> bracket_ops = brackets_[b].initial_operations(ctx);
    route(bracket_ops, b);
    std::move(bracket_ops.begin(), bracket_ops.end(), std::back_inserter(ops));
  }
  return ops;
}

double AdaptiveAsha::progress(const ProgressTotals& totals) const {
  double sum = 0;
  for (const AshaSearch& bracket : brackets_) sum += bracket.progress(totals);
  return sum / static_cast<double>(brackets_.size());
}

nlohmann::json AdaptiveAsha::state() const {
  nlohmann::json brackets = nlohmann::json::array();
  for (const AshaSearch& bracket : brackets_) brackets.push_back(bracket.state());
  return {{"search_method_type", "adaptive_asha"}, {"sub_search_states", std::move(brackets)}};
}

void AdaptiveAsha::restore_state(const nlohmann::json& state, const TrialBook& book) {
  method_state::expect_type(state, "adaptive_asha");
  const nlohmann::json& states = state.at("sub_search_states");
  if (!states.is_array() || states.size() != brackets_.size()) {
    throw ProtocolError("search_method_state.sub_search_states: the snapshot has " +
                        std::to_string(states.is_array() ? states.size() : 0) +
                        " brackets but the config gives " + std::to_string(brackets_.size()));
  }
  std::vector<AshaSearch> brackets = brackets_;
  constexpr std::uint32_t kNoBracket = 0xffffffffU;
  std::vector<std::uint32_t> table(book.trials_requested(), kNoBracket);
  for (std::uint32_t b = 0; b < brackets.size(); ++b) {
    brackets[b].restore_state(states[b], book);
    for (const std::uint32_t trial : brackets[b].trial_indexes()) {
      if (table[trial] != kNoBracket) {
        throw ProtocolError("search_method_state.sub_search_states: trial " +
                            std::to_string(trial) + " is in two brackets");
      }
      table[trial] = b;
    }
  }
  // Every trial the searcher knows belongs to one bracket (found by fuzzing: a trial in none
  // was handed to bracket 0, which did not know it).
  if (const auto missing = std::find(table.begin(), table.end(), kNoBracket);
      missing != table.end()) {
    throw ProtocolError("search_method_state.sub_search_states: searcher_state trial " +
                        std::to_string(missing - table.begin()) + " is in no bracket");
  }
  brackets_ = std::move(brackets);
  trial_bracket_ = std::move(table);
}

}  // namespace hpsearch
