#pragma once
/// \file
/// The Searcher: (state, event) -> (state', operations). It owns the RNG, the bookkeeping, one
/// search method (how long trials train) and one sampler (which configuration each gets),
/// checks every event, feeds the sampler every observation, applies Determined's shutdown rule
/// and snapshots the whole state as versioned JSON.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/operation.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/sampler.hpp"
#include "hpsearch/searcher/trial_book.hpp"

namespace hpsearch {

/// What a search method may use while handling an event: the search's one RNG and its sampler
/// (Determined's `ctx`), plus dense trial indexes so that methods keep per-trial state in
/// arrays instead of maps keyed by request id. Methods never sample themselves.
struct SearchContext {
  Rng& rng;
  SamplerRef sampler;
  /// The dense index of the trial the event is about (creation order across the search).
  std::uint32_t trial = 0;
  /// The index the next Create gets; sample_create advances it.
  std::uint32_t next_trial = 0;
};

/// A Create for a new trial, with Determined's draw order: the sampler's configuration first
/// (the random sampler's draws), then the request id, then the trial seed.
[[nodiscard]] Create sample_create(SearchContext& ctx);
/// A Create with hyperparameters the method chose itself (PBT's explored clone), drawing the
/// request id and then the trial seed as sample_create does; `checkpoint` names the parent.
[[nodiscard]] Create make_create(SearchContext& ctx, nlohmann::json hparams,
                                 std::optional<RequestId> checkpoint);
/// Appends a whole trial as random, grid and single issue it: `Create, ValidateAfter(length),
/// Close`.
void append_full_trial(std::vector<Operation>& ops, Create create, std::uint64_t length);

/// A search method: a copyable value type that turns events into operations. Methods only see
/// events the Searcher has checked; they never see trial_progress (progress is computed from
/// the Searcher's running totals).
template <class M>
concept SearchMethod = std::copyable<M> &&
    requires(M m, const M cm, SearchContext& ctx, const ProgressTotals& totals,
             const nlohmann::json& state, const TrialBook& book) {
  { m.initial_operations(ctx) } -> std::same_as<std::vector<Operation>>;
  { m.on_event(TrialCreated{}, ctx) } -> std::same_as<std::vector<Operation>>;
  { m.on_event(ValidationCompleted{}, ctx) } -> std::same_as<std::vector<Operation>>;
  { m.on_event(TrialExitedEarly{}, ctx) } -> std::same_as<std::vector<Operation>>;
  { m.on_event(TrialClosed{}, ctx) } -> std::same_as<std::vector<Operation>>;
  { cm.progress(totals) } -> std::same_as<double>;
  { cm.state() } -> std::same_as<nlohmann::json>;
  m.restore_state(state, book);
};

/// The snapshot format this build writes (format 2: with the sampler's state and the
/// direction). It also reads format 1, written before samplers, for samplers that learn
/// nothing (random, grid).
inline constexpr int kSnapshotFormatVersion = 2;

/// A metric in canonical form, as methods and samplers see it: smaller is better (a
/// larger-is-better metric is negated), and NaN, a diverged trial, is +infinity, the worst
/// value in either direction.
[[nodiscard]] inline double canonical_metric(double metric, bool smaller_is_better) {
  if (std::isnan(metric)) return std::numeric_limits<double>::infinity();
  return smaller_is_better ? metric : -metric;
}

/// The event-driven searcher around one method M and one sampler S. Deterministic: the same
/// configuration, seed and event sequence give identical operations and snapshots. Every call
/// is O(1) amortised in the number of trials apart from what the method does and what the
/// sampler does when it proposes.
template <SearchMethod M, Sampler S>
class BasicSearcher {
 public:
  BasicSearcher(M method, S sampler, std::uint32_t seed, bool smaller_is_better = true)
      : method_(std::move(method)),
        sampler_(std::move(sampler)),
        rng_(seed),
        smaller_is_better_(smaller_is_better) {}

