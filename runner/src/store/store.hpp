#pragma once
// Private to runner/: the local experiment store behind `searcher-run create/ls/describe/...`
// and the Python SDK (determined.experimental.client). One directory per experiment:
//
//   ROOT/experiments/ID/experiment.yaml   the config as given
//   ROOT/experiments/ID/model/            the model directory snapshot: the trials' context
//   ROOT/experiments/ID/run/              the runner's directory (journal, trials/, checkpoints/)
//   ROOT/experiments/ID/state.json        {state, pid, started, ended, exit_code}
//   ROOT/experiments/ID/experiment.log    a detached runner's output
//   ROOT/experiments/ID/store.lock        held (an OFD lock) by the process running it
//   ROOT/experiments/ID/kill_requested    `kill` was asked for: the end is CANCELED
//   ROOT/store.json                       {"format_version": 1} (docs/store.md: the format, once)
//   ROOT/trials.jsonl                     global trial ids {trial_id, experiment_id, request_id,
//   index}
//
// Liveness is the lock, never a pid: a runner killed with SIGKILL releases it.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hpsearch::store {

/// An experiment or trial the store does not have, or a request it refuses; the message names
/// the id.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `$HPSEARCH_HOME`, else `${XDG_DATA_HOME:-$HOME/.local/share}/hpsearch`.
[[nodiscard]] std::filesystem::path default_root();

/// An experiment's state as Determined names it, and why when that is not obvious.
struct Status {
  std::string state;   ///< ACTIVE, STOPPING_CANCELED, PAUSED, COMPLETED, CANCELED, ERROR
  std::string reason;  ///< e.g. why a PAUSED experiment is paused
  bool alive = false;  ///< a process holds the experiment's lock
  nlohmann::json record = nlohmann::json::object();  ///< state.json as written
  /// The store's records of the experiment found damaged (do not parse): "state.json".
  std::vector<std::string> damaged;

  /// When the experiment ended, as Determined shows it: a COMPLETED, CANCELED or ERROR one has
  /// an end time (state.json's "ended"); an ACTIVE or PAUSED one has none (a PAUSED one's runner
  /// ended, the experiment did not). null when there is none.
  [[nodiscard]] nlohmann::json end_time() const;
};

/// Holds an experiment's store.lock while alive (an open file description lock: released when
/// the process ends, however it ends; trials do not inherit it past exec).
class RunLock {
 public:
  /// Throws StoreError naming the experiment if another process holds it.
  RunLock(const std::filesystem::path& experiment_directory, std::uint64_t id);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_;
};

/// A checkpoint found in an experiment's checkpoint storage.
struct StoredCheckpoint {
  std::string uuid;
  std::uint64_t experiment_id = 0;
  std::filesystem::path storage;    ///< the experiment's checkpoint storage
  std::filesystem::path directory;  ///< storage / uuid
};

/// A checkpoint id as a trial reports it: a plain name (no '/', '\\' or NUL, not starting with
/// '.' or '-', at most 255 bytes), never a path; anything else is a StoreError naming it.
void check_checkpoint_id(const std::string& uuid);

class Store {
 public:
  /// The on-disk format this code reads and writes (docs/store.md), recorded in ROOT/store.json.
  static constexpr std::uint64_t kFormatVersion = 1;

  /// Opens (creating it if need be) the store at `root`; throws StoreError if its
  /// format_version is newer than kFormatVersion, or its store.json is damaged.
  explicit Store(std::filesystem::path root);

  [[nodiscard]] const std::filesystem::path& root() const { return root_; }
  /// Every experiment id, ascending.
  [[nodiscard]] std::vector<std::uint64_t> ids() const;
  /// ROOT/experiments/ID; throws StoreError naming the id (and the ids there are) if absent.
  [[nodiscard]] std::filesystem::path directory(std::uint64_t id) const;
  /// A new experiment directory: the next number of ROOT/next_experiment_id, never one handed out
  /// before (a deleted id is not reused), under ids.lock so concurrent creates differ.
  [[nodiscard]] std::uint64_t allocate();
  [[nodiscard]] Status status(std::uint64_t id) const;

  /// Sends `signal` to the process running experiment `id` (its pid in state.json, once that
  /// process has written it); false if no process is running it. With `only_if_caught`, only
  /// when that process catches the signal (/proc/PID/status's SigCgt): one whose default action
  /// is to end the process is not sent to a runner that is still starting, already ending, or
  /// older than the signal's use.
  bool signal_runner(std::uint64_t id, int signal, bool only_if_caught = false) const;

