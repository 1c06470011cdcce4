#pragma once
// A reference ASHA for differential tests and the asymptotic benchmark: a literal reading of
// spec 3.5 and 3.6 with sorted vectors (O(n) inserts), maps keyed by request id, and
// closeOutRungs rescanning every rung on every call. It shares nothing with AshaSearch but the
// public vocabulary, so agreement between the two is evidence about both.

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch::testing {

class ReferenceAsha {
 public:
  explicit ReferenceAsha(const AshaConfig& config) : config_(config) {
    for (std::uint64_t i = 0; i < config.num_rungs; ++i) {
      const double length = static_cast<double>(config.max_length) /
                            std::pow(config.divisor, static_cast<double>(config.num_rungs - 1 - i));
      rungs_.push_back(
          RungData{std::max<std::uint64_t>(static_cast<std::uint64_t>(length), 1), {}, 0});
    }
  }

  std::vector<Operation> initial_operations(SearchContext& ctx) {
    std::uint64_t n = 0;
    if (config_.max_concurrent_trials > 0) {
      n = std::min(config_.max_concurrent_trials, config_.max_trials);
    } else {
      const double spread = std::pow(config_.divisor, static_cast<double>(config_.num_rungs - 1));
      n = spread >= static_cast<double>(config_.max_trials)
              ? config_.max_trials
              : std::max<std::uint64_t>(static_cast<std::uint64_t>(spread), 1);
    }
    std::vector<Operation> ops;
    for (std::uint64_t i = 0; i < n; ++i) create(ops, ctx);
    return ops;
  }
  std::vector<Operation> on_event(const TrialCreated& e, SearchContext&) {
    ++rungs_[0].outstanding;
    trial_rungs_[e.request_id] = 0;
    return {};
  }
  std::vector<Operation> on_event(const ValidationCompleted& e, SearchContext& ctx) {
    // The Searcher hands methods canonical metrics: smaller is better, NaN as +infinity.
    const double m = std::isnan(e.metric) ? std::numeric_limits<double>::infinity() : e.metric;
    return promote(e.request_id, m, ctx);
  }
  std::vector<Operation> on_event(const TrialClosed& e, SearchContext&) {
    ++trials_completed_;
    closed_.insert(e.request_id);
    return {};
  }
  std::vector<Operation> on_event(const TrialExitedEarly& e, SearchContext& ctx) {
    // hpsearch's rule (docs/asha.md): a trial that was not training (its current rung already
    // holds its metric) is outstanding nowhere and gets nothing recorded for its exit.
    const bool was_training = training(e.request_id);
    if (e.reason == ExitedReason::kInvalidHp || e.reason == ExitedReason::kInitInvalidHp) {
      std::vector<Operation> ops;
      if (may_receive_operations(e.request_id)) ops.emplace_back(Close{e.request_id});
      early_exit_.insert(e.request_id);
      closed_.insert(e.request_id);
      ++invalid_;
      const std::uint64_t h = trial_rungs_.at(e.request_id);
      if (!config_.stop_once && was_training) --rungs_[h].outstanding;
      for (std::uint64_t r = 0; r <= h; ++r) {
        auto& metrics = rungs_[r].metrics;
        const auto it = std::find_if(metrics.begin(), metrics.end(),
                                     [&](const Entry& x) { return x.id == e.request_id; });
        if (it != metrics.end()) metrics.erase(it);
      }
      create(ops, ctx);
      return ops;
    }
    early_exit_.insert(e.request_id);
    closed_.insert(e.request_id);
    if (!was_training) return {};
    return promote(e.request_id, std::numeric_limits<double>::max(), ctx);
  }
  [[nodiscard]] double progress(const ProgressTotals&) const {
    const double a = static_cast<double>(rungs_[0].metrics.size());
    const double t = static_cast<double>(config_.max_trials);
    double p = a / (1.2 * t);
    if (rungs_[0].metrics.size() == config_.max_trials) {
      p = std::max(p, (static_cast<double>(trials_completed_) - static_cast<double>(invalid_)) / t);
    }
    return p;
  }
  [[nodiscard]] nlohmann::json state() const { return nlohmann::json::object(); }
  void restore_state(const nlohmann::json&, const TrialBook&) {}
  friend bool operator==(const ReferenceAsha&, const ReferenceAsha&) { return false; }

 private:
  struct Entry {
    RequestId id;
    double metric;
    bool promoted;
  };
  struct RungData {
    std::uint64_t length;
    std::vector<Entry> metrics;
    std::int64_t outstanding;
  };

  void create(std::vector<Operation>& ops, SearchContext& ctx) {
    Create c = sample_create(ctx);
    trial_rungs_[c.request_id] = 0;
    const RequestId id = c.request_id;
    ops.emplace_back(std::move(c));
    ops.emplace_back(ValidateAfter{id, rungs_[0].length});
  }

  std::uint64_t all() const { return trial_rungs_.size() - invalid_; }

  // The protocol: an operation goes only to a trial that is neither closed (told to, or
  // reported closed) nor exited.
  bool may_receive_operations(const RequestId& id) const {
    return !closed_.contains(id) && !early_exit_.contains(id);
  }

  // Training: it has not yet reported at the rung it was last sent to.
  bool training(const RequestId& id) const {
    const auto& metrics = rungs_[trial_rungs_.at(id)].metrics;
    return std::none_of(metrics.begin(), metrics.end(), [&](const Entry& x) { return x.id == id; });
  }

  std::vector<Operation> promote(const RequestId& id, double m, SearchContext& ctx) {
    const std::uint64_t i = trial_rungs_.at(id);
    RungData& rung = rungs_[i];
    --rung.outstanding;
    std::vector<Operation> ops;
    bool added = false;
    if (i + 1 == rungs_.size()) {
      rung.metrics.push_back(Entry{id, m, false});  // the top rung is not kept sorted
      if (may_receive_operations(id)) {
        ops.emplace_back(Close{id});
        closed_.insert(id);
      }
    } else if (config_.stop_once) {
      const std::size_t n = rung.metrics.size();
      const auto num = std::max<std::size_t>(
          static_cast<std::size_t>(static_cast<double>(n + 1) / config_.divisor), 1);
      std::size_t k = 0;  // first index with metric >= m
      while (k < n && !(rung.metrics[k].metric >= m)) ++k;
      const bool cont = k < num;
      rung.metrics.insert(rung.metrics.begin() + static_cast<std::ptrdiff_t>(k),
                          Entry{id, m, cont});
      if (!early_exit_.contains(id)) {
        if (cont) {
          trial_rungs_[id] = i + 1;
          ++rungs_[i + 1].outstanding;
          ops.emplace_back(ValidateAfter{id, rungs_[i + 1].length});
          added = true;
        } else {
          ops.emplace_back(Close{id});
          closed_.insert(id);
        }
      }
    } else {
      const std::size_t n = rung.metrics.size();
      const auto old_count = static_cast<std::size_t>(static_cast<double>(n) / config_.divisor);
      const auto new_count = static_cast<std::size_t>(static_cast<double>(n + 1) / config_.divisor);
      std::size_t k = 0;  // first index with metric > m
      while (k < n && !(rung.metrics[k].metric > m)) ++k;
      const bool now = k < new_count;
      rung.metrics.insert(rung.metrics.begin() + static_cast<std::ptrdiff_t>(k), Entry{id, m, now});
      std::optional<RequestId> p;
      if (now) {
        p = id;
      } else if (new_count != old_count && !rung.metrics[old_count].promoted) {
        rung.metrics[old_count].promoted = true;
        p = rung.metrics[old_count].id;
      }
      if (p) {
        trial_rungs_[*p] = i + 1;
        ++rungs_[i + 1].outstanding;
        // Determined recurses for early-exited trials and sends a closed one a validate_after
        // its master drops; hpsearch's rule: a trial that may receive no operation reports
        // the worst value at once, whichever way it was closed.
        if (!may_receive_operations(*p)) {
          return promote(*p, std::numeric_limits<double>::max(), ctx);
        }
        ops.emplace_back(ValidateAfter{*p, rungs_[i + 1].length});
        added = true;
      }
    }
    if (!added && all() < config_.max_trials) create(ops, ctx);
    if (!config_.stop_once && rungs_[0].metrics.size() == config_.max_trials) {
      for (RungData& r : rungs_) {
        if (r.outstanding > 0) break;
        for (const Entry& e : r.metrics) {
          if (!e.promoted && !closed_.contains(e.id) && !early_exit_.contains(e.id)) {
            ops.emplace_back(Close{e.id});
            closed_.insert(e.id);
          }
        }
      }
    }
    return ops;
  }

  AshaConfig config_;
  std::vector<RungData> rungs_;
  std::map<RequestId, std::uint64_t> trial_rungs_;
  std::set<RequestId> early_exit_;
  std::set<RequestId> closed_;
  std::uint64_t trials_completed_ = 0;
  std::uint64_t invalid_ = 0;
};

}  // namespace hpsearch::testing
