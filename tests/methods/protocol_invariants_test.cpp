// The protocol every method keeps, whatever the events (issue 10): an operation is never
// addressed to a trial that was already told to close or whose close was reported, a trial is
// never closed twice, a trial that exited early is never asked to train, and a validate_after
// never asks for a length the trial has already completed. Checked by an observer that knows
// nothing of the methods, on thousands of random event sequences per method, with early
// exits of every reason, also of trials that wait between rungs, and tied or non-finite
// metrics.
#include <doctest/doctest.h>

#include <map>

#include "hpsearch/config/catalog.hpp"
#include "support/random_driver.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {

#ifdef HPSEARCH_SANITIZED
constexpr std::uint32_t kProtocolSequences = 300;
#else
constexpr std::uint32_t kProtocolSequences = 3000;
#endif

/// A searcher wrapper that checks every operation against what the events so far allow.
class InvariantObserver {
 public:
  explicit InvariantObserver(Searcher searcher) : searcher_(std::move(searcher)) {}

  std::vector<Operation> initial_operations() { return check(searcher_.initial_operations()); }

  std::vector<Operation> handle(const Event& event) {
    std::visit([&](const auto& e) { observe(e); }, event);
    return check(searcher_.handle(event));
  }

  [[nodiscard]] std::size_t closes() const { return closes_; }

 private:
  struct Trial {
    bool close_sent = false;
    bool closed = false;
    bool exited = false;
    std::uint64_t completed = 0;  // the longest length it completed
  };

  void observe(const TrialCreated&) {}
  void observe(const TrialProgress&) {}
  void observe(const ValidationCompleted& e) {
    Trial& t = trials_.at(e.request_id);
    t.completed = std::max(t.completed, e.length);
  }
  void observe(const TrialExitedEarly& e) { trials_.at(e.request_id).exited = true; }
  void observe(const TrialClosed& e) { trials_.at(e.request_id).closed = true; }

  std::vector<Operation> check(std::vector<Operation> ops) {
    for (const Operation& op : ops) {
      if (const auto* create = std::get_if<Create>(&op)) {
        CHECK_FALSE(shut_down_);
        CHECK(trials_.emplace(create->request_id, Trial{}).second);
      } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
        const Trial& t = trials_.at(validate->request_id);
        INFO("validate_after " << validate->request_id.to_string() << " length "
                               << validate->length);
        CHECK_FALSE(t.close_sent);
        CHECK_FALSE(t.closed);
        CHECK_FALSE(t.exited);
        CHECK(validate->length > t.completed);
      } else if (const auto* close = std::get_if<Close>(&op)) {
        Trial& t = trials_.at(close->request_id);
        INFO("close " << close->request_id.to_string());
        CHECK_FALSE(t.close_sent);  // no second close
        CHECK_FALSE(t.closed);
        t.close_sent = true;
        ++closes_;
      } else {
        CHECK_FALSE(shut_down_);
        shut_down_ = true;
      }
    }
    return ops;
  }

  Searcher searcher_;
  std::map<RequestId, Trial> trials_;
  bool shut_down_ = false;
  std::size_t closes_ = 0;
};

void play(const MethodConfig& config, const HyperparameterSpace& hps, std::uint32_t seed,
          bool smaller_is_better = true) {
  InvariantObserver observer(make_searcher(config, hps, seed, smaller_is_better));
  RandomDriver driver(seed, DriverOptions{.exit_probability = 0.1,
                                          .progress_probability = 0.05,
                                          .odd_metrics = true,
                                          .waiting_exit_probability = 0.05});
  std::vector<std::string> log;
  driver.start(observer, log);
  while (driver.step(observer, log)) {}
  CHECK(driver.shut_down());
}

const HyperparameterSpace kSpace = space({{"x", double_hp(0, 1, 3)}, {"y", int_hp(0, 4, 2)}});

}  // namespace

TEST_CASE("protocol invariants: single, random and grid") {
  for (std::uint32_t seed = 0; seed < kProtocolSequences; ++seed) {
    INFO("seed " << seed);
    play(SingleConfig{.max_length = 1 + seed % 50}, kSpace, seed);
    play(
        RandomConfig{
            .max_length = 10, .max_trials = 1 + seed % 20, .max_concurrent_trials = seed % 5},
        kSpace, seed);
    play(GridConfig{.max_length = 10, .max_concurrent_trials = seed % 4}, kSpace, seed);
  }
}

TEST_CASE("protocol invariants: async_halving, promotion and stopping") {
  for (std::uint32_t seed = 0; seed < kProtocolSequences; ++seed) {
    INFO("seed " << seed);
    for (const bool stop_once : {false, true}) {
      play(AshaConfig{.max_length = 1000,
                      .max_trials = 2 + seed % 39,
                      .num_rungs = 1 + seed % 4,
                      .divisor = 2.0 + 0.5 * static_cast<double>(seed % 6),
                      .max_concurrent_trials = seed % 7,
                      .stop_once = stop_once},
           kSpace, seed, seed % 3 != 0);
    }
  }
}

TEST_CASE("protocol invariants: adaptive_asha, promotion and stopping") {
  for (std::uint32_t seed = 0; seed < kProtocolSequences; ++seed) {
    INFO("seed " << seed);
    play(AdaptiveAshaConfig{.max_length = 256,
                            .max_trials = 5 + seed % 40,
                            .mode = static_cast<AdaptiveMode>(seed % 3),
                            .divisor = 2.0 + static_cast<double>(seed % 3),
                            .max_rungs = 1 + seed % 5,
                            .max_concurrent_trials = seed % 9,
                            .stop_once = seed % 2 == 0},
         kSpace, seed);
  }
}
