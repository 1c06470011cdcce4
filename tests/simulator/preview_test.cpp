#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "hpsearch/simulator/reports.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

TEST_CASE("preview: the table of a random search") {
  Searcher s = make_searcher(RandomConfig{.max_length = 300, .max_trials = 4}, {}, 0);
  const PreviewResult result = simulate(s, {});
  CHECK(result.trials == 4);
  CHECK(result.shutdown == Shutdown{false, false});
  CHECK(result.progress == 1.0);
  std::ostringstream out;
  print_preview_table(result, "batches", out);
  CHECK(out.str() ==
        "This search will create a total of 4 trial(s).\n"
        " Trials | Breakdown\n"
        "--------+--------------------------\n"
        "      4 | 1 x train to 300 batches\n");
  CHECK(result.to_json() == nlohmann::json::parse(
                                R"({"results":{"300":4},"trials":4,"progress":1.0,
                                    "shutdown":{"cancel":false,"failure":false}})"));
}

TEST_CASE("preview: the header names the method and the sampler") {
  SearcherSettings settings;
  settings.metric = "loss";
  settings.max_length = {27, "epochs"};
  settings.method = AshaConfig{.max_length = 27, .max_trials = 9};
  settings.sampler = TpeConfig{};
  std::ostringstream out;
  print_preview_header(settings, 5, out);
  CHECK(out.str() ==
        "Using search configuration: searcher 'async_halving', sampler 'tpe', metric 'loss' "
        "(smaller is better), max_length 27 epochs, seed 5\n\n");
  settings.sampler = GpConfig{};
  settings.smaller_is_better = false;
  out.str("");
  print_preview_header(settings, 0, out);
  CHECK(
      out.str().starts_with("Using search configuration: searcher 'async_halving', sampler 'gp', "
                            "metric 'loss' (larger is better)"));
}

TEST_CASE("preview: the header says what sampler: auto chose and why") {
  // The rule (docs/samplers.md, "sampler: auto"): the models first propose once dimensions + 2
  // trials have reported, so with two varying hyperparameters a budget of 4 trials ends before
  // any model acts (random), and a budget of 5 leaves the models a proposal (both models run;
  // b is an int, so TPE proposes from the start).
  const auto header = [](int max_trials) {
    const ExperimentConfig config = parse_config(
        "searcher: {name: random, metric: m, max_length: 10, sampler: auto, max_trials: " +
            std::to_string(max_trials) +
            "}\n"
            "hyperparameters:\n"
            "  a: {type: double, minval: 0, maxval: 1}\n"
            "  b: {type: int, minval: 1, maxval: 9}\n"
            "  c: {type: const, val: 3}\n",
        "exp.yaml");
    const SamplerChoice choice =
        choose_sampler(config.searcher.sampler, config.searcher.method, config.hyperparameters);
    std::ostringstream out;
    print_preview_header(config.searcher, 0, out, &choice);
    return out.str();
  };
  const std::string four = header(4);
  CHECK(four.find("sampler 'auto'") != std::string::npos);
  CHECK(four.find("\nSampler 'auto' chose 'random': max_trials 4 ends before a model's first "
                  "proposal (after 4 trials have reported)\n\n") != std::string::npos);
  const std::string five = header(5);
  CHECK(five.find("\nSampler 'auto' chose 'tpe': from the first trial, as int hyperparameter "
                  "'b' makes the space discrete (results will repeat); GP only records the "
                  "trials\n") != std::string::npos);
  CHECK(five.ends_with("\n\n"));
  // Any other sampler: no second line.
  const SamplerChoice none{TpeConfig{}, "", "", ""};
  SearcherSettings settings;
  settings.sampler = TpeConfig{};
  std::ostringstream out;
  print_preview_header(settings, 0, out, &none);
  const std::string text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}

TEST_CASE("preview: an empty grid creates nothing and ends at once") {
  Searcher s = make_searcher(GridConfig{.max_length = 3}, {}, 0);
  const PreviewResult result = simulate(s, {});
  CHECK(result.trials == 0);
  std::ostringstream out;
  print_preview_table(result, "", out);
  CHECK(out.str().starts_with("This search will create a total of 0 trial(s).\n"));
}

TEST_CASE("preview: the trace replays through the drive protocol with identical answers") {
  for (const PickOrder order : {PickOrder::kFifo, PickOrder::kRandom}) {
    const MethodConfig config = GridConfig{.max_length = 4, .max_concurrent_trials = 3};
    const HyperparameterSpace hps = double_axes({3, 2});
    Searcher original = make_searcher(config, hps, 9);
    std::ostringstream trace;
    (void)simulate(original, PreviewOptions{.order = order, .seed = 5, .trace = &trace});
    Searcher replay = make_searcher(config, hps, 9);
    std::istringstream lines(trace.str());
    int steps = 0;
    for (std::string line; std::getline(lines, line); ++steps) {
      const nlohmann::json step = nlohmann::json::parse(line);
      REQUIRE(drive_line(replay, step["in"].dump()) == step["out"]);
    }
    CHECK(steps == 1 + 6 * 4);  // initial, then created, progress, validation, closed per trial
    CHECK(replay.snapshot() == original.snapshot());
  }
}

