// searcher-sim's dispatcher: the main help, the choice of subcommand, and one mapping of what a
// command throws to the exit codes. Each subcommand is a file of sim_cli/.
#include "hpsearch/simulator/cli.hpp"

#include <ostream>
#include <stdexcept>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "sim_cli/commands.hpp"

namespace hpsearch {
namespace {

constexpr const char* kMainHelp =
    R"(searcher-sim: preview and drive hpsearch hyperparameter searches.

Usage:
  searcher-sim run --config FILE --workload NAME --workers N [options]
                                                 simulate a search on N workers in virtual time
  searcher-sim compare --configs A B ... --workload NAME --workers N --seeds K [options]
                                                 several configs over K seeds each, side by side
  searcher-sim preview --config FILE [options]   play a whole search with instant trials
  searcher-sim evaluate --workload NAME --point V1,V2,...
                                                 a workload's value at one configuration
  searcher-sim drive --config FILE [--seed N]    answer protocol events on stdin, one per line
  searcher-sim help COMMAND                      details of one command
  searcher-sim help searchers                    the search methods and samplers a config names
  searcher-sim --version

FILE is a Determined experiment config (YAML or JSON); hpsearch reads its searcher,
hyperparameters and reproducibility sections. The search seed is --seed if given, else
reproducibility.experiment_seed, else 0.

Exit codes: 0 success, 1 the run failed, 2 bad command line or config (nothing was run).
)";

bool is_command(const std::string& name) {
  return name == "drive" || name == "preview" || name == "run" || name == "compare" ||
         name == "evaluate";
}

}  // namespace

int sim_cli::run(const TextCommand& command, const Io& io) {
  (command.to_stderr ? io.err : io.out) << command.text;
  return command.exit_code;
}

SimCommand parse_searcher_sim_args(const std::vector<std::string>& args) {
  if (args.empty()) return TextCommand{kMainHelp, true, kExitUsage};
  const std::string& command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h") return TextCommand{kMainHelp};
  if (command == "help") {
    const std::string topic = rest.empty() ? "" : rest.front();
    if (topic == "searchers") return TextCommand{catalog_help()};
    return TextCommand{topic == "drive"      ? sim_cli::drive_help()
                       : topic == "preview"  ? sim_cli::preview_help()
                       : topic == "run"      ? sim_cli::run_help()
                       : topic == "compare"  ? sim_cli::compare_help()
                       : topic == "evaluate" ? sim_cli::evaluate_help()
                                             : std::string(kMainHelp)};
  }
  if (command == "--version") return TextCommand{"searcher-sim " HPSEARCH_VERSION "\n"};
  if (command == "drive") return sim_cli::parse_drive(rest);
  if (command == "preview") return sim_cli::parse_preview(rest);
  if (command == "run") return sim_cli::parse_run(rest);
  if (command == "compare") return sim_cli::parse_compare(rest);
  if (command == "evaluate") return sim_cli::parse_evaluate(rest);
  throw UsageError("unknown command '" + command +
                   "' (commands: run, compare, preview, drive, evaluate, help)");
}

int run_searcher_sim(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                     std::ostream& err, bool err_is_terminal) {
  const std::string command = args.empty() ? "" : args.front();
  const sim_cli::Io io{in, out, err, err_is_terminal};
  try {
    const SimCommand parsed = parse_searcher_sim_args(args);
    return std::visit([&](const auto& c) { return sim_cli::run(c, io); }, parsed);
  } catch (const UsageError& e) {
    err << "searcher-sim" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-sim help" << (is_command(command) ? " " + command : "") << "')\n";
    return kExitUsage;
  } catch (const ConfigError& e) {
    err << e.what() << '\n';
    return kExitUsage;
  } catch (const std::invalid_argument& e) {  // a config that does not fit the workload
    err << "searcher-sim " << command << ": " << e.what() << '\n';
    return kExitUsage;
  } catch (const SimulationError& e) {
    err << "searcher-sim " << command << ": the searcher misbehaved: " << e.what() << '\n';
    return kExitFailure;
  } catch (const std::runtime_error& e) {  // an output file could not be written
    err << "searcher-sim " << command << ": " << e.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace hpsearch
