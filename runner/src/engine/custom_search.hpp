#pragma once
// Private to runner/: the searcher of a `searcher: {name: custom}` experiment (spec 3.9). The
// search method runs outside the runner (determined.searcher's LocalSearchRunner or
// RemoteSearchRunner, docs/custom-searcher.md), so the searcher is a pass-through: every event
// is appended to a queue with increasing ids for the method's client to fetch, and the client
// posts operations with the id of the event that triggered them, which drops the queue up to
// that id. Posted operations are checked by the TrialBook, as a built-in method's are recorded
// by it; the search never shuts down by itself, and its progress is the last the client set.
// Deterministic: the same events and posts give the same queue, operations and snapshot.

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/operation.hpp"
#include "hpsearch/searcher/trial_book.hpp"

namespace hpsearch::runner_detail {

/// What a client posts: the operations decided on event `triggered_by`, and the progress it
/// set, if it set one.
struct CustomPost {
  std::string name;  ///< the client's name for the post (custom_exchange.hpp), may be empty
  std::uint64_t triggered_by = 0;
  std::vector<Operation> operations;
  std::optional<double> progress;
};

/// The post's journal form, `{"event": "custom_operations", "post": NAME, "triggered_by": N,
/// "operations": [...], "progress": p or null}`, and back. custom_post_from_json throws
/// ProtocolError naming the field; it numbers the creates from `next_trial` (their dense indexes).
/// The client gives each create the trial seed 42, as Determined's master does for a custom
/// searcher's.
[[nodiscard]] nlohmann::json custom_post_to_json(const CustomPost& post);
[[nodiscard]] CustomPost custom_post_from_json(const nlohmann::json& j, std::uint64_t next_trial);
/// True for a journal record's `in` that is a post.
[[nodiscard]] bool is_custom_post(const nlohmann::json& in);

class CustomSearch {
 public:
  /// Queues the initial_operations event (id 1). Answers nothing: the client will.
  std::vector<Operation> initial_operations();
  /// Checks the event against the book (ProtocolError, state unchanged, if it is not allowed
  /// now), books it and queues it. A repeated early exit is ignored. Answers nothing.
  std::vector<Operation> handle(const Event& event);
  /// The client's operations for event `post.triggered_by`: refused (ProtocolError, state
  /// unchanged) if that event is not in the queue ("event N not found": already answered, or
  /// not yet sent) or an operation is not allowed (TrialBook::check_operations says why);
  /// otherwise the queue is dropped up to it, the operations are booked and returned. A close
  /// for a trial that has exited early or closed changes nothing and is left out.
  std::vector<Operation> post(const CustomPost& post);

  /// The queue: `[{"id": N, "event": "trial_created", "request_id": ...}, ...]`, oldest first,
  /// `{"id": 1, "event": "initial_operations"}` first of all.
  [[nodiscard]] nlohmann::json events() const;
  /// The number of trials requested so far (the next create's dense index).
  [[nodiscard]] std::uint64_t trials_requested() const { return book_.trials_requested(); }
  /// The last progress the client set (0 before it sets one).
  [[nodiscard]] double progress() const { return progress_; }
  [[nodiscard]] bool shut_down() const { return book_.shut_down(); }
  /// The name of the last post applied (so that one found again after a crash is answered,
  /// not applied twice).
  [[nodiscard]] const std::string& last_post() const { return last_post_; }

  /// `{"search_method_type": "custom_search", "started", "searcher_state", "events",
  /// "event_count", "progress", "last_post"}`.
  [[nodiscard]] nlohmann::json snapshot() const;
  /// Throws ProtocolError naming what is wrong; the state is unchanged then.
  void restore(const nlohmann::json& snapshot);

 private:
  void enqueue(nlohmann::json event);

  TrialBook book_;
  // Trials that exited early or closed (a close for one is dropped); restored from the book.
  std::unordered_set<RequestId, RequestIdHash> finished_;
  std::deque<nlohmann::json> queue_;
  std::uint64_t event_count_ = 0;  // ids given so far: the next event's id is event_count_ + 1
  double progress_ = 0;
  std::string last_post_;
  bool started_ = false;
};

}  // namespace hpsearch::runner_detail
