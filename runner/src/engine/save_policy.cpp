// checkpoint_storage's save policy (engine/experiment_impl.hpp): which checkpoints of a
// finished trial stay, under the model registry's lock.
#include "engine/experiment_impl.hpp"

#include <algorithm>
#include <cmath>

namespace hpsearch::runner_detail {

// The config's save policy for a finished trial: its latest `save_trial_latest` and best
// `save_trial_best` checkpoints stay (best by the searcher metric reported at the
// checkpoint's steps), the rest are deleted unless `protect` says they are among the
// experiment's best, or they are model versions in the store's registry. False when the
// registry is locked elsewhere and `wait` is false: nothing was done, try again later.
bool Experiment::collect_garbage(std::uint32_t i,
                                 const std::function<bool(const std::string&)>& protect,
                                 bool wait) {
  TrialRecord& t = trials_[i];
  const std::size_t n = t.stored.size();
  std::vector<bool> keep(n, false);
  for (std::size_t k = n - std::min<std::size_t>(n, save_policy_.trial_latest); k < n; ++k)
    keep[k] = true;
  std::vector<std::pair<double, std::size_t>> ranked;
  const double sign = config_.searcher.smaller_is_better ? 1 : -1;
  for (std::size_t k = 0; k < n; ++k) {
    if (const auto metric = metrics_.searcher_metric_at(i, t.stored[k].length);
        metric && !std::isnan(*metric)) {
      ranked.emplace_back(sign * *metric, k);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end());
  for (std::size_t r = 0; r < std::min<std::size_t>(ranked.size(), save_policy_.trial_best); ++r)
    keep[ranked[r].second] = true;
  std::vector<std::string> doomed;
  for (std::size_t k = 0; k < n; ++k) {
    if (!keep[k] && !protect(t.stored[k].storage_id)) doomed.push_back(t.stored[k].storage_id);
  }
  if (doomed.empty()) return true;
  // The registry stays locked from its reading to the last deletion: a version registered
  // meanwhile would name a checkpoint about to go (registering checks that it exists).
  std::optional<RunnerOptions::LockedRegistry> registry;
  if (options_.lock_registry) {
    try {
      registry = options_.lock_registry(wait);
    } catch (const std::exception& e) {
      report_.log(name(i) +
                  ": its checkpoints are kept, the model registry cannot be read: " + e.what());
      return true;
    }
    if (!registry) return false;
    std::erase_if(doomed, [&](const std::string& id) {
      return registry->registered_checkpoints.contains(id);
    });
  }
  // Recorded as deleted (and synced: a batch's sync is brought forward) before the files go.
  for (const std::string& id : doomed) {
    append_runner_record("checkpoint_deleted",
                         {{"request_id", t.id.to_string()}, {"storage_id", id}});
  }
  searcher_.sync_held();
  for (const std::string& id : doomed) {
    std::error_code ignored;
    fs::remove_all(storage_ / id, ignored);
    forget_checkpoint(i, id);
  }
  if (!doomed.empty()) {
    report_.log(name(i) + ": deleted " + std::to_string(doomed.size()) +
                (doomed.size() == 1 ? " checkpoint" : " checkpoints") +
                " its save policy does not keep");
  }
  return true;
}

// A closed trial's save policy without waiting for the model registry's lock; false: another
// process holds it, and retry_deferred_garbage applies the policy on a later pass.
bool Experiment::try_closed_garbage(std::uint32_t i) {
  const std::set<std::string> held = warm_start_holds();
  return collect_garbage(
      i, [&](const std::string& id) { return held.contains(id); }, false);
}

void Experiment::collect_garbage_of_closed(std::uint32_t i) {
  if (!try_closed_garbage(i)) deferred_garbage_.push_back(i);
}

void Experiment::retry_deferred_garbage() {
  while (!deferred_garbage_.empty() && try_closed_garbage(deferred_garbage_.front()))
    deferred_garbage_.pop_front();
}

// The experiment's best `save_experiment_best` checkpoints, by their searcher metric.
std::set<std::string> Experiment::experiment_best_checkpoints() const {
  std::vector<std::pair<double, std::string>> ranked;
  const double sign = config_.searcher.smaller_is_better ? 1 : -1;
  for (std::uint32_t i = 0; i < trials_.size(); ++i) {
    for (const Checkpoint& c : trials_[i].stored) {
      if (const auto metric = metrics_.searcher_metric_at(i, c.length);
          metric && !std::isnan(*metric)) {
        ranked.emplace_back(sign * *metric, c.storage_id);
      }
    }
  }
  std::sort(ranked.begin(), ranked.end());
  std::set<std::string> best;
  for (std::size_t r = 0; r < std::min<std::size_t>(ranked.size(), save_policy_.experiment_best);
       ++r)
    best.insert(ranked[r].second);
  return best;
}

}  // namespace hpsearch::runner_detail
