#include "hpsearch/methods/asha.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "exited_metric.hpp"
#include "hpsearch/methods/method_state.hpp"
#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/go_math.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {

using method_detail::kExitedMetric;  // Determined's MaxFloat64 for an early exit

// Go's int(float64(n) / divisor): truncation toward zero.
std::uint64_t divide(std::uint64_t n, double divisor) {
  return static_cast<std::uint64_t>(static_cast<double>(n) / divisor);
}

std::string type_name(const AshaConfig& config) {
  return config.stop_once ? "asha_stopping" : "asha";
}

}  // namespace

std::vector<std::uint64_t> asha_rung_lengths(std::uint64_t max_length, std::uint64_t num_rungs,
                                             double divisor) {
  std::vector<std::uint64_t> lengths;
  lengths.reserve(num_rungs);
  for (std::uint64_t i = 0; i < num_rungs; ++i) {
    const double scale = go::pow(divisor, static_cast<double>(num_rungs - 1 - i));
    const double length = static_cast<double>(max_length) / scale;
    lengths.push_back(std::max<std::uint64_t>(static_cast<std::uint64_t>(length), 1));
  }
  return lengths;
}

AshaSearch::AshaSearch(const AshaConfig& config)
    : config_(config),
      lengths_(asha_rung_lengths(config.max_length, config.num_rungs, config.divisor)) {
  const TiePolicy policy =
      config.stop_once ? TiePolicy::kNewcomerBefore : TiePolicy::kNewcomerAfter;
  for (const std::uint64_t length : lengths_) {
    rungs_.push_back(RungState{Rung(policy), length, 0, {}});
  }
}

std::uint32_t AshaSearch::local(std::uint32_t global) const {
  HPSEARCH_ASSERT(global < local_.size() && local_[global] != kNone,
                  "ASHA event for a trial it did not create");
  return local_[global];
}

void AshaSearch::add_trial(const RequestId& id, std::uint32_t global) {
  if (local_.size() <= global) local_.resize(global + 1, kNone);
  local_[global] = static_cast<std::uint32_t>(trials_.size());
  trials_.push_back(Trial{id, global, 0, kNone, false, false});
}

Explanation AshaSearch::explain(Explanation::Reason reason, std::uint64_t rung, std::uint64_t rank,
                                std::uint64_t size, std::uint64_t cutoff, double metric) const {
  // Canonical, as ranked; the Searcher shows it in the user's direction.
  return Explanation{reason, rung, lengths_[rung], rank, size, cutoff, metric};
}

void AshaSearch::create_trial(std::vector<Operation>& ops, SearchContext& ctx) {
  Create create = sample_create(ctx);
  const RequestId id = create.request_id;
  add_trial(id, create.trial_index);
  ops.emplace_back(std::move(create));
  ops.emplace_back(ValidateAfter{id, lengths_[0]});
}

std::vector<Operation> AshaSearch::initial_operations(SearchContext& ctx) {
  std::uint64_t n = 0;
  if (config_.max_concurrent_trials > 0) {
    n = std::min(config_.max_concurrent_trials, config_.max_trials);
  } else {
    // clamp(1, int(divisor^(R-1)), max_trials), guarding the conversion of a huge power.
    const double spread = go::pow(config_.divisor, static_cast<double>(config_.num_rungs - 1));
    n = spread >= static_cast<double>(config_.max_trials)
            ? config_.max_trials
            : std::max<std::uint64_t>(static_cast<std::uint64_t>(spread), 1);
  }
  std::vector<Operation> ops;
  ops.reserve(2 * n);
  for (std::uint64_t i = 0; i < n; ++i) create_trial(ops, ctx);
  return ops;
}

std::vector<Operation> AshaSearch::on_event(const TrialCreated&, SearchContext& ctx) {
  Trial& trial = trials_[local(ctx.trial)];
  trial.rung = 0;
  ++rungs_[0].outstanding;
  return {};
}

std::vector<Operation> AshaSearch::on_event(const ValidationCompleted& event, SearchContext& ctx) {
  // The Searcher hands methods canonical metrics (smaller is better, NaN as +infinity).
  return promote(local(ctx.trial), event.metric, ctx);
}

std::vector<Operation> AshaSearch::on_event(const TrialClosed&, SearchContext& ctx) {
  ++trials_completed_;
  trials_[local(ctx.trial)].closed = true;
  return {};
}

