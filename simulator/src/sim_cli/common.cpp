// What several searcher-sim subcommands share: the cost options, the workload, the config.
#include <system_error>

#include "commands.hpp"
#include "hpsearch/simulator/reports.hpp"

namespace hpsearch::sim_cli {

const cli::OptionSet& cost_options() {
  static const cli::OptionSet options = [] {
    cli::OptionSet o("cost");
    o.value("--seconds-per-unit", "X", "virtual seconds to train one length unit (default 1)")
        .value("--startup", "X", "seconds to launch a trial process (default 0)")
        .value("--checkpoint", "X", "seconds to save a pausing trial (default 0)")
        .value("--restore", "X", "seconds to restore a resuming or restarted trial (default 0)")
        .value("--noise", "X",
               "lognormal noise on each training span, sigma of the log (default 0)")
        .value("--config-spread", "X",
               "lognormal cost factor per trial, sigma of the log (default 0)")
        .value("--worker-spread", "X", "lognormal speed per worker, sigma of the log (default 0)")
        .value("--stragglers", "P", "probability that a training span straggles (default 0)")
        .value("--straggler-factor", "F", "how many times slower a straggling span is (default 5)")
        .value("--crash-rate", "X",
               "crashes per virtual second of training (default 0); a crashed\n"
               "trial loses the work since its last validation and restarts from\n"
               "that checkpoint, up to --max-restarts times, then exits errored")
        .value("--max-restarts", "N",
               "restarts per trial (default: the config's max_restarts, else 5)")
        .value("--noise-seed", "N", "seed of all the randomness above (default 0)");
    return o;
  }();
  return options;
}

RunOptions run_options(const cli::Args& args) {
  RunOptions options;
  options.workers = parse_count("--workers", args.required("--workers"), 1, 1'000'000);
  CostModel& cost = options.cost;
  cost.seconds_per_unit = args.nonnegative("--seconds-per-unit").value_or(1.0);
  cost.startup_seconds = args.nonnegative("--startup").value_or(0);
  cost.checkpoint_seconds = args.nonnegative("--checkpoint").value_or(0);
  cost.restore_seconds = args.nonnegative("--restore").value_or(0);
  cost.noise_sigma = args.nonnegative("--noise").value_or(0);
  cost.config_sigma = args.nonnegative("--config-spread").value_or(0);
  cost.worker_sigma = args.nonnegative("--worker-spread").value_or(0);
  cost.workload_cost = args.flag("--workload-cost");
  cost.straggler_probability = args.probability("--stragglers").value_or(0);
  cost.straggler_factor = args.nonnegative("--straggler-factor").value_or(5);
  if (cost.straggler_factor < 1) {
    throw UsageError("--straggler-factor: must be a number >= 1, got '" +
                     *args.value("--straggler-factor") + "'");
  }
  options.faults.crash_rate = args.nonnegative("--crash-rate").value_or(0);
  if (const std::optional<std::uint64_t> restarts = args.count("--max-restarts", 0, 1'000'000)) {
    options.faults.max_restarts_fixed = true;
    options.faults.max_restarts = *restarts;
  }
  options.metric_noise = args.nonnegative("--metric-noise").value_or(0);
  options.seed = args.seed("--noise-seed").value_or(0);
  return options;
}

WorkloadChoice workload_choice(const cli::Args& args) {
  return {args.required("--workload"), args.value("--data-dir")};
}

std::unique_ptr<Workload> make_chosen_workload(const WorkloadChoice& choice) {
  try {
    if (choice.data_dir) return make_workload(choice.name, *choice.data_dir);
    return make_workload(choice.name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--workload: ") + e.what());
  }
}

Loaded load(const std::string& path, std::optional<std::uint32_t> seed) {
  Loaded loaded{load_config(path), 0};
  loaded.seed = search_seed(loaded.config, seed);
  return loaded;
}

std::filesystem::path output_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw UsageError("--out: cannot create the directory '" + dir + "'");
  }
  return dir;
}

}  // namespace hpsearch::sim_cli
