#pragma once
/// \file
/// A local experiment master: runs an experiment config against real training processes,
/// journals every event and operation, and resumes after a crash or an interruption.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "hpsearch/runner/errors.hpp"
#include "hpsearch/runner/launcher.hpp"

namespace hpsearch {

/// The settings saved in an experiment directory's run.json (the defaults if it has none).
/// Throws RunnerSetupError if it is not an experiment directory.
[[nodiscard]] LaunchSettings saved_launch_settings(const std::filesystem::path& directory);

struct RunnerOptions {
  std::uint64_t slots = 1;  ///< trials running at once
  /// Journal records between snapshots (at least as many as there are trials, so that
  /// snapshots, O(trials) each, cost O(1) per event amortised).
  std::uint64_t snapshot_every = 64;
  double pause_seconds = 30;  ///< how long trials get to pause after SIGINT/SIGTERM
  /// A running trial that sends no report line for longer than this (seconds) is killed with
  /// its processes and restarted from its latest checkpoint, as a failure; 0: never. Unset:
  /// never for a new run, and what the run was given for a resumed one (run.json keeps it).
  std::optional<double> trial_timeout;
  bool terminal = false;  ///< stderr is a terminal: one live status line
  LaunchSettings launch;  ///< must name the launcher the run is given
  /// In the experiment store: a trial's global id from its request id and creation index
  /// (1-based), given to it as HPSEARCH_TRIAL_ID; the same answer for the same trial on resume.
  /// Empty outside the store: the id is the creation index.
  std::function<std::uint64_t(const std::string& request_id, std::uint32_t index)> trial_id;
  /// In the experiment store: the model registry, locked, with the checkpoints registered as
  /// model versions read under the lock (the save policy keeps them, as Determined's checkpoint
  /// GC does). Locked until `lock` is released, so that no version is registered between the
  /// policy's reading and its deletions. nullopt: another process holds the lock and `wait` was
  /// false (the policy tries again later rather than stall the run). Throws what keeps it from
  /// locking or reading the registry. Empty outside the store.
  struct LockedRegistry {
    std::shared_ptr<void> lock;
    std::set<std::string> registered_checkpoints;
  };
  std::function<std::optional<LockedRegistry>(bool wait)> lock_registry;
  /// More environment for every trial (the store's HPSEARCH_EXPERIMENT_ID).
  std::map<std::string, std::string> trial_environment;
  /// The command a paused run tells the user to continue with; empty: `searcher-run resume DIR`
  /// (the store's runs say `searcher-run activate ID`).
  std::string continue_command;
  /// In the experiment store: whether `searcher-run kill` marked the experiment (it marks before
  /// it signals). Asked when SIGINT or SIGTERM arrives: a killed run stops every trial at once
  /// rather than pausing them, and its summary advises no continuing. Empty outside the store.
  std::function<bool()> kill_requested;
};

/// How a run ended.
enum class RunEnd {
  kCompleted,    ///< the searcher shut down normally
  kFailed,       ///< the searcher shut down as failed (every trial errored)
  kInterrupted,  ///< SIGINT or SIGTERM: trials paused, state saved; resume continues
};

/// How a run ended, and the signal that interrupted it, if one did.
struct RunOutcome {
  RunEnd end = RunEnd::kCompleted;
  int signal = 0;
};

/// Starts a new experiment in `directory` (created; must be empty or absent) from the config
/// file, with trials running in `context` (their working directory). Throws ConfigError,
/// RunnerSetupError, RunnerError.
RunOutcome start_experiment(const std::filesystem::path& config,
                            const std::filesystem::path& directory,
                            const std::filesystem::path& context, std::optional<std::uint32_t> seed,
                            const RunnerOptions& options, Launcher& launcher, std::ostream& out,
                            std::ostream& err);

/// Continues the experiment in `directory`: restores the snapshot, replays the journal
/// (checking every replayed answer against the recorded one) and relaunches every trial with
/// an outstanding operation from its latest checkpoint.
RunOutcome resume_experiment(const std::filesystem::path& directory, const RunnerOptions& options,
                             Launcher& launcher, std::ostream& out, std::ostream& err);

}  // namespace hpsearch
