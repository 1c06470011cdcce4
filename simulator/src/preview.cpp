#include "hpsearch/simulator/preview.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

#include "hpsearch/searcher/request_id_index.hpp"
#include "hpsearch/simulator/drive.hpp"

namespace hpsearch {
namespace {

// Progress is a ratio of sums of doubles; allow rounding noise in the self-checks.
constexpr double kProgressTolerance = 1e-9;

struct TrialQueue {
  std::vector<Operation> ops;
  std::size_t head = 0;
  std::uint64_t number = 0;            // 1-based order in which its Create was processed
  std::vector<std::uint64_t> lengths;  // validations completed, until the trial is counted
  bool counted = false;                // in the result (at its Close, or at the end)
  [[nodiscard]] bool empty() const { return head == ops.size(); }
};

class Simulation {
 public:
  Simulation(Searcher& searcher, const PreviewOptions& options)
      : searcher_(searcher), options_(options), rng_(options.seed) {}

  PreviewResult run() {
    dispatch(searcher_.initial_operations(), nlohmann::json{{"event", "initial_operations"}});
    const double start = searcher_.progress();
    // A search that requested nothing (an empty grid) is already over, at progress 1.
    if (!shut_down_ && std::abs(start) > kProgressTolerance) {
      throw SimulationError("initial searcher progress started at " + std::to_string(start));
    }
    last_progress_ = start;
    while (!shut_down_) {
      if (ready_.empty()) {
        throw SimulationError(
            "the search stopped without a shutdown: no trial has an "
            "operation pending");
      }
      step(pick());
    }
    if (!ready_.empty()) {
      throw SimulationError("the searcher shut down with operations still pending");
    }
    for (TrialQueue& trial : queues_) {  // trials the search ended without closing
      if (!trial.counted) count(trial);
    }
    result_.progress = searcher_.progress();
    if (std::abs(result_.progress - 1.0) > kProgressTolerance) {
      throw SimulationError("searcher progress ended at " + std::to_string(result_.progress) +
                            ", not 1");
    }
    return std::move(result_);
  }

 private:
  std::size_t pick() {
    if (options_.order == PickOrder::kFifo) return *ready_.begin();
    std::vector<std::size_t> candidates(ready_.begin(), ready_.end());
    std::sort(candidates.begin(), candidates.end(),
              [&](std::size_t a, std::size_t b) { return ids_[a] < ids_[b]; });
    boost::random::uniform_int_distribution<std::size_t> index(0, candidates.size() - 1);
    return candidates[index(rng_)];
  }

  double metric_for(const TrialQueue& trial) {
    switch (options_.metric) {
      case PreviewMetric::kConstant:
        return 1.0;
      case PreviewMetric::kRandom:
        return boost::random::uniform_real_distribution<double>(0.0, 1.0)(rng_);
      case PreviewMetric::kTrialId:
        return static_cast<double>(trial.number);
    }
    return 1.0;
  }

  // Handling an event may create trials and grow queues_, so the trial is re-indexed after
  // every call rather than held by reference.
  void step(std::size_t index) {
    const Operation op = queues_[index].ops[queues_[index].head++];
    const RequestId id = ids_[index];
    if (std::holds_alternative<Create>(op)) {
      queues_[index].number = ++created_;
      handle(TrialCreated{id});
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      queues_[index].lengths.push_back(validate->length);
      const double metric = metric_for(queues_[index]);
      handle(TrialProgress{id, static_cast<double>(validate->length)});
      handle(ValidationCompleted{id, metric, validate->length});
    } else if (std::holds_alternative<Close>(op)) {
      queues_[index].head = queues_[index].ops.size();
      count(queues_[index]);
      handle(TrialClosed{id});
    }
    TrialQueue& trial = queues_[index];
    if (trial.empty()) {
      std::vector<Operation>().swap(trial.ops);  // a drained trial keeps no memory
      trial.head = 0;
      ready_.erase(index);
    }
  }

  // A closed trial trains no more: its sequence goes into the result and its memory is freed.
  void count(TrialQueue& trial) {
    result_.add_trial(trial.lengths);
    std::vector<std::uint64_t>().swap(trial.lengths);
    trial.counted = true;
  }

  void handle(const Event& event) {
    dispatch(searcher_.handle(event), nlohmann::json(event));
    const double now = searcher_.progress();
    if (now < last_progress_ - kProgressTolerance) {
      throw SimulationError("searcher progress dropped from " + std::to_string(last_progress_) +
                            " to " + std::to_string(now));
    }
    last_progress_ = now;
  }

