#include "hpsearch/simulator/engine.hpp"

#include <algorithm>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <deque>
#include <functional>
#include <ostream>
#include <queue>
#include <random>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/request_id_index.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"

namespace hpsearch {
namespace {

struct SimTrial {
  RequestId id;
  std::vector<double> x;
  std::uint64_t trained = 0;  // length of the last validation, where its checkpoint is
  // A clone (Create with a checkpoint, PBT) starts from its parent's checkpoint: it continues
  // the parent's learning curve from there, so the workload sees `warm + trained`.
  std::uint64_t warm = 0;
  std::uint64_t target = 0;  // the outstanding validate_after length
  bool has_target = false;
  bool on_worker = false;  // holds a worker (training, or saving its checkpoint)
  bool queued = false;     // waits for a worker
  bool close_requested = false;
  bool closed = false;
  bool errored = false;
  std::uint32_t worker = 0;
  std::uint64_t restarts = 0;
  double cost_factor = 1;
  double worker_since = 0;
  double span_start = 0;  // when the current training span began
};

enum class EventKind { kTrainingDone, kCrash, kWorkerFreed };

struct SimEvent {
  double time = 0;
  std::uint64_t sequence = 0;
  EventKind kind = EventKind::kTrainingDone;
  std::uint32_t trial = 0;
  friend bool operator>(const SimEvent& a, const SimEvent& b) {
    return a.time > b.time || (a.time == b.time && a.sequence > b.sequence);
  }
};

// Independent random streams, so that turning one kind of randomness on does not move the
// others. The span noise keeps the plain seed (the first stream there was).
boost::random::mt19937 stream(std::uint32_t seed, std::uint32_t id) {
  if (id == 0) return boost::random::mt19937(seed);
  std::seed_seq sequence{seed, id};
  return boost::random::mt19937(sequence);
}

double lognormal(boost::random::mt19937& rng, double sigma) {
  if (sigma <= 0) return 1.0;
  return std::exp(boost::random::normal_distribution<double>(0.0, sigma)(rng));
}

class Engine {
 public:
  Engine(Searcher& searcher, const Workload& workload, const HyperparameterSpace& space,
         std::uint64_t max_length, const RunOptions& options)
      : searcher_(searcher),
        workload_(workload),
        max_length_(max_length),
        options_(options),
        span_noise_(stream(options.seed, 0)),
        crash_rng_(stream(options.seed, 1)),
        straggler_rng_(stream(options.seed, 2)),
        config_rng_(stream(options.seed, 3)),
        metric_rng_(stream(options.seed, 5)),
        inputs_(workload, space) {
    boost::random::mt19937 worker_rng = stream(options.seed, 4);
    speeds_.reserve(options.workers);
    for (std::uint64_t w = 0; w < options.workers; ++w) {
      speeds_.push_back(1.0 / lognormal(worker_rng, options.cost.worker_sigma));
      free_workers_.push(static_cast<std::uint32_t>(w));
    }
    busy_time_.assign(options.workers, 0.0);
  }

  RunSummary run() {
    apply(searcher_.initial_operations(), std::nullopt);
    dispatch();
    std::uint64_t steps = 0;
    while (!events_.empty()) {
      const SimEvent event = events_.top();
      events_.pop();
      now_ = event.time;
      switch (event.kind) {
        case EventKind::kTrainingDone:
          training_done(event.trial);
          break;
        case EventKind::kCrash:
          crashed(event.trial);
          break;
        case EventKind::kWorkerFreed:
          paused(event.trial);
          break;
      }
      dispatch();
      if (++steps % 4096 == 0 && options_.on_progress)
        options_.on_progress(searcher_.progress(), now_);
    }
    if (!shut_down_) {
      throw SimulationError(
          "the search stalled at " + std::to_string(now_) +
          " s: no trial is training or waiting and the searcher has not shut down");
    }
    summary_.wall_time = now_;
    summary_.events = steps;
    double busy = 0;
    for (const double b : busy_time_) busy += b;
    const double capacity = static_cast<double>(options_.workers) * now_;
    summary_.utilisation = capacity > 0 ? busy / capacity : 0;
    if (options_.timeline) {
      for (std::size_t i = 0; i < trials_.size(); ++i) {
        TrialRecord& record = summary_.timeline.trials[i];
        const SimTrial& t = trials_[i];
        record.restarts = t.restarts;
        record.outcome = t.errored                           ? TrialOutcome::kErrored
                         : t.warm + t.trained >= max_length_ ? TrialOutcome::kCompleted
                         : t.closed                          ? TrialOutcome::kStopped
                                                             : TrialOutcome::kUnfinished;
      }
      summary_.timeline.worker_speeds = speeds_;
    }
    if (options_.on_progress) options_.on_progress(searcher_.progress(), now_);
    return std::move(summary_);
  }

