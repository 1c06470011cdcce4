// Config errors: one case per error class, asserting the exact text. Locations are 1-based
// line:column of the offending node (or of the map that lacks a field), counted by hand.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/grid.hpp"
#include "support/parse_config_text.hpp"

using namespace hpsearch;

namespace {
using testing::parse;

#define CHECK_CONFIG_ERROR(text, message) \
  CHECK_THROWS_WITH_AS((void)parse(text), message, ConfigError)
}  // namespace

TEST_CASE("config: a random searcher with defaults") {
  const ExperimentConfig c = parse(R"(searcher:
  name: random
  metric: loss
  max_trials: 5
  max_length:
    batches: 100
hyperparameters:
  lr: {type: log, minval: -4, maxval: -1, base: 10}
reproducibility:
  experiment_seed: 42
)");
  CHECK(c.searcher.metric == "loss");
  CHECK(c.searcher.smaller_is_better);
  CHECK(c.searcher.max_length == Length{100, "batches"});
  CHECK(std::get<RandomConfig>(c.searcher.method) ==
        RandomConfig{.max_length = 100, .max_trials = 5, .max_concurrent_trials = 16});
  CHECK(c.experiment_seed == 42U);
  CHECK(c.max_restarts == 5);
  REQUIRE(c.hyperparameters.entries().size() == 1);
  CHECK(std::get<LogHp>(c.hyperparameters.entries()[0].value) == LogHp{-4, -1, 10, std::nullopt});
}

TEST_CASE("config: JSON is accepted as well as YAML") {
  const ExperimentConfig c = parse(
      R"({"searcher": {"name": "grid", "metric": "acc", "smaller_is_better": false,
          "max_length": 10, "max_concurrent_trials": 0},
          "hyperparameters": {"x": {"type": "int", "minval": 0, "maxval": 4, "count": 5},
                              "name": "resnet", "n": "12"}})");
  CHECK_FALSE(c.searcher.smaller_is_better);
  CHECK(c.searcher.max_length == Length{10, ""});
  CHECK(std::get<GridConfig>(c.searcher.method).max_concurrent_trials == 0);
  CHECK(Grid(c.hyperparameters).size() == 5);
  const auto& entries = c.hyperparameters.entries();
  CHECK(std::get<ConstHp>(entries[0].value).value == "12");  // quoted: stays a string
  CHECK(std::get<ConstHp>(entries[1].value).value == "resnet");
}

TEST_CASE("config: plain YAML values keep their JSON types") {
  const ExperimentConfig c = parse(R"(searcher: {name: single, metric: m, max_length: 1}
hyperparameters:
  a: 12
  b: "12"
  c: 1.5e-3
  d: true
  e: null
  f: [1, two, {k: v}]
  g: -7
)");
  const nlohmann::json expected = nlohmann::json::parse(
      R"({"a":12,"b":"12","c":0.0015,"d":true,"e":null,"f":[1,"two",{"k":"v"}],"g":-7})");
  for (const NamedHyperparameter& entry : c.hyperparameters.entries()) {
    INFO(entry.name);
    CHECK(std::get<ConstHp>(entry.value).value == expected.at(entry.name));
  }
}

TEST_CASE("config: adaptive_asha and async_halving defaults and the v0.38 length form") {
  const ExperimentConfig adaptive = parse(R"(searcher:
  name: adaptive_asha
  metric: loss
  max_trials: 16
  time_metric: batches
  max_time: 937
)");
  CHECK(adaptive.searcher.max_length == Length{937, "batches"});
  CHECK(adaptive.searcher.time_metric == "batches");  // the metrics drive this search (runner)
  CHECK(std::get<AdaptiveAshaConfig>(adaptive.searcher.method) ==
        AdaptiveAshaConfig{.max_length = 937, .max_trials = 16});
  const ExperimentConfig asha = parse(R"(searcher:
  name: async_halving
  metric: acc
  smaller_is_better: false
  num_rungs: 3
  divisor: 3
  max_trials: 12
  max_length: {epochs: 12}
  stop_once: true
)");
  CHECK(std::get<AshaConfig>(asha.searcher.method) == AshaConfig{.max_length = 12,
                                                                 .max_trials = 12,
                                                                 .num_rungs = 3,
                                                                 .divisor = 3,
                                                                 .max_concurrent_trials = 16,
                                                                 .stop_once = true});
  CHECK_FALSE(asha.searcher.smaller_is_better);
  CHECK(asha.searcher.time_metric.empty());  // max_length: operations drive it
}

