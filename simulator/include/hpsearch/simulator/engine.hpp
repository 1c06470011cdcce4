#pragma once
/// \file
/// The discrete-event engine: plays a search on N workers in virtual time. A trial holds a
/// worker while it trains toward its validate_after length; when that is done and the searcher
/// has not given it more work it checkpoints and frees the worker (as Determined's trials do),
/// and a later validate_after relaunches it with a restore. Trials wait for workers in FIFO
/// order. Events are ordered by (time, sequence number): no wall clock anywhere.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hpsearch/methods/any_method.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace hpsearch {

/// How long things take, in virtual seconds.
struct CostModel {
  double seconds_per_unit = 1.0;  ///< one length unit (the whole of max_length costs max_length x this)
  bool workload_cost = false;     ///< follow the workload's fidelity cost curve instead of linear
  double startup_seconds = 0;     ///< every launch of a trial process
  double checkpoint_seconds = 0;  ///< a trial saving its state when it pauses
  double restore_seconds = 0;     ///< a paused trial loading its state when it resumes
  double noise_sigma = 0;         ///< lognormal noise on each training span (sigma of the log)
};

struct RunOptions {
  std::uint64_t workers = 1;
  CostModel cost{};
  std::uint32_t seed = 0;         ///< seeds the cost noise (Boost.Random), not the searcher
  bool smaller_is_better = true;  ///< the config's direction; workloads are minimised
  std::ostream* trace = nullptr;  ///< JSON lines {"time", "in", "out"} for every searcher call
};

/// What a simulated run did.
struct RunSummary {
  std::optional<double> best_metric;  ///< the workload's value (smaller is better)
  double best_found_at = 0;
  std::optional<RequestId> best_trial;
  std::optional<double> first_full_length_at;  ///< first validation at max_length
  std::uint64_t trials_created = 0;
  std::map<std::uint64_t, std::uint64_t> validations_per_length;
  std::uint64_t training_units = 0;
  double wall_time = 0;
  double utilisation = 0;  ///< busy worker time / (workers x wall time)
  Shutdown shutdown;
  std::vector<std::pair<double, double>> best_so_far;  ///< (time, best) at each improvement

  [[nodiscard]] nlohmann::json to_json() const;
};

/// The config's top-level hyperparameters must be exactly the workload's inputs. Throws
/// std::invalid_argument naming the missing and the extra ones.
void check_workload_parameters(const Workload& workload, const HyperparameterSpace& space);

/// A workload by name: mf-branin, mf-branin-dragonfly, mf-hartmann3, mf-hartmann6 (and their
/// -dragonfly forms), prior-hartmann-{default,good,moderate,bad,terrible}, counting-ones-N.
/// Throws std::invalid_argument listing the names.
[[nodiscard]] std::unique_ptr<Workload> make_workload(const std::string& name);

/// Plays the search to its shutdown. Throws SimulationError if it stalls.
[[nodiscard]] RunSummary run_simulation(Searcher& searcher, const Workload& workload,
                                        std::uint64_t max_length, const RunOptions& options);

}  // namespace hpsearch
