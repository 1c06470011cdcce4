// End-to-end tests of the built searcher-sim program: exit codes, stdout, stderr.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "support/process.hpp"

namespace {
namespace fs = std::filesystem;
using namespace hpsearch::testing;

fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("hpsearch-cli-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Runs searcher-sim with `args` and `input` on stdin.
Run run(const std::string& args, const std::string& input = "") {
  return run_program(SEARCHER_SIM, args, scratch(), input);
}

std::string example(const std::string& name) {
  return (fs::path(HPSEARCH_SOURCE_DIR) / "examples" / name).string();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string write_config(const std::string& name, const std::string& text) {
  const fs::path path = scratch() / name;
  std::ofstream(path) << text;
  return path.string();
}
}  // namespace

// The version a release declares, read from the top-level CMakeLists.txt's project() line.
std::string declared_version() {
  std::ifstream in(std::string(HPSEARCH_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string key = "project(hpsearch VERSION ";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(key))
      return line.substr(key.size(), line.find(' ', key.size()) - key.size());
  }
  return "";
}

TEST_CASE("searcher-sim and searcher-run --version print the project's version") {
  const std::string version = declared_version();
  REQUIRE_FALSE(version.empty());
  const Run sim = run("--version");
  CHECK(sim.code == 0);
  CHECK(sim.out == "searcher-sim " + version + "\n");
  const Run runner = run_program(SEARCHER_RUN, "--version", scratch());
  CHECK(runner.code == 0);
  CHECK(runner.out == "searcher-run " + version + "\n");
}

TEST_CASE("searcher-sim drive: deep nesting and long lines get one error line each (issue 25)") {
  // 60,000 nested arrays crashed drive (SIGSEGV, exit 139) in a recursive consumer of the
  // parsed value. Now the line is refused before parsing, the session goes on, and the
  // searcher is unchanged: the snapshot after the refused lines equals the one before.
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  const std::string deep_restore =
      R"({"event":"restore","snapshot":)" + std::string(60000, '{') + "}";
  const std::string input = "{\"event\":\"initial_operations\"}\n{\"event\":\"snapshot\"}\n" +
                            deep + "\n" + deep_restore + "\n" + std::string(250000, ' ') +
                            "{\"event\":\"progress\"}\n{\"event\":\"snapshot\"}\n";
  const Run result =
      run("drive --max-line-bytes 200000 --config '" + example("random.yaml") + "'", input);
  CHECK(result.code == 0);
  CHECK(result.err.empty());
  const auto answers = lines_of(result.out);
  REQUIRE(answers.size() == 6);
  CHECK(answers[2] == R"({"error":"line refused: JSON nested deeper than 128 levels (the limit) )"
                      R"(at byte 129"})");
  CHECK(answers[3] == R"({"error":"line refused: JSON nested deeper than 128 levels (the limit) )"
                      R"(at byte 158"})");
  // A line over --max-line-bytes: its rest is skipped, the next line is the next event.
  CHECK(answers[4] == R"x({"error":"line refused: longer than the limit of 200000 bytes )x"
                      R"x((the rest of the line was skipped)"})x");
  CHECK(answers[1] == answers[5]);
  CHECK(nlohmann::json::parse(answers[1])["snapshot"]["format_version"] == 2);
  // The same deep line with the default limit of 16 MiB: refused for its depth alone.
  const Run plain = run("drive --config '" + example("random.yaml") + "'", deep + "\n");
  CHECK(plain.code == 0);
  CHECK(plain.out.starts_with(R"({"error":"line refused: JSON nested deeper than 128)"));
  const Run bad = run("drive --max-line-bytes 0 --config '" + example("random.yaml") + "'");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--max-line-bytes") != std::string::npos);
}