TEST_CASE("preview: accepted extreme bounds give every trial finite values with every sampler") {
  // The widest bounds the config accepts (issue 25: wider ones gave "x": null, and TPE's
  // preview stopped with "null is not in the space").
  for (const std::string sampler : {"random", "tpe", "gp"}) {
    CAPTURE(sampler);
    const ExperimentConfig config = parse_config(
        "searcher: {name: adaptive_asha, metric: m, max_length: 27, max_trials: 30,\n"
        "           sampler: {name: " +
            sampler +
            "}}\n"
            "hyperparameters:\n"
            "  d: {type: double, minval: -8e307, maxval: 8e307}\n"
            "  l: {type: log, minval: -300, maxval: 308, base: 10}\n"
            "  s: {type: log, minval: -308, maxval: 300, base: 0.1}\n"
            "  i: {type: int, minval: -9223372036854775808, maxval: 9223372036854775807}\n",
        "exp.yaml");
    std::stringstream trace;
    const PreviewResult result = preview_config(
        config, 7, PreviewOptions{.metric = PreviewMetric::kRandom, .trace = &trace});
    CHECK(result.trials == 30);
    std::uint64_t creates = 0;
    for (std::string line; std::getline(trace, line);) {
      const nlohmann::json step = nlohmann::json::parse(line);
      for (const nlohmann::json& op : step["out"]["operations"]) {
        if (op["type"] != "create") continue;
        ++creates;
        for (const char* name : {"d", "l", "s"}) {
          REQUIRE(op["hparams"][name].is_number_float());
          CHECK(std::isfinite(op["hparams"][name].get<double>()));
        }
        CHECK(op["hparams"]["i"].is_number_integer());
      }
    }
    CHECK(creates == 30);
  }
}

TEST_CASE("preview: a grid's preview is its size, as playing it gives, without playing it") {
  // Small grids played trial by trial (simulate) against grid_preview, in every order and
  // metric: the closed form must be what the simulation finds.
  for (const std::uint64_t concurrent : std::initializer_list<std::uint64_t>{0, 1, 3}) {
    for (const std::uint64_t count : std::initializer_list<std::uint64_t>{0, 1, 2, 5}) {
      HyperparameterSpace space({{"x", DoubleHp{.minval = 0, .maxval = 1, .count = count}},
                                 {"c", CategoricalHp{std::vector<nlohmann::json>{"a", "b"}}}});
      const GridConfig grid{.max_length = 7, .max_concurrent_trials = concurrent};
      for (const PickOrder order : {PickOrder::kFifo, PickOrder::kRandom}) {
        CAPTURE(concurrent);
        CAPTURE(count);
        Searcher played = make_searcher(grid, space, 3);
        const PreviewResult simulated =
            simulate(played, {.order = order, .metric = PreviewMetric::kRandom, .seed = 5});
        Searcher fresh = make_searcher(grid, space, 3);
        const PreviewResult closed = grid_preview(std::get<GridSearch>(fresh.method().variant()));
        CHECK(closed.trials == 2 * count);
        CHECK(closed.trials == simulated.trials);
        CHECK(closed.sequences == simulated.sequences);
        CHECK(closed.shutdown == simulated.shutdown);
        CHECK(closed.progress == simulated.progress);
      }
    }
  }
}

TEST_CASE("preview: a grid of 10^12 points previews at once (issue 25)") {
  // 10^4 x 10^4 x 10^4 points: materialising them took 25 MB/s and never answered.
  const ExperimentConfig config = parse_config(
      "searcher: {name: grid, metric: m, max_length: {batches: 100}}\n"
      "hyperparameters:\n"
      "  a: {type: double, minval: 0, maxval: 1, count: 10000}\n"
      "  b: {type: double, minval: 0, maxval: 1, count: 10000}\n"
      "  c: {type: int, minval: 0, maxval: 1000000, count: 10000}\n",
      "exp.yaml");
  const PreviewResult result = preview_config(config, 0, {});
  CHECK(result.trials == 1000000000000ULL);
  CHECK(result.sequences == std::map<std::string, std::uint64_t>{{"100", 1000000000000ULL}});
  std::ostringstream out;
  print_preview_table(result, "batches", out);
  CHECK(out.str() ==
        "This search will create a total of 1000000000000 trial(s).\n"
        "        Trials | Breakdown\n"
        "---------------+--------------------------\n"
        " 1000000000000 | 1 x train to 100 batches\n");
}