std::vector<Operation> AshaSearch::on_event(const TrialExitedEarly& event, SearchContext& ctx) {
  const std::uint32_t index = local(ctx.trial);
  Trial& trial = trials_[index];
  const bool already_closed = trial.closed;
  trial.early_exited = true;
  trial.closed = true;
  if (event.reason != ExitedReason::kInvalidHp && event.reason != ExitedReason::kInitInvalidHp) {
    // A trial that was not training (it reported at its rung and waits, or was told to close)
    // already has its metric in its rung. Determined records it a second time and counts its
    // rung's outstanding trials down twice, which can stop close-out for good and hang the
    // search; hpsearch records nothing more (docs/asha.md, deviations).
    if (reported_at_current_rung(trial)) return {};
    return promote(index, kExitedMetric, ctx);
  }
  // Invalid hyperparameters: forget the trial's metrics and replace it outside max_trials.
  std::vector<Operation> ops;
  if (!already_closed) {
    ops.emplace_back(Close{
        trial.id, explain(Explanation::Reason::kInvalidHyperparameters, trial.rung, 0, 0, 0, 0)});
  }
  ++invalid_trials_;
  // Only a trial that was training counts as outstanding (see above).
  if (!config_.stop_once && !reported_at_current_rung(trial)) --rungs_[trial.rung].outstanding;
  remove_entries(trial, trial.rung);
  create_trial(ops, ctx);
  return ops;
}

bool AshaSearch::reported_at_current_rung(const Trial& trial) const {
  // Entries are recorded rung by rung, so the newest one tells.
  if (trial.last_entry == kNone) return false;
  const EntryLink& newest = links_[trial.last_entry];
  return !newest.removed && newest.rung == trial.rung;
}

void AshaSearch::remove_entries(Trial& trial, std::uint64_t up_to_rung) {
  // Determined removes the first matching entry of each rung 0..h; the first is the one that
  // ranks highest, i.e. the smallest key.
  for (std::uint64_t r = 0; r <= up_to_rung; ++r) {
    EntryLink* first = nullptr;
    for (std::uint32_t at = trial.last_entry; at != kNone; at = links_[at].previous) {
      EntryLink& link = links_[at];
      if (!link.removed && link.rung == r && (first == nullptr || link.key < first->key)) {
        first = &link;
      }
    }
    if (first == nullptr) continue;
    rungs_[r].rung.erase(first->key);
    first->removed = true;
  }
}

void AshaSearch::record(std::uint32_t trial, std::uint64_t rung, double metric, bool promoted) {
  const Rung::Key key = rungs_[rung].rung.insert(trial, metric, promoted);
  links_.push_back(
      EntryLink{key, static_cast<std::uint32_t>(rung), trials_[trial].last_entry, false});
  trials_[trial].last_entry = static_cast<std::uint32_t>(links_.size() - 1);
  if (!promoted && !config_.stop_once) rungs_[rung].close_candidates.push_back(key);
}

// Determined's promote, shared by both variants: the top rung finishes the trial; below it
// the variant decides; a report that did not move a trial up frees a slot for a new trial.
std::vector<Operation> AshaSearch::promote(std::uint32_t index, double metric, SearchContext& ctx) {
  const std::uint64_t r = trials_[index].rung;
  --rungs_[r].outstanding;
  std::vector<Operation> ops;
  bool added = false;
  if (r + 1 == rungs_.size()) {
    record(index, r, metric, false);
    Trial& trial = trials_[index];
    // A closed trial gets no operation: that covers early-exited trials (as in Determined)
    // and a trial close-out had closed before a reopened rung promoted it.
    if (!trial.closed) {
      ops.emplace_back(
          Close{trial.id, explain(Explanation::Reason::kFinished, r, 0, 0, 0, metric)});
      trial.closed = true;
    }
  } else if (config_.stop_once) {
    added = continue_or_stop(index, r, metric, ops);
  } else {
    const RungStep step = promote_async(index, r, metric, ops);
    // A promoted trial that has already stopped reports the worst metric at once, and this
    // report's own bookkeeping is left to that call (Determined returns its result). Determined
    // does this for early-exited trials only and sends a closed one a validate_after that its
    // master drops; hpsearch treats both alike and sends nothing (docs/asha.md).
    if (step.stopped_promotion) return promote(*step.stopped_promotion, kExitedMetric, ctx);
    added = step.added;
  }
  if (!added && valid_trials() < config_.max_trials) create_trial(ops, ctx);
  if (!config_.stop_once && rungs_[0].rung.size() == config_.max_trials) close_out(ops);
  return ops;
}

