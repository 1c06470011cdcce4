#include "hpsearch/samplers/observation_store.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {
bool better(const Observed& a, const Observed& b) {
  return a.metric < b.metric || (a.metric == b.metric && a.order < b.order);
}
}  // namespace

ObservationStore::ObservationStore(std::size_t dimensions, std::size_t cap)
    : dimensions_(dimensions), cap_(std::max<std::size_t>(cap, 2)) {}

void ObservationStore::add_trial(std::uint32_t trial, std::span<const double> point) {
  HPSEARCH_ASSERT(trial == trials(), "sampler: trials must be added in creation order");
  HPSEARCH_ASSERT(point.size() == dimensions_, "sampler: point of the wrong dimension");
  points_.insert(points_.end(), point.begin(), point.end());
  last_observed_.push_back(0);
  pending_length_.push_back(0);
  pending_slot_.push_back(kNotPending);
}

std::span<const double> ObservationStore::point(std::uint32_t trial) const {
  return {points_.data() + static_cast<std::size_t>(trial) * dimensions_, dimensions_};
}

void ObservationStore::on_pending(std::uint32_t trial, std::uint64_t length) {
  if (trial >= trials()) return;
  pending_length_[trial] = length;
  if (pending_slot_[trial] != kNotPending) return;
  pending_slot_[trial] = static_cast<std::uint32_t>(pending_.size());
  pending_.push_back(trial);
}

void ObservationStore::on_finished(std::uint32_t trial) {
  if (trial >= trials() || pending_slot_[trial] == kNotPending) return;
  pending_length_[trial] = 0;
  // Swap-remove: O(1); pending_below sorts, so the order here never matters.
  const std::uint32_t slot = pending_slot_[trial];
  pending_[slot] = pending_.back();
  pending_slot_[pending_[slot]] = slot;
  pending_.pop_back();
  pending_slot_[trial] = kNotPending;
}

void ObservationStore::insert_best(Level& level, std::uint32_t index) const {
  const std::size_t keep = cap_ / 2;
  const auto at = std::lower_bound(
      level.best.begin(), level.best.end(), index,
      [&](std::uint32_t a, std::uint32_t b) { return better(level.all[a], level.all[b]); });
  if (static_cast<std::size_t>(at - level.best.begin()) >= keep) return;
  level.best.insert(at, index);
  if (level.best.size() > keep) level.best.pop_back();
}

void ObservationStore::observe(std::uint32_t trial, std::uint64_t length, double metric) {
  if (trial >= trials()) return;
  on_finished(trial);
  last_observed_[trial] = std::max(last_observed_[trial], length);
  Level& level = levels_[length];
  const double value = std::isnan(metric) ? std::numeric_limits<double>::infinity() : metric;
  level.all.push_back(Observed{trial, value, level.all.size()});
  insert_best(level, static_cast<std::uint32_t>(level.all.size() - 1));
}

std::uint64_t ObservationStore::count(std::uint64_t length) const {
  const auto it = levels_.find(length);
  return it == levels_.end() ? 0 : it->second.all.size();
}

std::optional<std::uint64_t> ObservationStore::model_length(std::uint64_t minimum) const {
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    if (it->second.all.size() >= std::max<std::uint64_t>(minimum, 1)) return it->first;
  }
  return std::nullopt;
}

void ObservationStore::data(std::uint64_t length, std::vector<Observed>& out) const {
  out.clear();
  const auto it = levels_.find(length);
  if (it == levels_.end()) return;
  const Level& level = it->second;
  if (level.all.size() <= cap_) {
    out = level.all;
    return;
  }
  std::vector<std::uint32_t> chosen = level.best;
  std::sort(chosen.begin(), chosen.end());
  const std::size_t best = chosen.size();
  for (std::size_t i = level.all.size(); i-- > 0 && chosen.size() < cap_;) {
    const auto index = static_cast<std::uint32_t>(i);
    if (!std::binary_search(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(best),
                            index)) {
      chosen.push_back(index);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  out.reserve(chosen.size());
  for (const std::uint32_t index : chosen) out.push_back(level.all[index]);
}

void ObservationStore::pending_below(std::uint64_t length, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (const std::uint32_t trial : pending_) {
    if (last_observed_[trial] < length) out.push_back(trial);
  }
  std::sort(out.begin(), out.end());
}

nlohmann::json ObservationStore::to_json() const {
  nlohmann::json points = nlohmann::json::array();
  for (std::uint32_t t = 0; t < trials(); ++t) {
    const std::span<const double> p = point(t);
    points.push_back(nlohmann::json(std::vector<double>(p.begin(), p.end())));
  }
  nlohmann::json observations = nlohmann::json::array();
  for (const auto& [length, level] : levels_) {
    nlohmann::json entries = nlohmann::json::array();
    for (const Observed& o : level.all) entries.push_back({o.trial, metric_to_json(o.metric)});
    observations.push_back({length, std::move(entries)});
  }
  nlohmann::json pending = nlohmann::json::array();
  for (const std::uint32_t trial : pending_) pending.push_back({trial, pending_length_[trial]});
  return {{"points", std::move(points)},
          {"observations", std::move(observations)},
          {"pending", std::move(pending)}};
}

void ObservationStore::restore(const nlohmann::json& state) {
  ObservationStore out(dimensions_, cap_);
  const nlohmann::json& points = state.at("points");
  if (!points.is_array()) throw ProtocolError("sampler_state.points: expected an array");
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
    out.add_trial(static_cast<std::uint32_t>(t), p);
  }
  const auto trial_of = [&](const nlohmann::json& j, const std::string& where) {
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() >= out.trials()) {
      throw ProtocolError(where + ": trial " + j.dump() + " is not one of the " +
                          std::to_string(out.trials()) + " points");
    }
    return j.get<std::uint32_t>();
  };
  for (const nlohmann::json& level : state.at("observations")) {
    const auto length = level.at(0).get<std::uint64_t>();
    for (const nlohmann::json& entry : level.at(1)) {
      const std::uint32_t trial = trial_of(entry.at(0), "sampler_state.observations");
      const std::optional<double> metric = metric_from_json(entry.at(1));
      if (!metric) {
        throw ProtocolError("sampler_state.observations: bad metric " + entry.at(1).dump());
      }
      out.observe(trial, length, *metric);
    }
  }
  for (const nlohmann::json& entry : state.at("pending")) {
    out.on_pending(trial_of(entry.at(0), "sampler_state.pending"), entry.at(1).get<std::uint64_t>());
  }
  *this = std::move(out);
}

}  // namespace hpsearch