TEST_CASE("config: v0.38 single, random and grid without max_length: the trial decides") {
  // Determined 0.38 dropped the length from these searchers: a trial trains until its script
  // ends. The searcher then issues a nominal validate_after(1) (docs/config.md).
  for (const char* text : {"searcher: {name: single, metric: m}\n",
                           "searcher: {name: random, metric: m, max_trials: 3, max_length: null}\n",
                           "searcher: {name: grid, metric: m}\n"}) {
    INFO(text);
    const ExperimentConfig c = parse(text);
    CHECK(c.searcher.trial_decides_length);
    CHECK(c.searcher.max_length == Length{1, ""});
    CHECK(c.searcher.time_metric.empty());
  }
  CHECK(std::get<RandomConfig>(
            parse("searcher: {name: random, metric: m, max_trials: 3}\n").searcher.method)
            .max_length == 1);
  const ExperimentConfig given =
      parse("searcher: {name: single, metric: m, max_length: {epochs: 2}}\n");
  CHECK_FALSE(given.searcher.trial_decides_length);
  CHECK(given.searcher.max_length == Length{2, "epochs"});
}

TEST_CASE("config: the whole config is kept as JSON for the runner and the trials") {
  const ExperimentConfig c = parse(R"(searcher: {name: single, metric: loss, max_length: 3}
resources:
  slots_per_trial: 2
checkpoint_storage: {save_trial_best: 0}
)");
  CHECK(c.document ==
        nlohmann::json{{"searcher", {{"name", "single"}, {"metric", "loss"}, {"max_length", 3}}},
                       {"resources", {{"slots_per_trial", 2}}},
                       {"checkpoint_storage", {{"save_trial_best", 0}}}});
  // YAML's infinities have no JSON form: the document is left out, the config still parses.
  const ExperimentConfig inf =
      parse("searcher: {name: single, metric: loss, max_length: 3}\ndata: {x: .inf}\n");
  CHECK(inf.document.is_null());
}

TEST_CASE("config: missing required fields name the field and say what it is") {
  CHECK_CONFIG_ERROR(R"(searcher:
  name: random
  metric: loss
  max_length: 100
)",
                     "exp.yaml:2:3: searcher.max_trials: missing required field (how many "
                     "trials to create in all)");
  CHECK_CONFIG_ERROR("hyperparameters: {}\n",
                     "exp.yaml:1:1: searcher: missing required field (the searcher section, e.g. "
                     "searcher: {name: random, metric: loss, max_trials: 10, max_length: 100})");
  CHECK_CONFIG_ERROR("searcher: {name: grid, max_length: 3}\n",
                     "exp.yaml:1:11: searcher.metric: missing required field (the name of the "
                     "validation metric to optimise)");
  CHECK_CONFIG_ERROR("searcher: {name: async_halving, metric: m, max_trials: 4, num_rungs: 2}\n",
                     "exp.yaml:1:11: searcher.max_length: missing required field (the longest a "
                     "trial trains, e.g. max_length: {batches: 1000}; or give time_metric and "
                     "max_time)");
  CHECK_CONFIG_ERROR("searcher: {metric: m}\n",
                     "exp.yaml:1:11: searcher.name: missing required field (one of 'single', "
                     "'random', 'grid', 'async_halving', 'adaptive_asha', 'pbt', 'custom')");
}

TEST_CASE("config: wrong types name the value found") {
  CHECK_CONFIG_ERROR(R"(searcher:
  name: random
  metric: loss
  max_trials: lots
  max_length: 100
)",
                     "exp.yaml:4:15: searcher.max_trials: must be an integer >= 1, got 'lots'");
  CHECK_CONFIG_ERROR("searcher: {name: random, metric: [a], max_trials: 1, max_length: 1}\n",
                     "exp.yaml:1:34: searcher.metric: must be a string, got a list");
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: m, max_trials: 1, max_length: 1, smaller_is_better: "
      "maybe}\n",
      "exp.yaml:1:86: searcher.smaller_is_better: must be true or false, got 'maybe'");
  CHECK_CONFIG_ERROR("searcher: {name: single, metric: m, max_length: 2.5}\n",
                     "exp.yaml:1:49: searcher.max_length: must be an integer >= 1 or a length "
                     "like {batches: N}, {records: N} or {epochs: N}, got 2.5");
  CHECK_CONFIG_ERROR("searcher: [random]\n", "exp.yaml:1:11: searcher: must be a map, got a list");
}

