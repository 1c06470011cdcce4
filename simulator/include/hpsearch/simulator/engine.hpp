#pragma once
/// \file
/// The discrete-event engine: plays a search on N workers in virtual time. A trial holds a
/// worker while it trains toward its validate_after length; when that is done and the searcher
/// has not given it more work it checkpoints and frees the worker (as Determined's trials do),
/// and a later validate_after relaunches it with a restore. Trials wait for workers in FIFO
/// order; a free worker is always the lowest-numbered one. Events are ordered by (time,
/// sequence number): no wall clock anywhere.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {

/// How long things take, in virtual seconds.
struct CostModel {
  double seconds_per_unit =
      1.0;  ///< one length unit (the whole of max_length costs max_length x this)
  bool workload_cost = false;     ///< follow the workload's fidelity cost curve instead of linear
  double startup_seconds = 0;     ///< every launch of a trial process
  double checkpoint_seconds = 0;  ///< a trial saving its state when it pauses
  double restore_seconds = 0;     ///< a resumed or restarted trial loading its checkpoint
  double noise_sigma = 0;         ///< lognormal noise on each training span (sigma of the log)
  double config_sigma = 0;        ///< lognormal cost factor per trial (sigma of the log)
  double worker_sigma = 0;        ///< lognormal speed per worker (sigma of the log)
  double straggler_probability = 0;  ///< chance that a training span is a straggler
  double straggler_factor = 5;       ///< how much slower a straggler span is
};

/// What goes wrong.
struct FaultModel {
  double crash_rate = 0;  ///< crashes per virtual second of training (exponential waiting time)
  /// Restarts from the last checkpoint a trial gets before it exits early as errored
  /// (Determined's max_restarts, default 5).
  std::uint64_t max_restarts = 5;
  /// Set when given explicitly (a command-line flag), so it overrides each config's value.
  bool max_restarts_fixed = false;
};

/// Called now and then during a run: the searcher's progress in [0, 1] and the virtual time.
using ProgressCallback = std::function<void(double progress, double now)>;

struct RunOptions {
  std::uint64_t workers = 1;
  CostModel cost{};
  FaultModel faults{};
  /// Gaussian noise on the metric the searcher sees (sigma); the summary's best metric is the
  /// noise-free value of the trial the noisy metrics ranked best.
  double metric_noise = 0;
  std::uint32_t seed = 0;         ///< seeds every random draw of the run, not the searcher
  bool smaller_is_better = true;  ///< the config's direction; workloads are minimised
  /// JSON lines {"time", "in", "out"} for every searcher call, and {"time", "launched" or
  /// "exited": {"request_id", "worker", ...}} for every worker a trial takes and frees
  std::ostream* trace = nullptr;
  bool timeline = false;  ///< record worker spans, validations and trials for plots
  /// Replaces the workload's value (a trial's creation index and its fidelity in, the metric
  /// out); previews use it for their constant, random and trial-id metrics.
  std::function<double(std::uint64_t trial, double fidelity)> metric{};
  ProgressCallback on_progress{};
};

/// How a trial ended.
enum class TrialOutcome { kCompleted, kStopped, kErrored, kUnfinished };
[[nodiscard]] const char* outcome_name(TrialOutcome outcome);

/// A worker's occupation by one trial launch: from taking the worker (start-up, restore) to
/// freeing it (after the checkpoint, or at a crash).
struct WorkerSpan {
  std::uint32_t worker = 0;
  std::uint32_t trial = 0;  ///< creation index
  double start = 0;
  double end = 0;
  bool crashed = false;
};

/// One completed validation.
struct ValidationRecord {
  double time = 0;
  std::uint32_t trial = 0;
  std::uint64_t length = 0;
  double value = 0;  ///< noise-free workload value
};

struct TrialRecord {
  RequestId id;
  TrialOutcome outcome = TrialOutcome::kUnfinished;
  std::vector<std::uint64_t> lengths{};  ///< completed validate_after lengths, in order
  std::uint64_t restarts = 0;
};

/// What recording a timeline adds to a summary.
struct Timeline {
  std::vector<WorkerSpan> spans;
  std::vector<ValidationRecord> validations;
  std::vector<TrialRecord> trials;  ///< creation order
  std::vector<double> worker_speeds;
};

/// What a simulated run did.
struct RunSummary {
  std::optional<double> best_metric;  ///< the workload's value (smaller is better)
  double best_found_at = 0;
  std::optional<RequestId> best_trial;
  std::optional<double> first_full_length_at;  ///< first validation at max_length
  std::uint64_t trials_created = 0;
  std::map<std::uint64_t, std::uint64_t> validations_per_length;
  std::uint64_t training_units = 0;  ///< units of completed validations (lost work excluded)
  double wall_time = 0;
  double utilisation = 0;  ///< busy worker time / (workers x wall time)
  std::uint64_t crashes = 0;
  std::uint64_t errored_trials = 0;  ///< trials that used up their restarts
  double lost_seconds = 0;           ///< training time thrown away by crashes
  std::uint64_t events = 0;          ///< simulator events processed (benchmarks count them)
  Shutdown shutdown;
  std::vector<std::pair<double, double>> best_so_far;  ///< (time, best) at each improvement
  Timeline timeline;                                   ///< filled when RunOptions::timeline
  /// `sampler: auto` (run_config fills these): what it chose and why, and where it chose GP,
  /// then TPE, the trial (1-based) from which TPE proposed, if it took over.
  std::optional<SamplerChoice> sampler_choice;
  std::optional<std::uint64_t> sampler_switch_trial;

  [[nodiscard]] nlohmann::json to_json() const;
};

/// The simulator plays training in units of max_length: a config without one (Determined
/// 0.38's single/random/grid, each trial training until its script ends) cannot be simulated.
/// Throws std::invalid_argument saying so and what to add (after `config_name: ` if given).
void check_simulated_length(const SearcherSettings& searcher, const std::string& config_name = "");

/// Plays the search to its shutdown; `space` is the search's (the workload reads its
/// configurations through WorkloadInputs). Throws std::invalid_argument if the space does not
/// fit the workload (check_workload_parameters), SimulationError if the search stalls.
[[nodiscard]] RunSummary run_simulation(Searcher& searcher, const Workload& workload,
                                        const HyperparameterSpace& space, std::uint64_t max_length,
                                        const RunOptions& options);

}  // namespace hpsearch