TEST_CASE("searcher-sim drive: one answer per line, byte-identical across runs") {
  const std::string input =
      "{\"event\":\"initial_operations\"}\n"
      "this is not json\n"
      "{\"event\":\"progress\"}\n"
      "{\"event\":\"trial_created\",\"request_id\":\"00000000-0000-4000-8000-000000000000\"}\n"
      "{\"event\":\"snapshot\"}\n";
  const Run first = run("drive --config '" + example("random.yaml") + "'", input);
  CHECK(first.code == 0);
  CHECK(first.err.empty());
  const auto answers = lines_of(first.out);
  REQUIRE(answers.size() == 5);
  const nlohmann::json ops = nlohmann::json::parse(answers[0])["operations"];
  CHECK(ops.size() == 12);  // max_concurrent_trials 4, three operations each
  CHECK(ops[0]["type"] == "create");
  CHECK(ops[0]["hparams"]["global_batch_size"] == 64);
  CHECK(nlohmann::json::parse(answers[1]).contains("error"));
  CHECK(answers[2] == R"({"progress":0.0})");
  CHECK(nlohmann::json::parse(answers[3]).contains("error"));
  CHECK(nlohmann::json::parse(answers[4])["snapshot"]["format_version"] == 2);
  const Run second = run("drive --config '" + example("random.yaml") + "'", input);
  CHECK(second.out == first.out);
}

TEST_CASE("searcher-sim drive: --seed overrides the config's experiment_seed") {
  const std::string input = "{\"event\":\"initial_operations\"}\n";
  const std::string config =
      write_config("seeded.yaml",
                   "searcher: {name: random, metric: m, max_trials: 1, max_length: 5}\n"
                   "reproducibility: {experiment_seed: 99}\n");
  const Run seeded = run("drive --config '" + config + "' --seed 0", input);
  CHECK(seeded.out.find("ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8") != std::string::npos);
  const Run from_config = run("drive --config=" + config, input);
  CHECK(from_config.out.find("ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8") == std::string::npos);
}

TEST_CASE("searcher-sim drive: a config error stops before reading stdin, exit 2") {
  const std::string config = write_config(
      "bad.yaml",
      "searcher:\n  name: random\n  metric: loss\n  max_trials: -5\n  max_length: 100\n");
  const Run result = run("drive --config '" + config + "'", "{\"event\":\"initial_operations\"}\n");
  CHECK(result.code == 2);
  CHECK(result.out.empty());
  CHECK(result.err == config + ":4:15: searcher.max_trials: must be an integer >= 1, got -5\n");
}

TEST_CASE("searcher-sim: a config without max_length (0.38) cannot be simulated, and says why") {
  const std::string config =
      write_config("no-length.yaml",
                   "searcher: {name: random, metric: loss, max_trials: 3}\n"
                   "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n");
  const std::string why =
      "searcher.max_length: not given, so each trial trains until its script "
      "ends (Determined 0.38's form, which searcher-run serves); the simulator needs a "
      "length to play training in virtual time: add one, e.g. max_length: 100\n";
  for (const std::string command : {"preview", "run", "compare"}) {
    INFO(command);
    const Run result =
        run(command + (command == "compare" ? " --configs '" : " --config '") + config + "'" +
            (command == "preview" ? "" : " --workload counting-ones-1 --workers 1"));
    CHECK(result.code == 2);
    CHECK(result.out.empty());
    CHECK(result.err == "searcher-sim " + command + ": " +
                            (command == "compare" ? "no-length.yaml: " : "") + why);
  }
  // The drive protocol serves it: the embedder sees the nominal length 1.
  const Run drive = run("drive --config '" + config + "'", "{\"event\":\"initial_operations\"}\n");
  CHECK(drive.code == 0);
  CHECK(drive.out.find("\"length\":1") != std::string::npos);
}

TEST_CASE("searcher-sim: a self-referencing YAML alias is a config error, not a crash (issue 10)") {
  const std::string config =
      write_config("recursive.yaml",
                   "searcher: {name: random, metric: loss, max_trials: 2, max_length: 10}\n"
                   "hyperparameters: &a {x: *a}\n");
  for (const std::string command : {"preview", "drive"}) {
    const Run result = run(command + " --config '" + config + "'", "");
    CHECK(result.code == 2);
    CHECK(result.out.empty());
    CHECK(result.err == config +
                            ":2:18: hyperparameters.x: this alias refers to a value that "
                            "contains it (a recursive alias); a config must be a tree, as "
                            "JSON is\n");
  }
}

