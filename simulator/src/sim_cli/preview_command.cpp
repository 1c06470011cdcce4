// searcher-sim preview: the whole search with instant trials (or on simulated workers).
#include <cmath>
#include <fstream>
#include <ostream>

#include "commands.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "hpsearch/simulator/reports.hpp"

namespace hpsearch::sim_cli {
namespace {

constexpr const char* kAbout = R"(searcher-sim preview --config FILE [options]

Plays the whole search with trials that finish instantly and prints how many trials are
trained to which lengths, like `det preview-search`. Deterministic for given seeds. A grid
search trains every point once to max_length, so its preview is computed from the grid's size
(a grid of 10^12 points at once); --trace and --workers play every trial. With
`sampler: auto`, a second header line says which sampler proposes and why (--json:
sampler_choice), from the space and max_trials alone. A model sampler under async_halving gets
a line of caution (--json: sampler_caution): the models gained less there than under
adaptive_asha, and GP did worse than random search with one worker (docs/samplers.md).

)";

const cli::OptionSet& options() {
  static const cli::OptionSet set = [] {
    cli::OptionSet o("preview");
    o.value("--config", "FILE", "experiment config (YAML or JSON), required")
        .value("--seed", "N", "search seed; overrides reproducibility.experiment_seed (default 0)")
        .value("--order", "fifo|random",
               "which trial acts next: the oldest with work pending (default), or a\nrandom one")
        .value("--metric", "constant|random|trial-id",
               "what every validation reports: 1 (default), uniform in [0,1), or the\n"
               "trial's creation number (later trials are worse)")
        .value("--metric-seed", "N", "seed of the random order and random metric (default 0)")
        .flag("--json", "print the result as JSON instead of a table")
        .value("--trace", "FILE",
               "write every step as a JSON line {\"in\": event, \"out\": answer} (with\n"
               "--workers, its \"time\" too, and the workers trials take and free:\n"
               "\"launched\", \"exited\"); the \"in\" lines replay through `searcher-sim\n"
               "drive` with the same answers")
        .flag("--help", "this text")
        .heading(
            "With workers (what Determined's preview cannot tell; cost is linear: a preview has\n"
            "no workload):")
        .value("--workers", "N",
               "play the search on N simulated workers in virtual time instead, and\n"
               "add the wall time, worker utilisation and training units; trials then\n"
               "act in the order their training finishes (so not with --order)")
        .add(cost_options());
    return o;
  }();
  return set;
}

}  // namespace

std::string preview_help() {
  return kAbout + options().help();
}

SimCommand parse_preview(const std::vector<std::string>& args) {
  const cli::Args parsed = options().parse(args);
  if (parsed.flag("--help")) return TextCommand{preview_help()};
  const bool on_workers = parsed.has("--workers");
  if (!on_workers) {
    for (const cli::Option& option : cost_options().options()) {
      if (parsed.has(option.name)) throw UsageError(option.name + ": needs --workers N");
    }
  } else if (parsed.has("--order")) {
    throw UsageError(
        "--order: not with --workers (trials act in the order their training finishes)");
  }
  PreviewCommand command;
  command.preview.order = parsed
                              .choice<PickOrder>("--order", {{"fifo", PickOrder::kFifo},
                                                             {"random", PickOrder::kRandom}})
                              .value_or(PickOrder::kFifo);
  command.preview.metric =
      parsed
          .choice<PreviewMetric>("--metric", {{"constant", PreviewMetric::kConstant},
                                              {"random", PreviewMetric::kRandom},
                                              {"trial-id", PreviewMetric::kTrialId}})
          .value_or(PreviewMetric::kConstant);
  command.preview.seed = parsed.seed("--metric-seed").value_or(0);
  if (on_workers) command.workers = run_options(parsed);
  command.config = parsed.required("--config");
  command.seed = parsed.seed("--seed");
  command.trace = parsed.value("--trace");
  command.json = parsed.flag("--json");
  return command;
}

int run(const PreviewCommand& command, const Io& io) {
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
    result = preview_config(loaded.config, loaded.seed, options);
  }
  std::ostream& out = io.out;
  const SamplerChoice choice =
      choose_sampler(searcher.sampler, searcher.method, loaded.config.hyperparameters);
  if (command.json) {
    const nlohmann::json j =
        preview_json(result, loaded.config, loaded.seed, figures ? &*figures : nullptr);
    out << json_line(j) << '\n';
    return cli::kExitOk;
  }
  const std::string unit = searcher.max_length.unit;
  print_preview_header(searcher, loaded.seed, out, &choice);
  print_preview_table(result, unit, out);
  if (on_workers) {
    const RunSummary& s = figures->summary;
    out << "\nOn " << figures->workers << " simulated worker(s) at "
        << on_workers->cost.seconds_per_unit << " s per length unit"
        << (unit.empty() ? "" : " (" + unit + ")") << ": wall time " << s.wall_time
        << " s, utilisation " << std::round(s.utilisation * 1000) / 10 << "%, training units "
        << s.training_units << '\n';
    if (s.crashes > 0) {
      out << "crashes " << s.crashes << "; trials errored after their restarts " << s.errored_trials
          << '\n';
    }
  }
  return cli::kExitOk;
}

}  // namespace hpsearch::sim_cli