  void dispatch(const std::vector<Operation>& ops, const nlohmann::json& in) {
    if (options_.trace != nullptr) {
      *options_.trace << json_line({{"in", in}, {"out", operations_answer(ops)}}) << '\n';
    }
    for (const Operation& op : ops) {
      if (const auto* shutdown = std::get_if<Shutdown>(&op)) {
        shut_down_ = true;
        result_.shutdown = *shutdown;
        continue;
      }
      const RequestId& id = *request_id_of(op);
      std::size_t index = 0;
      if (std::holds_alternative<Create>(op)) {
        index = ids_.size();
        index_.insert(id, static_cast<std::uint32_t>(index));
        ids_.push_back(id);
        ++result_.trials;
        queues_.emplace_back();
      } else {
        index = *index_.find(id);  // the Searcher only operates on trials it created
      }
      queues_[index].ops.push_back(op);
      ready_.insert(index);
    }
  }

  Searcher& searcher_;
  const PreviewOptions& options_;
  boost::random::mt19937 rng_;
  PreviewResult result_;
  std::vector<TrialQueue> queues_;
  std::vector<RequestId> ids_;  // by creation order, as queues_
  RequestIdIndex index_;
  std::set<std::size_t> ready_;  // trials with pending operations, in creation order
  std::uint64_t created_ = 0;
  double last_progress_ = 0;
  bool shut_down_ = false;
};

std::string join_lengths(const std::vector<std::uint64_t>& lengths) {
  std::string key;
  for (const std::uint64_t length : lengths) {
    if (!key.empty()) key += ' ';
    key += std::to_string(length);
  }
  return key;
}

}  // namespace

PreviewResult simulate(Searcher& searcher, const PreviewOptions& options) {
  return Simulation(searcher, options).run();
}

void PreviewResult::add_trial(const std::vector<std::uint64_t>& lengths, std::uint64_t count) {
  sequences[join_lengths(lengths)] += count;
}

PreviewResult grid_preview(const GridSearch& grid) {
  PreviewResult result;
  result.trials = grid.points();
  if (grid.points() > 0) result.add_trial({grid.max_length()}, grid.points());
  result.shutdown = Shutdown{.cancel = false, .failure = false};
  result.progress = 1.0;
  return result;
}

nlohmann::json PreviewResult::to_json() const {
  nlohmann::json results = nlohmann::json::object();
  for (const auto& [key, count] : sequences) results[key] = count;
  return {{"results", std::move(results)},
          {"trials", trials},
          {"shutdown", {{"cancel", shutdown.cancel}, {"failure", shutdown.failure}}},
          {"progress", progress}};
}

void print_preview_header(const SearcherSettings& searcher, std::uint32_t seed, std::ostream& out,
                          const SamplerChoice* choice) {
  const std::string& unit = searcher.max_length.unit;
  out << "Using search configuration: searcher '" << method_name(searcher.method) << "', sampler '"
      << sampler_name(searcher.sampler) << "', metric '" << searcher.metric << "' ("
      << (searcher.smaller_is_better ? "smaller" : "larger") << " is better), max_length "
      << searcher.max_length.units << (unit.empty() ? "" : " " + unit) << ", seed " << seed << "\n";
  if (choice != nullptr && !choice->reason.empty()) out << sampler_choice_line(*choice) << "\n";
  if (choice != nullptr) {
    if (const std::string caution = sampler_caution(*choice, searcher.method); !caution.empty())
      out << caution << "\n";
  }
  out << "\n";
}

void print_preview_table(const PreviewResult& result, const std::string& unit, std::ostream& out) {
  out << "This search will create a total of " << result.trials << " trial(s).\n";
  const std::string suffix = unit.empty() ? "" : " " + unit;
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& [key, count] : result.sequences) {
    std::istringstream lengths(key);
    std::vector<std::string> parts;
    for (std::string length; lengths >> length;) parts.push_back(length);
    std::string text;
    for (std::size_t i = 0; i < parts.size();) {
      std::size_t run = 1;
      while (i + run < parts.size() && parts[i + run] == parts[i]) ++run;
      if (!text.empty()) text += ", ";
      text += std::to_string(run);
      text += " x train to ";
      text += parts[i];
      text += suffix;
      i += run;
    }
    rows.emplace_back(std::to_string(count), text.empty() ? "N/A" : text);
  }
  std::size_t width = 6;            // "Trials"
  std::size_t breakdown_width = 9;  // "Breakdown"
  for (const auto& [count, text] : rows) {
    width = std::max(width, count.size());
    breakdown_width = std::max(breakdown_width, text.size());
  }
  out << ' ' << std::setw(static_cast<int>(width)) << "Trials"
      << " | Breakdown\n";
  out << std::string(width + 2, '-') << '+' << std::string(breakdown_width + 2, '-') << '\n';
  for (const auto& [count, text] : rows) {
    out << ' ' << std::setw(static_cast<int>(width)) << count << " | " << text << '\n';
  }
}

}  // namespace hpsearch