  /// The first operations of the search. Throws ProtocolError if called twice. A method that
  /// requests no trial at all (an empty grid) ends the search at once with a Shutdown.
  std::vector<Operation> initial_operations() {
    if (started_) throw ProtocolError("initial_operations: the search has already started");
    SearchContext ctx{rng_, SamplerRef(sampler_), 0, 0};
    std::vector<Operation> ops = method_.initial_operations(ctx);
    started_ = true;
    book_.record(ops);
    feed(ops);
    if (book_.trials_requested() == 0 && !book_.shut_down()) append(ops, Shutdown{});
    return ops;
  }

  /// Handles one event and returns the operations it causes. Throws ProtocolError (state
  /// unchanged) for an event that is not allowed now. A repeated early-exit report is ignored.
  std::vector<Operation> handle(const Event& event) {
    const TrialBook::Checked checked = book_.admit(event, started_);
    if (checked.disposition == TrialBook::Disposition::kIgnore) return {};
    if (std::holds_alternative<TrialProgress>(event)) return {};
    SearchContext ctx{rng_, SamplerRef(sampler_), checked.trial,
                      static_cast<std::uint32_t>(book_.trials_requested())};
    // The sampler hears of the event first, so that a trial the method creates in answer is
    // proposed knowing it.
    std::vector<Operation> ops = std::visit(
        [&](const auto& e) -> std::vector<Operation> {
          using E = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<E, TrialProgress>) {
            return {};
          } else if constexpr (std::is_same_v<E, ValidationCompleted>) {
            ValidationCompleted canonical = e;
            canonical.metric = canonical_metric(e.metric, smaller_is_better_);
            if (sampler_.learns()) sampler_.observe(checked.trial, e.length, canonical.metric);
            return method_.on_event(canonical, ctx);
          } else {
            constexpr bool kDone =
                std::is_same_v<E, TrialExitedEarly> || std::is_same_v<E, TrialClosed>;
            if (kDone && sampler_.learns()) sampler_.on_finished(checked.trial);
            return method_.on_event(e, ctx);
          }
        },
        event);
    book_.record(ops);
    feed(ops);
    show_direction(ops);
    if (auto shutdown = book_.shutdown_due(event)) append(ops, *shutdown);
    return ops;
  }

  /// Fraction of the search done, in [0, 1] for well-behaved callers; NaN or infinity is
  /// reported as 0 (as Determined does). O(1).
  [[nodiscard]] double progress() const {
    const double p = method_.progress(book_.totals());
    return std::isfinite(p) ? p : 0.0;
  }

  [[nodiscard]] bool started() const { return started_; }
  [[nodiscard]] bool shut_down() const { return book_.shut_down(); }
  [[nodiscard]] const M& method() const { return method_; }
  [[nodiscard]] const S& sampler() const { return sampler_; }
  [[nodiscard]] const TrialBook& book() const { return book_; }
  [[nodiscard]] const Rng& rng() const { return rng_; }
  [[nodiscard]] bool smaller_is_better() const { return smaller_is_better_; }

  /// The whole state: `{"format_version": 2, "started", "rng", "searcher_state",
  /// "search_method_state", "sampler_state", "smaller_is_better"}`. Byte-stable (sorted keys).
  [[nodiscard]] nlohmann::json snapshot() const {
    return {{"format_version", kSnapshotFormatVersion},
            {"started", started_},
            {"rng", rng_},
            {"searcher_state", book_},
            {"search_method_state", method_.state()},
            {"sampler_state", sampler_.state()},
            {"smaller_is_better", smaller_is_better_}};
  }

