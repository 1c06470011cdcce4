#pragma once
/// \file
/// Trials as Slurm jobs: one `sbatch` job per launch, their states polled with one `squeue`
/// for all jobs about every second, `scancel` to stop them. A job has no descriptors 3 and 4:
/// its trial talks to the runner over the trial channel (TCP for a cluster). See
/// docs/runner.md, "Running on Slurm".

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hpsearch/runner/launcher.hpp"

namespace hpsearch {

struct SlurmOptions {
  std::string partition;                 ///< --partition (empty: the cluster's default)
  std::string account;                   ///< --account
  std::string time;                      ///< --time, the job's limit (Slurm's formats)
  std::vector<std::string> sbatch_args;  ///< passed to sbatch as they are, after the others
  double poll_seconds = 1;               ///< how often squeue is asked
  /// How long a job's trial keeps trying to reach a runner that went away (it may be resumed).
  std::uint64_t reconnect_seconds = 300;
};

/// Checks the options with `sbatch --test-only` and returns the launcher. Throws
/// std::invalid_argument naming the options and Slurm's message if sbatch refuses them, and
/// std::runtime_error if the Slurm commands cannot be run.
[[nodiscard]] std::unique_ptr<Launcher> make_slurm_launcher(const SlurmOptions& options);

}  // namespace hpsearch