TEST_CASE("searcher-sim: usage errors exit 2 and say what is wrong") {
  const Run no_config = run("drive");
  CHECK(no_config.code == 2);
  CHECK(no_config.err ==
        "searcher-sim drive: --config FILE is required\n(see 'searcher-sim help drive')\n");
  const Run bad_seed = run("drive --config x.yaml --seed -1");
  CHECK(bad_seed.code == 2);
  CHECK(bad_seed.err.starts_with(
      "searcher-sim drive: --seed: must be an integer between 0 and 4294967295, got '-1'"));
  const Run unknown = run("drive --confg x.yaml");
  CHECK(unknown.code == 2);
  CHECK(unknown.err.starts_with("searcher-sim drive: unknown option '--confg'"));
  const Run command = run("fly");
  CHECK(command.code == 2);
  CHECK(command.err.starts_with("searcher-sim fly: unknown command 'fly'"));
  CHECK(run("").code == 2);
}

TEST_CASE("searcher-sim drive --help documents every event and operation") {
  const Run help = run("drive --help");
  CHECK(help.code == 0);
  for (const char* name :
       {"initial_operations", "trial_created", "validation_completed", "trial_progress",
        "trial_exited_early", "trial_closed", "\"progress\"", "snapshot", "restore", "\"create\"",
        "\"validate_after\"", "\"close\"", "\"shutdown\"", "user_requested_stop", "Infinity"}) {
    INFO(name);
    CHECK(help.out.find(name) != std::string::npos);
  }
  CHECK(help.out.find("--explain") != std::string::npos);
  CHECK(run("--help").code == 0);
  CHECK(run("help preview").out.find("--metric constant|random|trial-id") != std::string::npos);
}

TEST_CASE("searcher-sim preview: table, JSON, and a trace that replays through drive") {
  const Run table = run("preview --config '" + example("grid.yaml") + "'");
  CHECK(table.code == 0);
  CHECK(table.out.find("This search will create a total of 18 trial(s).") != std::string::npos);
  CHECK(table.out.find("     18 | 1 x train to 10 epochs") != std::string::npos);

  const Run json = run("preview --json --config '" + example("random.yaml") + "'");
  CHECK(json.code == 0);
  const nlohmann::json result = nlohmann::json::parse(json.out);
  CHECK(result["results"] == nlohmann::json({{"937", 16}}));
  CHECK(result["seed"] == 7);
  CHECK(result["searcher"] == "random");
  CHECK(result["sampler"] == "random");

  const std::string trace = (scratch() / "trace.jsonl").string();
  REQUIRE(run("preview --order random --metric random --trace '" + trace + "' --config '" +
              example("random.yaml") + "'")
              .code == 0);
  std::string input;
  std::vector<std::string> expected;
  for (const std::string& line : lines_of(read_file(trace))) {
    const nlohmann::json step = nlohmann::json::parse(line);
    input += step["in"].dump() + "\n";
    expected.push_back(step["out"].dump());
  }
  const Run replay = run("drive --config '" + example("random.yaml") + "'", input);
  CHECK(lines_of(replay.out) == expected);
}

TEST_CASE("searcher-sim drive --explain on an ASHA example") {
  const std::string input =
      "{\"event\":\"initial_operations\"}\n"
      "{\"event\":\"progress\"}\n";
  const Run result = run("drive --explain --config '" + example("async_halving.yaml") + "'", input);
  CHECK(result.code == 0);
  const auto answers = lines_of(result.out);
  REQUIRE(answers.size() == 2);
  const nlohmann::json ops = nlohmann::json::parse(answers[0])["operations"];
  CHECK(ops.size() == 24);  // 12 trials, all at once: create and validate_after(1000) each
  CHECK(ops[1] ==
        nlohmann::json(
            {{"type", "validate_after"}, {"request_id", ops[0]["request_id"]}, {"length", 1000}}));
  CHECK(answers[1] == R"({"progress":0.0})");
}

TEST_CASE("searcher-sim preview of a grid of 10^12 points answers at once (issue 25)") {
  // It used to materialise the grid (memory growing 25 MB/s, no answer).
  const std::string config =
      write_config("huge-grid.yaml",
                   "searcher: {name: grid, metric: m, max_length: {batches: 100}}\n"
                   "hyperparameters:\n"
                   "  a: {type: double, minval: 0, maxval: 1, count: 10000}\n"
                   "  b: {type: log, minval: -5, maxval: 0, base: 10, count: 10000}\n"
                   "  c: {type: int, minval: 0, maxval: 1000000, count: 10000}\n");
  const Run json = run("preview --json --config '" + config + "'");
  CHECK(json.code == 0);
  const nlohmann::json result = nlohmann::json::parse(json.out);
  CHECK(result["trials"] == 1000000000000ULL);
  CHECK(result["results"] == nlohmann::json{{"100", 1000000000000ULL}});
  const Run table = run("preview --config '" + config + "'");
  CHECK(table.out.find("This search will create a total of 1000000000000 trial(s).") !=
        std::string::npos);
  CHECK(table.out.find(" 1000000000000 | 1 x train to 100 batches\n") != std::string::npos);
}