AshaSearch::RungStep AshaSearch::promote_async(std::uint32_t index, std::uint64_t r, double metric,
                                               std::vector<Operation>& ops) {
  // promotionsAsync: the newcomer is promoted if it ranks within the top int((n+1)/d);
  // otherwise, if that count just grew, the best unpromoted entry at index int(n/d) is.
  RungState& here = rungs_[r];
  const std::uint64_t n = here.rung.size();
  const std::uint64_t before = divide(n, config_.divisor);
  const std::uint64_t after = divide(n + 1, config_.divisor);
  const std::uint64_t rank = here.rung.rank_of(here.rung.newcomer_key(metric));
  const bool now = rank < after;
  record(index, r, metric, now);
  std::optional<std::uint32_t> promoted;
  std::uint64_t promoted_rank = rank;
  double promoted_metric = metric;
  if (now) {
    promoted = index;
  } else if (after != before) {
    const Rung::Entry entry = here.rung.at(before);
    if (!entry.promoted) {
      here.rung.set_promoted(before);
      promoted = entry.trial;
      promoted_rank = before;
      promoted_metric = entry.metric;
    }
  }
  if (!promoted) return {};
  Trial& next = trials_[*promoted];
  next.rung = static_cast<std::uint32_t>(r + 1);
  ++rungs_[r + 1].outstanding;
  if (next.early_exited || next.closed) return RungStep{false, promoted};
  ops.emplace_back(ValidateAfter{next.id, lengths_[r + 1],
                                 explain(Explanation::Reason::kPromoted, r, promoted_rank + 1,
                                         n + 1, after, promoted_metric)});
  return RungStep{true, std::nullopt};
}

bool AshaSearch::continue_or_stop(std::uint32_t index, std::uint64_t r, double metric,
                                  std::vector<Operation>& ops) {
  // continueTraining: continue within the top max(int((n+1)/d), 1), the newcomer before
  // equal metrics. Recorded even for early-exited trials, as their worst value.
  RungState& here = rungs_[r];
  const std::uint64_t n = here.rung.size();
  const std::uint64_t top = std::max<std::uint64_t>(divide(n + 1, config_.divisor), 1);
  const std::uint64_t rank = here.rung.rank_of(here.rung.newcomer_key(metric));
  const bool keep = rank < top;
  record(index, r, metric, keep);
  Trial& trial = trials_[index];
  if (trial.early_exited) return false;
  if (!keep) {
    ops.emplace_back(
        Close{trial.id, explain(Explanation::Reason::kStopped, r, rank + 1, n + 1, top, metric)});
    trial.closed = true;
    return false;
  }
  trial.rung = static_cast<std::uint32_t>(r + 1);
  ++rungs_[r + 1].outstanding;
  ops.emplace_back(
      ValidateAfter{trial.id, lengths_[r + 1],
                    explain(Explanation::Reason::kContinued, r, rank + 1, n + 1, top, metric)});
  return true;
}

void AshaSearch::close_out(std::vector<Operation>& ops) {
  // Determined walks every entry of every settled rung on every report once rung 0 is full;
  // an entry can only ever be closed once, so only entries recorded unpromoted since the last
  // walk are visited: amortised O(log n) per report.
  for (std::uint64_t r = 0; r < rungs_.size(); ++r) {
    RungState& rung = rungs_[r];
    if (rung.outstanding > 0) break;
    std::sort(rung.close_candidates.begin(), rung.close_candidates.end());
    for (const Rung::Key& key : rung.close_candidates) {
      const std::optional<Rung::Entry> entry = rung.rung.find(key);
      if (!entry || entry->promoted) continue;
      Trial& trial = trials_[entry->trial];
      if (trial.closed || trial.early_exited) continue;
      const std::uint64_t size = rung.rung.size();
      ops.emplace_back(
          Close{trial.id, explain(Explanation::Reason::kNotPromoted, r, rung.rung.rank_of(key) + 1,
                                  size, divide(size, config_.divisor), entry->metric)});
      trial.closed = true;
    }
    rung.close_candidates.clear();
  }
}

double AshaSearch::progress(const ProgressTotals&) const {
  const auto in_first_rung = static_cast<double>(rungs_[0].rung.size());
  const auto max_trials = static_cast<double>(config_.max_trials);
  double p = in_first_rung / (1.2 * max_trials);
  if (rungs_[0].rung.size() == config_.max_trials) {
    const double done =
        (static_cast<double>(trials_completed_) - static_cast<double>(invalid_trials_)) /
        max_trials;
    p = std::max(p, done);
  }
  return p;
}

std::vector<std::uint32_t> AshaSearch::trial_indexes() const {
  std::vector<std::uint32_t> indexes;
  indexes.reserve(trials_.size());
  for (const Trial& trial : trials_) indexes.push_back(trial.global);
  return indexes;
}

