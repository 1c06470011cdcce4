#include "hpsearch/samplers/observation_store.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {

ObservationStore::ObservationStore(std::size_t dimensions, std::size_t cap,
                                   std::vector<std::uint8_t> categorical)
    : dimensions_(dimensions),
      cap_(std::max<std::size_t>(cap, 2)),
      categorical_(std::move(categorical)) {
  HPSEARCH_ASSERT(categorical_.empty() || categorical_.size() == dimensions_,
                  "sampler: categorical mask of the wrong dimension");
}

double ObservationStore::distance(std::span<const double> a, std::span<const double> b) const {
  double sum = 0;
  for (std::size_t i = 0; i < dimensions_; ++i) {
    if (!categorical_.empty() && categorical_[i] != 0) {
      if (a[i] != b[i]) return std::numeric_limits<double>::infinity();
      continue;
    }
    sum += (a[i] - b[i]) * (a[i] - b[i]);
  }
  return std::sqrt(sum);
}

bool ObservationStore::within(std::span<const double> a, std::span<const double> b,
                              double radius) const {
  return distance(a, b) <= radius;
}

void ObservationStore::add_repeat_distance(double d) {
  if (lower_.empty() || d <= *lower_.rbegin()) {
    lower_.insert(d);
  } else {
    upper_.insert(d);
  }
  if (lower_.size() > upper_.size() + 1) {
    upper_.insert(*lower_.rbegin());
    lower_.erase(std::prev(lower_.end()));
  } else if (upper_.size() > lower_.size()) {
    lower_.insert(*upper_.begin());
    upper_.erase(upper_.begin());
  }
}

double ObservationStore::repeat_radius() const {
  if (lower_.size() + upper_.size() < kMinRepeats) return 0;
  return *lower_.rbegin();
}

void ObservationStore::add_trial(std::uint32_t trial, std::span<const double> point,
                                 bool modelled) {
  HPSEARCH_ASSERT(trial == trials(), "sampler: trials must be added in creation order");
  HPSEARCH_ASSERT(point.size() == dimensions_, "sampler: point of the wrong dimension");
  points_.insert(points_.end(), point.begin(), point.end());
  last_length_.push_back(0);
  last_metric_.push_back(0);
  first_seen_.push_back(kNone);
  pending_slot_.push_back(kNone);
  pending_length_.push_back(0);
  latest_.push_back(kNone);
  modelled_.push_back(modelled ? 1 : 0);
  repeated_.push_back(0);
  if (modelled && first_modelled_ == kNone) first_modelled_ = trial;
}

std::span<const double> ObservationStore::point(std::uint32_t trial) const {
  return {points_.data() + static_cast<std::size_t>(trial) * dimensions_, dimensions_};
}

void ObservationStore::on_pending(std::uint32_t trial, std::uint64_t length) {
  if (trial >= trials()) return;
  pending_length_[trial] = length;
  if (pending_slot_[trial] != kNone) return;
  pending_slot_[trial] = static_cast<std::uint32_t>(pending_.size());
  pending_.push_back(trial);
}

void ObservationStore::on_finished(std::uint32_t trial) {
  if (trial >= trials() || pending_slot_[trial] == kNone) return;
  // Swap-remove: O(1); readers sort, so the order here never matters.
  const std::uint32_t slot = pending_slot_[trial];
  pending_[slot] = pending_.back();
  pending_slot_[pending_[slot]] = slot;
  pending_.pop_back();
  pending_slot_[trial] = kNone;
  pending_length_[trial] = 0;
}

void ObservationStore::insert_best(Level& level, std::uint32_t index) const {
  const std::size_t keep = cap_ / 2;
  // Best first: smaller metric, then the trial observed first (as ranks_before).
  const auto at = std::lower_bound(
      level.best.begin(), level.best.end(), index, [&](std::uint32_t a, std::uint32_t b) {
        const Entry& x = level.all[a];
        const Entry& y = level.all[b];
        return x.metric < y.metric ||
               (x.metric == y.metric && first_seen_[x.trial] < first_seen_[y.trial]);
      });
  if (static_cast<std::size_t>(at - level.best.begin()) >= keep) return;
  level.best.insert(at, index);
  if (level.best.size() > keep) level.best.pop_back();
}