TEST_CASE("config: values out of range say what was expected") {
  CHECK_CONFIG_ERROR(R"(searcher:
  name: random
  metric: loss
  max_trials: -5
  max_length: 100
)",
                     "exp.yaml:4:15: searcher.max_trials: must be an integer >= 1, got -5");
  CHECK_CONFIG_ERROR(
      "searcher: {name: async_halving, metric: m, num_rungs: 2, max_trials: 4, "
      "max_length: 8, divisor: 1}\n",
      "exp.yaml:1:97: searcher.divisor: must be a number > 1, got 1");
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: m, max_trials: 1, max_length: 1, "
      "max_concurrent_trials: -1}\n",
      "exp.yaml:1:90: searcher.max_concurrent_trials: must be an integer >= 0, got -1");
  CHECK_CONFIG_ERROR(
      "searcher: {name: single, metric: m, max_length: 1}\n"
      "reproducibility: {experiment_seed: 4294967296}\n",
      "exp.yaml:2:36: reproducibility.experiment_seed: must be an integer between 0 and "
      "4294967295, got 4294967296");
  CHECK_CONFIG_ERROR("searcher: {name: single, metric: m, max_length: {batches: 0}}\n",
                     "exp.yaml:1:59: searcher.max_length.batches: must be an integer >= 1, got 0");
  CHECK_CONFIG_ERROR(
      "searcher: {name: adaptive_asha, metric: m, max_trials: 4, max_length: 8, mode: wild}\n",
      "exp.yaml:1:80: searcher.mode: must be one of 'aggressive', 'standard', 'conservative', "
      "got 'wild'");
}

TEST_CASE("config: unknown keys list the valid ones") {
  CHECK_CONFIG_ERROR(R"(searcher:
  name: random
  metric: loss
  max_trial: 5
  max_length: 100
)",
                     "exp.yaml:4:3: searcher.max_trial: unknown field (did you mean "
                     "'max_trials'?); valid fields of the 'random' searcher are: "
                     "max_concurrent_trials, max_length, max_trials, metric, name, sampler, "
                     "smaller_is_better, source_checkpoint_uuid, source_trial_id");
  CHECK_CONFIG_ERROR("searcher: {name: single, metric: m, max_length: {steps: 5}}\n",
                     "exp.yaml:1:50: searcher.max_length.steps: unknown field; valid fields of a "
                     "length are: batches, epochs, records");
  CHECK_CONFIG_ERROR(
      "searcher: {name: single, metric: m, max_length: 1}\n"
      "hyperparameters:\n"
      "  x: {type: int, minval: 0, maxval: 3, step: 1}\n",
      "exp.yaml:3:40: hyperparameters.x.step: unknown field; valid fields of a hyperparameter "
      "of type 'int' are: count, maxval, minval, type");
  const std::string top =
      "searcher: {name: single, metric: m, max_length: 1}\nhyperparameter: {}\n";
  CHECK_THROWS_WITH_AS(
      (void)parse(top),
      doctest::Contains("exp.yaml:2:1: hyperparameter: unknown field (did you mean "
                        "'hyperparameters'?); valid fields of an experiment config are: "
                        "batches_per_step, bind_mounts,"),
      ConfigError);
}

