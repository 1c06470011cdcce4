#pragma once
/// \file
/// The Searcher: (state, event) -> (state', operations). It owns the RNG, the bookkeeping and
/// one search method, checks every event, applies Determined's shutdown rule and snapshots
/// the whole state as versioned JSON.

#include <concepts>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"
#include "hpsearch/searcher/operation.hpp"
#include "hpsearch/searcher/rng.hpp"
#include "hpsearch/searcher/trial_book.hpp"

namespace hpsearch {

/// What a search method may use while handling an event: the search's one RNG and the
/// hyperparameter space (Determined's `ctx`), plus dense trial indexes so that methods keep
/// per-trial state in arrays instead of maps keyed by request id.
struct SearchContext {
  Rng& rng;
  const HyperparameterSpace& space;
  /// The dense index of the trial the event is about (creation order across the search).
  std::uint32_t trial = 0;
  /// The index the next Create gets; sample_create and create_with advance it.
  std::uint32_t next_trial = 0;
};

/// A Create for a freshly sampled trial, with Determined's draw order: sample, id, seed.
[[nodiscard]] Create sample_create(SearchContext& ctx);
/// A Create for given hyperparameters (the grid): id then seed, no sampling.
[[nodiscard]] Create create_with(SearchContext& ctx, nlohmann::json hparams);
/// Appends a whole trial as random, grid and single issue it: `Create, ValidateAfter(length),
/// Close`.
void append_full_trial(std::vector<Operation>& ops, Create create, std::uint64_t length);

/// A search method: a copyable value type that turns events into operations. Methods only see
/// events the Searcher has checked; they never see trial_progress (progress is computed from
/// the Searcher's running totals).
template <class M>
concept SearchMethod =
    std::copyable<M> &&
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

/// The snapshot format this build writes and reads.
inline constexpr int kSnapshotFormatVersion = 1;

/// The event-driven searcher around one method M. Deterministic: the same method
/// configuration, space, seed and event sequence give identical operations and snapshots.
/// Every call is O(1) amortised in the number of trials apart from what the method does.
template <SearchMethod M>
class BasicSearcher {
 public:
  BasicSearcher(M method, HyperparameterSpace space, std::uint32_t seed)
      : method_(std::move(method)), space_(std::move(space)), rng_(seed) {}

  /// The first operations of the search. Throws ProtocolError if called twice. A method that
  /// requests no trial at all (an empty grid) ends the search at once with a Shutdown.
  std::vector<Operation> initial_operations() {
    if (started_) throw ProtocolError("initial_operations: the search has already started");
    SearchContext ctx{rng_, space_, 0, 0};
    std::vector<Operation> ops = method_.initial_operations(ctx);
    started_ = true;
    book_.record(ops);
    if (book_.trials_requested() == 0 && !book_.shut_down()) append(ops, Shutdown{});
    return ops;
  }

  /// Handles one event and returns the operations it causes. Throws ProtocolError (state
  /// unchanged) for an event that is not allowed now. A repeated early-exit report is ignored.
  std::vector<Operation> handle(const Event& event) {
    if (!started_) {
      throw ProtocolError(std::string(event_name(event)) +
                          ": the search has not started (call initial_operations first)");
    }
    const TrialBook::Checked checked = book_.check(event);
    if (checked.disposition == TrialBook::Disposition::kIgnore) return {};
    book_.apply(event, checked.trial);
    if (std::holds_alternative<TrialProgress>(event)) return {};
    SearchContext ctx{rng_, space_, checked.trial,
                      static_cast<std::uint32_t>(book_.trials_requested())};
    std::vector<Operation> ops = std::visit(
        [&](const auto& e) -> std::vector<Operation> {
          if constexpr (std::is_same_v<std::decay_t<decltype(e)>, TrialProgress>) {
            return {};
          } else {
            return method_.on_event(e, ctx);
          }
        },
        event);
    book_.record(ops);
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
  [[nodiscard]] const TrialBook& book() const { return book_; }
  [[nodiscard]] const Rng& rng() const { return rng_; }

  /// The whole state: `{"format_version", "started", "rng", "searcher_state",
  /// "search_method_state"}`. Byte-stable (sorted keys).
  [[nodiscard]] nlohmann::json snapshot() const {
    return {{"format_version", kSnapshotFormatVersion},
            {"started", started_},
            {"rng", rng_},
            {"searcher_state", book_},
            {"search_method_state", method_.state()}};
  }

  /// Replaces the state with a snapshot taken from a searcher of the same configuration.
  /// Throws ProtocolError naming what is wrong; the state is unchanged then.
  void restore(const nlohmann::json& snapshot) {
    try {
      if (!snapshot.is_object()) throw ProtocolError("snapshot: expected a JSON object");
      const nlohmann::json& version = snapshot.at("format_version");
      if (!version.is_number_integer() || version.get<int>() != kSnapshotFormatVersion) {
        throw ProtocolError("snapshot: format_version " + version.dump() +
                            " is not supported (this build reads version " +
                            std::to_string(kSnapshotFormatVersion) + ")");
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
      M method = method_;
      method.restore_state(snapshot.at("search_method_state"), book);
      method_ = std::move(method);
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
  static std::string strip_json_prefix(std::string message) {
    // nlohmann messages start with "[json.exception.<kind>.<id>] "; users need the rest.
    if (const auto end = message.find("] "); message.starts_with("[json.") && end != std::string::npos) {
      message.erase(0, end + 2);
    }
    return message;
  }

  M method_;
  HyperparameterSpace space_;
  Rng rng_;
  TrialBook book_;
  bool started_ = false;
};

}  // namespace hpsearch