void ObservationStore::observe(std::uint32_t trial, std::uint64_t length, double metric) {
  if (trial >= trials()) return;
  on_finished(trial);
  const double value = std::isnan(metric) ? std::numeric_limits<double>::infinity() : metric;
  HPSEARCH_ASSERT(history_.size() < kNone, "sampler: too many observations");
  history_.push_back(Observation{trial, length, value});
  previous_.push_back(latest_[trial]);
  latest_[trial] = static_cast<std::uint32_t>(history_.size() - 1);
  if (first_seen_[trial] == kNone) {
    first_seen_[trial] = static_cast<std::uint32_t>(observed_.size());
    observed_.push_back(trial);
    if (comparable(trial)) ++comparable_counts_[modelled_[trial]];
    const auto level = levels_.find(length);
    if (level != levels_.end()) {
      const auto same = level->second.metrics.find(value);
      const double apart =
          same == level->second.metrics.end() ? -1 : distance(point(trial), point(same->second));
      if (apart >= 0 && std::isfinite(apart)) {
        repeated_[trial] = 1;
        if (comparable(trial) && modelled_[trial] != 0) ++modelled_repeats_;
        add_repeat_distance(apart);
      }
    }
  }
  if (length >= last_length_[trial]) {
    last_length_[trial] = length;
    last_metric_[trial] = value;
  }
  Level& level = levels_[length];
  level.all.push_back(Entry{trial, value, history_.size() - 1});
  level.metrics.emplace(value, trial);  // keeps the first reporter
  insert_best(level, static_cast<std::uint32_t>(level.all.size() - 1));
}

bool ObservationStore::ranks_before(std::uint32_t a, std::uint32_t b) const {
  if (last_length_[a] != last_length_[b]) return last_length_[a] > last_length_[b];
  if (last_metric_[a] != last_metric_[b]) return last_metric_[a] < last_metric_[b];
  return first_seen_[a] < first_seen_[b];
}

void ObservationStore::leaders(std::size_t count, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (auto it = levels_.rbegin(); it != levels_.rend() && out.size() < count; ++it) {
    const Level& level = it->second;
    for (const std::uint32_t index : level.best) {
      if (out.size() == count) break;
      const Entry& entry = level.all[index];
      // Ranked at its longest length only, by the value it reported there last.
      if (last_length_[entry.trial] == it->first && last_metric_[entry.trial] == entry.metric &&
          std::find(out.begin(), out.end(), entry.trial) == out.end()) {
        out.push_back(entry.trial);
      }
    }
  }
}

void ObservationStore::lengths(std::vector<std::uint64_t>& out) const {
  out.clear();
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) out.push_back(it->first);
}

std::size_t ObservationStore::observations_at(std::uint64_t length) const {
  const auto it = levels_.find(length);
  return it == levels_.end() ? 0 : it->second.all.size();
}

void ObservationStore::leaders_at(std::uint64_t length, std::size_t count,
                                  std::vector<std::uint32_t>& out) const {
  out.clear();
  const auto it = levels_.find(length);
  if (it == levels_.end()) return;
  for (const std::uint32_t index : it->second.best) {
    if (out.size() == count) break;
    const std::uint32_t trial = it->second.all[index].trial;
    // A trial that reported twice at this length is kept once (its best report ranks it).
    if (std::find(out.begin(), out.end(), trial) == out.end()) out.push_back(trial);
  }
}

std::optional<double> ObservationStore::metric_at(std::uint32_t trial, std::uint64_t length) const {
  for (std::uint32_t at = latest_[trial]; at != kNone; at = previous_[at]) {
    const Observation& o = history_[at];
    if (o.length == length) return o.metric;
    if (o.length < length) break;
  }
  return std::nullopt;
}

