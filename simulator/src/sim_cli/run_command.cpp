// searcher-sim run: one search on N simulated workers in virtual time.
#include <cmath>
#include <fstream>
#include <ostream>

#include "commands.hpp"
#include "hpsearch/simulator/plots.hpp"
#include "hpsearch/simulator/reports.hpp"

namespace hpsearch::sim_cli {
namespace {

constexpr const char* kAbout =
    R"(searcher-sim run --config FILE --workload NAME --workers N [options]

Plays the whole search on N simulated workers in virtual time: a trial holds a worker while it
trains, checkpoints and frees it when it waits for a decision, and restores when it resumes;
its metric is the workload's value at fidelity length / max_length (smaller is better).
Deterministic for a given config, seed and options. With `sampler: auto`, the summary says
what it chose and why, and from which trial TPE proposed if it took over (--json:
sampler_choice).

)";

constexpr const char* kAfter = R"(
A progress bar is drawn on stderr when stderr is a terminal.
)";

// The workload table's rows, as a two-column list wrapped to 100 columns.
std::string workloads_help() {
  constexpr std::size_t kIndent = 44;
  constexpr std::size_t kWidth = 100;
  std::string text =
      "Workloads (the config's top-level hyperparameters must be exactly the workload's inputs):\n";
  for (const WorkloadRow& row : workload_rows()) {
    std::string line = "  " + std::string(row.names);
    std::size_t column = line.size();
    if (column + 1 > kIndent) {
      text += line + "\n";
      line.clear();
      column = 0;
    }
    line.append(kIndent - column, ' ');
    column = kIndent;
    bool first = true;  // the first word of the column needs no space before it
    std::string_view words = row.inputs;
    while (!words.empty()) {
      const std::size_t space = words.find(' ');
      const std::string_view word = words.substr(0, space);
      if (!first && column + 1 + word.size() > kWidth) {
        text += line + "\n";
        line.assign(kIndent, ' ');
        column = kIndent;
        first = true;
      }
      if (!first) line += ' ';
      line += word;
      column += word.size() + (first ? 0 : 1);
      first = false;
      words.remove_prefix(space == std::string_view::npos ? words.size() : space + 1);
    }
    text += line + "\n";
  }
  return text;
}

const cli::OptionSet& options() {
  static const cli::OptionSet set = [] {
    cli::OptionSet o("run");
    o.value("--config", "FILE", "experiment config (YAML or JSON), required")
        .value("--workload", "NAME", "required, see above")
        .value("--workers", "N", "simulated workers (slots), required")
        .value("--seed", "N", "search seed; overrides reproducibility.experiment_seed (default 0)")
        .add(cost_options())
        .flag("--workload-cost", "follow the workload's fidelity cost curve instead of linear cost")
        .value("--metric-noise", "X",
               "Gaussian noise (sigma) on the metric the searcher sees; the best\n"
               "metric reported is the noise-free value of the trial ranked best")
        .value("--data-dir", "DIR", "where the rbv2 tables are (default: the source tree's data/)")
        .value("--out", "DIR",
               "write there: summary.json, trace.jsonl (every searcher call with\n"
               "its virtual time), best_so_far.csv, trials.csv, and the plots\n"
               "best_so_far.svg, workers.svg (Gantt chart by trial outcome) and\n"
               "rungs.svg (trials validated at each length over time)")
        .flag("--json", "print the summary as JSON instead of text")
        .flag("--help", "this text");
    return o;
  }();
  return set;
}

void print_run_summary(const RunSummary& s, const std::string& method, const std::string& workload,
                       std::uint64_t workers, std::uint32_t seed, std::ostream& out) {
  out << "searcher '" << method << "' on workload '" << workload << "', " << workers
      << " worker(s), seed " << seed << '\n';
  if (s.sampler_choice) {
    out << sampler_choice_line(*s.sampler_choice) << '\n';
    const std::string switched =
        sampler_switch_text(*s.sampler_choice, s.sampler_switch_trial, true);
    if (!switched.empty()) out << switched << '\n';
  }
  if (s.best_metric) {
    out << "best metric " << *s.best_metric << " (trial " << s.best_trial->to_string()
        << "), found at " << s.best_found_at << " s\n";
  } else {
    out << "no trial reached max_length\n";
  }
  if (s.first_full_length_at)
    out << "first trial at max_length after " << *s.first_full_length_at << " s\n";
  out << "trials created " << s.trials_created << "; validations per length:";
  for (const auto& [length, count] : s.validations_per_length) out << ' ' << length << ':' << count;
  out << "\ntraining units " << s.training_units << "; wall time " << s.wall_time
      << " s; utilisation " << std::round(s.utilisation * 1000) / 10 << "%\n";
  if (s.crashes > 0) {
    out << "crashes " << s.crashes << "; trials errored after their restarts " << s.errored_trials
        << "; training lost " << s.lost_seconds << " s\n";
  }
  out << "shutdown: "
      << (s.shutdown.failure  ? "failed"
          : s.shutdown.cancel ? "canceled"
                              : "completed")
      << '\n';
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

}  // namespace

std::string run_help() {
  return kAbout + workloads_help() + "\n" + options().help() + kAfter;
}

SimCommand parse_run(const std::vector<std::string>& args) {
  const cli::Args parsed = options().parse(args);
  if (parsed.flag("--help")) return TextCommand{run_help()};
  RunCommand command;
  command.options = run_options(parsed);
  command.workload = workload_choice(parsed);
  command.config = parsed.required("--config");
  command.seed = parsed.seed("--seed");
  command.out = parsed.value("--out");
  command.json = parsed.flag("--json");
  return command;
}

int run(const RunCommand& command, const Io& io) {
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
  cli::ProgressBar bar(io.err, io.err_is_terminal, "simulating");
  if (bar.enabled())
    options.on_progress = [&bar](double progress, double now) { bar.draw(progress, now); };
  const RunSummary summary = run_config(loaded.config, loaded.seed, *workload, options);
  const nlohmann::json json = run_json(summary, loaded.seed, *workload, options.workers);
  const std::string method = method_name(loaded.config.searcher.method);
  if (!dir.empty()) {
    trace.close();
    if (!trace) throw std::runtime_error("cannot write '" + (dir / "trace.jsonl").string() + "'");
    write_run_files(dir, summary, json, *workload, options.workers, method);
  }
  if (command.json) {
    io.out << json_line(json) << '\n';
  } else {
    print_run_summary(summary, method, std::string(workload->name()), options.workers, loaded.seed,
                      io.out);
    if (!dir.empty()) {
      io.out << "wrote " << dir.string()
             << "/: summary.json trace.jsonl best_so_far.csv trials.csv; plots best_so_far.svg "
                "workers.svg rungs.svg\n";
    }
  }
  return cli::kExitOk;
}

}  // namespace hpsearch::sim_cli