 private:
  void schedule(double time, EventKind kind, std::uint32_t trial) {
    events_.push(SimEvent{time, next_sequence_++, kind, trial});
  }

  void handle(const Event& event) { apply(searcher_.handle(event), event); }

  // `event` empty: the initial operations.
  void apply(const std::vector<Operation>& ops, const std::optional<Event>& event) {
    if (options_.trace != nullptr) {
      const nlohmann::json in =
          event ? nlohmann::json(*event) : nlohmann::json{{"event", "initial_operations"}};
      *options_.trace << json_line({{"time", now_}, {"in", in}, {"out", operations_answer(ops)}})
                      << '\n';
    }
    for (const Operation& op : ops) {
      if (const auto* create = std::get_if<Create>(&op)) {
        add_trial(*create);
        handle(TrialCreated{create->request_id});
      } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
        const std::uint32_t index = index_of(validate->request_id);
        SimTrial& t = trials_[index];
        t.target = validate->length;
        t.has_target = true;
        // A trial that just validated continues on its worker (training_done sees to it); one
        // that is saving its checkpoint is queued once it has freed its worker.
        if (!t.on_worker) enqueue(index);
      } else if (const auto* close = std::get_if<Close>(&op)) {
        const std::uint32_t index = index_of(close->request_id);
        SimTrial& t = trials_[index];
        t.close_requested = true;
        if (!t.on_worker && !t.has_target && !t.closed) close_trial(index);
      } else if (const auto* shutdown = std::get_if<Shutdown>(&op)) {
        shut_down_ = true;
        summary_.shutdown = *shutdown;
      }
    }
  }

  void enqueue(std::uint32_t index) {
    SimTrial& t = trials_[index];
    if (t.queued) return;
    t.queued = true;
    waiting_.push_back(index);
  }

  void add_trial(const Create& create) {
    SimTrial t;
    t.id = create.request_id;
    t.x = workload_.locate(inputs_.read(create.hparams));
    t.cost_factor = lognormal(config_rng_, options_.cost.config_sigma);
    if (create.checkpoint) {
      // The parent's latest checkpoint is at its last validation (the round's end, for PBT).
      const SimTrial& parent = trials_[index_of(*create.checkpoint)];
      t.warm = parent.warm + parent.trained;
    }
    index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
    trials_.push_back(std::move(t));
    if (options_.timeline) summary_.timeline.trials.push_back(TrialRecord{create.request_id});
    ++summary_.trials_created;
  }

  std::uint32_t index_of(const RequestId& id) const {
    const std::optional<std::uint32_t> index = index_.find(id);
    HPSEARCH_ASSERT(index.has_value(), "an operation for a trial the searcher never created");
    return *index;
  }

  void close_trial(std::uint32_t index) {
    trials_[index].closed = true;
    handle(TrialClosed{trials_[index].id});
  }

  // Seconds of training from `from` to `to` on a worker of nominal speed, before noise.
  double nominal_training_time(std::uint64_t from, std::uint64_t to) const {
    const CostModel& cost = options_.cost;
    const double full = static_cast<double>(max_length_) * cost.seconds_per_unit;
    const double span = cost.workload_cost ? full * (cost_of(to) - cost_of(from))
                                           : static_cast<double>(to - from) * cost.seconds_per_unit;
    return std::max(span, 0.0);
  }

  // What training from scratch to `length` costs on the workload's curve. Nothing trained costs
  // nothing: the curve's fixed part (e.g. Branin's 0.05) is paid by the first span.
  double cost_of(std::uint64_t length) const {
    return length == 0 ? 0.0 : workload_.cost(fidelity(length));
  }

  double fidelity(std::uint64_t length) const {
    return std::min(1.0, static_cast<double>(length) / static_cast<double>(max_length_));
  }