  /// Records the experiment's state.json (atomically).
  void write_state(std::uint64_t id, const nlohmann::json& record) const;
  /// Records the final state of a run that exited with `exit_code` (kill_requested makes it
  /// CANCELED); returns that state.
  std::string record_end(std::uint64_t id, int exit_code) const;

  /// The global id of trial `request_id` of experiment `id`: the one it was given, or the next
  /// free one (under ROOT/ids.lock, appended to trials.jsonl and synced), so a resumed run
  /// gives its trials the same ids.
  [[nodiscard]] std::uint64_t trial_id(std::uint64_t experiment, const std::string& request_id,
                                       std::uint32_t index);
  /// Where experiment `id`'s checkpoints are stored: run.json's checkpoint_storage (the config's
  /// shared_fs storage), else its run/checkpoints.
  [[nodiscard]] std::filesystem::path checkpoint_storage(std::uint64_t id) const;
  /// Checkpoint `uuid` (check_checkpoint_id's form) in the first experiment, by id, whose
  /// checkpoint storage holds it: a directory of its own (not a link) with its metadata.json.
  /// Throws StoreError "checkpoint UUID not found in ROOT" if none does.
  [[nodiscard]] StoredCheckpoint find_checkpoint(const std::string& uuid) const;
  /// Every trial of the experiment in the trial index, in id order: {"trial_id",
  /// "experiment_id", "request_id", "index"} as recorded.
  [[nodiscard]] std::vector<nlohmann::json> trials_of(std::uint64_t experiment) const;
  /// The trial index's entry of global trial id `trial_id`; throws StoreError "trial N not found
  /// in ROOT" if there is none.
  [[nodiscard]] nlohmann::json find_trial(std::uint64_t trial_id) const;
  /// Every trial id of the experiment, by request id.
  [[nodiscard]] std::map<std::string, std::uint64_t> trial_ids(std::uint64_t experiment) const;
  /// Removes the experiment's trials from trials.jsonl.
  void forget_trials(std::uint64_t experiment) const;

 private:
  void check_format() const;

  std::filesystem::path root_;
  std::map<std::pair<std::uint64_t, std::string>, std::uint64_t>
      trial_ids_;  // cache of trials.jsonl
  bool trial_ids_loaded_ = false;
};

/// A version of the model registry (ROOT/models/ID.json, kept by the Python client).
struct RegisteredVersion {
  std::string model;
  nlohmann::json version;  ///< its number as recorded
  std::string checkpoint_uuid;
  std::optional<std::uint64_t> experiment_id;  ///< recorded since registrations name it
};

/// Holds ROOT/models/lock (the registry's flock, as the Python client takes it) while alive, so
/// that no version is registered meanwhile; nothing if the store has no registry.
class RegistryLock {
 public:
  enum Mode { kWait, kTry };
  /// kWait: until the lock is free; kTry: not at all (held() then says whether it was taken).
  /// `create`: make the registry's directory if there is none (else no registry, no lock).
  explicit RegistryLock(const std::filesystem::path& root, Mode mode = kWait, bool create = false);
  [[nodiscard]] bool held() const { return fd_ >= 0; }
  ~RegistryLock();
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;

 private:
  int fd_ = -1;
};

/// Every version of every model of the registry under `root` (none without a registry).
[[nodiscard]] std::vector<RegisteredVersion> registered_versions(const std::filesystem::path& root);

/// The store experiment whose run directory (ROOT/experiments/ID/run) `directory` is, if it is
/// one: such a run is continued by `activate`, which keeps the store's records.
[[nodiscard]] std::optional<std::uint64_t> experiment_of_run_directory(
    const std::filesystem::path& directory);

/// "12" -> 12; anything else is a StoreError naming the text.
[[nodiscard]] std::uint64_t parse_experiment_id(const std::string& text);

/// Polls (every 50 ms) until `done()` or `seconds` have passed; returns done().
bool wait_until(const std::function<bool()>& done, double seconds);

/// Now as ISO 8601 UTC (for state.json's started/ended: shown to people, decides nothing).
[[nodiscard]] std::string utc_now();

}  // namespace hpsearch::store
