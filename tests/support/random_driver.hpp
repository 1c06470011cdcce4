#pragma once
// A randomised master for property tests: it plays a search with random interleavings,
// progress reports, early exits of every reason and tied or non-finite metrics. Its choices
// depend only on its own seed and the operations it receives, so two drivers with the same
// seed make the same choices while their searchers answer the same.

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "hpsearch/config/catalog.hpp"

namespace hpsearch::testing {

struct DriverOptions {
  double exit_probability = 0.05;
  double progress_probability = 0.1;
  bool odd_metrics = false;  ///< also report +-infinity and NaN
  /// Per step, the chance that a trial waiting between operations (paused, not closed) ends
  /// early, as when a user kills it or its relaunch fails: errored or user_canceled.
  double waiting_exit_probability = 0;
};

class RandomDriver {
 public:
  explicit RandomDriver(std::uint32_t seed, DriverOptions options = {})
      : rng_(seed), options_(options) {}

  /// Starts the search; the answer is appended to `log`.
  template <class S>
  void start(S& s, std::vector<std::string>& log) {
    take(s.initial_operations(), log);
  }

  /// One random step. Returns false once the search has shut down or nothing is pending.
  template <class S>
  bool step(S& s, std::vector<std::string>& log) {
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < trials_.size(); ++i) {
      if (!trials_[i].pending.empty()) ready.push_back(i);
    }
    if (shutdown_) return false;
    if (options_.waiting_exit_probability > 0 && chance(options_.waiting_exit_probability)) {
      std::vector<std::size_t> waiting;
      for (std::size_t i = 0; i < trials_.size(); ++i) {
        if (trials_[i].pending.empty() && !trials_[i].closed) waiting.push_back(i);
      }
      if (!waiting.empty()) {
        const RequestId id = trials_[waiting[pick(waiting.size())]].id;
        const ExitedReason reason =
            chance(0.5) ? ExitedReason::kErrored : ExitedReason::kUserCanceled;
        send(s, TrialExitedEarly{id, reason}, log);
        close(s, id, log);
        return true;
      }
    }
    if (ready.empty()) return false;
    Trial& t = trials_[ready[pick(ready.size())]];
    const Operation op = t.pending.front();
    const RequestId id = t.id;
    if (std::holds_alternative<Create>(op)) {
      t.pending.pop_front();
      send(s, TrialCreated{id}, log);
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      if (chance(options_.progress_probability)) {
        const double units = boost::random::uniform_real_distribution<double>(
            0, static_cast<double>(validate->length))(rng_);
        send(s, TrialProgress{id, units}, log);
      } else if (chance(options_.exit_probability)) {
        const auto reason = static_cast<ExitedReason>(pick(5));
        send(s, TrialExitedEarly{id, reason}, log);
        close(s, id, log);
      } else {
        t.pending.pop_front();
        send(s, ValidationCompleted{id, metric(), validate->length}, log);
      }
    } else {
      close(s, id, log);
    }
    return true;
  }

  [[nodiscard]] bool shut_down() const { return shutdown_; }

 private:
  struct Trial {
    RequestId id;
    std::deque<Operation> pending;
    bool closed = false;
  };

  // The process is gone: anything still pending for it (a close answering its own early exit)
  // is moot, as it is for a real master.
  template <class S>
  void close(S& s, const RequestId& id, std::vector<std::string>& log) {
    Trial& t = trials_[index_.at(id)];
    t.pending.clear();
    t.closed = true;
    send(s, TrialClosed{id}, log);
  }

  std::size_t pick(std::size_t n) {
    return boost::random::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  bool chance(double p) { return boost::random::bernoulli_distribution<double>(p)(rng_); }

  double metric() {
    if (options_.odd_metrics && chance(0.05)) {
      const double odd[] = {std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
      return odd[pick(3)];
    }
    return static_cast<double>(pick(8)) / 8.0;  // few distinct values: many ties
  }

  template <class S>
  void send(S& s, const Event& event, std::vector<std::string>& log) {
    log.push_back(nlohmann::json(event).dump());
    take(s.handle(event), log);
  }

  void take(const std::vector<Operation>& ops, std::vector<std::string>& log) {
    nlohmann::json out = nlohmann::json::array();
    for (const Operation& op : ops) {
      out.push_back(op);
      if (std::holds_alternative<Shutdown>(op)) {
        shutdown_ = true;
        continue;
      }
      const RequestId id = *request_id_of(op);
      if (std::holds_alternative<Create>(op)) {
        index_[id] = trials_.size();
        trials_.push_back(Trial{id, {}, false});
      }
      Trial& t = trials_[index_.at(id)];
      if (!t.closed) t.pending.push_back(op);
    }
    log.push_back(out.dump());
  }

  boost::random::mt19937 rng_;
  DriverOptions options_;
  std::vector<Trial> trials_;
  std::map<RequestId, std::size_t> index_;
  bool shutdown_ = false;
};

/// Checks the restore property for one seed: snapshot at step `cut` (through text, as a
/// master would persist it), restore into a fresh searcher, continue, and compare the whole
/// log with an uninterrupted run. Also checks snapshot(restore(j)) == j.
template <class MakeSearcher>
void check_restore_property(MakeSearcher make, std::uint32_t seed, std::size_t cut,
                            DriverOptions options = {}) {
  std::vector<std::string> whole;
  {
    Searcher s = make();
    RandomDriver driver(seed, options);
    driver.start(s, whole);
    while (driver.step(s, whole)) {}
    REQUIRE(driver.shut_down());
  }
  std::vector<std::string> resumed;
  Searcher first = make();
  RandomDriver driver(seed, options);
  driver.start(first, resumed);
  for (std::size_t i = 0; i < cut && driver.step(first, resumed); ++i) {}
  const std::string saved = first.snapshot().dump();
  Searcher second = make();
  second.restore(nlohmann::json::parse(saved));
  REQUIRE(second.snapshot().dump() == saved);
  REQUIRE(second.progress() == first.progress());
  while (driver.step(second, resumed)) {}
  REQUIRE(resumed.size() == whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    INFO("log line " << i);
    REQUIRE(resumed[i] == whole[i]);
  }
}

}  // namespace hpsearch::testing