TEST_CASE("config: end-of-life and unknown searchers say what to use instead") {
  CHECK_CONFIG_ERROR("searcher: {name: sync_halving, metric: m}\n",
                     "exp.yaml:1:18: searcher.name: the 'sync_halving' searcher has been removed "
                     "and is not valid for new experiments; use 'async_halving' (or "
                     "'adaptive_asha') instead");
  CHECK_CONFIG_ERROR("searcher: {name: adaptive, metric: m}\n",
                     "exp.yaml:1:18: searcher.name: the 'adaptive' searcher has been removed and "
                     "is not valid for new experiments; use 'adaptive_asha' instead");
  CHECK_CONFIG_ERROR("searcher: {name: adaptive_simple, metric: m}\n",
                     "exp.yaml:1:18: searcher.name: the 'adaptive_simple' searcher has been "
                     "removed and is not valid for new experiments; use 'adaptive_asha' instead");
  CHECK_CONFIG_ERROR("searcher: {name: bayes, metric: m}\n",
                     "exp.yaml:1:18: searcher.name: must be one of 'single', 'random', 'grid', "
                     "'async_halving', 'adaptive_asha', 'pbt', 'custom', got 'bayes'");
  // A near miss is named (within two edits): the dash for the underscore, a letter left out.
  CHECK_CONFIG_ERROR("searcher: {name: adaptive-asha, metric: m}\n",
                     "exp.yaml:1:18: searcher.name: must be one of 'single', 'random', 'grid', "
                     "'async_halving', 'adaptive_asha', 'pbt', 'custom', got 'adaptive-asha' "
                     "(did you mean 'adaptive_asha'?)");
  CHECK_CONFIG_ERROR(
      "searcher: {name: random, metric: m, max_length: 2, max_trials: 2, "
      "sampler: tp}\n",
      "exp.yaml:1:76: searcher.sampler: must be one of 'random', 'grid', 'tpe', "
      "'gp', 'auto', got 'tp' (did you mean 'tpe'?)");
}

TEST_CASE("config: grid needs a count for int, double and log hyperparameters, at any depth") {
  CHECK_CONFIG_ERROR(R"(searcher: {name: grid, metric: m, max_length: 1}
hyperparameters:
  opt:
    lr:
      type: log
      minval: -4
      maxval: -1
      base: 10
)",
                     "exp.yaml:5:7: hyperparameters.opt.lr: grid search is in use but count was "
                     "not provided (add count: N, the number of grid values for this "
                     "hyperparameter)");
  // The same space is fine for random search, which ignores count.
  CHECK_NOTHROW((void)parse(R"(searcher: {name: random, metric: m, max_length: 1, max_trials: 2}
hyperparameters:
  opt:
    lr: {type: log, minval: -4, maxval: -1, base: 10}
)"));
}

TEST_CASE("config: hyperparameter errors") {
  const std::string head =
      "searcher: {name: random, metric: m, max_length: 1, max_trials: 2}\n"
      "hyperparameters:\n";
  CHECK_CONFIG_ERROR(head + "  x: {type: float, minval: 0, maxval: 1}\n",
                     "exp.yaml:3:13: hyperparameters.x.type: must be one of 'const', 'int', "
                     "'double', 'log', 'categorical', got 'float'");
  CHECK_CONFIG_ERROR(head + "  x: {type: int, minval: 5, maxval: 5}\n",
                     "exp.yaml:3:37: hyperparameters.x.maxval: minval must be less than maxval, "
                     "got minval 5 and maxval 5");
  CHECK_CONFIG_ERROR(head + "  x: {type: int, minval: 0.5, maxval: 5}\n",
                     "exp.yaml:3:26: hyperparameters.x.minval: must be an integer, got 0.5");
  CHECK_CONFIG_ERROR(head + "  x: {type: log, minval: 0, maxval: 1, base: 0}\n",
                     "exp.yaml:3:46: hyperparameters.x.base: must be a number > 0, got 0");
  CHECK_CONFIG_ERROR(head + "  x: {type: categorical, vals: []}\n",
                     "exp.yaml:3:32: hyperparameters.x.vals: must not be empty: this searcher "
                     "samples hyperparameters and cannot choose from an empty list");
  CHECK_CONFIG_ERROR(head + "  x: {type: const}\n",
                     "exp.yaml:3:6: hyperparameters.x.val: missing required field");
  CHECK_CONFIG_ERROR(head + "  x: {type: int, minval: 0, maxval: 3, count: 0}\n",
                     "exp.yaml:3:47: hyperparameters.x.count: must be an integer >= 1, got 0");
  CHECK_CONFIG_ERROR(head + "  x: 1\n  x: 2\n", "exp.yaml:4:3: hyperparameters.x: duplicate key");
}