TEST_CASE("searcher-sim preview --json says which sampler `auto` lets propose") {
  // docs/config.md: TPE from the first trial where the space has an int, else GP, then TPE;
  // no sampler_choice for a sampler named outright.
  const auto choice = [](const char* name, const char* sampler, const char* hyperparameters) {
    const std::string config = write_config(
        name, std::string("searcher: {name: random, metric: m, max_length: 3, max_trials: 20, "
                          "sampler: ") +
                  sampler + "}\nhyperparameters:\n" + hyperparameters);
    const Run json = run("preview --json --config '" + config + "'");
    REQUIRE(json.code == 0);
    return nlohmann::json::parse(json.out).value("sampler_choice", nlohmann::json());
  };
  const nlohmann::json with_int = choice("auto-int.yaml", "auto",
                                         "  a: {type: double, minval: 0, maxval: 1}\n"
                                         "  n: {type: int, minval: 1, maxval: 9}\n");
  CHECK(with_int["sampler"] == "tpe");
  CHECK(!with_int.contains("then"));
  CHECK(with_int["reason"].get<std::string>().find("'n'") != std::string::npos);
  const nlohmann::json smooth =
      choice("auto-smooth.yaml", "auto", "  a: {type: double, minval: 0, maxval: 1}\n");
  CHECK(smooth["sampler"] == "gp");
  CHECK(smooth["then"] == "tpe");
  CHECK(choice("named.yaml", "tpe", "  a: {type: double, minval: 0, maxval: 1}\n").is_null());
}

TEST_CASE("searcher-sim preview cautions a model sampler under async_halving, and only there") {
  // docs/samplers.md, "Under async_halving": GP there did worse than random search with one
  // worker, TPE (and auto) gained less than under adaptive_asha; random and grid propose no
  // model, and adaptive_asha is the recommended scheduler: nothing to say.
  const auto caution = [](const char* name, const char* method, const char* sampler,
                          const char* hyperparameters) {
    const std::string config =
        write_config(name, std::string("searcher: {name: ") + method +
                               ", metric: m, max_length: 9, max_trials: 20, sampler: " + sampler +
                               "}\nhyperparameters:\n" + hyperparameters);
    const Run json = run("preview --json --config '" + config + "'");
    REQUIRE(json.code == 0);
    const Run text = run("preview --config '" + config + "'");
    REQUIRE(text.code == 0);
    const std::string said = nlohmann::json::parse(json.out).value("sampler_caution", "");
    if (said.empty()) {
      CHECK(text.out.find("caution: ") == std::string::npos);
      CHECK(text.out.find("note: ") == std::string::npos);
    } else {
      CHECK(text.out.find(said + "\n") != std::string::npos);
    }
    return said;
  };
  const char* smooth = "  a: {type: double, minval: 0, maxval: 1}\n";
  const char* with_int =
      "  a: {type: double, minval: 0, maxval: 1}\n  n: {type: int, minval: 1, maxval: 9}\n";
  const char* asha = "async_halving, num_rungs: 3";
  CHECK(caution("gp-async.yaml", asha, "gp", smooth).starts_with("caution: 'gp'"));
  CHECK(caution("tpe-async.yaml", asha, "tpe", smooth).starts_with("note: "));
  // auto, GP first on a smooth space or TPE from the start with an int, measured as the note says.
  CHECK(caution("auto-async.yaml", asha, "auto", smooth).starts_with("note: "));
  CHECK(caution("auto-int-async.yaml", asha, "auto", with_int).starts_with("note: "));
  CHECK(caution("random-async.yaml", asha, "random", smooth).empty());
  CHECK(caution("gp-adaptive.yaml", "adaptive_asha", "gp", smooth).empty());
  CHECK(caution("tpe-random.yaml", "random", "tpe", smooth).empty());
}