  /// Replaces the state with a snapshot taken from a searcher of the same configuration.
  /// Throws ProtocolError naming what is wrong; the state is unchanged then.
  void restore(const nlohmann::json& snapshot) {
    try {
      if (!snapshot.is_object()) throw ProtocolError("snapshot: expected a JSON object");
      const nlohmann::json& version = snapshot.at("format_version");
      if (version != 1 && version != 2) {
        throw ProtocolError("snapshot: format_version " + version.dump() +
                            " is not supported (this build reads versions 1 and 2)");
      }
      const nlohmann::json& started = snapshot.at("started");
      if (!started.is_boolean()) throw ProtocolError("snapshot: started must be a boolean");
      Rng rng = snapshot.at("rng").get<Rng>();
      TrialBook book = snapshot.at("searcher_state").get<TrialBook>();
      if (!started.get<bool>() && book.trials_requested() > 0) {
        // A search that has not started has no trial (found by fuzzing: it made the next
        // initial_operations number its creates from 0 again).
        throw ProtocolError("snapshot: started is false, but searcher_state has " +
                            std::to_string(book.trials_requested()) + " trial(s)");
      }
      const nlohmann::json& method_state = snapshot.at("search_method_state");
      // The method first: a snapshot of another search is named by its method.
      M method = method_;
      method.restore_state(method_state, book);
      S sampler = sampler_;
      if (version == 2) {
        const nlohmann::json& direction = snapshot.at("smaller_is_better");
        if (direction != smaller_is_better_) {
          throw ProtocolError("snapshot: smaller_is_better: the snapshot was taken with " +
                              direction.dump() + " but the config says " +
                              (smaller_is_better_ ? "true" : "false"));
        }
        sampler.restore_state(snapshot.at("sampler_state"));
      } else {
        restore_format1_direction(method_state);
        if (sampler_.learns()) {
          throw ProtocolError(
              "snapshot: format_version 1 has no sampler state; it restores "
              "only with a sampler that learns nothing (random or grid), but "
              "the config's sampler is " +
              sampler_.state().at("sampler_type").dump());
        }
      }
      method_ = std::move(method);
      sampler_ = std::move(sampler);
      book_ = std::move(book);
      rng_ = rng;
      started_ = started.get<bool>();
    } catch (const nlohmann::json::exception& e) {
      throw ProtocolError(std::string("snapshot: ") + strip_json_prefix(e.what()));
    }
  }

 private:
  void append(std::vector<Operation>& ops, Operation op) {
    book_.record({op});
    ops.push_back(std::move(op));
  }
  // Tells the sampler which trials now train toward which length, and which will not train
  // again. O(1) per operation; nothing for a sampler that learns nothing.
  void feed(const std::vector<Operation>& ops) {
    if (!sampler_.learns()) return;
    for (const Operation& op : ops) {
      if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
        sampler_.on_pending(*book_.index_of(validate->request_id), validate->length);
      } else if (const auto* close = std::get_if<Close>(&op)) {
        sampler_.on_finished(*book_.index_of(close->request_id));
      }
    }
  }
  // Methods explain their decisions with canonical metrics; users read them as reported.
  // Early exits show as the worst value (Determined's MaxFloat64), never negated.
  void show_direction(std::vector<Operation>& ops) const {
    if (smaller_is_better_) return;
    for (Operation& op : ops) {
      std::optional<Explanation>* explanation = nullptr;
      if (auto* validate = std::get_if<ValidateAfter>(&op)) explanation = &validate->explanation;
      if (auto* close = std::get_if<Close>(&op)) explanation = &close->explanation;
      if (explanation != nullptr && explanation->has_value() &&
          (*explanation)->metric != std::numeric_limits<double>::max()) {
        (*explanation)->metric = -(*explanation)->metric;
      }
    }
  }
  // Format 1 kept the direction inside ASHA's state (and each bracket's); it must agree.
  void restore_format1_direction(const nlohmann::json& method_state) const {
    const auto check = [&](const nlohmann::json& state) {
      if (state.is_object() && state.contains("smaller_is_better") &&
          state.at("smaller_is_better") != smaller_is_better_) {
        throw ProtocolError("search_method_state.smaller_is_better: the snapshot was taken with " +
                            state.at("smaller_is_better").dump() + " but the config says " +
                            (smaller_is_better_ ? "true" : "false"));
      }
    };
    check(method_state);
    if (method_state.is_object() && method_state.contains("sub_search_states")) {
      for (const nlohmann::json& bracket : method_state.at("sub_search_states")) check(bracket);
    }
  }
  static std::string strip_json_prefix(std::string message) {
    // nlohmann messages start with "[json.exception.<kind>.<id>] "; users need the rest.
    if (const auto end = message.find("] ");
        message.starts_with("[json.") && end != std::string::npos) {
      message.erase(0, end + 2);
    }
    return message;
  }

  M method_;
  S sampler_;
  Rng rng_;
  TrialBook book_;
  bool smaller_is_better_ = true;
  bool started_ = false;
};

}  // namespace hpsearch
