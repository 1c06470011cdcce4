// `searcher-run create`: a new experiment in the store, run attached or detached.
#include <memory>
#include <optional>
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "model_snapshot.hpp"
#include "store.hpp"
#include "store_commands.hpp"
#include "store_run.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

int create_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal) {
  using namespace runner_cli;
  const Parsed parsed = parse(args, {"--config", "--model-dir", "--include", "--seed", "--slots", "--snapshot-every",
                                     "--pause-seconds", "--trial-timeout"},
                              {"--detach", "--json"}, "--include");
  if (!parsed.positional.empty()) throw UsageError("unexpected argument '" + parsed.positional.front() + "'");
  if (!parsed.values.contains("--config")) throw UsageError("--config FILE is required");
  const RunnerOptions options = runner_options(parsed, terminal);
  std::optional<std::uint32_t> seed;
  if (parsed.values.contains("--seed")) {
    seed = static_cast<std::uint32_t>(parse_count("--seed", parsed.values.at("--seed"), 0, 4294967295U));
  }
  const fs::path config_path = parsed.values.at("--config");
  // A bad config fails here, before anything is stored, with its file:line:col.
  const ExperimentConfig config = load_config(config_path);
  if (!config.entrypoint) {
    throw RunnerSetupError("the config has no entrypoint: an experiment needs the command that trains a trial "
                           "(e.g. entrypoint: python3 train.py)");
  }
  const fs::path model_dir = parsed.values.contains("--model-dir") ? fs::path(parsed.values.at("--model-dir"))
                                                                   : fs::absolute(config_path).parent_path();
  std::vector<fs::path> includes(parsed.repeated.begin(), parsed.repeated.end());

  Store store(default_root());
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
  const bool json = parsed.values.contains("--json");
  const auto announce = [&] {
    if (json) {
      out << nlohmann::json{{"id", id}, {"directory", dir.string()}}.dump() << std::endl;
    } else {
      out << "experiment " << id << " created in " << dir.string() << std::endl;
    }
  };
  const RunBody body = [&](const RunnerOptions& run_options, std::ostream& run_out, std::ostream& run_err) {
    return report_errors("create", run_err, [&] {
      const std::unique_ptr<Launcher> launcher = make_local_launcher();
      return exit_code(start_experiment(dir / "experiment.yaml", dir / "run", dir / "model", seed, run_options,
                                        *launcher, run_out, run_err));
    });
  };
  return run_in_store(store, id, parsed.values.contains("--detach"), options, body, announce, out, err);
}

}  // namespace hpsearch::store