// The oracle for "from which trial", docs/samplers.md's rule read off the run's trace (not
// the sampler's state): a trial's first result is a repeat when an earlier trial reported the
// same value first at the same length, unless their categorical values differ; once three
// repeats were seen (the other coordinates are continuous, so the repeating points are apart
// and the repeat radius, their median distance, is above 0) TPE proposes, from the creates
// answering the third repeat on.
std::optional<std::uint64_t> first_tpe_create(const fs::path& trace,
                                              const std::vector<std::string>& categorical) {
  std::map<std::string, nlohmann::json> hyperparameters;  // by request id
  std::set<std::string> reported;                         // trials with a first result
  std::map<std::pair<std::uint64_t, double>, std::string> first_reporter;  // (length, value)
  int repeats = 0;
  std::uint64_t created = 0;
  for (const std::string& line : lines_of(read_file(trace))) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (!record.contains("in")) continue;  // a worker's launch or exit
    const nlohmann::json& in = record.at("in");
    if (in.at("event") == "validation_completed") {
      const auto id = in.at("request_id").get<std::string>();
      const auto [earlier, fresh] = first_reporter.emplace(
          std::pair{in.at("length").get<std::uint64_t>(), in.at("metric").get<double>()}, id);
      if (reported.insert(id).second && !fresh) {
        const nlohmann::json& mine = hyperparameters.at(id);
        const nlohmann::json& theirs = hyperparameters.at(earlier->second);
        if (std::all_of(categorical.begin(), categorical.end(), [&](const std::string& name) {
              return mine.at(name) == theirs.at(name);
            })) {
          ++repeats;
        }
      }
    }
    for (const nlohmann::json& op : record.at("out").value("operations", nlohmann::json::array())) {
      if (op["type"] != "create") continue;
      ++created;
      hyperparameters[op.at("request_id").get<std::string>()] = op.at("hparams");
      if (repeats >= 3) return created;
    }
  }
  return std::nullopt;
}

TEST_CASE("searcher-sim run says what `auto` chose and from which trial TPE proposed") {
  // rbv2-glmnet is a table (results repeat): GP, then TPE; MF-Branin is smooth: GP throughout.
  const auto with_auto = [](const std::string& name, const std::string& example_name) {
    std::string text = read_file(example(example_name));
    text.replace(text.find("\nsearcher:\n"), 11, "\nsearcher:\n  sampler: auto\n");
    return write_config(name, text);
  };
  const std::string table = with_auto("glmnet-auto.yaml", "rbv2_glmnet_asha.yaml");
  const std::string out_dir = (scratch() / "glmnet-auto-out").string();
  const Run json = run("run --json --config '" + table +
                       "' --workload rbv2-glmnet --workers 4 --out '" + out_dir + "'");
  REQUIRE(json.code == 0);
  const nlohmann::json result = nlohmann::json::parse(json.out);
  const nlohmann::json& choice = result["sampler_choice"];
  CHECK(choice["sampler"] == "gp");
  CHECK(choice["then"] == "tpe");
  const std::optional<std::uint64_t> expected =
      first_tpe_create(fs::path(out_dir) / "trace.jsonl", {"num.impute.selected.cpo"});
  REQUIRE(expected);
  CHECK(choice["then_from_trial"] == *expected);
  const Run text = run("run --config '" + table + "' --workload rbv2-glmnet --workers 4");
  CHECK(text.out.find("\nSampler 'auto' chose 'gp', then 'tpe': GP while results vary smoothly") !=
        std::string::npos);
  CHECK(text.out.find("\n'tpe' proposed from trial " + std::to_string(*expected) +
                      " on (the third repeated result)\n") != std::string::npos);
  // Byte-identical when run again (nothing from the clock).
  CHECK(run("run --config '" + table + "' --workload rbv2-glmnet --workers 4").out == text.out);

  const std::string smooth = with_auto("branin-auto.yaml", "branin_asha.yaml");
  const std::string smooth_dir = (scratch() / "branin-auto-out").string();
  const Run smooth_json = run("run --json --config '" + smooth +
                              "' --workload mf-branin --workers 4 --out '" + smooth_dir + "'");
  REQUIRE(smooth_json.code == 0);
  const nlohmann::json smooth_result = nlohmann::json::parse(smooth_json.out);
  CHECK(!first_tpe_create(fs::path(smooth_dir) / "trace.jsonl", {}));
  CHECK(smooth_result["sampler_choice"]["then_from_trial"].is_null());
  CHECK(run("run --config '" + smooth + "' --workload mf-branin --workers 4")
            .out.find("\n'tpe' never took over (fewer than three results repeated)\n") !=
        std::string::npos);
  // A sampler named outright: no sampler_choice.
  const Run named = run("run --json --config '" + example("branin_asha.yaml") +
                        "' --workload mf-branin --workers 4");
  CHECK(!nlohmann::json::parse(named.out).contains("sampler_choice"));
}

