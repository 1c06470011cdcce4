#include "hpsearch/simulator/cli.hpp"

#include <charconv>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"

namespace hpsearch {
namespace {

constexpr const char* kMainHelp = R"(searcher-sim: preview and drive hpsearch hyperparameter searches.

Usage:
  searcher-sim preview --config FILE [options]   play a whole search with instant trials
  searcher-sim drive --config FILE [--seed N]    answer protocol events on stdin, one per line
  searcher-sim help COMMAND                      details of one command
  searcher-sim --version

FILE is a Determined experiment config (YAML or JSON); hpsearch reads its searcher,
hyperparameters and reproducibility sections. The search seed is --seed if given, else
reproducibility.experiment_seed, else 0.

Exit codes: 0 success, 1 the run failed, 2 bad command line or config (nothing was run).
)";

constexpr const char* kDriveHelp = R"(searcher-sim drive --config FILE [--seed N] [--explain]

Runs one search as a JSON-lines state machine: each line on stdin is one event, and each is
answered by exactly one line on stdout (flushed at once). Lengths are absolute: validate_after
with length L means "train until the trial's total trained length is L, then validate".

Events (in) and answers (out):
  {"event":"initial_operations"}
      -> {"operations":[...]}                  once, first
  {"event":"trial_created","request_id":U}
      -> {"operations":[...]}                  the trial of a create operation now exists
  {"event":"validation_completed","request_id":U,"metric":0.25,"length":100}
      -> {"operations":[...]}                  the outstanding validate_after is done
  {"event":"trial_progress","request_id":U,"units":50}
      -> {"operations":[]}                     units trained so far (feeds progress only)
  {"event":"trial_exited_early","request_id":U,"reason":"errored"}
      -> {"operations":[...]}                  reasons: errored, user_canceled, invalid_hp,
                                               init_invalid_hp, user_requested_stop
  {"event":"trial_closed","request_id":U}
      -> {"operations":[...]}                  the trial's process is gone for good
  {"event":"progress"}                -> {"progress":0.42}
  {"event":"snapshot"}                -> {"snapshot":{...}}
  {"event":"restore","snapshot":{...}} -> {"restored":true}

Operations (out):
  {"type":"create","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","trial_seed":441365315,
   "hparams":{"lr":0.01}}
  {"type":"validate_after","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","length":100}
  {"type":"close","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8"}
  {"type":"shutdown","cancel":false,"failure":false}

U is a lowercase canonical UUID. Metrics are JSON numbers; the strings "Infinity",
"-Infinity" and "NaN" stand for those values. Report trial_created before anything else about
a trial, and trial_exited_early (then trial_closed) for a trial that stops before its
operations are done. A line that is malformed or not allowed now is answered with
{"error":"..."}, the searcher is left unchanged, and the session goes on.

Options:
  --config FILE   experiment config (YAML or JSON), required
  --seed N        search seed in [0, 4294967295]; overrides reproducibility.experiment_seed
  --explain       add "explain" to each validate_after and close that ASHA decided, e.g.
                  {"reason":"stopped","rung":0,"length":1000,"rank":7,"of":9,"cutoff":2,
                   "metric":0.41,"text":"ranked 7 of 9 at rung 0 (length 1000); only the
                   top 2 continue"}
  --help          this text
)";

constexpr const char* kPreviewHelp = R"(searcher-sim preview --config FILE [options]

Plays the whole search with trials that finish instantly and prints how many trials are
trained to which lengths, like `det preview-search`. Deterministic for given seeds.

Options:
  --config FILE        experiment config (YAML or JSON), required
  --seed N             search seed; overrides reproducibility.experiment_seed (default 0)
  --order fifo|random  which trial acts next: the oldest with work pending (default), or a
                       random one
  --metric constant|random|trial-id
                       what every validation reports: 1 (default), uniform in [0,1), or the
                       trial's creation number (later trials are worse)
  --metric-seed N      seed of the random order and random metric (default 0)
  --json               print the result as JSON instead of a table
  --trace FILE         write every step as a JSON line {"in": event, "out": answer}; the
                       "in" lines replay through `searcher-sim drive` with the same answers
  --help               this text
)";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParsedArgs {
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
};

// `--name value` or `--name=value` for value options; bare `--name` for flags.
ParsedArgs parse_args(const std::string& command, const std::vector<std::string>& args,
                      const std::set<std::string>& value_options,
                      const std::set<std::string>& flag_options) {
  ParsedArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flag_options.contains(name) && !value) {
      parsed.flags.insert(name);
    } else if (value_options.contains(name)) {
      if (!value) {
        if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
        value = args[++i];
      }
      if (parsed.values.contains(name)) throw UsageError(name + ": given twice");
      parsed.values[name] = *value;
    } else {
      std::string options;
      for (const auto& o : value_options) options += (options.empty() ? "" : ", ") + o;
      for (const auto& o : flag_options) options += ", " + o;
      throw UsageError("unknown option '" + args[i] + "' (options of " + command + ": " +
                       options + ")");
    }
  }
  return parsed;
}

std::uint32_t parse_seed(const std::string& option, const std::string& text) {
  std::uint32_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size()) {
    throw UsageError(option + ": must be an integer between 0 and 4294967295, got '" + text + "'");
  }
  return value;
}

