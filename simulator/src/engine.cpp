#include "hpsearch/simulator/engine.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <deque>
#include <ostream>
#include <queue>
#include <set>
#include <algorithm>
#include <cctype>
#include <sstream>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/request_id_index.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"

namespace hpsearch {
namespace {

struct SimTrial {
  RequestId id;
  std::vector<double> x;
  std::uint64_t trained = 0;  // total length trained so far
  std::uint64_t target = 0;   // the outstanding validate_after length
  bool has_target = false;
  bool on_worker = false;     // holds a worker and trains
  bool queued = false;        // waits for a worker
  bool launched = false;      // has run before, so a relaunch restores a checkpoint
  bool close_requested = false;
  bool closed = false;
  double worker_since = 0;
};

enum class EventKind { kTrainingDone, kWorkerFreed };

struct SimEvent {
  double time = 0;
  std::uint64_t sequence = 0;
  EventKind kind = EventKind::kTrainingDone;
  std::uint32_t trial = 0;
  double worker_since = 0;  // kWorkerFreed: when the worker was taken
  friend bool operator>(const SimEvent& a, const SimEvent& b) {
    return a.time > b.time || (a.time == b.time && a.sequence > b.sequence);
  }
};

class Engine {
 public:
  Engine(Searcher& searcher, const Workload& workload, std::uint64_t max_length,
         const RunOptions& options)
      : searcher_(searcher), workload_(workload), max_length_(max_length), options_(options),
        noise_rng_(options.seed), parameters_(workload.parameters()) {}

  RunSummary run() {
    apply(searcher_.initial_operations(), nlohmann::json{{"event", "initial_operations"}});
    dispatch();
    while (!events_.empty()) {
      const SimEvent event = events_.top();
      events_.pop();
      now_ = event.time;
      if (event.kind == EventKind::kTrainingDone) {
        training_done(event.trial);
      } else {
        release_worker(event.worker_since);
      }
      dispatch();
    }
    if (!shut_down_) {
      throw SimulationError("the search stalled at " + std::to_string(now_) +
                            " s: no trial is training or waiting and the searcher has not shut down");
    }
    summary_.wall_time = now_;
    const double capacity = static_cast<double>(options_.workers) * now_;
    summary_.utilisation = capacity > 0 ? busy_time_ / capacity : 0;
    return std::move(summary_);
  }

 private:
  void schedule(double time, EventKind kind, std::uint32_t trial, double since = 0) {
    events_.push(SimEvent{time, next_sequence_++, kind, trial, since});
  }

  void handle(const Event& event) { apply(searcher_.handle(event), nlohmann::json(event)); }