TEST_CASE("searcher-sim preview of ASHA examples") {
  const Run asha = run("preview --json --config '" + example("async_halving.yaml") + "'");
  CHECK(asha.code == 0);
  CHECK(nlohmann::json::parse(asha.out)["results"] ==
        nlohmann::json({{"1000", 8}, {"1000 3000", 3}, {"1000 3000 9000", 1}}));
  const Run adaptive = run("preview --config '" + example("adaptive_asha.yaml") + "'");
  CHECK(adaptive.code == 0);
  CHECK(adaptive.out.find("This search will create a total of 64 trial(s).") != std::string::npos);
}

TEST_CASE("searcher-sim run: summary, files and errors") {
  const std::string out_dir = (scratch() / "run-out").string();
  const Run text = run("run --config '" + example("asha_hartmann6.yaml") +
                       "' --workload mf-hartmann6 --workers 8 --startup 2 --out '" + out_dir + "'");
  CHECK(text.code == 0);
  CHECK(text.out.find("searcher 'adaptive_asha' on workload 'mf-hartmann6', 8 worker(s), seed 1") !=
        std::string::npos);
  CHECK(text.out.find("shutdown: completed") != std::string::npos);
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(fs::path(out_dir) / "summary.json"));
  CHECK(summary["trials_created"] == 256);
  CHECK(summary["workers"] == 8);
  CHECK(read_file(fs::path(out_dir) / "best_so_far.csv").starts_with("time,best\n"));
  CHECK(!lines_of(read_file(fs::path(out_dir) / "trace.jsonl")).empty());
  const Run json = run("run --json --config '" + example("asha_hartmann6.yaml") +
                       "' --workload mf-hartmann6 --workers 8 --startup 2");
  CHECK(nlohmann::json::parse(json.out)["best_metric"] == summary["best_metric"]);

  const Run mismatch =
      run("run --config '" + example("random.yaml") + "' --workload mf-branin --workers 2");
  CHECK(mismatch.code == 2);
  CHECK(
      mismatch.err.starts_with("searcher-sim run: the config's hyperparameters do not fit "
                               "workload 'mf-branin': missing x1, x2;"));
  const Run workers = run("run --config x.yaml --workload mf-branin --workers 0");
  CHECK(workers.code == 2);
  CHECK(
      workers.err.starts_with("searcher-sim run: --workers: must be an integer between 1 and "
                              "1000000, got '0'"));
  CHECK(run("help run").out.find("counting-ones-N") != std::string::npos);
}

TEST_CASE("searcher-sim compare: a table, CSV and usage errors") {
  const std::string out_dir = (scratch() / "compare-out").string();
  const Run result = run("compare --configs '" + example("asha_hartmann6.yaml") + "' '" +
                         example("random_hartmann6.yaml") +
                         "' --workload mf-hartmann6 --workers 16 --seeds 3 --times 1000,3000 "
                         "--target 1.5 --out '" +
                         out_dir + "'");
  CHECK(result.code == 0);
  CHECK(
      result.out.starts_with("workload 'mf-hartmann6', 16 worker(s), 3 seed(s); regret (best - "
                             "optimum): median [q1, q3] (runs with a result)\n"));
  CHECK(result.out.find("asha_hartmann6.yaml\n  at 1000 s: ") != std::string::npos);
  const auto csv = lines_of(read_file(fs::path(out_dir) / "compare.csv"));
  REQUIRE(csv.size() == 5);  // header + 2 configs x 2 times
  CHECK(csv[0] == "config,time,runs,q1,median,q3");
  CHECK(csv[1].starts_with("asha_hartmann6.yaml,1000,"));
  const Run missing = run("compare --workload mf-hartmann6 --workers 2");
  CHECK(missing.code == 2);
  CHECK(missing.err.starts_with("searcher-sim compare: --configs A.yaml [B.yaml ...] is required"));
  CHECK(run("help compare").out.find("--target X") != std::string::npos);
}

