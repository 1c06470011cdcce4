// searcher-sim compare: several configs over K seeds each, side by side.
#include <algorithm>
#include <ostream>
#include <sstream>

#include "commands.hpp"
#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/plots.hpp"
#include "hpsearch/simulator/reports.hpp"

namespace hpsearch::sim_cli {
namespace {

constexpr const char* kAbout =
    R"(searcher-sim compare --configs A.yaml B.yaml ... --workload NAME --workers N --seeds K [options]

Simulates each config with search seeds 0..K-1 (as `run` does; the noise seeded alike) and
prints, per config, the median and quartiles [q1, q3] of the best metric found by fixed
times; when the workload's optimum is known, of the regret (best - optimum). Quartiles
interpolate linearly between order statistics (numpy's default). Runs with no trial at
max_length yet by a time are left out of that time's figures (the count is shown).

)";

const cli::OptionSet& options() {
  static const cli::OptionSet set = [] {
    cli::OptionSet o("compare");
    o.value("--configs", "A B ...", "experiment configs (YAML or JSON), required")
        .value("--workload", "NAME", "required (see 'searcher-sim help run')")
        .value("--workers", "N", "simulated workers, required")
        .value("--seeds", "K", "runs per config (default 10)")
        .value("--times", "T1,T2,...",
               "virtual times to report (default: 25/50/75/100% of the longest run)")
        .value("--target", "X",
               "also report the time until the best (regret) first reaches X or less")
        .value("--out", "DIR",
               "write compare.csv, compare.json and compare.svg (median and quartile\n"
               "band of each config over time) there")
        .flag("--json", "print the result as JSON")
        .value("--data-dir", "DIR", "where the rbv2 tables are")
        .heading("The cost model, as for `run` (the random draws of run i are seeded with i):")
        .add(cost_options())
        .remove("--noise-seed")
        .flag("--workload-cost", "follow the workload's fidelity cost curve instead of linear cost")
        .value("--metric-noise", "X", "Gaussian noise (sigma) on the metric the searcher sees")
        .flag("--help", "this text");
    return o;
  }();
  return set;
}

std::string shown(const Quartiles& q) {
  if (!q.median) return "-";
  std::ostringstream text;
  text << *q.median << " [" << *q.q1 << ", " << *q.q3 << "]";
  return text.str();
}

void write_compare_files(const std::filesystem::path& dir, const CompareResult& result,
                         const nlohmann::json& json, const Workload& workload,
                         std::uint64_t workers) {
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
                      std::string(workload.name()) + ", " + std::to_string(workers) +
                          " worker(s), " + std::to_string(result.seeds) + " seeds",
                      o);
  });
}

}  // namespace

std::string compare_help() {
  return kAbout + options().help();
}

SimCommand parse_compare(std::vector<std::string> args) {
  // --configs takes every following argument up to the next option.
  std::vector<std::string> config_paths;
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (*it != "--configs") continue;
    auto end =
        std::find_if(it + 1, args.end(), [](const std::string& a) { return a.starts_with("--"); });
    config_paths.assign(it + 1, end);
    args.erase(it, end);
    break;
  }
  const cli::Args parsed = options().parse(args);
  if (parsed.has("--configs")) throw UsageError("--configs: given twice");
  if (parsed.flag("--help")) return TextCommand{compare_help()};
  if (config_paths.empty()) throw UsageError("--configs A.yaml [B.yaml ...] is required");
  CompareCommand command;
  command.configs = std::move(config_paths);
  command.options = run_options(parsed);
  command.workload = workload_choice(parsed);
  command.seeds = parsed.count("--seeds", 1, 100000).value_or(10);
  for (const std::string& item : parsed.list("--times")) {
    command.times.push_back(parse_nonnegative("--times", item));
  }
  command.target = parsed.number("--target");
  command.out = parsed.value("--out");
  command.json = parsed.flag("--json");
  return command;
}

int run(const CompareCommand& command, const Io& io) {
  RunOptions options = command.options;
  const std::unique_ptr<Workload> workload = make_chosen_workload(command.workload);
  const std::uint64_t seeds = command.seeds;
  std::vector<ExperimentConfig> configs;
  std::vector<std::string> names;
  for (const std::string& path : command.configs) {
    configs.push_back(load_config(path));
    names.push_back(std::filesystem::path(path).filename().string());
  }
  cli::ProgressBar bar(io.err, io.err_is_terminal, "comparing");
  if (bar.enabled())
    options.on_progress = [&bar](double progress, double now) { bar.draw(progress, now); };
  const CompareResult result =
      compare_configs(configs, names, *workload, seeds, options, command.times, command.target);
  const nlohmann::json json = compare_json(result, *workload, options.workers);
  if (command.out)
    write_compare_files(output_directory(*command.out), result, json, *workload, options.workers);
  std::ostream& out = io.out;
  if (command.json) {
    out << json_line(json) << '\n';
    return cli::kExitOk;
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
    if (command.target) {
      out << "  time to " << (result.regret ? "regret" : "best") << " <= " << *command.target
          << ": " << shown(c.time_to_target) << " s (" << c.time_to_target.runs << '/' << seeds
          << ")\n";
    }
  }
  return cli::kExitOk;
}

}  // namespace hpsearch::sim_cli