  // Trains the trial toward its target from `start` on its worker: it either finishes or, with
  // crashes modelled, crashes on the way.
  void begin_span(std::uint32_t index, double start) {
    SimTrial& t = trials_[index];
    const CostModel& cost = options_.cost;
    double seconds = nominal_training_time(t.warm + t.trained, t.warm + t.target) * t.cost_factor /
                     speeds_[t.worker];
    seconds *= lognormal(span_noise_, cost.noise_sigma);
    if (cost.straggler_probability > 0 &&
        boost::random::uniform_01<double>()(straggler_rng_) < cost.straggler_probability) {
      seconds *= cost.straggler_factor;
    }
    t.span_start = start;
    if (options_.faults.crash_rate > 0) {
      const double crash_after =
          boost::random::exponential_distribution<double>(options_.faults.crash_rate)(crash_rng_);
      if (crash_after < seconds) {
        schedule(start + crash_after, EventKind::kCrash, index);
        return;
      }
    }
    schedule(start + seconds, EventKind::kTrainingDone, index);
  }

  void dispatch() {
    while (!free_workers_.empty() && !waiting_.empty()) {
      const std::uint32_t index = waiting_.front();
      waiting_.pop_front();
      SimTrial& t = trials_[index];
      t.queued = false;
      if (t.closed || !t.has_target) continue;
      t.worker = free_workers_.top();
      free_workers_.pop();
      t.on_worker = true;
      t.worker_since = now_;
      trace_worker("launched", t, {});
      double start = now_ + options_.cost.startup_seconds;
      // From its own checkpoint, or a clone from its parent's.
      if (t.trained > 0 || t.warm > 0) start += options_.cost.restore_seconds;
      begin_span(index, start);
    }
  }

  void training_done(std::uint32_t index) {
    SimTrial& t = trials_[index];
    summary_.training_units += t.target - t.trained;
    t.trained = t.target;
    t.has_target = false;
    ++summary_.validations_per_length[t.trained];
    const double z = fidelity(t.warm + t.trained);
    const double value = options_.metric ? options_.metric(index, z) : workload_.value(t.x, z);
    double observed = value;
    if (options_.metric_noise > 0) {
      observed +=
          boost::random::normal_distribution<double>(0.0, options_.metric_noise)(metric_rng_);
    }
    if (options_.timeline) {
      summary_.timeline.validations.push_back({now_, index, t.trained, value});
      summary_.timeline.trials[index].lengths.push_back(t.trained);
    }
    if (t.warm + t.trained >= max_length_) {
      if (!summary_.first_full_length_at) summary_.first_full_length_at = now_;
      if (!best_observed_ || observed < *best_observed_) {
        best_observed_ = observed;
        summary_.best_metric = value;
        summary_.best_found_at = now_;
        summary_.best_trial = t.id;
        summary_.best_so_far.emplace_back(now_, value);
      }
    }
    handle(ValidationCompleted{t.id, options_.smaller_is_better ? observed : -observed, t.trained});
    SimTrial& after = trials_[index];
    if (after.has_target) {  // continued or promoted: keep the worker
      begin_span(index, now_);
      return;
    }
    if (after.close_requested) {
      free_worker(index, false);
      if (!after.closed) close_trial(index);
      return;
    }
    // Waiting for a decision: checkpoint, then free the worker.
    schedule(now_ + options_.cost.checkpoint_seconds, EventKind::kWorkerFreed, index);
  }

  void paused(std::uint32_t index) {
    free_worker(index, false);
    SimTrial& t = trials_[index];
    if (t.has_target) {
      enqueue(index);  // promoted while it saved its checkpoint: relaunch with a restore
    } else if (t.close_requested && !t.closed) {
      close_trial(index);
    }
  }

  // The process died mid-span: the work since the last checkpoint is lost. It restarts from
  // that checkpoint (back of the queue) until it has used its restarts, then exits errored.
  void crashed(std::uint32_t index) {
    SimTrial& t = trials_[index];
    ++summary_.crashes;
    summary_.lost_seconds += now_ - t.span_start;
    free_worker(index, true);
    if (t.restarts < options_.faults.max_restarts) {
      ++t.restarts;
      enqueue(index);
      return;
    }
    t.errored = true;
    t.has_target = false;
    ++summary_.errored_trials;
    handle(TrialExitedEarly{t.id, ExitedReason::kErrored});
    if (!trials_[index].closed) close_trial(index);
  }