namespace {
// Stopping ASHA (rungs 2, 4, 8) where every trial reports the same metric: a stopping rung
// ranks a newcomer before its equals, so every trial continues to the end (spec 3.3). With 4
// workers and 8 trials of 8 s: two rounds, 16 s, 64 units, workers never idle.
constexpr const char* kAllEqualAsha =
    "hyperparameters:\n"
    "  cat0: {type: const, val: 1}\n"
    "  cont0: {type: const, val: 0.5}\n"
    "searcher:\n"
    "  name: async_halving\n"
    "  stop_once: true\n"
    "  metric: loss\n"
    "  num_rungs: 3\n"
    "  divisor: 2\n"
    "  max_trials: 8\n"
    "  max_length: 8\n"
    "  max_concurrent_trials: 4\n";
}  // namespace

TEST_CASE("searcher-sim run: golden summary of a run derived by hand") {
  const std::string config = write_config("equal.yaml", kAllEqualAsha);
  const Run result = run("run --config '" + config + "' --workload counting-ones-1 --workers 4");
  CHECK(result.code == 0);
  CHECK(result.err.empty());
  // counting-ones-1 at (1, 0.5) is -1.5. The best is the first trial to finish at length 8,
  // the first created, whose request id for seed 0 is spec 1.2's golden one.
  CHECK(result.out ==
        "searcher 'async_halving' on workload 'counting-ones-1', 4 worker(s), seed 0\n"
        "best metric -1.5 (trial ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8), found at 8 s\n"
        "first trial at max_length after 8 s\n"
        "trials created 8; validations per length: 2:8 4:8 8:8\n"
        "training units 64; wall time 16 s; utilisation 100%\n"
        "shutdown: completed\n");
}

TEST_CASE("searcher-sim preview --workers: the table plus wall time, utilisation and units") {
  const std::string config = write_config("equal.yaml", kAllEqualAsha);
  const Run instant = run("preview --config '" + config + "'");
  const Run timed = run("preview --config '" + config + "' --workers 4");
  CHECK(instant.code == 0);
  CHECK(timed.code == 0);
  CHECK(instant.out.find("This search will create a total of 8 trial(s).") != std::string::npos);
  CHECK(timed.out == instant.out +
                         "\nOn 4 simulated worker(s) at 1 s per length unit: wall time 16 s, "
                         "utilisation 100%, training units 64\n");
  const Run slow = run("preview --json --config '" + config + "' --workers 2 --startup 1");
  const nlohmann::json j = nlohmann::json::parse(slow.out);
  CHECK(j["workers"]["wall_time"] == 36.0);  // four rounds of 1 + 8 s
  CHECK(j["workers"]["training_units"] == 64);
  CHECK(j["results"] ==
        nlohmann::json::parse(run("preview --json --config '" + config + "'").out)["results"]);

  const Run order = run("preview --config '" + config + "' --workers 2 --order random");
  CHECK(order.code == 2);
  CHECK(order.err.starts_with("searcher-sim preview: --order: not with --workers"));
  const Run cost = run("preview --config '" + config + "' --crash-rate 0.1");
  CHECK(cost.code == 2);
  CHECK(cost.err.starts_with("searcher-sim preview: --crash-rate: needs --workers N"));
}

