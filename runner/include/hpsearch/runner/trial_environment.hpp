#pragma once
// The trial's environment contract, declared once: every HPSEARCH_* variable the runner gives a
// trial (name, when it is set, what it means), and the few that people set for hpsearch's own
// programs. The code that sets a variable names it by its constant here; `searcher-run help
// environment` prints the table, docs/runner.md carries that output (scripts/
// update_environment_table.py pastes it), and tests/runner/trial_environment_test.py checks that
// the doc equals it, that runner/src names no HPSEARCH_ variable outside it and that the Python
// side (python/determined) reads only names in it.

#include <array>
#include <string>
#include <string_view>

namespace hpsearch::trial_environment {

inline constexpr char kRequestId[] = "HPSEARCH_REQUEST_ID";
inline constexpr char kTrialId[] = "HPSEARCH_TRIAL_ID";
inline constexpr char kExperimentId[] = "HPSEARCH_EXPERIMENT_ID";
inline constexpr char kTrialSeed[] = "HPSEARCH_TRIAL_SEED";
inline constexpr char kHparams[] = "HPSEARCH_HPARAMS";
inline constexpr char kTrialDir[] = "HPSEARCH_TRIAL_DIR";
inline constexpr char kCheckpointDir[] = "HPSEARCH_CHECKPOINT_DIR";
inline constexpr char kCheckpointStorage[] = "HPSEARCH_CHECKPOINT_STORAGE";
inline constexpr char kLatestCheckpoint[] = "HPSEARCH_LATEST_CHECKPOINT";
inline constexpr char kLatestCheckpointId[] = "HPSEARCH_LATEST_CHECKPOINT_ID";
inline constexpr char kLatestCheckpointLength[] = "HPSEARCH_LATEST_CHECKPOINT_LENGTH";
inline constexpr char kWarmStartParent[] = "HPSEARCH_WARM_START_PARENT";
inline constexpr char kMetric[] = "HPSEARCH_METRIC";
inline constexpr char kSmallerIsBetter[] = "HPSEARCH_SMALLER_IS_BETTER";
inline constexpr char kMaxLength[] = "HPSEARCH_MAX_LENGTH";
inline constexpr char kSearcherMaxLength[] = "HPSEARCH_SEARCHER_MAX_LENGTH";
inline constexpr char kMaxLengthUnit[] = "HPSEARCH_MAX_LENGTH_UNIT";
inline constexpr char kSearchMode[] = "HPSEARCH_SEARCH_MODE";
inline constexpr char kTimeMetric[] = "HPSEARCH_TIME_METRIC";
inline constexpr char kSlotsPerTrial[] = "HPSEARCH_SLOTS_PER_TRIAL";
inline constexpr char kConfigJson[] = "HPSEARCH_CONFIG_JSON";
inline constexpr char kTrialRunId[] = "HPSEARCH_TRIAL_RUN_ID";
inline constexpr char kTrialRestarts[] = "HPSEARCH_TRIAL_RESTARTS";
inline constexpr char kChannel[] = "HPSEARCH_CHANNEL";
inline constexpr char kTrialToken[] = "HPSEARCH_TRIAL_TOKEN";
inline constexpr char kReconnectSeconds[] = "HPSEARCH_RECONNECT_SECONDS";
inline constexpr char kExperimentKey[] = "HPSEARCH_EXPERIMENT_KEY";
inline constexpr char kCmdFd[] = "HPSEARCH_CMD_FD";
inline constexpr char kReportFd[] = "HPSEARCH_REPORT_FD";
inline constexpr char kWrapRankFromEnv[] = "HPSEARCH_WRAP_RANK_FROM_ENV";
inline constexpr char kHome[] = "HPSEARCH_HOME";
inline constexpr char kSearcherRun[] = "HPSEARCH_SEARCHER_RUN";
inline constexpr char kSearcherSim[] = "HPSEARCH_SEARCHER_SIM";
inline constexpr char kTestFailWrite[] = "HPSEARCH_TEST_FAIL_WRITE";
inline constexpr char kTestFailSync[] = "HPSEARCH_TEST_FAIL_SYNC";

/// One variable: who sets it, when, and what it holds.
struct Variable {
  std::string_view name;
  std::string_view set_by;  ///< "runner" (for the trial), "launcher" (hpsearch's Python launcher,
                            ///< for its workers) or "user" (read by the runner or the SDK)
  std::string_view when;
  std::string_view meaning;
};

inline constexpr std::array kVariables{
    Variable{kRequestId, "runner", "every launch", "the trial's request id (the searcher's)"},
    Variable{kTrialId, "runner", "every launch",
             "1-based creation order; in the experiment store, the trial's global id"},
    Variable{kExperimentId, "runner", "experiments of the store", "the experiment's id"},
    Variable{kTrialSeed, "runner", "every launch", "the trial's seed"},
    Variable{kHparams, "runner", "every launch", "the hyperparameters (JSON)"},
    Variable{kTrialDir, "runner", "every launch",
             "the trial's directory DIR/trials/N-ID (output.log, metrics.jsonl)"},
    Variable{kCheckpointDir, "runner", "every launch",
             "the trial's checkpoint directory (TRIAL_DIR/checkpoints)"},
    Variable{kCheckpointStorage, "runner", "every launch",
             "checkpoint storage: DIR/checkpoints, or the config's shared_fs storage"},
    Variable{kLatestCheckpoint, "runner", "when the trial has a checkpoint",
             "the path of its latest checkpoint"},
    Variable{kLatestCheckpointId, "runner", "when that checkpoint has a storage id",
             "its storage id (a directory of checkpoint storage)"},
    Variable{kLatestCheckpointLength, "runner", "when the trial has a checkpoint",
             "the length (steps) trained at that checkpoint"},
    Variable{kWarmStartParent, "runner", "a clone (pbt) that starts from its parent's checkpoint",
             "the parent's request id; HPSEARCH_LATEST_CHECKPOINT is then the parent's, with "
             "HPSEARCH_LATEST_CHECKPOINT_LENGTH 0"},
    Variable{kMetric, "runner", "every launch", "the searcher metric"},
    Variable{kSmallerIsBetter, "runner", "every launch", "1 if smaller is better, else 0"},
    Variable{kMaxLength, "runner", "every launch",
             "searcher.max_length's value (empty when the config has none)"},
    Variable{kSearcherMaxLength, "runner", "every launch", "the same value, for the Core API"},
    Variable{kMaxLengthUnit, "runner", "every launch",
             "max_length's unit as the config names it (empty when none)"},
    Variable{kSearchMode, "runner", "every launch",
             "operations, or metrics for the 0.38 forms (the trial trains on its own)"},
    Variable{kTimeMetric, "runner", "every launch",
             "searcher.time_metric (empty when the config has none)"},
    Variable{kSlotsPerTrial, "runner", "every launch", "resources.slots_per_trial"},
    Variable{kConfigJson, "runner", "every launch",
             "DIR/config.json: the whole config, the run's seed as "
             "reproducibility.experiment_seed"},
    Variable{kTrialRunId, "runner", "every launch",
             "the trial's launches so far, this one included, across resumes"},
    Variable{kTrialRestarts, "runner", "every launch",
             "the restarts after failures journaled for it (a pause or resume is not one)"},
    Variable{kChannel, "runner", "every launch with a trial channel",
             "the trial channel: unix:DIR/channel.sock, unix:@NAME or tcp:HOST:PORT"},
    Variable{kTrialToken, "runner", "with HPSEARCH_CHANNEL",
             "this launch's token for the channel's hello (128 random bits)"},
    Variable{kReconnectSeconds, "runner", "Slurm launches",
             "how long a trial tries to reconnect to a runner that went away"},
    Variable{kExperimentKey, "runner", "every launch",
             "the run's key: finds the experiment's leftover processes and jobs"},
    Variable{kCmdFd, "runner", "every launch", "3: the descriptor of commands in"},
    Variable{kReportFd, "runner", "every launch", "4: the descriptor of reports out"},
    Variable{kWrapRankFromEnv, "launcher", "workers of determined.launch.torch_distributed",
             "1: prefix output lines with [rank=R] from RANK"},
    Variable{kHome, "user", "optional", "the experiment store (searcher-run and the SDK)"},
    Variable{kSearcherRun, "user", "optional", "the searcher-run the SDK and det run"},
    Variable{kSearcherSim, "user", "optional", "the searcher-sim det runs (preview-search)"},
    Variable{kTestFailWrite, "user", "tests only",
             "N[:ENOSPC, EROFS or EACCES]: from the runner's Nth journal or state write on, writes "
             "fail (a test hook)"},
    Variable{kTestFailSync, "user", "tests only",
             "N: the runner's Nth journal fdatasync loses what it had not synced yet and fails "
             "with EIO, as a machine crash would (a test hook)"},
};

/// The table as docs/runner.md carries it (Markdown), for `searcher-run help environment`.
[[nodiscard]] inline std::string markdown_table() {
  std::string text = "| variable | set by | when | meaning |\n|---|---|---|---|\n";
  for (const Variable& v : kVariables) {
    text += "| `" + std::string(v.name) + "` | " + std::string(v.set_by) + " | " +
            std::string(v.when) + " | " + std::string(v.meaning) + " |\n";
  }
  return text;
}

}  // namespace hpsearch::trial_environment
