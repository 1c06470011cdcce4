#pragma once
// A well-behaved master. From the searcher's own bookkeeping (the searcher_state of its
// snapshot) it works out which events are allowed now and picks one, so that the targets can
// put a searcher into any state a real master could reach, and check that every allowed event
// is accepted.

#include <array>
#include <cstdint>
#include <limits>
#include <map>
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

/// A well-behaved master. Like Determined's, it knows its trials from the operations the
/// searcher answered and the events it sent, and sends only events allowed now. Keeping that
/// view itself, rather than reading the searcher's bookkeeping as JSON before every event,
/// is what makes the protocol targets cheap per event (docs/fuzzing.md).
class Master {
 public:
  /// A master that knows what the searcher's bookkeeping says now.
  explicit Master(const Searcher& searcher) { sync(searcher); }

  /// Reads the searcher's bookkeeping afresh: after a restore, or a line the master did not
  /// choose that the searcher accepted.
  void sync(const Searcher& searcher) {
    started_ = searcher.started();
    trials_.clear();
    index_.clear();
    pending_.reset();
    const nlohmann::json book = searcher.book();
    for (const nlohmann::json& t : book.at("trials")) {
      const nlohmann::json& op = t.at("op");
      add(Trial{.id = t.at("request_id").get<std::string>(),
                .created = t.at("created").get<bool>(),
                .closed = t.at("closed").get<bool>(),
                .exited = !t.at("exit").is_null(),
                .close_requested = t.at("close_requested").get<bool>(),
                .has_op = !op.is_null(),
                .op_completed = !op.is_null() && op.at("completed").get<bool>(),
                .op_length = op.is_null() ? 0 : op.at("length").get<std::uint64_t>()});
    }
  }

  /// The next event a well-behaved master could send now, as a protocol line, or nullopt if
  /// no trial can act (the search is over, or every trial waits for the searcher). Tell
  /// `answered` what the searcher said to it.
  [[nodiscard]] std::optional<std::string> next(Choices& choices) {
    if (!started_) {
      pending_ = Pending{Kind::kInitial, 0};
      return R"({"event":"initial_operations"})";
    }
    std::vector<Candidate> candidates;
    for (std::size_t i = 0; i < trials_.size(); ++i) {
      const Trial& t = trials_[i];
      if (t.closed) continue;
      if (!t.created) {
        candidates.push_back({Kind::kCreated, i, nullptr});
        continue;
      }
      const bool outstanding = t.has_op && !t.op_completed;
      if (t.exited || (t.close_requested && !outstanding))
        candidates.push_back({Kind::kClosed, i, nullptr});
      if (t.exited) continue;
      if (outstanding) {
        candidates.push_back({Kind::kValidated, i, chosen_metric(choices)});
        candidates.push_back({Kind::kProgress, i, nullptr});
      }
      static constexpr std::array<const char*, 5> kReasons{
          "errored", "user_canceled", "invalid_hp", "init_invalid_hp", "user_requested_stop"};
      candidates.push_back({Kind::kExited, i, kReasons[choices.below(kReasons.size())]});
    }
    if (candidates.empty()) return std::nullopt;
    const Candidate& c = candidates[choices.below(candidates.size())];
    pending_ = Pending{c.kind, c.trial};
    const Trial& t = trials_[c.trial];
    switch (c.kind) {
      case Kind::kCreated:
        return nlohmann::json{{"event", "trial_created"}, {"request_id", t.id}}.dump();
      case Kind::kClosed:
        return nlohmann::json{{"event", "trial_closed"}, {"request_id", t.id}}.dump();
      case Kind::kValidated:
        return nlohmann::json{{"event", "validation_completed"},
                              {"request_id", t.id},
                              {"metric", c.value},
                              {"length", t.op_length}}
            .dump();
      case Kind::kProgress:
        return nlohmann::json{{"event", "trial_progress"},
                              {"request_id", t.id},
                              {"units", static_cast<double>(t.op_length) * 0.5}}
            .dump();
      default:
        return nlohmann::json{
            {"event", "trial_exited_early"}, {"request_id", t.id}, {"reason", c.value}}
            .dump();
    }
  }

  /// The searcher accepted the line `next` gave and answered `answer` (the drive protocol's
  /// {"operations":[...]}).
  void answered(const nlohmann::json& answer) {
    if (pending_ && pending_->kind == Kind::kInitial) {
      started_ = true;  // no trial yet: initial_operations names none
    } else if (pending_) {
      Trial& t = trials_[pending_->trial];
      switch (pending_->kind) {
        case Kind::kInitial:
          break;
        case Kind::kCreated:
          t.created = true;
          break;
        case Kind::kClosed:
          t.closed = true;
          break;
        case Kind::kValidated:
          t.op_completed = true;
          break;
        case Kind::kProgress:
          break;
        case Kind::kExited:
          t.exited = true;
          break;
      }
    }
    pending_.reset();
    for (const nlohmann::json& op : answer.at("operations")) {
      const std::string& type = op.at("type").get_ref<const std::string&>();
      if (type == "create") {
        add(Trial{.id = op.at("request_id").get<std::string>()});
      } else if (type == "validate_after") {
        Trial& t = trials_[index_.at(op.at("request_id").get_ref<const std::string&>())];
        t.has_op = true;
        t.op_completed = false;
        t.op_length = op.at("length").get<std::uint64_t>();
      } else if (type == "close") {
        trials_[index_.at(op.at("request_id").get_ref<const std::string&>())].close_requested =
            true;
      }
    }
  }

  /// The request id of trial `n` (modulo the number of trials), or a well-formed id no trial
  /// has if there is none yet.
  [[nodiscard]] std::string trial_id(std::size_t n) const {
    return trials_.empty() ? "00000000-0000-4000-8000-000000000000"
                           : trials_[n % trials_.size()].id;
  }
  /// The length of trial `n`'s last validate_after (modulo the number of trials), 0 if none.
  [[nodiscard]] std::uint64_t trial_length(std::size_t n) const {
    return trials_.empty() ? 0 : trials_[n % trials_.size()].op_length;
  }

 private:
  enum class Kind { kInitial, kCreated, kClosed, kValidated, kProgress, kExited };
  struct Trial {
    std::string id;
    bool created = false;
    bool closed = false;
    bool exited = false;
    bool close_requested = false;
    bool has_op = false;
    bool op_completed = false;
    std::uint64_t op_length = 0;
  };
  struct Candidate {
    Kind kind;
    std::size_t trial;
    nlohmann::json value;  // the metric, or the exit reason
  };
  struct Pending {
    Kind kind;
    std::size_t trial;
  };
  void add(Trial trial) {
    index_.emplace(trial.id, trials_.size());
    trials_.push_back(std::move(trial));
  }

  bool started_ = false;
  std::vector<Trial> trials_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::optional<Pending> pending_;
};

/// The next event a well-behaved master could send now (Master::next), read off the
/// searcher's bookkeeping: for targets that play a few events only.
[[nodiscard]] inline std::optional<std::string> allowed_line(const Searcher& searcher,
                                                             Choices& choices) {
  return Master(searcher).next(choices);
}

/// Whether two searchers are in the same state: everything a snapshot shows, and the method's
/// and bookkeeping's derived structures too. Cheaper than comparing snapshots (no JSON, no
/// 624-word RNG key), and stronger.
[[nodiscard]] inline bool same_state(const Searcher& a, const Searcher& b) {
  return a.started() == b.started() && a.rng() == b.rng() && a.book() == b.book() &&
         a.method() == b.method();
}

}  // namespace hpsearch::fuzz