template <class T>
T parse_choice(const std::string& option, const std::string& text,
               const std::vector<std::pair<std::string, T>>& choices) {
  std::string names;
  for (const auto& [name, value] : choices) {
    if (name == text) return value;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw UsageError(option + ": must be one of " + names + ", got '" + text + "'");
}

struct Loaded {
  ExperimentConfig config;
  std::uint32_t seed = 0;
};

Loaded load(const ParsedArgs& args) {
  if (!args.values.contains("--config")) throw UsageError("--config FILE is required");
  // Flags are checked before the config is read, so a bad flag is reported as such.
  const bool seed_given = args.values.contains("--seed");
  const std::uint32_t seed = seed_given ? parse_seed("--seed", args.values.at("--seed")) : 0;
  Loaded loaded{load_config(args.values.at("--config")), 0};
  loaded.seed = seed_given ? seed : loaded.config.experiment_seed.value_or(0);
  return loaded;
}

int drive_command(const std::vector<std::string>& args, std::istream& in, std::ostream& out) {
  const ParsedArgs parsed =
      parse_args("drive", args, {"--config", "--seed"}, {"--help", "--explain"});
  if (parsed.flags.contains("--help")) {
    out << kDriveHelp;
    return kExitOk;
  }
  const Loaded loaded = load(parsed);
  Searcher searcher =
      make_searcher(loaded.config.searcher.method, loaded.config.hyperparameters, loaded.seed);
  run_drive(searcher, in, out, DriveOptions{.explain = parsed.flags.contains("--explain")});
  return kExitOk;
}

int preview_command(const std::vector<std::string>& args, std::ostream& out) {
  const ParsedArgs parsed =
      parse_args("preview", args, {"--config", "--seed", "--order", "--metric", "--metric-seed",
                                   "--trace"},
                 {"--help", "--json"});
  if (parsed.flags.contains("--help")) {
    out << kPreviewHelp;
    return kExitOk;
  }
  PreviewOptions options;
  if (parsed.values.contains("--order")) {
    options.order = parse_choice<PickOrder>(
        "--order", parsed.values.at("--order"),
        {{"fifo", PickOrder::kFifo}, {"random", PickOrder::kRandom}});
  }
  if (parsed.values.contains("--metric")) {
    options.metric = parse_choice<PreviewMetric>(
        "--metric", parsed.values.at("--metric"),
        {{"constant", PreviewMetric::kConstant},
         {"random", PreviewMetric::kRandom},
         {"trial-id", PreviewMetric::kTrialId}});
  }
  if (parsed.values.contains("--metric-seed")) {
    options.seed = parse_seed("--metric-seed", parsed.values.at("--metric-seed"));
  }
  const Loaded loaded = load(parsed);
  std::ofstream trace;
  if (parsed.values.contains("--trace")) {
    trace.open(parsed.values.at("--trace"));
    if (!trace) throw UsageError("--trace: cannot write '" + parsed.values.at("--trace") + "'");
    options.trace = &trace;
  }
  const SearcherSettings& searcher = loaded.config.searcher;
  Searcher engine = make_searcher(searcher.method, loaded.config.hyperparameters, loaded.seed);
  const PreviewResult result = simulate(engine, options);
  if (parsed.flags.contains("--json")) {
    nlohmann::json j = result.to_json();
    j["seed"] = loaded.seed;
    out << json_line(j) << '\n';
    return kExitOk;
  }
  const std::string unit = searcher.max_length.unit;
  out << "Using search configuration: searcher '" << method_name(searcher.method)
      << "', metric '" << searcher.metric << "' ("
      << (searcher.smaller_is_better ? "smaller" : "larger") << " is better), max_length "
      << searcher.max_length.units << (unit.empty() ? "" : " " + unit) << ", seed "
      << loaded.seed << "\n\n";
  print_preview_table(result, unit, out);
  return kExitOk;
}

}  // namespace

int run_searcher_sim(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  if (args.empty()) {
    err << kMainHelp;
    return kExitUsage;
  }
  const std::string& command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (command == "--help" || command == "-h") {
      out << kMainHelp;
      return kExitOk;
    }
    if (command == "help") {
      const std::string topic = rest.empty() ? "" : rest.front();
      out << (topic == "drive" ? kDriveHelp : topic == "preview" ? kPreviewHelp : kMainHelp);
      return kExitOk;
    }
    if (command == "--version") {
      out << "searcher-sim 0.1.0\n";
      return kExitOk;
    }
    if (command == "drive") return drive_command(rest, in, out);
    if (command == "preview") return preview_command(rest, out);
    throw UsageError("unknown command '" + command + "' (commands: preview, drive, help)");
  } catch (const UsageError& e) {
    err << "searcher-sim" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-sim help" << (command == "drive" || command == "preview" ? " " + command : "")
        << "')\n";
    return kExitUsage;
  } catch (const ConfigError& e) {
    err << e.what() << '\n';
    return kExitUsage;
  } catch (const SimulationError& e) {
    err << "searcher-sim " << command << ": the searcher misbehaved: " << e.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace hpsearch