TEST_CASE("searcher-sim run --out: every file and plot, and fault options") {
  const std::string out_dir = (scratch() / "faults-out").string();
  const Run result = run("run --config '" + example("asha_hartmann6.yaml") +
                         "' --workload mf-hartmann6 --workers 8 --crash-rate 0.005 "
                         "--max-restarts 1 --stragglers 0.1 --worker-spread 0.3 --out '" +
                         out_dir + "'");
  CHECK(result.code == 0);
  CHECK(result.out.find("\ncrashes ") != std::string::npos);
  for (const char* file : {"summary.json", "trace.jsonl", "best_so_far.csv", "trials.csv",
                           "best_so_far.svg", "workers.svg", "rungs.svg"}) {
    INFO(file);
    CHECK(fs::file_size(fs::path(out_dir) / file) > 0);
  }
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(fs::path(out_dir) / "summary.json"));
  CHECK(summary["crashes"].get<int>() > 0);
  const auto trials = lines_of(read_file(fs::path(out_dir) / "trials.csv"));
  CHECK(trials.size() == 257);  // header + 256 trials
  CHECK(trials[0] == "trial,request_id,outcome,restarts,lengths");
  CHECK(read_file(fs::path(out_dir) / "workers.svg").find("<title>trial 1 ") != std::string::npos);

  const Run data =
      run("run --config x.yaml --workload rbv2-svm --workers 2 --data-dir /nonexistent");
  CHECK(data.code == 2);
  CHECK(
      data.err.starts_with("searcher-sim run: --workload: workload 'rbv2-svm': cannot read table "
                           "'/nonexistent/yahpo-rbv2/rbv2_svm-1220.csv'"));
  const Run stragglers = run("run --config x.yaml --workload mf-branin --workers 2 --stragglers 2");
  CHECK(stragglers.code == 2);
  CHECK(stragglers.err.starts_with(
      "searcher-sim run: --stragglers: must be a probability in [0, 1], got '2'"));
  const Run factor =
      run("run --config x.yaml --workload mf-branin --workers 2 --straggler-factor 0.5");
  CHECK(factor.err.starts_with(
      "searcher-sim run: --straggler-factor: must be a number >= 1, got '0.5'"));
  const Run restarts =
      run("run --config x.yaml --workload mf-branin --workers 2 --max-restarts -1");
  CHECK(restarts.err.starts_with(
      "searcher-sim run: --max-restarts: must be an integer between 0 and 1000000, got '-1'"));
}

TEST_CASE("searcher-sim: every example that names a workload runs on it") {
  int examples = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(HPSEARCH_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = read_file(entry.path());
    const auto at = text.find("# workload: ");
    if (at == std::string::npos) continue;
    const std::string workload = text.substr(at + 12, text.find('\n', at) - at - 12);
    INFO(entry.path().filename().string() << " on " << workload);
    const Run result = run("run --json --config '" + entry.path().string() + "' --workload " +
                           workload + " --workers 4");
    CHECK(result.code == 0);
    CHECK(result.err.empty());
    if (result.code == 0) CHECK_FALSE(nlohmann::json::parse(result.out)["best_metric"].is_null());
    ++examples;
  }
  CHECK(examples >= 12);
}

TEST_CASE("searcher-sim evaluate: a workload's value at one configuration") {
  // Reference values of docs/benchmarks.md 2.7: Branin's optimum 0.397887 at (-pi, 12.275),
  // Hartmann-6's -3.32237 at its optimum.
  const Run branin = run("evaluate --workload mf-branin --point -3.141592653589793,12.275");
  CHECK(branin.code == 0);
  CHECK(std::abs(std::stod(branin.out) - 0.397887) < 1e-6);
  const Run h6 =
      run("evaluate --workload mf-hartmann6 --fidelity 1 "
          "--point 0.20169,0.150011,0.476874,0.275332,0.311652,0.6573");
  CHECK(std::abs(std::stod(h6.out) - (-3.32237)) < 1e-5);
  const Run table =
      run("evaluate --workload rbv2-svm --fidelity 0.05 --point "
          "55.07756349624877,radial,impute.median,0.0010688655367635522,6659.16924059112,3");
  CHECK(std::abs(std::stod(table.out) - (1 - 0.83267796)) < 1e-9);
  const Run count = run("evaluate --workload mf-branin --point 1");
  CHECK(count.code == 2);
  CHECK(count.err.starts_with(
      "searcher-sim evaluate: --point: workload 'mf-branin' reads 2 values (x1, x2), got 1"));
  const Run choice = run("evaluate --workload rbv2-svm --point 1,rbf,impute.mean,0.1,1,2");
  CHECK(choice.err.starts_with(
      "searcher-sim evaluate: --point: kernel must be one of its choices, got 'rbf'"));
  const Run fidelity = run("evaluate --workload mf-branin --point 1,2 --fidelity 2");
  CHECK(fidelity.err.starts_with("searcher-sim evaluate: --fidelity: must be in [0, 1], got '2'"));
}
