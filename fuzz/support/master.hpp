#pragma once
// A well-behaved master. From the searcher's own bookkeeping (the searcher_state of its
// snapshot) it works out which events are allowed now and picks one, so that the targets can
// put a searcher into any state a real master could reach, and check that every allowed event
// is accepted.

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hpsearch/methods/any_method.hpp"
#include "support/fuzz_support.hpp"

namespace hpsearch::fuzz {

/// A metric value chosen by `choices`: ordinary values with many ties, extremes, and the
/// protocol's strings for +-infinity and NaN.
[[nodiscard]] inline nlohmann::json chosen_metric(Choices& choices) {
  static const std::array<nlohmann::json, 10> kMetrics{
      0.5, 0.25, 1, 0, -1, 1e300, -1e-300, "Infinity", "-Infinity", "NaN"};
  return kMetrics[choices.below(kMetrics.size())];
}

/// The next event a well-behaved master could send now, as a protocol line, or nullopt if no
/// trial can act (the search is over, or every trial waits for the searcher).
[[nodiscard]] inline std::optional<std::string> allowed_line(const Searcher& searcher,
                                                             Choices& choices) {
  if (!searcher.started()) return R"({"event":"initial_operations"})";
  const nlohmann::json book = searcher.book();
  std::vector<nlohmann::json> events;
  for (const nlohmann::json& t : book.at("trials")) {
    if (t.at("closed").get<bool>()) continue;
    const nlohmann::json& id = t.at("request_id");
    if (!t.at("created").get<bool>()) {
      events.push_back({{"event", "trial_created"}, {"request_id", id}});
      continue;
    }
    const nlohmann::json& op = t.at("op");
    const bool exited = !t.at("exit").is_null();
    const bool outstanding = !op.is_null() && !op.at("completed").get<bool>();
    if (exited || (t.at("close_requested").get<bool>() && !outstanding)) {
      events.push_back({{"event", "trial_closed"}, {"request_id", id}});
    }
    if (exited) continue;
    if (outstanding) {
      events.push_back({{"event", "validation_completed"},
                        {"request_id", id},
                        {"metric", chosen_metric(choices)},
                        {"length", op.at("length")}});
      events.push_back({{"event", "trial_progress"},
                        {"request_id", id},
                        {"units", op.at("length").get<double>() * 0.5}});
    }
    static constexpr std::array<const char*, 5> kReasons{
        "errored", "user_canceled", "invalid_hp", "init_invalid_hp", "user_requested_stop"};
    events.push_back({{"event", "trial_exited_early"},
                      {"request_id", id},
                      {"reason", kReasons[choices.below(kReasons.size())]}});
  }
  if (events.empty()) return std::nullopt;
  return events[choices.below(events.size())].dump();
}

/// Whether two searchers are in the same state: everything a snapshot shows, and the method's
/// and bookkeeping's derived structures too. Cheaper than comparing snapshots (no JSON, no
/// 624-word RNG key), and stronger.
[[nodiscard]] inline bool same_state(const Searcher& a, const Searcher& b) {
  return a.started() == b.started() && a.rng() == b.rng() && a.book() == b.book() &&
         a.method() == b.method();
}

/// The request id of trial `n` (modulo the number of trials), or a well-formed id no trial
/// has if there is none yet.
[[nodiscard]] inline std::string trial_id(const Searcher& searcher, std::size_t n) {
  const nlohmann::json book = searcher.book();
  const nlohmann::json& trials = book.at("trials");
  if (trials.empty()) return "00000000-0000-4000-8000-000000000000";
  return trials.at(n % trials.size()).at("request_id").get<std::string>();
}

}  // namespace hpsearch::fuzz