TEST_CASE("config: finite bounds whose arithmetic overflows a double are refused (issue 25)") {
  const std::string random =
      "searcher: {name: random, metric: m, max_length: 1, max_trials: 2}\n"
      "hyperparameters:\n";
  // Sampling draws minval + u * (maxval - minval): 1e308 - -1e308 is infinite.
  CHECK_CONFIG_ERROR(random + "  x: {type: double, minval: -1e308, maxval: 1e308}\n",
                     "exp.yaml:3:45: hyperparameters.x.maxval: maxval - minval overflows a double "
                     "(1e308 - -1e308): sampled values would be infinite");
  // 10**400 and 0.1**-400 are beyond the largest double (about 1.8e308).
  CHECK_CONFIG_ERROR(random + "  x: {type: log, minval: 1, maxval: 400, base: 10}\n",
                     "exp.yaml:3:37: hyperparameters.x.maxval: base**maxval overflows a double "
                     "(10**400)");
  CHECK_CONFIG_ERROR(random + "  x: {type: log, minval: -400, maxval: 1, base: 0.1}\n",
                     "exp.yaml:3:26: hyperparameters.x.minval: base**minval overflows a double "
                     "(0.1**-400)");
  CHECK_CONFIG_ERROR(random + "  x: {type: log, minval: -1e308, maxval: 1e308, base: 1}\n",
                     doctest::Contains("hyperparameters.x.maxval: maxval - minval overflows"));
  // A grid of 3 values computes 2 * (maxval - minval), which overflows although the span does
  // not; count means nothing to the random sampler, which is why that config is accepted.
  const std::string grid_hp = "  x: {type: double, minval: -1e308, maxval: 0, count: 3}\n";
  CHECK_CONFIG_ERROR(
      "searcher: {name: grid, metric: m, max_length: 1}\nhyperparameters:\n" + grid_hp,
      "exp.yaml:3:55: hyperparameters.x.count: (count - 1) * (maxval - minval) "
      "overflows a double (2 * (0 - -1e308)): grid values would be infinite");
  CHECK_NOTHROW((void)parse(random + grid_hp));
  // The largest finite bounds are accepted: 10**308 and a span just under the largest double.
  CHECK_NOTHROW((void)parse(random + "  x: {type: log, minval: -300, maxval: 308, base: 10}\n"));
  CHECK_NOTHROW((void)parse(random + "  x: {type: double, minval: -8e307, maxval: 8e307}\n"));
  // int ranges beyond int64's span are sampled exactly (unsigned arithmetic): accepted.
  CHECK_NOTHROW((void)parse(random + "  x: {type: int, minval: -9223372036854775808, "
                                     "maxval: 9223372036854775807}\n"));
}

TEST_CASE("config: a grid too large to count is refused at hyperparameters") {
  CHECK_CONFIG_ERROR(R"(searcher: {name: grid, metric: m, max_length: 1}
hyperparameters:
  a: {type: double, minval: 0, maxval: 1, count: 4294967296}
  b: {type: double, minval: 0, maxval: 1, count: 4294967296}
)",
                     "exp.yaml:3:3: hyperparameters: the grid has more than 18446744073709551615 "
                     "points (a=4294967296 x b=4294967296)");
  // An empty categorical is allowed for grid: the grid is empty and the search ends at once.
  CHECK(Grid(parse("searcher: {name: grid, metric: m, max_length: 1}\n"
                   "hyperparameters: {x: {type: categorical, vals: []}}\n")
                 .hyperparameters)
            .size() == 0);
}

TEST_CASE("config: length forms") {
  CHECK_CONFIG_ERROR("searcher: {name: single, metric: m, max_length: {batches: 5, epochs: 1}}\n",
                     "exp.yaml:1:49: searcher.max_length: a length must have exactly one of "
                     "'batches', 'records' or 'epochs', got 2 fields");
  CHECK_CONFIG_ERROR(
      "searcher: {name: adaptive_asha, metric: m, max_trials: 4, time_metric: batches}\n",
      "exp.yaml:1:11: searcher.max_time: missing required field (time_metric is given; max_time "
      "is the longest a trial trains, in time_metric units)");
  CHECK_CONFIG_ERROR(
      "searcher: {name: adaptive_asha, metric: m, max_trials: 4, max_length: 5, max_time: 5, "
      "time_metric: b}\n",
      "exp.yaml:1:84: searcher.max_time: give either max_length or time_metric with max_time, "
      "not both");
  CHECK_CONFIG_ERROR("searcher: {name: random, metric: m, max_trials: 4, max_time: 5}\n",
                     doctest::Contains("searcher.max_time: unknown field; valid fields of the "
                                       "'random' searcher are:"));
}