  void apply(const std::vector<Operation>& ops, const nlohmann::json& in) {
    if (options_.trace != nullptr) {
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
        // The trial that just validated continues on its worker (training_done sees to it).
        if (!t.on_worker && !t.queued) {
          t.queued = true;
          waiting_.push_back(index);
        }
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

  void add_trial(const Create& create) {
    SimTrial t;
    t.id = create.request_id;
    for (const WorkloadParameter& p : parameters_) t.x.push_back(create.hparams.at(p.name).get<double>());
    index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
    trials_.push_back(std::move(t));
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

  double training_time(std::uint64_t from, std::uint64_t to) {
    const CostModel& cost = options_.cost;
    const double full = static_cast<double>(max_length_) * cost.seconds_per_unit;
    const double span = cost.workload_cost
                            ? full * (cost_of(to) - cost_of(from))
                            : static_cast<double>(to - from) * cost.seconds_per_unit;
    if (cost.noise_sigma <= 0) return std::max(span, 0.0);
    boost::random::normal_distribution<double> log_noise(0.0, cost.noise_sigma);
    return std::max(span, 0.0) * std::exp(log_noise(noise_rng_));
  }

  // What training from scratch to `length` costs on the workload's curve. Nothing trained costs
  // nothing: the curve's fixed part (e.g. Branin's 0.05) is paid by the first span.
  double cost_of(std::uint64_t length) const {
    return length == 0 ? 0.0 : workload_.cost(fidelity(length));
  }

  double fidelity(std::uint64_t length) const {
    return std::min(1.0, static_cast<double>(length) / static_cast<double>(max_length_));
  }

  void dispatch() {
    while (busy_ < options_.workers && !waiting_.empty()) {
      const std::uint32_t index = waiting_.front();
      waiting_.pop_front();
      SimTrial& t = trials_[index];
      t.queued = false;
      if (t.closed || !t.has_target) continue;
      ++busy_;
      t.on_worker = true;
      t.worker_since = now_;
      double start = now_ + options_.cost.startup_seconds;
      if (t.launched) start += options_.cost.restore_seconds;
      t.launched = true;
      schedule(start + training_time(t.trained, t.target), EventKind::kTrainingDone, index);
    }
  }

  void training_done(std::uint32_t index) {
    SimTrial& t = trials_[index];
    summary_.training_units += t.target - t.trained;
    t.trained = t.target;
    t.has_target = false;
    ++summary_.validations_per_length[t.trained];
    const double value = workload_.value(t.x, fidelity(t.trained));
    if (t.trained >= max_length_ && !summary_.first_full_length_at) {
      summary_.first_full_length_at = now_;
    }
    if (t.trained >= max_length_ && (!summary_.best_metric || value < *summary_.best_metric)) {
      summary_.best_metric = value;
      summary_.best_found_at = now_;
      summary_.best_trial = t.id;
      summary_.best_so_far.emplace_back(now_, value);
    }
    handle(ValidationCompleted{t.id, options_.smaller_is_better ? value : -value, t.trained});
    SimTrial& after = trials_[index];
    if (after.has_target) {  // continued or promoted: keep the worker
      schedule(now_ + training_time(after.trained, after.target), EventKind::kTrainingDone, index);
      return;
    }
    after.on_worker = false;
    if (after.close_requested) {
      release_worker(after.worker_since);
      if (!after.closed) close_trial(index);
      return;
    }
    // Waiting for a decision: checkpoint, then free the worker.
    schedule(now_ + options_.cost.checkpoint_seconds, EventKind::kWorkerFreed, index,
             after.worker_since);
  }

  void release_worker(double since) {
    --busy_;
    busy_time_ += now_ - since;
  }

  Searcher& searcher_;
  const Workload& workload_;
  std::uint64_t max_length_;
  const RunOptions& options_;
  boost::random::mt19937 noise_rng_;
  std::vector<WorkloadParameter> parameters_;
  std::vector<SimTrial> trials_;
  RequestIdIndex index_;
  std::deque<std::uint32_t> waiting_;
  std::priority_queue<SimEvent, std::vector<SimEvent>, std::greater<>> events_;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t busy_ = 0;
  double busy_time_ = 0;
  double now_ = 0;
  bool shut_down_ = false;
  RunSummary summary_;
};

}  // namespace

namespace {

std::string domain_text(const WorkloadParameter& p) {
  std::ostringstream text;
  if (p.binary) {
    text << "0 or 1";
  } else {
    text << "a number in [" << p.minval << ", " << p.maxval << "]";
  }
  return text.str();
}

bool fits(const WorkloadParameter& p, double value) {
  if (p.binary) return value == 0 || value == 1;
  return value >= p.minval && value <= p.maxval;
}

// Why a hyperparameter's values do not fit a workload input; empty if they all do.
std::string misfit(const WorkloadParameter& p, const Hyperparameter& hp) {
  const auto range = [](double lo, double hi) {
    std::ostringstream text;
    text << "ranges over [" << lo << ", " << hi << "]";
    return text.str();
  };
  const auto values_fit = [&](const std::vector<nlohmann::json>& values) -> std::string {
    for (const nlohmann::json& v : values) {
      if (!v.is_number()) return "takes the value " + v.dump();
      if (!fits(p, v.get<double>())) return "takes the value " + v.dump();
    }
    return "";
  };
  if (const auto* c = std::get_if<ConstHp>(&hp)) return values_fit({c->value});
  if (const auto* c = std::get_if<CategoricalHp>(&hp)) return values_fit(c->values);
  if (const auto* i = std::get_if<IntHp>(&hp)) {
    const auto lo = static_cast<double>(i->minval);
    const auto hi = static_cast<double>(i->maxval);
    const bool ok = p.binary ? (lo >= 0 && hi <= 1) : (lo >= p.minval && hi <= p.maxval);
    return ok ? "" : range(lo, hi);
  }
  if (const auto* d = std::get_if<DoubleHp>(&hp)) {
    return !p.binary && d->minval >= p.minval && d->maxval <= p.maxval ? ""
                                                                       : range(d->minval, d->maxval);
  }
  if (const auto* l = std::get_if<LogHp>(&hp)) {
    const double lo = std::pow(l->base, std::min(l->minval, l->maxval));
    const double hi = std::pow(l->base, std::max(l->minval, l->maxval));
    return !p.binary && std::min(lo, hi) >= p.minval && std::max(lo, hi) <= p.maxval
               ? ""
               : range(std::min(lo, hi), std::max(lo, hi));
  }
  return "is a nested map";
}

}  // namespace

void check_workload_parameters(const Workload& workload, const HyperparameterSpace& space) {
  const std::vector<WorkloadParameter> parameters = workload.parameters();
  std::set<std::string> wanted;
  std::string reads;
  for (const WorkloadParameter& p : parameters) {
    wanted.insert(p.name);
    reads += (reads.empty() ? "" : ", ") + p.name + " " +
             (p.binary ? std::string("in {0, 1}") : domain_text(p).substr(9));
  }
  std::set<std::string> given;
  for (const NamedHyperparameter& entry : space.entries()) given.insert(entry.name);
  std::string missing;
  std::string extra;
  for (const std::string& name : wanted) {
    if (!given.contains(name)) missing += (missing.empty() ? "" : ", ") + name;
  }
  for (const std::string& name : given) {
    if (!wanted.contains(name)) extra += (extra.empty() ? "" : ", ") + name;
  }
  const std::string prefix =
      "the config's hyperparameters do not fit workload '" + std::string(workload.name()) + "':";
  if (!missing.empty() || !extra.empty()) {
    std::string message = prefix;
    if (!missing.empty()) message += " missing " + missing + ";";
    if (!extra.empty()) message += " extra " + extra + ";";
    throw std::invalid_argument(message + " it reads " + reads);
  }
  // Every value a trial can get must be a number the workload reads, so that no trial fails
  // in the middle of a run.
  for (const NamedHyperparameter& entry : space.entries()) {
    const auto p = std::find_if(parameters.begin(), parameters.end(),
                                [&](const WorkloadParameter& w) { return w.name == entry.name; });
    if (const std::string why = misfit(*p, entry.value); !why.empty()) {
      throw std::invalid_argument(prefix + " " + entry.name + " " + why + ", but the workload reads " +
                                  domain_text(*p) + " there");
    }
  }
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  if (name == "mf-branin") return make_mf_branin(FidelityConvention::kAllCoefficients);
  if (name == "mf-branin-dragonfly") return make_mf_branin(FidelityConvention::kFirstCoefficient);
  if (name == "mf-hartmann3") return make_mf_hartmann(3, FidelityConvention::kAllCoefficients);
  if (name == "mf-hartmann6") return make_mf_hartmann(6, FidelityConvention::kAllCoefficients);
  if (name == "mf-hartmann3-dragonfly") return make_mf_hartmann(3, FidelityConvention::kFirstCoefficient);
  if (name == "mf-hartmann6-dragonfly") return make_mf_hartmann(6, FidelityConvention::kFirstCoefficient);
  if (name.starts_with("prior-hartmann-")) return make_prior_hartmann(name.substr(15));
  if (name.starts_with("counting-ones-")) {
    const std::string n = name.substr(14);
    if (!n.empty() && n.size() < 4 && std::all_of(n.begin(), n.end(), ::isdigit)) {
      return make_counting_ones(std::stoi(n));
    }
  }
  throw std::invalid_argument(
      "unknown workload '" + name +
      "' (workloads: mf-branin, mf-branin-dragonfly, mf-hartmann3, mf-hartmann6, "
      "mf-hartmann3-dragonfly, mf-hartmann6-dragonfly, prior-hartmann-{default,good,moderate,"
      "bad,terrible}, counting-ones-N)");
}

RunSummary run_simulation(Searcher& searcher, const Workload& workload, std::uint64_t max_length,
                          const RunOptions& options) {
  return Engine(searcher, workload, max_length, options).run();
}

nlohmann::json RunSummary::to_json() const {
  nlohmann::json per_length = nlohmann::json::object();
  for (const auto& [length, count] : validations_per_length) per_length[std::to_string(length)] = count;
  return {{"best_metric", best_metric ? nlohmann::json(*best_metric) : nullptr},
          {"best_found_at", best_found_at},
          {"best_trial", best_trial ? nlohmann::json(best_trial->to_string()) : nullptr},
          {"first_full_length_at",
           first_full_length_at ? nlohmann::json(*first_full_length_at) : nullptr},
          {"trials_created", trials_created},
          {"validations_per_length", std::move(per_length)},
          {"training_units", training_units},
          {"wall_time", wall_time},
          {"utilisation", utilisation},
          {"shutdown", {{"cancel", shutdown.cancel}, {"failure", shutdown.failure}}}};
}

}  // namespace hpsearch
