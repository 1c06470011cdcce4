#pragma once
/// \file
/// The `searcher-sim` command line, as library code so it can be tested without a process:
/// parse_searcher_sim_args reads and checks the arguments without touching a file, and
/// run_searcher_sim parses, then runs. Written over the CLI library (hpsearch/cli/cli.hpp),
/// one file per subcommand in simulator/src/sim_cli/.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hpsearch/cli/cli.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/engine.hpp"
#include "hpsearch/simulator/preview.hpp"

namespace hpsearch {

/// Exit codes of the hpsearch programs (the CLI library's).
inline constexpr int kExitOk = cli::kExitOk;
inline constexpr int kExitFailure = cli::kExitFailure;
inline constexpr int kExitUsage = cli::kExitUsage;

/// Help and version texts: print `text` (to stderr if `to_stderr`) and exit with `exit_code`.
struct TextCommand {
  std::string text;
  bool to_stderr = false;
  int exit_code = kExitOk;
};

/// `--workload NAME [--data-dir DIR]`, not loaded yet.
struct WorkloadChoice {
  std::string name;
  std::optional<std::string> data_dir;
};

/// `searcher-sim drive`.
struct DriveCommand {
  std::string config;                 ///< --config FILE, not read yet
  std::optional<std::uint32_t> seed;  ///< --seed, overrides reproducibility.experiment_seed
  DriveOptions options;
};

/// `searcher-sim preview`.
struct PreviewCommand {
  std::string config;
  std::optional<std::uint32_t> seed;
  PreviewOptions preview;             ///< order, metric, metric seed (no trace stream yet)
  std::optional<std::string> trace;   ///< --trace FILE
  std::optional<RunOptions> workers;  ///< --workers N and the cost options
  bool json = false;
};

/// `searcher-sim run`.
struct RunCommand {
  std::string config;
  std::optional<std::uint32_t> seed;
  WorkloadChoice workload;
  RunOptions options;  ///< workers, cost, faults, metric noise, noise seed
  std::optional<std::string> out;
  bool json = false;
};

/// `searcher-sim compare`.
struct CompareCommand {
  std::vector<std::string> configs;
  WorkloadChoice workload;
  RunOptions options;
  std::uint64_t seeds = 10;
  std::vector<double> times;  ///< empty: 25/50/75/100% of the longest run
  std::optional<double> target;
  std::optional<std::string> out;
  bool json = false;
};

/// `searcher-sim evaluate`.
struct EvaluateCommand {
  WorkloadChoice workload;
  std::vector<std::string> point;  ///< the values as given; checked against the workload later
  double fidelity = 1;
};

using SimCommand = std::variant<TextCommand, DriveCommand, PreviewCommand, RunCommand,
                                CompareCommand, EvaluateCommand>;

/// Reads `searcher-sim` arguments (without the program name) into a command whose every
/// option is checked: counts and seeds in their ranges, numbers finite and >= 0, probabilities
/// and fidelities in [0, 1], choices among their names. Reads no file and creates none.
/// Throws UsageError naming the option, the value and what was expected.
[[nodiscard]] SimCommand parse_searcher_sim_args(const std::vector<std::string>& args);

/// Runs `searcher-sim` with `args` (without the program name), reading protocol input from
/// `in`, writing results to `out` and diagnostics to `err` (with a progress bar for long runs
/// when `err_is_terminal`). Returns the exit code.
int run_searcher_sim(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                     std::ostream& err, bool err_is_terminal = false);

}  // namespace hpsearch
