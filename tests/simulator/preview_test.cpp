#include <doctest/doctest.h>

#include <sstream>

#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

TEST_CASE("preview: the table of a random search") {
  Searcher s = make_searcher(RandomConfig{.max_length = 300, .max_trials = 4}, {}, 0);
  const PreviewResult result = simulate(s, {});
  CHECK(result.trials.size() == 4);
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

TEST_CASE("preview: an empty grid creates nothing and ends at once") {
  Searcher s = make_searcher(GridConfig{.max_length = 3}, {}, 0);
  const PreviewResult result = simulate(s, {});
  CHECK(result.trials.empty());
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
