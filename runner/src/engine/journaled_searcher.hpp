#pragma once
// Private to runner/: the searcher behind a journal. Every event given to the searcher is
// appended, with the operations it answered, to journal.jsonl and synced to disk before the
// operations are acted on; the runner's own records (checkpoints, restarts) go in between.
// On resume the journal is replayed and every answer checked against the recorded one.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/custom_search.hpp"
#include "hpsearch/config/catalog.hpp"
#include "hpsearch/runner/journal.hpp"

namespace hpsearch::runner_detail {

/// One journal record, replayed.
struct ReplayedRecord {
  /// A runner record ("checkpoint", "restart", ...): its kind and body; empty for a searcher one.
  std::string runner_kind;
  nlohmann::json runner_body;
  /// A searcher record: the event (none for initial_operations), the operations it answered
  /// (identical to the recorded ones) and the metrics recorded with it.
  std::optional<Event> event;
  std::vector<Operation> operations;
  nlohmann::json metrics;
};

class JournaledSearcher {
 public:
  /// A built-in searcher, or (`searcher: {name: custom}`) the custom search's event queue, whose
  /// operations a client posts.
  explicit JournaledSearcher(Searcher searcher) : searcher_(std::move(searcher)) {}
  explicit JournaledSearcher(CustomSearch custom) : custom_(std::move(custom)) {}

  /// Opens the journal for appending (after any replay).
  void open(const std::filesystem::path& path) {
    journal_.emplace(path, Journal::Growth::spare_space);  // synced per decision
  }

  [[nodiscard]] std::vector<Operation> initial_operations();
  /// Hands the event to the searcher, journals it with `metrics` (if not null) and the answer.
  [[nodiscard]] std::vector<Operation> handle(const Event& event,
                                              const nlohmann::json& metrics = {});
  /// A custom search's client posted operations: they are checked and booked (ProtocolError,
  /// nothing journaled, if refused), journaled with the post, and returned.
  [[nodiscard]] std::vector<Operation> post(const CustomPost& post);
  /// The custom search, or null for a built-in searcher.
  [[nodiscard]] const CustomSearch* custom() const { return custom_ ? &*custom_ : nullptr; }
  /// The built-in searcher (the journal's fuzz target compares its states). Precondition: not
  /// a custom search.
  [[nodiscard]] const Searcher& searcher() const { return *searcher_; }
  /// Journals one of the runner's own records: {"seq":N, kind: body}; `sync` as Journal::append.
  void append_runner_record(const char* kind, nlohmann::json body, bool sync = true);
  /// The same with the body already written as JSON text (json_line's bytes).
  void append_runner_record_text(std::string_view kind, std::string_view body, bool sync = true);

  /// Group commit (Journal::hold_syncs): the records of one batch share one sync.
  void hold_syncs() { journal_->hold_syncs(); }
  void release_syncs() { journal_->release_syncs(); }
  void stop_holding() { journal_->stop_holding(); }
  void sync_held() {
    if (journal_) journal_->sync_held();
  }
  void sync_written() {
    if (journal_) journal_->sync_written();
  }
  [[nodiscard]] bool sync_owed() const { return journal_ && journal_->sync_owed(); }
  /// The journal's fdatasync calls so far and the time spent in them (Journal::syncs).
  [[nodiscard]] std::uint64_t syncs() const { return journal_ ? journal_->syncs() : 0; }
  [[nodiscard]] double sync_seconds() const { return journal_ ? journal_->sync_seconds() : 0; }

  /// Replays the journal's records from the snapshot on (after restore; from the start
  /// without one), in order: runner records go to `apply` as they are, searcher records are
  /// fed to the searcher, their answers checked against the recorded ones, and then go to
  /// `apply`. Record k (line k + 1) must have seq k. Throws RunnerError naming the journal's
  /// line (`name` is the journal's) for a record that is not one the journal writes, a seq out
  /// of place, an event the searcher refuses, an answer that differs, and anything `apply`
  /// throws (RunnerError, or a JSON error for a record whose fields are not what they should
  /// be). Returns the number of records replayed.
  std::uint64_t replay_journal(const JournalContents& journal, const std::string& name,
                               const std::function<void(const ReplayedRecord&)>& apply);

  /// The snapshot's searcher part and the sequence number it was taken at.
  [[nodiscard]] nlohmann::json snapshot() const {
    return custom_ ? custom_->snapshot() : searcher_->snapshot();
  }
  void restore(const nlohmann::json& snapshot, std::uint64_t seq);
  [[nodiscard]] std::uint64_t seq() const { return seq_; }
  [[nodiscard]] std::uint64_t snapshot_seq() const { return snapshot_seq_; }
  void snapshot_taken() { snapshot_seq_ = seq_; }
  [[nodiscard]] double progress() const {
    return custom_ ? custom_->progress() : searcher_->progress();
  }

 private:
  // Journals the record whose "in" is already in line_: {"at":..., "in":..., "metrics":...,
  // "out":..., "seq":N}, written directly in json_line's bytes (the keys in their sorted order).
  // Starts line_ with the record's "at" and its "in" key; the caller appends the event.
  void begin_record();
  void record(const std::vector<Operation>& ops, const nlohmann::json& metrics);
  // One record, fed to the searcher; throws RunnerError saying what is wrong with it.
  [[nodiscard]] ReplayedRecord replay(const nlohmann::json& record);

  std::optional<Searcher> searcher_;  // one of the two
  std::optional<CustomSearch> custom_;
  std::optional<Journal> journal_;
  std::uint64_t seq_ = 0;
  std::uint64_t snapshot_seq_ = 0;
  std::string line_;  // the record being written (its capacity is reused)
};

}  // namespace hpsearch::runner_detail
