#include "hpsearch/simulator/cli.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/engine.hpp"
#include "hpsearch/simulator/plots.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "hpsearch/simulator/reports.hpp"

namespace hpsearch {
namespace {

constexpr const char* kMainHelp = R"(searcher-sim: preview and drive hpsearch hyperparameter searches.

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

With workers (what Determined's preview cannot tell):
  --workers N          play the search on N simulated workers in virtual time instead, and
                       add the wall time, worker utilisation and training units; trials then
                       act in the order their training finishes (so not with --order)
  --seconds-per-unit, --startup, --checkpoint, --restore, --noise, --config-spread,
  --worker-spread, --stragglers, --straggler-factor, --crash-rate, --max-restarts,
  --noise-seed         the cost model, as for `run` (cost is linear: a preview has no
                       workload)
)";

constexpr const char* kRunHelp = R"(searcher-sim run --config FILE --workload NAME --workers N [options]

Plays the whole search on N simulated workers in virtual time: a trial holds a worker while it
trains, checkpoints and frees it when it waits for a decision, and restores when it resumes;
its metric is the workload's value at fidelity length / max_length (smaller is better).
Deterministic for a given config, seed and options.

Workloads (the config's top-level hyperparameters must be exactly the workload's inputs):
  mf-branin, mf-branin-dragonfly            x1 in [-5, 10], x2 in [0, 15]
  mf-hartmann3, mf-hartmann6 (-dragonfly)   x0 .. x2 or x0 .. x5 in [0, 1]
  prior-hartmann-{default,good,moderate,bad,terrible}
                                            x0 .. x2 in [0, 1], tunable fidelity correlation
  counting-ones-N                           cat0 .. catN-1 in {0, 1}, cont0 .. contN-1 in [0, 1]
  learning-curves-N                         x0 .. xN-1 in [0, 1]; synthetic learning curves that
                                            cross (error after t = 100 z epochs)
  rbv2-svm, rbv2-glmnet, rbv2-aknn          YAHPO rbv2 tables (OpenML task 1220): the nearest
                                            listed configuration's error 1 - acc; run with a
                                            wrong config to see the inputs and their ranges

Options:
  --config FILE             experiment config (YAML or JSON), required
  --workload NAME           required, see above
  --workers N               simulated workers (slots), required
  --seed N                  search seed; overrides reproducibility.experiment_seed (default 0)
  --seconds-per-unit X      virtual seconds to train one length unit (default 1)
  --workload-cost           follow the workload's fidelity cost curve instead of linear cost
  --startup X               seconds to launch a trial process (default 0)
  --checkpoint X            seconds to save a pausing trial (default 0)
  --restore X               seconds to restore a resuming or restarted trial (default 0)
  --noise X                 lognormal noise on each training span, sigma of the log (default 0)
  --config-spread X         lognormal cost factor per trial, sigma of the log (default 0)
  --worker-spread X         lognormal speed per worker, sigma of the log (default 0)
  --stragglers P            probability that a training span straggles (default 0)
  --straggler-factor F      how many times slower a straggling span is (default 5)
  --crash-rate X            crashes per virtual second of training (default 0); a crashed
                            trial loses the work since its last validation and restarts from
                            that checkpoint, up to --max-restarts times, then exits errored
  --max-restarts N          restarts per trial (default: the config's max_restarts, else 5)
  --metric-noise X          Gaussian noise (sigma) on the metric the searcher sees; the best
                            metric reported is the noise-free value of the trial ranked best
  --noise-seed N            seed of all the randomness above (default 0; compare uses the
                            run's search seed)
  --data-dir DIR            where the rbv2 tables are (default: the source tree's data/)
  --out DIR                 write there: summary.json, trace.jsonl (every searcher call with
                            its virtual time), best_so_far.csv, trials.csv, and the plots
                            best_so_far.svg, workers.svg (Gantt chart by trial outcome) and
                            rungs.svg (trials validated at each length over time)
  --json                    print the summary as JSON instead of text
  --help                    this text

A progress bar is drawn on stderr when stderr is a terminal.
)";

constexpr const char* kEvaluateHelp = R"(searcher-sim evaluate --workload NAME --point V1,V2,... [--fidelity Z]

Prints a workload's noise-free value at one configuration, to check it or to reimplement it
elsewhere: the values are the workload's inputs in the order 'searcher-sim run' lists them
(a wrong count shows the list), numbers or, for a table's categorical inputs, choice names.
Fidelity Z in [0, 1] (default 1) is length / max_length. Tables print the value of the
nearest listed configuration. Output: the value with 17 significant digits.

Options:
  --workload NAME   see 'searcher-sim help run'
  --point V1,...    the configuration, required
  --fidelity Z      default 1
  --data-dir DIR    where the rbv2 tables are
  --help            this text
)";

constexpr const char* kCompareHelp = R"(searcher-sim compare --configs A.yaml B.yaml ... --workload NAME --workers N --seeds K [options]

Simulates each config with search seeds 0..K-1 (as `run` does; the noise seeded alike) and
prints, per config, the median and quartiles [q1, q3] of the best metric found by fixed
times; when the workload's optimum is known, of the regret (best - optimum). Quartiles
interpolate linearly between order statistics (numpy's default). Runs with no trial at
max_length yet by a time are left out of that time's figures (the count is shown).

Options:
  --configs A B ...    experiment configs (YAML or JSON), required
  --workload NAME      required (see 'searcher-sim help run')
  --workers N          simulated workers, required
  --seeds K            runs per config (default 10)
  --times T1,T2,...    virtual times to report (default: 25/50/75/100% of the longest run)
  --target X           also report the time until the best (regret) first reaches X or less
  --out DIR            write compare.csv, compare.json and compare.svg (median and quartile
                       band of each config over time) there
  --json               print the result as JSON
  --data-dir, --seconds-per-unit, --workload-cost, --startup, --checkpoint, --restore,
  --noise, --config-spread, --worker-spread, --stragglers, --straggler-factor,
  --crash-rate, --max-restarts, --metric-noise
                       as for `run` (the random draws of run i are seeded with i)
  --help               this text
)";


// ---------------------------------------------------------------------------------------------
// Reading the command line: no file is touched and nothing runs (parse_searcher_sim_args).

struct ParsedArgs {
  std::map<std::string, std::string> values;
  std::set<std::string> flags;

  [[nodiscard]] std::optional<std::string> value(const std::string& option) const {
    const auto it = values.find(option);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  // The value of a required option; "--config FILE is required" names it and its placeholder.
  [[nodiscard]] std::string required(const std::string& option, const std::string& placeholder) const {
    if (!values.contains(option)) throw UsageError(option + " " + placeholder + " is required");
    return values.at(option);
  }
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
  return static_cast<std::uint32_t>(parse_count(option, text, 0, 4294967295U));
}

std::optional<std::uint32_t> seed_option(const ParsedArgs& parsed) {
  const std::optional<std::string> text = parsed.value("--seed");
  return text ? std::optional<std::uint32_t>(parse_seed("--seed", *text)) : std::nullopt;
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

// The cost and fault options `run`, `compare` and `preview --workers` share.
const std::set<std::string> kCostOptions = {
    "--seconds-per-unit", "--startup",    "--checkpoint",       "--restore",
    "--noise",            "--config-spread", "--worker-spread", "--stragglers",
    "--straggler-factor", "--crash-rate", "--max-restarts",     "--noise-seed"};

std::set<std::string> with_cost_options(std::set<std::string> options) {
  options.insert(kCostOptions.begin(), kCostOptions.end());
  return options;
}

double parse_probability(const std::string& option, const std::string& text) {
  const double value = parse_nonnegative(option, text);
  if (value > 1) throw UsageError(option + ": must be a probability in [0, 1], got '" + text + "'");
  return value;
}

// Workers, the cost model and faults.
RunOptions run_options(const ParsedArgs& parsed) {
  RunOptions options;
  options.workers = parse_count("--workers", parsed.required("--workers", "N"), 1, 1'000'000);
  const auto value = [&](const char* option, double fallback) {
    return parsed.values.contains(option) ? parse_nonnegative(option, parsed.values.at(option))
                                          : fallback;
  };
  CostModel& cost = options.cost;
  cost.seconds_per_unit = value("--seconds-per-unit", 1.0);
  cost.startup_seconds = value("--startup", 0);
  cost.checkpoint_seconds = value("--checkpoint", 0);
  cost.restore_seconds = value("--restore", 0);
  cost.noise_sigma = value("--noise", 0);
  cost.config_sigma = value("--config-spread", 0);
  cost.worker_sigma = value("--worker-spread", 0);
  cost.workload_cost = parsed.flags.contains("--workload-cost");
  if (parsed.values.contains("--stragglers")) {
    cost.straggler_probability = parse_probability("--stragglers", parsed.values.at("--stragglers"));
  }
  cost.straggler_factor = value("--straggler-factor", 5);
  if (cost.straggler_factor < 1) {
    throw UsageError("--straggler-factor: must be a number >= 1, got '" +
                     parsed.values.at("--straggler-factor") + "'");
  }
  options.faults.crash_rate = value("--crash-rate", 0);
  if (parsed.values.contains("--max-restarts")) {
    options.faults.max_restarts_fixed = true;
    options.faults.max_restarts = parse_count("--max-restarts", parsed.values.at("--max-restarts"), 0, 1'000'000);
  }
  options.metric_noise = value("--metric-noise", 0);
  if (parsed.values.contains("--noise-seed")) {
    options.seed = parse_seed("--noise-seed", parsed.values.at("--noise-seed"));
  }
  return options;
}

WorkloadChoice workload_choice(const ParsedArgs& parsed) {
  return {parsed.required("--workload", "NAME"), parsed.value("--data-dir")};
}

SimCommand parse_drive(const std::vector<std::string>& args) {
  const ParsedArgs parsed =
      parse_args("drive", args, {"--config", "--seed"}, {"--help", "--explain"});
  if (parsed.flags.contains("--help")) return TextCommand{kDriveHelp};
  // Flags are checked before the config is read, so a bad flag is reported as such.
  DriveCommand command;
  command.config = parsed.required("--config", "FILE");
  command.seed = seed_option(parsed);
  command.options.explain = parsed.flags.contains("--explain");
  return command;
}

SimCommand parse_run(const std::vector<std::string>& args) {
  const ParsedArgs parsed = parse_args(
      "run", args,
      with_cost_options({"--config", "--seed", "--workload", "--workers", "--metric-noise",
                         "--data-dir", "--out"}),
      {"--help", "--json", "--workload-cost"});
  if (parsed.flags.contains("--help")) return TextCommand{kRunHelp};
  RunCommand command;
  command.options = run_options(parsed);
  command.workload = workload_choice(parsed);
  command.config = parsed.required("--config", "FILE");
  command.seed = seed_option(parsed);
  command.out = parsed.value("--out");
  command.json = parsed.flags.contains("--json");
  return command;
}

SimCommand parse_compare(std::vector<std::string> args) {
  // --configs takes every following argument up to the next option.
  std::vector<std::string> config_paths;
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (*it != "--configs") continue;
    auto end = std::find_if(it + 1, args.end(), [](const std::string& a) { return a.starts_with("--"); });
    config_paths.assign(it + 1, end);
    args.erase(it, end);
    break;
  }
  std::set<std::string> value_options = with_cost_options(
      {"--workload", "--workers", "--seeds", "--times", "--target", "--out", "--metric-noise",
       "--data-dir"});
  value_options.erase("--noise-seed");  // run i's draws are seeded with i
  const ParsedArgs parsed =
      parse_args("compare", args, value_options, {"--help", "--json", "--workload-cost"});
  if (parsed.flags.contains("--help")) return TextCommand{kCompareHelp};
  if (config_paths.empty()) throw UsageError("--configs A.yaml [B.yaml ...] is required");
  CompareCommand command;
  command.configs = std::move(config_paths);
  command.options = run_options(parsed);
  command.workload = workload_choice(parsed);
  if (parsed.values.contains("--seeds")) {
    command.seeds = parse_count("--seeds", parsed.values.at("--seeds"), 1, 100000);
  }
  if (parsed.values.contains("--times")) {
    std::istringstream list(parsed.values.at("--times"));
    for (std::string item; std::getline(list, item, ',');) {
      command.times.push_back(parse_nonnegative("--times", item));
    }
  }
  if (const std::optional<std::string> text = parsed.value("--target")) {
    command.target = parse_finite_number(*text);
    if (!command.target) throw UsageError("--target: must be a number, got '" + *text + "'");
  }
  command.out = parsed.value("--out");
  command.json = parsed.flags.contains("--json");
  return command;
}

SimCommand parse_evaluate(const std::vector<std::string>& args) {
  const ParsedArgs parsed =
      parse_args("evaluate", args, {"--workload", "--point", "--fidelity", "--data-dir"}, {"--help"});
  if (parsed.flags.contains("--help")) return TextCommand{kEvaluateHelp};
  EvaluateCommand command;
  command.workload = workload_choice(parsed);
  std::istringstream list(parsed.required("--point", "V1,V2,..."));
  for (std::string item; std::getline(list, item, ',');) command.point.push_back(item);
  if (const std::optional<std::string> text = parsed.value("--fidelity")) {
    command.fidelity = parse_nonnegative("--fidelity", *text);
    if (command.fidelity > 1) throw UsageError("--fidelity: must be in [0, 1], got '" + *text + "'");
  }
  return command;
}

SimCommand parse_preview(const std::vector<std::string>& args) {
  const ParsedArgs parsed = parse_args(
      "preview", args,
      with_cost_options({"--config", "--seed", "--order", "--metric", "--metric-seed", "--trace",
                         "--workers"}),
      {"--help", "--json"});
  if (parsed.flags.contains("--help")) return TextCommand{kPreviewHelp};
  const bool on_workers = parsed.values.contains("--workers");
  if (!on_workers) {
    for (const std::string& option : kCostOptions) {
      if (parsed.values.contains(option)) throw UsageError(option + ": needs --workers N");
    }
  } else if (parsed.values.contains("--order")) {
    throw UsageError("--order: not with --workers (trials act in the order their training finishes)");
  }
  PreviewCommand command;
  if (const std::optional<std::string> text = parsed.value("--order")) {
    command.preview.order = parse_choice<PickOrder>(
        "--order", *text, {{"fifo", PickOrder::kFifo}, {"random", PickOrder::kRandom}});
  }
  if (const std::optional<std::string> text = parsed.value("--metric")) {
    command.preview.metric = parse_choice<PreviewMetric>(
        "--metric", *text,
        {{"constant", PreviewMetric::kConstant},
         {"random", PreviewMetric::kRandom},
         {"trial-id", PreviewMetric::kTrialId}});
  }
  if (const std::optional<std::string> text = parsed.value("--metric-seed")) {
    command.preview.seed = parse_seed("--metric-seed", *text);
  }
  if (on_workers) command.workers = run_options(parsed);
  command.config = parsed.required("--config", "FILE");
  command.seed = seed_option(parsed);
  command.trace = parsed.value("--trace");
  command.json = parsed.flags.contains("--json");
  return command;
}

// ---------------------------------------------------------------------------------------------
// Running a command.

struct Loaded {
  ExperimentConfig config;
  std::uint32_t seed = 0;
};

Loaded load(const std::string& path, std::optional<std::uint32_t> seed) {
  Loaded loaded{load_config(path), 0};
  loaded.seed = search_seed(loaded.config, seed);
  return loaded;
}

std::unique_ptr<Workload> make_chosen_workload(const WorkloadChoice& choice) {
  try {
    if (choice.data_dir) return make_workload(choice.name, *choice.data_dir);
    return make_workload(choice.name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--workload: ") + e.what());
  }
}

int run(const TextCommand& command, std::istream&, std::ostream& out, std::ostream& err, bool) {
  (command.to_stderr ? err : out) << command.text;
  return command.exit_code;
}

int run(const DriveCommand& command, std::istream& in, std::ostream& out, std::ostream&, bool) {
  const Loaded loaded = load(command.config, command.seed);
  Searcher searcher =
      make_searcher(loaded.config.searcher, loaded.config.hyperparameters, loaded.seed);
  run_drive(searcher, in, out, command.options);
  return kExitOk;
}

// A one-line bar redrawn in place on a terminal; nothing otherwise.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool enabled, std::string label)
      : err_(err), enabled_(enabled), label_(std::move(label)) {}
  ~ProgressBar() {
    if (enabled_ && drawn_) err_ << "\r\033[K" << std::flush;
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  ProgressCallback callback() {
    if (!enabled_) return nullptr;
    return [this](double progress, double now) { draw(progress, now); };
  }

 private:
  void draw(double progress, double now) {
    const int percent = static_cast<int>(std::clamp(progress, 0.0, 1.0) * 100);
    if (drawn_ && percent == last_percent_) return;
    drawn_ = true;
    last_percent_ = percent;
    const int filled = percent * 30 / 100;
    err_ << "\r" << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
         << std::string(static_cast<std::size_t>(30 - filled), '.') << "] " << percent << '%';
    if (now > 0) err_ << "  virtual time " << static_cast<long long>(now) << " s";
    err_ << std::flush;
  }

  std::ostream& err_;
  bool enabled_;
  std::string label_;
  bool drawn_ = false;
  int last_percent_ = -1;
};

void print_run_summary(const RunSummary& s, const std::string& method, const std::string& workload,
                       std::uint64_t workers, std::uint32_t seed, std::ostream& out) {
  out << "searcher '" << method << "' on workload '" << workload << "', " << workers
      << " worker(s), seed " << seed << '\n';
  if (s.best_metric) {
    out << "best metric " << *s.best_metric << " (trial " << s.best_trial->to_string()
        << "), found at " << s.best_found_at << " s\n";
  } else {
    out << "no trial reached max_length\n";
  }
  if (s.first_full_length_at) out << "first trial at max_length after " << *s.first_full_length_at << " s\n";
  out << "trials created " << s.trials_created << "; validations per length:";
  for (const auto& [length, count] : s.validations_per_length) out << ' ' << length << ':' << count;
  out << "\ntraining units " << s.training_units << "; wall time " << s.wall_time
      << " s; utilisation " << std::round(s.utilisation * 1000) / 10 << "%\n";
  if (s.crashes > 0) {
    out << "crashes " << s.crashes << "; trials errored after their restarts " << s.errored_trials
        << "; training lost " << s.lost_seconds << " s\n";
  }
  out << "shutdown: " << (s.shutdown.failure ? "failed" : s.shutdown.cancel ? "canceled" : "completed")
      << '\n';
}

std::filesystem::path output_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw UsageError("--out: cannot create the directory '" + dir + "'");
  }
  return dir;
}

// Writes one output file, or says which one could not be written.
template <class Write>
void write_file(const std::filesystem::path& path, Write write) {
  std::ofstream file(path);
  if (file) write(file);
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path.string() + "'");
}

void write_run_files(const std::filesystem::path& dir, const RunSummary& summary,
                     const nlohmann::json& json, const Workload& workload, std::uint64_t workers,
                     const std::string& method) {
  write_file(dir / "summary.json", [&](std::ostream& o) { o << json.dump(2) << '\n'; });
  write_file(dir / "best_so_far.csv", [&](std::ostream& o) {
    o << "time,best\n";
    for (const auto& [time, best] : summary.best_so_far) o << time << ',' << best << '\n';
  });
  write_file(dir / "trials.csv", [&](std::ostream& o) {
    o << "trial,request_id,outcome,restarts,lengths\n";
    for (std::size_t i = 0; i < summary.timeline.trials.size(); ++i) {
      const TrialRecord& t = summary.timeline.trials[i];
      o << i + 1 << ',' << t.id.to_string() << ',' << outcome_name(t.outcome) << ',' << t.restarts
        << ',';
      for (std::size_t k = 0; k < t.lengths.size(); ++k) o << (k == 0 ? "" : " ") << t.lengths[k];
      o << '\n';
    }
  });
  const std::string what = method + " on " + std::string(workload.name()) + ", " +
                           std::to_string(workers) + " worker(s)";
  write_file(dir / "best_so_far.svg", [&](std::ostream& o) {
    write_best_so_far_svg(summary, workload.optimum(), "Best so far: " + what, o);
  });
  write_file(dir / "workers.svg", [&](std::ostream& o) {
    write_worker_gantt_svg(summary, workers, "Workers: " + what, o);
  });
  write_file(dir / "rungs.svg", [&](std::ostream& o) {
    write_rung_occupancy_svg(summary, "Trials validated per length: " + what, o);
  });
}

int run(const RunCommand& command, std::istream&, std::ostream& out, std::ostream& err,
        bool err_is_terminal) {
  RunOptions options = command.options;
  const std::unique_ptr<Workload> workload = make_chosen_workload(command.workload);
  const Loaded loaded = load(command.config, command.seed);

  std::ofstream trace;
  std::filesystem::path dir;
  if (command.out) {
    dir = output_directory(*command.out);
    trace.open(dir / "trace.jsonl");
    if (!trace) throw UsageError("--out: cannot write '" + (dir / "trace.jsonl").string() + "'");
    options.trace = &trace;
    options.timeline = true;
  }
  ProgressBar bar(err, err_is_terminal, "simulating");
  options.on_progress = bar.callback();
  const RunSummary summary = run_config(loaded.config, loaded.seed, *workload, options);
  const nlohmann::json json = run_json(summary, loaded.seed, *workload, options.workers);
  const std::string method = method_name(loaded.config.searcher.method);
  if (!dir.empty()) {
    trace.close();
    if (!trace) throw std::runtime_error("cannot write '" + (dir / "trace.jsonl").string() + "'");
    write_run_files(dir, summary, json, *workload, options.workers, method);
  }
  if (command.json) {
    out << json_line(json) << '\n';
  } else {
    print_run_summary(summary, method, std::string(workload->name()), options.workers, loaded.seed,
                      out);
    if (!dir.empty()) {
      out << "wrote " << dir.string()
          << "/: summary.json trace.jsonl best_so_far.csv trials.csv; plots best_so_far.svg "
             "workers.svg rungs.svg\n";
    }
  }
  return kExitOk;
}

std::string shown(const Quartiles& q) {
  if (!q.median) return "-";
  std::ostringstream text;
  text << *q.median << " [" << *q.q1 << ", " << *q.q3 << "]";
  return text.str();
}

int run(const CompareCommand& command, std::istream&, std::ostream& out, std::ostream& err,
        bool err_is_terminal) {
  RunOptions options = command.options;
  const std::unique_ptr<Workload> workload = make_chosen_workload(command.workload);
  const std::uint64_t seeds = command.seeds;
  const std::vector<double>& times = command.times;
  const std::optional<double>& target = command.target;
  const std::vector<std::string>& config_paths = command.configs;
  std::vector<ExperimentConfig> configs;
  std::vector<std::string> names;
  for (const std::string& path : config_paths) {
    configs.push_back(load_config(path));
    names.push_back(std::filesystem::path(path).filename().string());
  }
  ProgressBar bar(err, err_is_terminal, "comparing");
  options.on_progress = bar.callback();
  const CompareResult result =
      compare_configs(configs, names, *workload, seeds, options, times, target);

  const nlohmann::json json = compare_json(result, *workload, options.workers);
  if (command.out) {
    const std::filesystem::path dir = output_directory(*command.out);
    write_file(dir / "compare.csv", [&](std::ostream& csv) {
      csv << "config,time,runs,q1,median,q3\n";
      for (const ConfigComparison& c : result.configs) {
        for (std::size_t i = 0; i < result.times.size(); ++i) {
          const Quartiles& q = c.at_times[i];
          csv << c.name << ',' << result.times[i] << ',' << q.runs;
          for (const auto& v : {q.q1, q.median, q.q3}) csv << ',' << (v ? std::to_string(*v) : "");
          csv << '\n';
        }
      }
    });
    write_file(dir / "compare.json", [&](std::ostream& o) { o << json.dump(2) << '\n'; });
    write_file(dir / "compare.svg", [&](std::ostream& o) {
      write_compare_svg(result,
                        std::string(workload->name()) + ", " + std::to_string(options.workers) +
                            " worker(s), " + std::to_string(seeds) + " seeds",
                        o);
    });
  }
  if (command.json) {
    out << json_line(json) << '\n';
    return kExitOk;
  }
  out << "workload '" << workload->name() << "', " << options.workers << " worker(s), " << seeds
      << " seed(s); " << (result.regret ? "regret (best - optimum)" : "best metric")
      << ": median [q1, q3] (runs with a result)\n";
  for (const ConfigComparison& c : result.configs) {
    out << c.name << '\n';
    for (std::size_t i = 0; i < result.times.size(); ++i) {
      out << "  at " << result.times[i] << " s: " << shown(c.at_times[i]) << " ("
          << c.at_times[i].runs << '/' << seeds << ")\n";
    }
    if (target) {
      out << "  time to " << (result.regret ? "regret" : "best") << " <= " << *target << ": "
          << shown(c.time_to_target) << " s (" << c.time_to_target.runs << '/' << seeds << ")\n";
    }
  }
  return kExitOk;
}

int run(const EvaluateCommand& command, std::istream&, std::ostream& out, std::ostream&, bool) {
  const std::unique_ptr<Workload> workload = make_chosen_workload(command.workload);
  const double fidelity = command.fidelity;
  const std::vector<WorkloadParameter> inputs = workload->parameters();
  const std::vector<std::string>& items = command.point;
  std::string names;
  for (const WorkloadParameter& p : inputs) names += (names.empty() ? "" : ", ") + p.name;
  if (items.size() != inputs.size()) {
    throw UsageError("--point: workload '" + std::string(workload->name()) + "' reads " +
                     std::to_string(inputs.size()) + " values (" + names + "), got " +
                     std::to_string(items.size()));
  }
  std::vector<double> x;
  for (std::size_t j = 0; j < items.size(); ++j) {
    const WorkloadParameter& p = inputs[j];
    if (!p.choices.empty()) {
      if (std::find(p.choices.begin(), p.choices.end(), items[j]) == p.choices.end()) {
        throw UsageError("--point: " + p.name + " must be one of its choices, got '" + items[j] + "'");
      }
      x.push_back(p.encode(items[j]));
    } else {
      const std::optional<double> v = parse_finite_number(items[j]);
      if (!v) throw UsageError("--point: " + p.name + " must be a number, got '" + items[j] + "'");
      x.push_back(*v);
    }
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", workload->value(workload->locate(x), fidelity));
  out << text << '\n';
  return kExitOk;
}

int run(const PreviewCommand& command, std::istream&, std::ostream& out, std::ostream&, bool) {
  const std::optional<RunOptions>& on_workers = command.workers;
  PreviewOptions options = command.preview;
  const Loaded loaded = load(command.config, command.seed);
  std::ofstream trace;
  if (command.trace) {
    trace.open(*command.trace);
    if (!trace) throw UsageError("--trace: cannot write '" + *command.trace + "'");
    options.trace = &trace;
  }
  const SearcherSettings& searcher = loaded.config.searcher;
  std::optional<WorkerPreview> figures;
  PreviewResult result;
  if (on_workers) {
    figures = preview_on_workers(loaded.config, loaded.seed, options, *on_workers);
    result = figures->result;
  } else {
    Searcher engine = make_searcher(searcher, loaded.config.hyperparameters, loaded.seed);
    result = simulate(engine, options);
  }
  if (command.json) {
    out << json_line(preview_json(result, loaded.seed, figures ? &*figures : nullptr)) << '\n';
    return kExitOk;
  }
  const std::string unit = searcher.max_length.unit;
  out << "Using search configuration: searcher '" << method_name(searcher.method)
      << "', metric '" << searcher.metric << "' ("
      << (searcher.smaller_is_better ? "smaller" : "larger") << " is better), max_length "
      << searcher.max_length.units << (unit.empty() ? "" : " " + unit) << ", seed "
      << loaded.seed << "\n\n";
  print_preview_table(result, unit, out);
  if (on_workers) {
    const RunSummary& s = figures->summary;
    out << "\nOn " << figures->workers << " simulated worker(s) at " << on_workers->cost.seconds_per_unit
        << " s per length unit" << (unit.empty() ? "" : " (" + unit + ")") << ": wall time " << s.wall_time
        << " s, utilisation " << std::round(s.utilisation * 1000) / 10 << "%, training units "
        << s.training_units << '\n';
    if (s.crashes > 0) {
      out << "crashes " << s.crashes << "; trials errored after their restarts "
          << s.errored_trials << '\n';
    }
  }
  return kExitOk;
}

}  // namespace

SimCommand parse_searcher_sim_args(const std::vector<std::string>& args) {
  if (args.empty()) return TextCommand{kMainHelp, true, kExitUsage};
  const std::string& command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h") return TextCommand{kMainHelp};
  if (command == "help") {
    const std::string topic = rest.empty() ? "" : rest.front();
    if (topic == "searchers") return TextCommand{catalog_help()};
    return TextCommand{topic == "drive"      ? kDriveHelp
                       : topic == "preview"  ? kPreviewHelp
                       : topic == "run"      ? kRunHelp
                       : topic == "compare"  ? kCompareHelp
                       : topic == "evaluate" ? kEvaluateHelp
                                             : kMainHelp};
  }
  if (command == "--version") return TextCommand{"searcher-sim " HPSEARCH_VERSION "\n"};
  if (command == "drive") return parse_drive(rest);
  if (command == "preview") return parse_preview(rest);
  if (command == "run") return parse_run(rest);
  if (command == "compare") return parse_compare(rest);
  if (command == "evaluate") return parse_evaluate(rest);
  throw UsageError("unknown command '" + command +
                   "' (commands: run, compare, preview, drive, evaluate, help)");
}

int run_searcher_sim(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                     std::ostream& err, bool err_is_terminal) {
  const std::string command = args.empty() ? "" : args.front();
  try {
    const SimCommand parsed = parse_searcher_sim_args(args);
    return std::visit([&](const auto& c) { return run(c, in, out, err, err_is_terminal); }, parsed);
  } catch (const UsageError& e) {
    err << "searcher-sim" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-sim help"
        << (command == "drive" || command == "preview" || command == "run" || command == "compare" ||
                    command == "evaluate"
                ? " " + command
                : "")
        << "')\n";
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