  // A trial took (`launched`) or freed (`exited`) a worker: a trace record of the runner's
  // journal's shape, {"time", KIND: {"request_id", "worker", ...}} (docs/simulator.md), for
  // the web UI's worker timeline. Not a searcher call: a replay through drive skips it.
  void trace_worker(const char* kind, const SimTrial& t, nlohmann::json body) {
    if (options_.trace == nullptr) return;
    body["request_id"] = t.id.to_string();
    body["worker"] = t.worker;
    *options_.trace << json_line({{"time", now_}, {kind, std::move(body)}}) << '\n';
  }

  void free_worker(std::uint32_t index, bool crashed) {
    SimTrial& t = trials_[index];
    t.on_worker = false;
    busy_time_[t.worker] += now_ - t.worker_since;
    free_workers_.push(t.worker);
    trace_worker("exited", t, {{"crashed", crashed}});
    if (options_.timeline) {
      summary_.timeline.spans.push_back({t.worker, index, t.worker_since, now_, crashed});
    }
  }

  Searcher& searcher_;
  const Workload& workload_;
  std::uint64_t max_length_;
  const RunOptions& options_;
  boost::random::mt19937 span_noise_;
  boost::random::mt19937 crash_rng_;
  boost::random::mt19937 straggler_rng_;
  boost::random::mt19937 config_rng_;
  boost::random::mt19937 metric_rng_;
  WorkloadInputs inputs_;
  std::vector<SimTrial> trials_;
  RequestIdIndex index_;
  std::deque<std::uint32_t> waiting_;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free_workers_;
  std::vector<double> speeds_;
  std::vector<double> busy_time_;
  std::priority_queue<SimEvent, std::vector<SimEvent>, std::greater<>> events_;
  std::uint64_t next_sequence_ = 0;
  std::optional<double> best_observed_;
  double now_ = 0;
  bool shut_down_ = false;
  RunSummary summary_;
};

}  // namespace

const char* outcome_name(TrialOutcome outcome) {
  switch (outcome) {
    case TrialOutcome::kCompleted:
      return "completed";
    case TrialOutcome::kStopped:
      return "stopped";
    case TrialOutcome::kErrored:
      return "errored";
    case TrialOutcome::kUnfinished:
      break;
  }
  return "unfinished";
}

void check_simulated_length(const SearcherSettings& searcher, const std::string& config_name) {
  if (!searcher.trial_decides_length) return;
  throw std::invalid_argument(
      (config_name.empty() ? "" : config_name + ": ") +
      "searcher.max_length: not given, so each trial trains until its script ends (Determined "
      "0.38's form, which searcher-run serves); the simulator needs a length to play training "
      "in virtual time: add one, e.g. max_length: 100");
}

RunSummary run_simulation(Searcher& searcher, const Workload& workload,
                          const HyperparameterSpace& space, std::uint64_t max_length,
                          const RunOptions& options) {
  return Engine(searcher, workload, space, max_length, options).run();
}

nlohmann::json RunSummary::to_json() const {
  nlohmann::json per_length = nlohmann::json::object();
  for (const auto& [length, count] : validations_per_length)
    per_length[std::to_string(length)] = count;
  nlohmann::json j{{"best_metric", best_metric ? nlohmann::json(*best_metric) : nullptr},
                   {"best_found_at", best_found_at},
                   {"best_trial", best_trial ? nlohmann::json(best_trial->to_string()) : nullptr},
                   {"first_full_length_at",
                    first_full_length_at ? nlohmann::json(*first_full_length_at) : nullptr},
                   {"trials_created", trials_created},
                   {"validations_per_length", std::move(per_length)},
                   {"training_units", training_units},
                   {"wall_time", wall_time},
                   {"utilisation", utilisation},
                   {"crashes", crashes},
                   {"errored_trials", errored_trials},
                   {"lost_seconds", lost_seconds},
                   {"shutdown", {{"cancel", shutdown.cancel}, {"failure", shutdown.failure}}}};
  if (sampler_choice)
    j["sampler_choice"] = sampler_choice_json(*sampler_choice, sampler_switch_trial);
  return j;
}

}  // namespace hpsearch