TEST_CASE("config: YAML syntax errors and unreadable files") {
  CHECK_THROWS_WITH_AS((void)parse("searcher: {name: random\n"),
                       doctest::Contains("invalid YAML: "), ConfigError);
  CHECK_CONFIG_ERROR("", "exp.yaml: the config is empty; it needs at least a searcher section");
  CHECK_THROWS_WITH_AS((void)load_config("/nonexistent/exp.yaml"),
                       "/nonexistent/exp.yaml: cannot read the config file: No such file or "
                       "directory",
                       ConfigError);
  // A directory opens as a file that reads as nothing: said as what it is, not "empty".
  const std::filesystem::path directory = std::filesystem::temp_directory_path();
  CHECK_THROWS_WITH_AS(
      (void)load_config(directory),
      (directory.string() + ": is a directory, not a config file (a YAML or JSON file)").c_str(),
      ConfigError);
}

// A YAML syntax error reads like the config's other errors: where (file:line:column), what is
// there and what was expected, in the config's terms, never the parser's ("illegal map
// value", "end of map flow not found", ...). Each place and text below is counted by hand from
// the broken file: columns are 1-based characters.
TEST_CASE("config: YAML syntax errors say what was found and what was expected") {
  // 'max_trials' starts at column 4 of line 4, one space deeper than 'metric' (column 3), so
  // the parser reads it as going on with the value 'loss'.
  CHECK_CONFIG_ERROR("searcher:\n  name: random\n  metric: loss\n   max_trials: 4\n",
                     "exp.yaml:4:4: invalid YAML: found the key 'max_trials' at column 4, more "
                     "indented than line 3 ('metric'), whose value it would go on; expected a key "
                     "at column 3 (as 'metric', line 3) or a key at column 1 (as 'searcher', "
                     "line 1)");
  // A tab indents line 2 (column 1).
  CHECK_CONFIG_ERROR("searcher:\n\tname: random\n",
                     "exp.yaml:2:1: invalid YAML: found a tab in the indentation of line 2, "
                     "expected spaces: YAML indents with spaces only");
  // The '{' at 1:11 is never closed; line 2's ':' (column 16, after 'hyperparameters') is
  // where a ',' or the '}' had to come.
  CHECK_CONFIG_ERROR("searcher: {name: random, metric: loss\nhyperparameters:\n  x: 1\n",
                     "exp.yaml:2:16: invalid YAML: found ':', expected ',' or '}' closing the '{' "
                     "at 1:11");
  // The '[' at 2:6 is still open when the file ends (line 3, column 1).
  CHECK_CONFIG_ERROR("hyperparameters:\n  x: [1, 2\n",
                     "exp.yaml:3:1: invalid YAML: found the end of the file, expected ',' or ']' "
                     "closing the '[' at 2:6");
  // 'entrypoint: ' is 12 characters, the value 'python3 train.py --opt a' 24 more: its ': '
  // is at column 37.
  CHECK_CONFIG_ERROR("entrypoint: python3 train.py --opt a: b\n",
                     "exp.yaml:1:37: invalid YAML: found ': ' inside the value 'python3 train.py "
                     "--opt a: b' of the key 'entrypoint', expected a value without ': ' (quote "
                     "it: \"python3 train.py --opt a: b\")");
  // The double quote at 1:13 is never closed: the file ends after 16 characters more (1:30).
  CHECK_CONFIG_ERROR("entrypoint: \"python3 train.py",
                     "exp.yaml:1:30: invalid YAML: found the end of the file inside the string "
                     "that the double quote at 1:13 opens, expected its closing double quote "
                     "first");
  // "\d" of a Windows path in double quotes: the backslash is at column 16.
  CHECK_CONFIG_ERROR("entrypoint: \"C:\\data\\train.py\"\n",
                     "exp.yaml:1:16: invalid YAML: found '\\d' in a double-quoted string, "
                     "expected one of YAML's escapes (\\\\, \\\", \\n, \\t, \\xXX, "
                     "\\uXXXX, ...): write a backslash as '\\\\', or quote with ' (as in "
                     "'C:\\data')");
  // A list item at column 1, where the top-level keys are.
  CHECK_CONFIG_ERROR("searcher:\n  name: random\n- metric: loss\n",
                     "exp.yaml:3:1: invalid YAML: found a '- ' item at column 1, where the mapping "
                     "of line 1 has its keys; expected a key at column 3 (as 'name', line 2) or a "
                     "key at column 1 (as 'searcher', line 1)");
  // '*defaults' (column 18) names an anchor no '&defaults' defined.
  CHECK_CONFIG_ERROR("hyperparameters: *defaults\n",
                     "exp.yaml:1:18: invalid YAML: found the alias '*defaults', expected an anchor "
                     "'&defaults' defined before it (quote a value that starts with '*')");
  // 'metric:loss' (line 3, column 3) is text, not a key and its value: the parser fails at
  // the next key's ':' (4:13), but the cause is the missing space.
  CHECK_CONFIG_ERROR("searcher:\n  name: random\n  metric:loss\n  max_trials: 4\n",
                     "exp.yaml:3:3: invalid YAML: found 'metric:loss', which is no 'key: value', "
                     "expected a space after the key's ':' ('metric: loss')");
  // Line 1 has no ':' at all; the parser fails at line 2's.
  CHECK_CONFIG_ERROR("name my_experiment\nsearcher:\n  name: random\n",
                     "exp.yaml:1:1: invalid YAML: found 'name my_experiment', which is no 'key: "
                     "value' (it has no ':'), expected a key, ': ' and its value");
  // A flow list closed with '}' (column 9): the '[' at 1:4 is what is open.
  CHECK_CONFIG_ERROR(
      "x: [1, 2}\n",
      "exp.yaml:1:9: invalid YAML: found '}', expected ',' or ']' closing the '[' at "
      "1:4");
}

