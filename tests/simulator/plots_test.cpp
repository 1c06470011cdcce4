// The SVG plots: what they draw for a known run.
#include <doctest/doctest.h>

#include <sstream>

#include "hpsearch/simulator/cli.hpp"
#include "hpsearch/simulator/plots.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

RunSummary asha_run(double crash_rate = 0) {
  const HyperparameterSpace branin = space({{"x1", double_hp(-5, 10)}, {"x2", double_hp(0, 15)}});
  Searcher searcher = make_searcher(AshaConfig{.max_length = 9,
                                               .max_trials = 9,
                                               .num_rungs = 3,
                                               .divisor = 3,
                                               .max_concurrent_trials = 3},
                                    branin, 0);
  const auto workload = make_workload("mf-branin");
  RunOptions options{.workers = 3, .timeline = true};
  options.faults = {.crash_rate = crash_rate, .max_restarts = 100};
  return run_simulation(searcher, *workload, branin, 9, options);
}

void check_document(const std::string& svg) {
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(count(svg, "<title>") == count(svg, "</title>"));
}

}  // namespace

TEST_CASE("plots: the Gantt chart has one bar per launch, coloured by outcome") {
  const RunSummary s = asha_run(0.05);
  REQUIRE(s.crashes > 0);
  std::ostringstream svg;
  write_worker_gantt_svg(s, 3, "Workers", svg);
  check_document(svg.str());
  CHECK(count(svg.str(), "<title>trial ") == s.timeline.spans.size());
  CHECK(count(svg.str(), ", crashed, ") == s.crashes);
  CHECK(count(svg.str(), "stroke=\"#000\" stroke-width=\"1.5\"") == s.crashes);
  std::size_t completed = 0;
  for (const WorkerSpan& span : s.timeline.spans) {
    completed += s.timeline.trials[span.trial].outcome == TrialOutcome::kCompleted ? 1U : 0U;
  }
  CHECK(completed > 0);
  CHECK(count(svg.str(), "fill=\"#2ca02c\"><title>") +
            count(svg.str(), "fill=\"#2ca02c\" stroke") ==
        completed);
  std::ostringstream capped;
  write_worker_gantt_svg(s, 3, "Workers", capped, 2);
  CHECK(count(capped.str(), "<title>trial ") == 0);
  CHECK(capped.str().find(std::to_string(s.timeline.spans.size()) +
                          " launches: too many to draw (limit 2)") != std::string::npos);
}

TEST_CASE("plots: rung occupancy draws one line per length, best-so-far one line") {
  const RunSummary s = asha_run();
  std::ostringstream rungs;
  write_rung_occupancy_svg(s, "Rungs", rungs);
  check_document(rungs.str());
  CHECK(count(rungs.str(), "<polyline") == s.validations_per_length.size());
  for (const auto& [length, n] : s.validations_per_length) {
    CHECK(rungs.str().find(">length " + std::to_string(length) + "<") != std::string::npos);
  }
  std::ostringstream best;
  write_best_so_far_svg(s, 0.397887, "Best <so> far & more", best);
  check_document(best.str());
  CHECK(count(best.str(), "<polyline") == 1);
  CHECK(best.str().find("Best &lt;so&gt; far &amp; more") != std::string::npos);
  CHECK(best.str().find(">regret of the best trial at max_length<") != std::string::npos);
  RunSummary nothing;
  std::ostringstream empty;
  write_best_so_far_svg(nothing, std::nullopt, "none", empty);
  check_document(empty.str());
  CHECK(empty.str().find("no trial reached max_length") != std::string::npos);
}

TEST_CASE("plots: compare draws a band and a median line per config") {
  const ExperimentConfig config = parse_config(
      "searcher: {name: random, metric: loss, max_trials: 8, max_length: 4, max_concurrent_trials: "
      "2}\n"
      "hyperparameters:\n"
      "  x1: {type: double, minval: -5, maxval: 10}\n"
      "  x2: {type: double, minval: 0, maxval: 15}\n",
      "random.yaml");
  const auto workload = make_workload("mf-branin");
  const CompareResult result = compare_configs({config, config}, {"a", "b&c"}, *workload, 5,
                                               RunOptions{.workers = 2}, {}, {});
  CHECK(result.curve_times.size() == 100);
  CHECK(result.configs.front().curve.size() == 100);
  std::ostringstream svg;
  write_compare_svg(result, "compare", svg);
  check_document(svg.str());
  CHECK(count(svg.str(), "<polygon") == 2);
  CHECK(count(svg.str(), "<polyline") == 2);
  CHECK(svg.str().find(">b&amp;c<") != std::string::npos);
}

TEST_CASE("cli: a progress bar on a terminal, nothing otherwise") {
  const std::string config = std::string(HPSEARCH_SOURCE_DIR) + "/examples/asha_hartmann6.yaml";
  const std::vector<std::string> args{"run",          "--config",  config, "--workload",
                                      "mf-hartmann6", "--workers", "4"};
  std::istringstream in;
  std::ostringstream out, err;
  CHECK(run_searcher_sim(args, in, out, err, true) == 0);
  CHECK(err.str().find("simulating [") != std::string::npos);
  CHECK(err.str().find("] 100%") != std::string::npos);
  CHECK(err.str().ends_with("\r\033[K"));  // cleared at the end
  std::ostringstream quiet_out, quiet_err;
  CHECK(run_searcher_sim(args, in, quiet_out, quiet_err, false) == 0);
  CHECK(quiet_err.str().empty());
  CHECK(quiet_out.str() == out.str());
}