void ObservationStore::paired_metrics(std::uint64_t shorter, std::uint64_t longer,
                                      std::vector<double>& at_shorter,
                                      std::vector<double>& at_longer) const {
  at_shorter.clear();
  at_longer.clear();
  const auto it = levels_.find(longer);
  if (it == levels_.end()) return;
  const std::vector<Entry>& all = it->second.all;
  // The latest `cap` observations, latest first; a trial's latest one is kept (stable sort by
  // trial keeps that order within a trial), then back in observation order.
  const std::size_t first = all.size() > cap_ ? all.size() - cap_ : 0;
  std::vector<std::size_t> recent;
  for (std::size_t i = all.size(); i > first; --i) recent.push_back(i - 1);
  std::stable_sort(recent.begin(), recent.end(),
                   [&](std::size_t a, std::size_t b) { return all[a].trial < all[b].trial; });
  recent.erase(
      std::unique(recent.begin(), recent.end(),
                  [&](std::size_t a, std::size_t b) { return all[a].trial == all[b].trial; }),
      recent.end());
  std::sort(recent.begin(), recent.end());
  for (const std::size_t i : recent) {
    const std::optional<double> shorter_metric = metric_at(all[i].trial, shorter);
    if (!shorter_metric) continue;
    at_shorter.push_back(*shorter_metric);
    at_longer.push_back(all[i].metric);
  }
}

void ObservationStore::spread(std::size_t count, std::vector<std::uint32_t>& out) const {
  out.clear();
  const std::size_t total = observed_.size();
  if (count == 0 || total == 0) return;
  if (total <= count) {
    out = observed_;
    return;
  }
  for (std::size_t j = 0; j < count; ++j) out.push_back(observed_[j * total / count]);
}

void ObservationStore::model_trials(std::vector<std::uint32_t>& out) const {
  if (observed_.size() <= cap_) {
    out = observed_;
    return;
  }
  std::vector<std::uint32_t> chosen;
  leaders(cap_ / 2, chosen);
  std::vector<std::uint32_t> rest;
  spread(cap_ - chosen.size(), rest);
  std::sort(chosen.begin(), chosen.end());
  const std::size_t lead = chosen.size();
  for (const std::uint32_t trial : rest) {
    if (chosen.size() == cap_) break;
    if (!std::binary_search(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(lead),
                            trial)) {
      chosen.push_back(trial);
    }
  }
  std::sort(chosen.begin(), chosen.end(),
            [&](std::uint32_t a, std::uint32_t b) { return first_seen_[a] < first_seen_[b]; });
  out = std::move(chosen);
}

