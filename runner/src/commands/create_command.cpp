// `searcher-run create`: a new experiment in the store, run attached or detached.
#include <memory>
#include <optional>
#include <ostream>
#include <random>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "engine/checkpoint_storage.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "store/model_snapshot.hpp"
#include "store/store.hpp"
#include "store/store_run.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

namespace {

int create_experiment(const cli::Args& parsed, std::ostream& out, std::ostream& err,
                      bool terminal) {
  using namespace runner_cli;
  const fs::path config_path = parsed.required("--config");
  const RunnerOptions options = runner_options(parsed, terminal);
  std::optional<std::uint32_t> seed = parsed.seed("--seed");
  // A bad config fails here, before anything is stored, with its file:line:col.
  const ExperimentConfig config = load_config(config_path);
  if (!config.entrypoint) {
    throw RunnerSetupError(
        "the config has no entrypoint: an experiment needs the command that trains a trial "
        "(e.g. entrypoint: python3 train.py)");
  }
  // checkpoint_storage is checked now too: a type searcher-run cannot serve is refused before
  // anything is stored.
  (void)runner_detail::checkpoint_storage_directory(config.document, fs::path("/"));
  // As Determined's master: an experiment without a seed gets one now, recorded (state.json,
  // run.json, the trials' config), so that `create --seed N` reproduces it. Chosen once, here;
  // everything after is a function of it.
  if (!seed) seed = config.experiment_seed;
  if (!seed) seed = static_cast<std::uint32_t>(std::random_device{}());
  const fs::path model_dir =
      parsed.value("--model-dir").value_or(fs::absolute(config_path).parent_path());
  const std::vector<std::string> include_args = parsed.all("--include");
  std::vector<fs::path> includes(include_args.begin(), include_args.end());

  Store store(default_root());
  // A model definition over Determined's limit is refused before an id is taken or anything
  // is copied, as `det experiment create` refuses it before sending anything.
  check_model_size(model_dir, includes, store.root());
  const std::uint64_t id = store.allocate();
  const fs::path dir = store.directory(id);
  try {
    fs::copy_file(config_path, dir / "experiment.yaml");
    snapshot_model(model_dir, includes, dir / "model", store.root());
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    throw;
  }
  store.write_state(id, {{"seed", *seed}});
  const bool json = parsed.flag("--json");
  const auto announce = [&] {
    if (json) {
      out << nlohmann::json{{"id", id}, {"directory", dir.string()}}.dump() << std::endl;
    } else {
      out << "experiment " << id << " created in " << dir.string() << std::endl;
    }
  };
  const RunBody body = [&](const RunnerOptions& run_options, std::ostream& run_out,
                           std::ostream& run_err) {
    return report_errors("create", run_err, [&] {
      const std::unique_ptr<Launcher> launcher = make_local_launcher();
      return exit_code(start_experiment(dir / "experiment.yaml", dir / "run", dir / "model", seed,
                                        run_options, *launcher, run_out, run_err));
    });
  };
  return run_in_store(store, id, parsed.flag("--detach"), options, body, announce, out, err);
}

}  // namespace

const runner_cli::Command& create_command() {
  static const runner_cli::Command command{
      "create --config FILE [options]",
      "a new experiment: the config, a snapshot of the model\n"
      "directory (default: the config's; .detignore honoured) and\n"
      "the run; prints its id; --detach returns at once, the run\n"
      "going on in the background (output in experiment.log); the\n"
      "seed: --seed, else the config's, else one chosen and recorded",
      "Creates an experiment in the store ($HPSEARCH_HOME; see docs/sdk.md): a copy of the "
      "config,\n"
      "a snapshot of the model directory and the run, and prints its id. Attached (the default)\n"
      "it runs the search and exits as `searcher-run run` does; detached, it returns once the\n"
      "run is under way in the background (its output in the experiment's experiment.log).\n",
      runner_cli::with_run_options(
          cli::OptionSet("create")
              .value("--config", "FILE", "experiment config (YAML or JSON), required")
              .value("--model-dir", "DIR",
                     "the model definition to snapshot (default: the config's directory;\n"
                     "its .detignore honoured, Python caches left out); over\n"
                     "Determined's limit, 95 MiB with the includes, it is refused")
              .repeatable("--include", "PATH",
                          "one more file or directory, copied into the snapshot under its own\n"
                          "name (repeat it)")
              .value("--seed", "N",
                     "search seed; else the config's reproducibility.experiment_seed, else a seed\n"
                     "chosen now and recorded (describe shows it)")
              .flag("--detach", "return once the run is under way; it goes on in the background")
              .flag("--json", "print {\"id\": ..., \"directory\": ...} instead of a sentence"),
          false),
      create_experiment};
  return command;
}

}  // namespace hpsearch::store