nlohmann::json AshaSearch::state() const {
  nlohmann::json trials = nlohmann::json::array();
  for (const Trial& trial : trials_) {
    trials.push_back({{"request_id", trial.id.to_string()},
                      {"rung", trial.rung},
                      {"early_exit", trial.early_exited},
                      {"closed", trial.closed}});
  }
  nlohmann::json rungs = nlohmann::json::array();
  for (const RungState& rung : rungs_) {
    nlohmann::json metrics = nlohmann::json::array();
    rung.rung.for_each([&](const Rung::Key&, const Rung::Entry& entry) {
      metrics.push_back(
          {trials_[entry.trial].id.to_string(), metric_to_json(entry.metric), entry.promoted});
    });
    rungs.push_back({{"length", rung.length},
                     {"outstanding_trials", rung.outstanding},
                     {"metrics", std::move(metrics)}});
  }
  return {{"search_method_type", type_name(config_)},
          {"num_rungs", config_.num_rungs},
          {"max_length", config_.max_length},
          {"max_trials", config_.max_trials},
          {"divisor", config_.divisor},
          {"max_concurrent_trials", config_.max_concurrent_trials},
          {"trials", std::move(trials)},
          {"rungs", std::move(rungs)},
          {"trials_completed", trials_completed_},
          {"invalid_trials", invalid_trials_}};
}

void AshaSearch::restore_state(const nlohmann::json& state, const TrialBook& book) {
  method_state::expect_type(state, type_name(config_));
  method_state::expect_config(state, "num_rungs", config_.num_rungs);
  method_state::expect_config(state, "max_length", config_.max_length);
  method_state::expect_config(state, "max_trials", config_.max_trials);
  method_state::expect_config(state, "divisor", config_.divisor);
  method_state::expect_config(state, "max_concurrent_trials", config_.max_concurrent_trials);
  // Format 1 snapshots also echo smaller_is_better here; the Searcher checks it.
  AshaSearch out(config_);
  std::unordered_map<RequestId, std::uint32_t, RequestIdHash> by_id;  // restore only
  for (const nlohmann::json& entry : state.at("trials")) {
    const auto id = RequestId::parse(entry.at("request_id").get<std::string>());
    const auto global = id ? book.index_of(*id) : std::nullopt;
    if (!global || by_id.contains(*id)) {
      throw ProtocolError("search_method_state.trials: request_id " +
                          entry.at("request_id").dump() +
                          " is malformed, repeated or not in searcher_state");
    }
    const auto rung = entry.at("rung").get<std::uint64_t>();
    if (rung >= out.rungs_.size()) {
      throw ProtocolError("search_method_state.trials: rung " + std::to_string(rung) +
                          " is beyond num_rungs");
    }
    by_id.emplace(*id, static_cast<std::uint32_t>(out.trials_.size()));
    out.add_trial(*id, *global);
    Trial& trial = out.trials_.back();
    trial.rung = static_cast<std::uint32_t>(rung);
    trial.early_exited = entry.at("early_exit").get<bool>();
    trial.closed = entry.at("closed").get<bool>();
  }
  const nlohmann::json& rungs = state.at("rungs");
  if (!rungs.is_array() || rungs.size() != out.rungs_.size()) {
    throw ProtocolError("search_method_state.rungs: expected " + std::to_string(out.rungs_.size()) +
                        " rungs");
  }
  for (std::size_t r = 0; r < rungs.size(); ++r) {
    RungState& rung = out.rungs_[r];
    rung.outstanding = rungs[r].at("outstanding_trials").get<std::int64_t>();
    std::vector<Rung::Entry> ranked;
    for (const nlohmann::json& m : rungs[r].at("metrics")) {
      const auto id = RequestId::parse(m.at(0).get<std::string>());
      const auto metric = metric_from_json(m.at(1));
      if (!id || !by_id.contains(*id) || !metric) {
        throw ProtocolError("search_method_state.rungs[" + std::to_string(r) +
                            "].metrics: bad entry " + m.dump());
      }
      ranked.push_back(Rung::Entry{by_id.at(*id), *metric, m.at(2).get<bool>()});
    }
    const std::vector<Rung::Key> keys = rung.rung.assign(ranked);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      Trial& trial = out.trials_[ranked[k].trial];
      out.links_.push_back(
          EntryLink{keys[k], static_cast<std::uint32_t>(r), trial.last_entry, false});
      trial.last_entry = static_cast<std::uint32_t>(out.links_.size() - 1);
      // Close-out candidates are derived: every unpromoted entry still open.
      if (!config_.stop_once && !ranked[k].promoted && !trial.closed && !trial.early_exited) {
        rung.close_candidates.push_back(keys[k]);
      }
    }
  }
  out.trials_completed_ = method_state::read_count(state, "trials_completed");
  out.invalid_trials_ = method_state::read_count(state, "invalid_trials");
  *this = std::move(out);
}

}  // namespace hpsearch