// Every config cut short at any byte reads as a config or fails with a ConfigError; a YAML
// syntax error among them says what it found, never in the parser's words.
TEST_CASE("config: example configs cut short anywhere fail in the config's terms") {
  const std::vector<std::string_view> parser_words{
      "illegal",  "not found", "end of map",    "end of sequence", "flow",
      "scanning", "yaml-cpp",  "unknown token", "cannot assign",   "block scalar:"};
  std::size_t syntax_errors = 0;
  for (const char* name : {"examples/random.yaml", "examples/sklearn-digits/config.yaml",
                           "examples/core-api/pbt.yaml", "examples/rbv2_svm_asha.yaml"}) {
    std::ifstream file(std::string(HPSEARCH_SOURCE_DIR) + "/" + name);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    REQUIRE(!text.empty());
    for (std::size_t length = 0; length <= text.size(); ++length) {
      try {
        (void)parse(text.substr(0, length));
      } catch (const ConfigError& e) {
        const std::string message = e.what();
        const std::size_t at = message.find("invalid YAML: ");
        if (at == std::string::npos) continue;
        ++syntax_errors;
        INFO(name, " cut at ", length, ": ", message);
        CHECK(message.starts_with("exp.yaml:"));
        CHECK(message.compare(at + 14, 6, "found ") == 0);
        for (const std::string_view words : parser_words)
          CHECK(message.find(words) == std::string::npos);
      }
    }
  }
  CHECK(syntax_errors > 0);
}

TEST_CASE("config: ConfigError keeps the path of the field") {
  try {
    (void)parse("searcher: {name: random, metric: m, max_trials: 0, max_length: 1}\n");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.path() == "searcher.max_trials");
  }
}

TEST_CASE("config: ASHA rung lengths that repeat are refused with the computed lengths") {
  CHECK_CONFIG_ERROR(
      "searcher: {name: async_halving, metric: m, num_rungs: 4, divisor: 3, max_trials: 9, "
      "max_length: 12}\n",
      "exp.yaml:1:55: searcher.num_rungs: num_rungs 4 with divisor 3 and max_length 12 gives rung "
      "lengths 1, 1, 4, 12, which repeat: a promoted trial would be asked to train to a length "
      "it has already reached; use at most 3 rungs, a larger max_length or a larger divisor");
  CHECK_CONFIG_ERROR(
      "searcher: {name: adaptive_asha, metric: m, max_trials: 9, max_length: 12, divisor: 3, "
      "bracket_rungs: [4, 1]}\n",
      "exp.yaml:1:102: searcher.bracket_rungs: a bracket of 4 rungs with divisor 3 and max_length "
      "12 gives rung lengths 1, 1, 4, 12, which repeat: a promoted trial would be asked to train "
      "to a length it has already reached; use at most 3 rungs, a larger max_length or a larger "
      "divisor");
  // Three rungs fit: 1, 4, 12.
  CHECK_NOTHROW(
      (void)parse("searcher: {name: async_halving, metric: m, num_rungs: 3, divisor: 3, "
                  "max_trials: 9, max_length: 12}\n"));
}