void ObservationStore::model_observations(std::vector<Observed>& out) const {
  out.clear();
  const auto observed = [&](std::uint64_t order) {
    const Observation& o = history_[order];
    return Observed{o.trial, o.length, o.metric, order};
  };
  if (history_.size() <= cap_) {
    for (std::uint64_t i = 0; i < history_.size(); ++i) out.push_back(observed(i));
    return;
  }
  std::vector<std::uint64_t> chosen;
  for (auto it = levels_.rbegin(); it != levels_.rend() && chosen.size() < cap_ / 2; ++it) {
    for (const std::uint32_t index : it->second.best) {
      if (chosen.size() == cap_ / 2) break;
      chosen.push_back(it->second.all[index].order);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  const std::size_t lead = chosen.size();
  const std::size_t total = history_.size();
  const std::size_t spread = cap_ - lead;
  for (std::size_t j = 0; j < spread; ++j) {
    const std::uint64_t order = j * total / spread;
    if (!std::binary_search(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(lead),
                            order)) {
      chosen.push_back(order);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  for (const std::uint64_t order : chosen) out.push_back(observed(order));
}

void ObservationStore::pending(std::vector<std::uint32_t>& out) const {
  out = pending_;
  std::sort(out.begin(), out.end());
}

nlohmann::json ObservationStore::to_json() const {
  nlohmann::json points = nlohmann::json::array();
  for (std::uint32_t t = 0; t < trials(); ++t) {
    const std::span<const double> p = point(t);
    points.push_back(nlohmann::json(std::vector<double>(p.begin(), p.end())));
  }
  nlohmann::json observations = nlohmann::json::array();
  for (const Observation& o : history_) {
    observations.push_back({o.trial, o.length, metric_to_json(o.metric)});
  }
  nlohmann::json pending = nlohmann::json::array();
  for (const std::uint32_t trial : pending_) pending.push_back({trial, pending_length_[trial]});
  nlohmann::json modelled = nlohmann::json::array();
  for (std::uint32_t t = 0; t < modelled_.size(); ++t) {
    if (modelled_[t] != 0) modelled.push_back(t);
  }
  return {{"points", std::move(points)},
          {"observations", std::move(observations)},
          {"pending", std::move(pending)},
          {"modelled", std::move(modelled)}};
}

void ObservationStore::restore(const nlohmann::json& state) {
  ObservationStore out(dimensions_, cap_, categorical_);
  const nlohmann::json& points = state.at("points");
  if (!points.is_array()) throw ProtocolError("sampler_state.points: expected an array");
  // Which trials a model proposed: before the exploration guard states did not say (none).
  std::vector<bool> modelled(points.size(), false);
  if (const auto it = state.find("modelled"); it != state.end()) {
    if (!it->is_array()) throw ProtocolError("sampler_state.modelled: expected an array");
    for (const nlohmann::json& j : *it) {
      if (!j.is_number_integer() || j.get<std::int64_t>() < 0 ||
          static_cast<std::uint64_t>(j.get<std::int64_t>()) >= points.size()) {
        throw ProtocolError("sampler_state.modelled: trial " + j.dump() + " is not one of the " +
                            std::to_string(points.size()) + " points");
      }
      modelled[static_cast<std::size_t>(j.get<std::int64_t>())] = true;
    }
  }
  std::vector<double> p;
  for (std::size_t t = 0; t < points.size(); ++t) {
    const nlohmann::json& row = points[t];
    if (!row.is_array() || row.size() != dimensions_ ||
        !std::all_of(row.begin(), row.end(), [](const nlohmann::json& x) {
          return x.is_number() && x.get<double>() >= 0 && x.get<double>() <= 1;
        })) {
      throw ProtocolError("sampler_state.points[" + std::to_string(t) + "]: expected " +
                          std::to_string(dimensions_) + " numbers in [0, 1], got " + row.dump());
    }
    p.assign(row.begin(), row.end());
    out.add_trial(static_cast<std::uint32_t>(t), p, modelled[t]);
  }
  // Non-negative integers, however the JSON holds them (parsed text gives unsigned, values
  // built in C++ may be signed).
  const auto count_of = [](const nlohmann::json& j) -> std::optional<std::uint64_t> {
    if (j.is_number_unsigned()) return j.get<std::uint64_t>();
    if (j.is_number_integer() && j.get<std::int64_t>() >= 0) {
      return static_cast<std::uint64_t>(j.get<std::int64_t>());
    }
    return std::nullopt;
  };
  const auto trial_of = [&](const nlohmann::json& j, const std::string& where) {
    const std::optional<std::uint64_t> trial = count_of(j);
    if (!trial || *trial >= out.trials()) {
      throw ProtocolError(where + ": trial " + j.dump() + " is not one of the " +
                          std::to_string(out.trials()) + " points");
    }
    return static_cast<std::uint32_t>(*trial);
  };
  const auto length_of = [&](const nlohmann::json& j, const std::string& where) {
    const std::optional<std::uint64_t> length = count_of(j);
    if (!length || *length == 0) {
      throw ProtocolError(where + ": length " + j.dump() + " is not an integer >= 1");
    }
    return *length;
  };
  for (const nlohmann::json& entry : state.at("observations")) {
    const std::uint32_t trial = trial_of(entry.at(0), "sampler_state.observations");
    const std::uint64_t length = length_of(entry.at(1), "sampler_state.observations");
    const std::optional<double> metric = metric_from_json(entry.at(2));
    if (!metric) {
      throw ProtocolError("sampler_state.observations: bad metric " + entry.at(2).dump());
    }
    out.observe(trial, length, *metric);
  }
  for (const nlohmann::json& entry : state.at("pending")) {
    out.on_pending(trial_of(entry.at(0), "sampler_state.pending"),
                   length_of(entry.at(1), "sampler_state.pending"));
  }
  *this = std::move(out);
}

}  // namespace hpsearch