TEST_CASE("config: control characters in a message are escaped") {
  // Found by fuzzing (fuzz/corpus/config/regress-control-characters-in-a-key.yaml): a NUL in a
  // key cut the message short, and an escape sequence reached the terminal.
  CHECK_CONFIG_ERROR("searcher: {name: single, metric: m, max_length: {\"e\\0\\e[2J\": 4}}\n",
                     "exp.yaml:1:50: searcher.max_length.e\\x00\\x1b[2J: unknown field; valid "
                     "fields of a length are: batches, epochs, records");
}

TEST_CASE("config: environment.environment_variables, the list and the per-device form") {
  const std::string searcher = "searcher: {name: single, metric: loss, max_length: 1}\n";
  using Variables = std::vector<std::pair<std::string, std::string>>;
  // The list: the value may be empty or hold '='; the order is kept (a later entry wins).
  CHECK(parse(searcher + "environment:\n  image: x\n  environment_variables:\n"
                         "    - A=1\n    - EMPTY=\n    - URL=a=b\n    - A=2\n")
            .environment_variables ==
        Variables{{"A", "1"}, {"EMPTY", ""}, {"URL", "a=b"}, {"A", "2"}});
  // Per device type: a trial on CPU slots takes `cpu`; the others are checked, not used.
  CHECK(parse(searcher + "environment:\n  environment_variables:\n"
                         "    cpu: [C=cpu]\n    cuda: [C=gpu]\n    rocm: [R=1]\n")
            .environment_variables == Variables{{"C", "cpu"}});
  CHECK(parse(searcher + "environment:\n  environment_variables: {cuda: [C=gpu]}\n")
            .environment_variables.empty());
  CHECK(parse(searcher + "environment: {environment_variables: null}\n")
            .environment_variables.empty());
  CHECK(parse(searcher + "environment: null\n").environment_variables.empty());
  CHECK(parse(searcher).environment_variables.empty());
}

TEST_CASE("config: environment_variables errors name the entry, the value and the form") {
  const std::string searcher = "searcher: {name: single, metric: loss, max_length: 1}\n";
  CHECK_CONFIG_ERROR(
      searcher + "environment:\n  environment_variables:\n    - A=1\n    - NOVALUE\n",
      "exp.yaml:5:7: environment.environment_variables[1]: must be NAME=VALUE (a "
      "name, '=', then the value, possibly empty), got 'NOVALUE'");
  CHECK_CONFIG_ERROR(searcher + "environment: {environment_variables: [=x]}\n",
                     "exp.yaml:2:39: environment.environment_variables[0]: must be NAME=VALUE (a "
                     "name, '=', then the value, possibly empty), got '=x'");
  CHECK_CONFIG_ERROR(searcher + "environment: {environment_variables: [5]}\n",
                     "exp.yaml:2:39: environment.environment_variables[0]: must be a string "
                     "NAME=VALUE, got 5");
  CHECK_CONFIG_ERROR(searcher + "environment: {environment_variables: A=1}\n",
                     "exp.yaml:2:38: environment.environment_variables: must be a list of "
                     "NAME=VALUE or a map of them per device type {cpu: [...], cuda: [...], rocm: "
                     "[...]}, got 'A=1'");
  CHECK_CONFIG_ERROR(searcher + "environment:\n  environment_variables:\n    gpu: [A=1]\n",
                     "exp.yaml:4:5: environment.environment_variables.gpu: unknown field (did you "
                     "mean 'cpu'?); valid "
                     "fields of environment.environment_variables are: cpu, cuda, rocm");
  CHECK_CONFIG_ERROR(searcher + "environment:\n  environment_variables:\n    rocm: A=1\n",
                     "exp.yaml:4:11: environment.environment_variables.rocm: must be a list of "
                     "NAME=VALUE, got 'A=1'");
  CHECK_CONFIG_ERROR(searcher + "environment: {environment_variables: [HPSEARCH_TRIAL_ID=3]}\n",
                     "exp.yaml:2:39: environment.environment_variables[0]: HPSEARCH_TRIAL_ID is "
                     "set by searcher-run for each trial and cannot be set by the config");
}
