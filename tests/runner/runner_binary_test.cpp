// End-to-end tests of searcher-run with real processes: tests/runner/trials/trial.py through
// the Python client. The trial's metric is (x - 0.3)^2 + 1/length, so every reported value can
// be checked against its hyperparameters.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "support/process.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using namespace hpsearch::testing;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("hpsearch-runner-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const std::string kTrial = std::string(HPSEARCH_SOURCE_DIR) + "/tests/runner/trials/trial.py";

// A config running the test trial, with `searcher` and `hyperparameters` as YAML text.
fs::path write_config(const fs::path& dir, const std::string& searcher,
                      const std::string& hyperparameters, const std::string& extra = "") {
  const fs::path path = dir / "config.yaml";
  std::ofstream(path) << "entrypoint: python3 " << kTrial << "\n"
                      << extra << "searcher:\n"
                      << searcher << "hyperparameters:\n"
                      << hyperparameters;
  return path;
}

Run runner(const std::string& args, const fs::path& dir) {
  return run_program(SEARCHER_RUN, args, dir);
}

nlohmann::json experiment(const fs::path& dir) {
  return nlohmann::json::parse(read_file(dir / "experiment.json"));
}

// The journal's text as a reader takes it: up to its first zero byte (a running or killed
// runner's spare space follows: docs/store.md).
std::string journal_text(const fs::path& dir) {
  std::string text = read_file(dir / "journal.jsonl");
  text.resize(std::min(text.size(), text.find('\0')));
  return text;
}

// Its complete records.
std::size_t journal_lines(const fs::path& dir) {
  const std::string text = journal_text(dir);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Every validation's metric is the trial's formula.
void check_metrics(const nlohmann::json& exp) {
  for (const nlohmann::json& t : exp["trials"]) {
    const double x = t["hparams"]["x"].get<double>();
    for (const nlohmann::json& v : t["validations"]) {
      const double length = v["length"].get<double>();
      CHECK(v["metric"].get<double>() == doctest::Approx((x - 0.3) * (x - 0.3) + 1.0 / length));
      CHECK(v["metrics"]["accuracy"].get<double>() == doctest::Approx(1 - x));
    }
  }
}

std::map<std::string, int> outcomes(const nlohmann::json& exp) {
  std::map<std::string, int> counts;
  for (const nlohmann::json& t : exp["trials"]) ++counts[t["outcome"].get<std::string>()];
  return counts;
}

// (request id, length, metric) of every validation.
std::set<std::tuple<std::string, std::uint64_t, double>> validations(const nlohmann::json& exp) {
  std::set<std::tuple<std::string, std::uint64_t, double>> all;
  for (const nlohmann::json& t : exp["trials"]) {
    for (const nlohmann::json& v : t["validations"]) {
      all.insert({t["request_id"].get<std::string>(), v["length"].get<std::uint64_t>(),
                  v["metric"].get<double>()});
    }
  }
  return all;
}

// (request id, length, metric) of every validation the journal at `dir` recorded in a complete
// record (a last line without its newline was cut short and never acted on).
std::set<std::tuple<std::string, std::uint64_t, double>> journaled_validations(
    const fs::path& dir) {
  std::set<std::tuple<std::string, std::uint64_t, double>> all;
  std::istringstream journal(journal_text(dir));
  for (std::string line; std::getline(journal, line);) {
    if (journal.eof()) break;
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.contains("in") && record["in"]["event"] == "validation_completed") {
      all.insert({record["in"]["request_id"].get<std::string>(),
                  record["in"]["length"].get<std::uint64_t>(),
                  record["in"]["metric"].get<double>()});
    }
  }
  return all;
}

// The searcher's events and answers in the journal, progress reports aside (a trial relaunched
// from its checkpoint reports its progress again).
std::vector<std::string> searcher_transcript(const fs::path& dir) {
  std::vector<std::string> all;
  std::istringstream journal(journal_text(dir));
  for (std::string line; std::getline(journal, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.contains("in") && record["in"]["event"] != "trial_progress") {
      all.push_back(record["in"].dump() + " -> " + record["out"].dump());
    }
  }
  return all;
}

// Starts `searcher-run run` with `options` after --config and --dir, and kills it with
// `signal` once `ready()` holds (or after a minute).
int run_and_kill_when(const std::string& config, const fs::path& dir,
                      std::vector<std::string> options, const std::function<bool()>& ready,
                      int signal) {
  const std::string out = (dir / "first.out").string();
  std::vector<std::string> args{SEARCHER_RUN, "run",   "--config",
                                config,       "--dir", (dir / "exp").string()};
  args.insert(args.end(), options.begin(), options.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (out + ".err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, SEARCHER_RUN, &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Starts searcher-run, and kills it with `signal` once its journal has `records` records.
int run_and_kill(const std::string& config, const fs::path& dir, const std::string& slots,
                 std::size_t records, int signal) {
  return run_and_kill_when(
      config, dir, {"--slots", slots}, [&] { return journal_lines(dir / "exp") >= records; },
      signal);
}

const char* const kAsha =
    "  name: async_halving\n  metric: loss\n  num_rungs: 3\n  divisor: 3\n  max_trials: 12\n"
    "  max_length: 9\n  max_concurrent_trials: 4\n";

}  // namespace

TEST_CASE("searcher-run: a normal ASHA search") {
  const fs::path dir = scratch("normal");
  const fs::path config = write_config(dir, kAsha, "  x: {type: double, minval: 0, maxval: 1}\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  CHECK(run.code == 0);
  CHECK(run.out.starts_with("search completed: 12 trials ("));
  CHECK(run.out.find("best trial ") != std::string::npos);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  CHECK(exp["progress"] == 1.0);
  REQUIRE(exp["trials"].size() == 12);
  check_metrics(exp);
  // Rungs 1, 3, 9: each trial's lengths are a prefix of them; those at 9 completed.
  int at_full = 0;
  for (const nlohmann::json& t : exp["trials"]) {
    const std::vector<std::uint64_t> rungs{1, 3, 9};
    const auto& v = t["validations"];
    REQUIRE(!v.empty());
    for (std::size_t k = 0; k < v.size(); ++k) CHECK(v[k]["length"] == rungs[k]);
    const bool full = v.back()["length"] == 9;
    at_full += full ? 1 : 0;
    CHECK(t["outcome"] == (full ? "completed" : "stopped"));
    CHECK(t["restarts"] == 0);
    CHECK(fs::exists(t["checkpoint"]["path"].get<std::string>() + "/state.json"));
    CHECK(read_file(fs::path(t["directory"].get<std::string>()) / "output.log").empty());
  }
  CHECK(at_full >= 1);
  // The best is the lowest metric at max_length.
  double best = 1e9;
  for (const nlohmann::json& t : exp["trials"]) {
    for (const nlohmann::json& v : t["validations"]) {
      if (v["length"] == 9) best = std::min(best, v["metric"].get<double>());
    }
  }
  CHECK(exp["best"]["metric"].get<double>() == best);
  // runner.log alone tells how the run was set up and how it ended: its first line the
  // settings, and stdout's summary, line for line.
  const std::string log = read_file(dir / "exp" / "runner.log");
  const std::string first_line = log.substr(0, log.find('\n'));
  CHECK(first_line.find(" started: searcher 'async_halving', sampler 'random'") !=
        std::string::npos);
  CHECK(first_line.find(", seed 0, 2 slot(s), trials run as: python3 ") != std::string::npos);
  CHECK(log.find("caution: ") == std::string::npos);  // no model proposes here
  CHECK(log.find("note: ") == std::string::npos);
  std::istringstream summary(run.out);
  for (std::string line; std::getline(summary, line);) {
    CHECK(log.find(' ' + line + '\n') != std::string::npos);
  }
  // A finished experiment resumes to the same end: the whole journal replays identically.
  const Run again = runner("resume '" + (dir / "exp").string() + "'", dir);
  CHECK(again.code == 0);
  CHECK(again.err.find("every answer identical") != std::string::npos);
  CHECK(experiment(dir / "exp")["trials"] == exp["trials"]);
}

TEST_CASE("searcher-run: a trial that crashes once recovers from its checkpoint") {
  // Stopping ASHA: the first report at each rung continues, so the first trial trains 1, 3,
  // 9 in one process; it dies at 2 on its first launch, after its checkpoint at 1.
  const fs::path dir = scratch("crash-once");
  const fs::path config = write_config(
      dir,
      "  name: async_halving\n  stop_once: true\n  metric: loss\n  num_rungs: 3\n  divisor: 3\n"
      "  max_trials: 2\n  max_length: 9\n  max_concurrent_trials: 1\n",
      "  x: {type: double, minval: 0, maxval: 1}\n  mode: {type: const, val: crash_once}\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 1",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  check_metrics(exp);
  const nlohmann::json& first = exp["trials"][0];
  CHECK(first["restarts"] == 1);
  CHECK(first["outcome"] == "completed");
  CHECK(first["validations"].size() == 3);
  const std::string log = read_file(dir / "exp" / "runner.log");
  CHECK(log.find("trial 1 (" + first["request_id"].get<std::string>() +
                 ") failed: exit code 3; restarting from its checkpoint at steps_completed 1 "
                 "(restart 1 of 5)") != std::string::npos);
  CHECK(log.find("started (pid ") != std::string::npos);
}

TEST_CASE(
    "searcher-run: a trial that stops talking for --trial-timeout is killed and restarted from its "
    "checkpoint") {
  // It stores a checkpoint at 1, then sleeps for an hour at 2 on its first launch.
  const fs::path dir = scratch("hang-once");
  const fs::path config = write_config(dir, "  name: single\n  metric: loss\n  max_length: 4\n",
                                       "  x: 0.5\n  mode: hang_once\n  checkpoint_each: true\n");
  const auto started = std::chrono::steady_clock::now();
  const Run run = runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() +
                             "' --slots 1 --trial-timeout 5",
                         dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO(run.err);
  CHECK(run.code == 0);
  CHECK(seconds >= 5);
  CHECK(seconds < 60);  // not the hour it sleeps
  const nlohmann::json exp = experiment(dir / "exp");
  check_metrics(exp);
  const nlohmann::json& trial = exp["trials"][0];
  CHECK(trial["restarts"] == 1);
  CHECK(trial["outcome"] == "completed");
  CHECK(trial["validations"].size() == 1);
  const std::string log = read_file(dir / "exp" / "runner.log");
  const std::string name = "trial 1 (" + trial["request_id"].get<std::string>() + ")";
  CHECK(log.find(
            name +
            " sent nothing for 5 s (--trial-timeout): killing it and every process it started") !=
        std::string::npos);
  CHECK(log.find(
            name +
            " failed: it sent nothing for 5 s (--trial-timeout); restarting from its checkpoint at "
            "steps_completed 1 (restart 1 of 5)") != std::string::npos);
  // The relaunch: the target in the searcher's unit (a bare max_length: a bare number), the
  // checkpoint (in checkpoint storage) at the steps_completed the trial reported with it.
  CHECK(log.find(name + " started (pid ") != std::string::npos);
  CHECK(log.find(", train to 4, from its checkpoint at steps_completed 1)") != std::string::npos);
  CHECK(read_file(exp["trials"][0]["directory"].get<std::string>() + "/output.log") ==
        "starting at 0\nstarting at 1\n");
}

TEST_CASE("searcher-run: resume keeps the run's --trial-timeout unless given another") {
  // The trial hangs at 2 on its first two launches; the run is killed while the first hangs.
  // Resumed without --trial-timeout, the second launch must be timed out as the run was told
  // (were the timeout lost, it would sleep its 40 s and finish with no restart).
  const fs::path dir = scratch("hang-resume");
  const fs::path config =
      write_config(dir, "  name: single\n  metric: loss\n  max_length: 4\n",
                   "  x: 0.5\n  mode: hang_twice\n  hang_seconds: 40\n  checkpoint_each: true\n");
  const auto hanging = [&] {  // the one trial's output.log says it started (it hangs within ms)
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir / "exp", error), end; !error && it != end;
         it.increment(error)) {
      if (it->path().filename() == "output.log" &&
          read_file(it->path()).find("starting at 0") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  CHECK(run_and_kill_when(config.string(), dir, {"--slots", "1", "--trial-timeout", "4"}, hanging,
                          SIGKILL) == 128 + SIGKILL);
  CHECK(nlohmann::json::parse(read_file(dir / "exp" / "run.json"))["trial_timeout"] == 4);
  const auto started = std::chrono::steady_clock::now();
  const Run resumed = runner("resume '" + (dir / "exp").string() + "' --slots 1", dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO(resumed.err);
  CHECK(resumed.code == 0);
  CHECK(seconds < 30);
  const nlohmann::json exp = experiment(dir / "exp");
  const nlohmann::json& trial = exp["trials"][0];
  CHECK(trial["restarts"] == 1);
  CHECK(trial["outcome"] == "completed");
  CHECK(read_file(dir / "exp" / "runner.log").find("sent nothing for 4 s (--trial-timeout)") !=
        std::string::npos);
}

TEST_CASE("searcher-run: a trial that always crashes is errored, and the search goes on") {
  const fs::path dir = scratch("always-crash");
  const fs::path config = write_config(
      dir, "  name: grid\n  metric: loss\n  max_length: 4\n  max_concurrent_trials: 2\n",
      "  x: 0.25\n  mode: {type: categorical, vals: [ok, always_crash]}\n", "max_restarts: 2\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  REQUIRE(exp["trials"].size() == 2);
  for (const nlohmann::json& t : exp["trials"]) {
    if (t["hparams"]["mode"] == "ok") {
      CHECK(t["outcome"] == "completed");
    } else {
      CHECK(t["outcome"] == "errored");
      CHECK(t["restarts"] == 2);
      CHECK(t["validations"].empty());
    }
  }
  CHECK(read_file(dir / "exp" / "runner.log")
            .find("it has used its 2 restarts, so it is reported as errored") != std::string::npos);
  CHECK(run.out.find("1 errored") != std::string::npos);
}

TEST_CASE("searcher-run: every trial erroring fails the search (exit 1)") {
  const fs::path dir = scratch("all-crash");
  const fs::path config = write_config(dir, "  name: single\n  metric: loss\n  max_length: 2\n",
                                       "  x: 0.25\n  mode: always_crash\n", "max_restarts: 0\n");
  const Run run =
      runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'", dir);
  CHECK(run.code == 1);
  CHECK(run.out.starts_with("search failed: 1 trials (0 completed, 0 stopped early, 1 errored"));
  CHECK(experiment(dir / "exp")["state"] == "failed");
  // The end says why: the trial, its exit status and the last lines it wrote (trial.py's mode
  // always_crash prints "about to fail", then raises RuntimeError, which exits 1).
  const std::string cause = "the last errored trial, trial 1 (";
  REQUIRE(run.out.find(cause) != std::string::npos);
  const std::string end = run.out.substr(run.out.find(cause));
  CHECK(end.find("): exit code 1; its last lines of output:\n  | ") != std::string::npos);
  CHECK(end.find("\n  | about to fail\n") != std::string::npos);
  CHECK(end.find("\n  | RuntimeError: always_crash at x = 0.25\n") != std::string::npos);
  CHECK(experiment(dir / "exp")["failure"].get<std::string>() + "\n" ==
        end.substr(0, end.find("details: ")));
}

// docs/samplers.md, "Under async_halving": a model sampler there is cautioned, on stderr and in
// runner.log, when the run starts (the normal ASHA search above, random, is not).
TEST_CASE("searcher-run: a model sampler under async_halving is cautioned at the start") {
  const fs::path dir = scratch("caution");
  const fs::path config = write_config(dir, std::string(kAsha) + "  sampler: gp\n",
                                       "  x: {type: double, minval: 0, maxval: 1}\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  REQUIRE(run.code == 0);
  const std::string caution = "caution: 'gp' under async_halving did worse than random search";
  CHECK(run.err.find(caution) != std::string::npos);
  CHECK(read_file(dir / "exp" / "runner.log").find(caution) != std::string::npos);
}

// `sampler: auto` in the runner: runner.log's first line says what it chose, and a line says
// from which trial TPE proposed, as experiment.json's sampler_choice does. The oracle: the
// journal's events replayed into a fresh searcher in-process; the first create answered while
// the sampler's snapshot says model "tpe" is TPE's first proposal (the model changes only when
// a result is observed, before the creates that answer it).
TEST_CASE("searcher-run: sampler auto says what it chose and from which trial TPE proposed") {
  const fs::path dir = scratch("auto-sampler");
  const fs::path config = write_config(dir,
                                       "  name: random\n  metric: loss\n  max_length: 1\n"
                                       "  max_trials: 14\n  max_concurrent_trials: 2\n"
                                       "  sampler: auto\n",
                                       "  x: {type: double, minval: 0, maxval: 1}\n"
                                       "  mode: coarse\n",
                                       "reproducibility: {experiment_seed: 3}\n");
  const fs::path exp_dir = dir / "exp";
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + exp_dir.string() + "' --slots 2", dir);
  REQUIRE(run.code == 0);
  // The first trial TPE proposed, by docs/samplers.md's rule read off the journal (not from the
  // sampler's state): TPE proposes once three trials' first results repeated a value an
  // earlier trial reported first (all at length 1 here; x is continuous, so the repeating
  // points' distances, and with them the repeat radius, are above 0), from the operations
  // answering the third repeat on.
  std::uint64_t created = 0;
  std::optional<std::uint64_t> first_tpe;
  std::set<std::string> reported;  // trials with a first result
  std::set<double> values;         // the values first results took
  int repeats = 0;
  std::istringstream journal(journal_text(exp_dir));
  for (std::string line; std::getline(journal, line) && !first_tpe;) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (!record.contains("in")) continue;  // the runner's own records
    const nlohmann::json& in = record["in"];
    if (in["event"] == "validation_completed" &&
        reported.insert(in["request_id"].get<std::string>()).second &&
        !values.insert(in["metric"].get<double>()).second) {
      ++repeats;
    }
    for (const nlohmann::json& op : record["out"].value("operations", nlohmann::json::array())) {
      if (op["type"] != "create") continue;
      ++created;
      if (repeats >= 3 && !first_tpe) first_tpe = created;
    }
  }
  REQUIRE(first_tpe);  // the coarse loss repeats: TPE took over
  const nlohmann::json choice = experiment(exp_dir)["sampler_choice"];
  CHECK(choice["sampler"] == "gp");
  CHECK(choice["then"] == "tpe");
  CHECK(choice["then_from_trial"] == *first_tpe);
  const std::string log = read_file(exp_dir / "runner.log");
  const std::string first_line = log.substr(0, log.find('\n'));
  CHECK(first_line.find("started: searcher 'random', sampler 'auto' (chose 'gp', then 'tpe': GP "
                        "while results vary smoothly") != std::string::npos);
  CHECK(log.find("sampler 'auto': 'tpe' proposed from trial " + std::to_string(*first_tpe) +
                 " on (the third repeated result)\n") != std::string::npos);
}

// The fail-fast rule (docs/runner.md): while no trial has reported anything, once a third
// different trial has failed its failure is held and nothing more starts; with nothing left
// running, the run stops.
TEST_CASE("searcher-run: a misspelled entrypoint stops the run at the third failed trial") {
  const fs::path dir = scratch("misspelled");
  const fs::path missing = dir / "trian.py";
  const fs::path config = dir / "config.yaml";
  const std::string search =
      "max_restarts: 1\n"
      "searcher:\n  name: random\n  metric: loss\n  max_length: 2\n"
      "  max_trials: 3\n  max_concurrent_trials: 1\n"
      "hyperparameters:\n  x: 0.25\n";
  std::ofstream(config) << "entrypoint: python3 " << missing.string() << "\n" << search;
  const fs::path exp = dir / "exp";
  const Run run =
      runner("run --config '" + config.string() + "' --dir '" + exp.string() + "' --slots 1", dir);
  CHECK(run.code == 1);
  // One slot: trials 1 and 2 each launch, restart once (max_restarts 1) and are errored, as
  // Determined does; trial 3's first failure is the third trial's: held, not a restart.
  const nlohmann::json failed = experiment(exp);
  CHECK(failed["state"] == "failed");
  REQUIRE(failed["trials"].size() == 3);
  for (std::size_t t = 0; t < 2; ++t) {
    CHECK(failed["trials"][t]["launches"] == 2);
    CHECK(failed["trials"][t]["outcome"] == "errored");
  }
  CHECK(failed["trials"][2]["launches"] == 1);
  CHECK(failed["trials"][2]["restarts"] == 0);
  CHECK(failed["trials"][2]["outcome"] == "waiting");
  // Python's own words for a script that is not there, as the end of the run shows them.
  const std::string python_says =
      "can't open file '" + missing.string() + "': [Errno 2] No such file or directory";
  CHECK(
      run.out.starts_with("search failed: 3 trials (0 completed, 0 stopped early, 2 errored, 0 "
                          "with invalid hyperparameters, 1 unfinished)\n"
                          "stopped early: 3 trials failed and no trial has reported anything"));
  CHECK(run.out.find("the first to fail, trial 1 (") != std::string::npos);
  CHECK(run.out.find("): exit code 2; its last lines of output:\n  | ") != std::string::npos);
  CHECK(run.out.find(python_says + "\n") != std::string::npos);
  CHECK(run.out.find("trials run as: python3 " + missing.string()) != std::string::npos);
  CHECK(run.out.find("continue with: searcher-run resume " + fs::absolute(exp).string()) !=
        std::string::npos);
  CHECK(failed["failure"].get<std::string>().find(python_says) != std::string::npos);
  const Run status = runner("status --dir '" + exp.string() + "' --json", dir);
  const nlohmann::json stopped = nlohmann::json::parse(status.out);
  CHECK(stopped["state"] == "failed");
  CHECK(stopped["trials"]["waiting"] == 1);
  CHECK(stopped["failure"] == failed["failure"]);
  CHECK(read_file(exp / "runner.log").find("so it is held, not restarted") != std::string::npos);

  // Corrected in the run's copy of the config, the experiment resumes and completes: the held
  // trial trains (its held failure used no restart), the errored ones stay errored.
  std::ofstream(exp / "config.yaml") << "entrypoint: python3 " << kTrial << "\n" << search;
  const Run resumed = runner("resume '" + exp.string() + "'", dir);
  CHECK(resumed.code == 0);
  const nlohmann::json done = experiment(exp);
  CHECK(done["state"] == "completed");
  CHECK(done["trials"][0]["outcome"] == "errored");
  CHECK(done["trials"][1]["outcome"] == "errored");
  CHECK(done["trials"][2]["outcome"] == "completed");
  CHECK(done["trials"][2]["restarts"] == 0);
  CHECK(done["trials"][2]["launches"] == 2);
  REQUIRE(done["trials"][2]["validations"].size() == 1);
  CHECK(!done.contains("failure"));
}

// One trial failing again and again is that trial's business (its configuration may not fit):
// it gets Determined's max_restarts and the search goes on without stopping early.
TEST_CASE("searcher-run: one trial failing before any report does not stop the search") {
  const fs::path dir = scratch("one-crasher");
  const fs::path config = write_config(
      dir, "  name: grid\n  metric: loss\n  max_length: 2\n  max_concurrent_trials: 1\n",
      "  x: 0.25\n  mode: {type: categorical, vals: [always_crash, ok]}\n", "max_restarts: 5\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 1",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  REQUIRE(exp["trials"].size() == 2);
  for (const nlohmann::json& t : exp["trials"]) {
    if (t["hparams"]["mode"] == "always_crash") {
      CHECK(t["outcome"] == "errored");
      CHECK(t["launches"] == 6);
    } else {
      CHECK(t["outcome"] == "completed");
    }
  }
  CHECK(read_file(dir / "exp" / "runner.log").find("so it is held") == std::string::npos);
}

TEST_CASE("searcher-run: with several slots a command that fails at once stops within slots") {
  const fs::path dir = scratch("misspelled-slots");
  const fs::path config = dir / "config.yaml";
  std::ofstream(config) << "entrypoint: python3 " << (dir / "trian.py").string() << "\n"
                        << "searcher:\n  name: random\n  metric: loss\n  max_length: 2\n"
                        << "  max_trials: 8\n  max_concurrent_trials: 3\n"
                        << "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n";
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 3",
      dir);
  CHECK(run.code == 1);
  // The third trial's failure holds every launch; at most the two others, restarted, then fail.
  std::uint64_t launches = 0;
  const nlohmann::json exp = experiment(dir / "exp");
  for (const nlohmann::json& t : exp["trials"]) launches += t["launches"].get<std::uint64_t>();
  CHECK(launches >= 3);
  CHECK(launches <= 5);
  CHECK(run.out.find("3 trials failed and no trial has reported anything") != std::string::npos);
}

// Once a trial has reported, failures get Determined's max_restarts again: failures held
// while none had reported are handled as usual when one does.
TEST_CASE("searcher-run: a held failure is released by a report and keeps every restart") {
  const fs::path dir = scratch("held-released");
  // Three trials that crash and three that report once a failure is held, all at once.
  const fs::path config = write_config(
      dir, "  name: grid\n  metric: loss\n  max_length: 2\n  max_concurrent_trials: 6\n",
      "  x: {type: categorical, vals: [0.25, 0.5, 0.75]}\n"
      "  mode: {type: categorical, vals: [report_after_hold, always_crash]}\n",
      "max_restarts: 5\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 6",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  REQUIRE(exp["trials"].size() == 6);
  for (const nlohmann::json& t : exp["trials"]) {
    if (t["hparams"]["mode"] == "always_crash") {
      CHECK(t["outcome"] == "errored");
      CHECK(t["restarts"] == 5);
      CHECK(t["launches"] == 6);
    } else {
      CHECK(t["outcome"] == "completed");
    }
  }
  const std::string log = read_file(dir / "exp" / "runner.log");
  const std::size_t held = log.find("3 trials have failed and no trial has reported anything");
  REQUIRE(held != std::string::npos);
  const std::size_t released = log.find("a trial has reported: the ", held);
  REQUIRE(released != std::string::npos);
  CHECK(log.find(" held failure(s) are handled as any failure", released) != std::string::npos);
  CHECK(log.find("it has used its 5 restarts, so it is reported as errored", released) !=
        std::string::npos);
}

// Every file under `dir` with its size and modification time: what a read-only command must
// leave as it found it.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files_under(
    const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    files[e.path().string()] = {e.is_regular_file() ? e.file_size() : 0, e.last_write_time()};
  }
  return files;
}

// `status` reads a run directory as it stands: live (a runner holds it), paused (killed), and
// ended; it takes no lock and writes nothing. The oracles: the trial's formula for the best
// metric it shows, and the runner's own experiment.json (its outcomes, its best) at the end.
TEST_CASE("searcher-run status: running, paused after a kill, completed, read-only") {
  const fs::path dir = scratch("status");
  // The hang_once trial sleeps at length 2 of its first launch: it is running whenever status
  // looks during the first run; relaunched by resume, it completes.
  const fs::path config = write_config(
      dir, "  name: grid\n  metric: loss\n  max_length: 3\n  max_concurrent_trials: 2\n",
      "  x: 0.25\n  mode: {type: categorical, vals: [ok, hang_once]}\n");
  const fs::path exp_dir = dir / "exp";
  const auto status = [&] {
    const Run run = runner("status --dir '" + exp_dir.string() + "' --json", dir);
    REQUIRE(run.code == 0);
    return nlohmann::json::parse(run.out);
  };
  nlohmann::json live;
  (void)run_and_kill_when(
      config.string(), dir, {"--slots", "2"},
      [&] {
        if (!fs::exists(exp_dir / "journal.jsonl") ||
            journal_text(exp_dir).find("validation_completed") == std::string::npos)
          return false;
        live = status();  // beside the live runner, which goes on undisturbed
        return true;
      },
      SIGKILL);
  REQUIRE(live.is_object());
  CHECK(live["state"] == "running");
  CHECK(live["runner_pid"].is_number_integer());
  CHECK(live["trials"]["total"] == 2);
  CHECK(live["trials"]["running"].get<int>() >= 1);
  REQUIRE(live["best"].is_object());
  const double x = live["best"]["hparams"]["x"].get<double>();
  const double length = live["best"]["length"].get<double>();
  CHECK(live["best"]["metric"].get<double>() ==
        doctest::Approx((x - 0.3) * (x - 0.3) + 1.0 / length));

  // Killed: nobody holds it, and looking changes nothing in it.
  const auto before = files_under(exp_dir);
  const nlohmann::json paused = status();
  CHECK(files_under(exp_dir) == before);
  CHECK(paused["state"] == "paused");
  CHECK(paused["runner_pid"].is_null());
  CHECK(paused["trials"]["running"] == 0);
  const Run text = runner("status --dir '" + exp_dir.string() + "'", dir);
  CHECK(text.out.starts_with("experiment in " + fs::absolute(exp_dir).string() +
                             ": paused (no runner holds it; continue it with: searcher-run "
                             "resume "));

  REQUIRE(runner("resume '" + exp_dir.string() + "'", dir).code == 0);
  const nlohmann::json done = status();
  const nlohmann::json exp = experiment(exp_dir);
  CHECK(done["state"] == "completed");
  const auto counts = outcomes(exp);
  CHECK(done["trials"]["total"] == exp["trials"].size());
  CHECK(done["trials"]["completed"] == (counts.contains("completed") ? counts.at("completed") : 0));
  CHECK(done["trials"]["failed"] == 0);
  CHECK(done["trials"]["waiting"] == 0);
  // The best metric and its length are the run's; on a tie (both trials have x = 0.25) status
  // names the first trial to reach it, as the web UI does, and its validation says so.
  CHECK(done["best"]["metric"] == exp["best"]["metric"]);
  CHECK(done["best"]["length"] == exp["best"]["length"]);
  const nlohmann::json& named = exp["trials"][done["best"]["trial"].get<std::size_t>() - 1];
  CHECK(named["hparams"] == done["best"]["hparams"]);
  CHECK(named["validations"].back()["metric"] == done["best"]["metric"]);

  // Not an experiment directory: said, exit 2.
  const Run none = runner("status --dir '" + dir.string() + "'", dir);
  CHECK(none.code == 2);
  CHECK(none.err.find("is not an experiment directory (no run.json)") != std::string::npos);
}

TEST_CASE("searcher-run: invalid hyperparameters are replaced as random search says") {
  const fs::path dir = scratch("invalid");
  const fs::path config =
      write_config(dir,
                   "  name: random\n  metric: loss\n  max_trials: 4\n  max_length: 2\n  "
                   "max_concurrent_trials: 2\n",
                   "  x: {type: double, minval: 0, maxval: 1}\n  mode: invalid_if_big\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  const auto counts = outcomes(exp);
  CHECK(counts.at("completed") == 4);  // invalid trials do not count toward max_trials
  REQUIRE(counts.contains("invalid_hp"));
  CHECK(counts.at("invalid_hp") >= 1);
  for (const nlohmann::json& t : exp["trials"]) {
    CHECK((t["outcome"] == "invalid_hp") == (t["hparams"]["x"].get<double>() > 0.5));
  }
  CHECK(read_file(dir / "exp" / "runner.log").find("reported invalid hyperparameters: x = ") !=
        std::string::npos);
}

TEST_CASE("searcher-run: protocol breaks restart the trial and are logged with the line") {
  const fs::path dir = scratch("malformed");
  const fs::path config = write_config(
      dir, "  name: grid\n  metric: loss\n  max_length: 4\n  max_concurrent_trials: 2\n",
      "  x: 0.5\n  mode: {type: categorical, vals: [malformed_once, wrong_length]}\n",
      "max_restarts: 1\n");
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  for (const nlohmann::json& t : exp["trials"]) {
    CHECK(t["restarts"] == 1);
    CHECK(t["outcome"] == (t["hparams"]["mode"] == "malformed_once" ? "completed" : "errored"));
  }
  const std::string log = read_file(dir / "exp" / "runner.log");
  CHECK(
      log.find(
          "broke the trial protocol: it sent 'this is not json': not a JSON object; stopping it") !=
      std::string::npos);
  CHECK(log.find("a validation at length 5, but it was asked to train to 4") != std::string::npos);
}

TEST_CASE("searcher-run: killed with SIGKILL and resumed, --slots 1 gives the uninterrupted run") {
  const std::string hps = "  x: {type: double, minval: 0, maxval: 1}\n  sleep: 0.01\n";
  const fs::path reference_dir = scratch("kill-reference");
  const fs::path reference_config = write_config(reference_dir, kAsha, hps);
  CHECK(runner("run --config '" + reference_config.string() + "' --dir '" +
                   (reference_dir / "exp").string() + "' --slots 1",
               reference_dir)
            .code == 0);
  const nlohmann::json reference = experiment(reference_dir / "exp");

  // SIGTERM too: the trials it paused were running, and are relaunched before the queue.
  const std::vector<std::pair<std::size_t, int>> kills{{5, SIGKILL}, {25, SIGTERM}, {40, SIGKILL}};
  for (const auto& kill : kills) {
    const std::size_t kill_at =
        kill.first;  // not a structured binding: clang cannot capture one in INFO
    const int sig = kill.second;
    INFO("killed after " << kill_at << " journal records with signal " << sig);
    const fs::path dir = scratch("kill-" + std::to_string(kill_at));
    const fs::path config = write_config(dir, kAsha, hps);
    CHECK(run_and_kill(config.string(), dir, "1", kill_at, sig) == 128 + sig);
    // Killed, the runner left its spare space; paused by SIGTERM, it closed the journal.
    const std::string left = read_file(dir / "exp" / "journal.jsonl");
    CHECK((left.find('\0') != std::string::npos) == (sig == SIGKILL));
    const std::size_t first_zero = left.find('\0');
    const std::string remnant = "{\"written\":\"never synced\"}\n";
    if (kill_at == 5) {
      // What a machine crash can leave: bytes of writes never synced beyond the first zero.
      // Resuming keeps them aside, and goes on as from the records before the zeros.
      REQUIRE(first_zero != std::string::npos);
      REQUIRE(left.size() > first_zero + 100 + remnant.size());
      std::fstream journal(dir / "exp" / "journal.jsonl",
                           std::ios::in | std::ios::out | std::ios::binary);
      journal.seekp(static_cast<std::streamoff>(first_zero + 100));
      journal << remnant;
      // An earlier crash's remnants kept at the same place are not replaced.
      std::ofstream(dir / "exp" / ("journal.jsonl.after-zero-" + std::to_string(first_zero)))
          << "earlier";
    }
    if (kill_at == 40) {
      // Zeros at the end of the trials' metrics files, as a machine crash leaves on some
      // filesystems: resuming cuts them back, so what is appended later is not hidden.
      for (const auto& entry : fs::recursive_directory_iterator(dir / "exp" / "trials")) {
        if (entry.path().filename() == "metrics.jsonl") {
          std::ofstream(entry.path(), std::ios::app | std::ios::binary) << std::string(300, '\0');
        }
      }
    }
    const Run resumed = runner("resume '" + (dir / "exp").string() + "' --slots 1", dir);
    CHECK(resumed.code == 0);
    // Resumed and finished: exactly its records again (cut back on resuming, and at the end).
    CHECK(read_file(dir / "exp" / "journal.jsonl") == journal_text(dir / "exp"));
    if (kill_at == 5) {
      const fs::path earlier =
          dir / "exp" / ("journal.jsonl.after-zero-" + std::to_string(first_zero));
      CHECK(read_file(earlier) == "earlier");
      const fs::path aside = fs::path(earlier.string() + ".2");
      CHECK(read_file(aside) == std::string(100, '\0') + remnant);
      CHECK(read_file(dir / "exp" / "runner.log").find("kept in " + aside.string()) !=
            std::string::npos);
    }
    if (kill_at == 40) {
      std::size_t metrics_files = 0;
      for (const auto& entry : fs::recursive_directory_iterator(dir / "exp" / "trials")) {
        if (entry.path().filename() != "metrics.jsonl") continue;
        ++metrics_files;
        CHECK(read_file(entry.path()).find('\0') == std::string::npos);
      }
      CHECK(metrics_files > 0);
    }
    const nlohmann::json exp = experiment(dir / "exp");
    REQUIRE(exp["trials"].size() == reference["trials"].size());
    for (std::size_t i = 0; i < exp["trials"].size(); ++i) {
      CHECK(exp["trials"][i]["request_id"] == reference["trials"][i]["request_id"]);
      CHECK(exp["trials"][i]["hparams"] == reference["trials"][i]["hparams"]);
      CHECK(exp["trials"][i]["validations"] == reference["trials"][i]["validations"]);
      CHECK(exp["trials"][i]["outcome"] == reference["trials"][i]["outcome"]);
    }
    // The searcher saw the same events in the same order: the resumed run launched the trials
    // that were running, then those waiting, in the old run's order.
    CHECK(searcher_transcript(dir / "exp") == searcher_transcript(reference_dir / "exp"));
  }
}

TEST_CASE("searcher-run: killed with --slots 2 and resumed, nothing completed is lost") {
  const fs::path dir = scratch("kill-two");
  const fs::path config =
      write_config(dir, kAsha, "  x: {type: double, minval: 0, maxval: 1}\n  sleep: 0.01\n");
  CHECK(run_and_kill(config.string(), dir, "2", 30, SIGKILL) == 128 + SIGKILL);
  // Trial processes die with the runner (PR_SET_PDEATHSIG): none of those it started remains.
  const std::string log = read_file(dir / "exp" / "runner.log");
  std::vector<pid_t> pids;
  for (std::size_t at = log.find("(pid "); at != std::string::npos;
       at = log.find("(pid ", at + 1)) {
    pids.push_back(static_cast<pid_t>(std::stol(log.substr(at + 5))));
  }
  CHECK(!pids.empty());
  for (const pid_t pid : pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // until init reaps it
    }
    INFO("trial process " << pid);
    CHECK(::kill(pid, 0) != 0);
  }
  // What the journal holds at the kill: every validation it recorded must survive.
  const auto before = journaled_validations(dir / "exp");
  CHECK(!before.empty());
  const Run resumed = runner("resume '" + (dir / "exp").string() + "' --slots 2", dir);
  INFO("first run's stderr:\n"
       << read_file(dir / "first.out.err") << "\nresume's stderr:\n"
       << resumed.err);
  CHECK(resumed.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  CHECK(exp["trials"].size() == 12);
  const auto after = validations(exp);
  for (const auto& v : before) CHECK(after.contains(v));
  check_metrics(exp);
}

TEST_CASE("searcher-run: SIGTERM pauses every trial, and resume finishes the search") {
  const fs::path dir = scratch("sigterm");
  const fs::path config =
      write_config(dir, kAsha, "  x: {type: double, minval: 0, maxval: 1}\n  sleep: 0.01\n");
  CHECK(run_and_kill(config.string(), dir, "2", 20, SIGTERM) == 128 + SIGTERM);
  CHECK(read_file(dir / "first.out").find("paused: ") != std::string::npos);
  CHECK(read_file(dir / "first.out")
            .find("continue with: searcher-run resume " + (dir / "exp").string() + "\n") !=
        std::string::npos);
  const nlohmann::json paused = experiment(dir / "exp");
  CHECK(paused["state"] == "paused");
  const auto before = validations(paused);
  // The trials the signal paused were running: the snapshot keeps them so (the order a resume
  // launches in: those running, then the queue), and resume launches them first.
  const nlohmann::json snapshot = nlohmann::json::parse(read_file(dir / "exp" / "snapshot.json"));
  std::vector<std::string> running;
  for (const nlohmann::json& id : snapshot["running"]) running.push_back(id.get<std::string>());
  CHECK(!running.empty());
  const std::string first_err = read_file(dir / "first.out.err");
  const std::string after_signal =
      first_err.substr(std::min(first_err.find("received SIGTERM"), first_err.size()));
  for (const std::string& id : running)
    CHECK(after_signal.find(id + ") paused (") != std::string::npos);
  const Run resumed = runner("resume '" + (dir / "exp").string() + "'", dir);
  CHECK(resumed.code == 0);
  // Those with work left (a trial paused with its operation done is not relaunched) are the
  // first resume starts, in the same order.
  std::vector<std::string> with_work;
  for (const std::string& id : running) {
    for (const nlohmann::json& t : snapshot["trials"]) {
      if (t["request_id"] == id && !t["target"].is_null()) with_work.push_back(id);
    }
  }
  std::vector<std::string> started;
  for (std::size_t at = resumed.err.find(") started (");
       at != std::string::npos && started.size() < with_work.size();
       at = resumed.err.find(") started (", at + 1)) {
    started.push_back(resumed.err.substr(at - 36, 36));
  }
  CHECK(started == with_work);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  const auto after = validations(exp);
  for (const auto& v : before) CHECK(after.contains(v));
}

TEST_CASE("searcher-run: usage and setup errors exit 2 and say what is wrong") {
  const fs::path dir = scratch("usage");
  // The hint names the command's own help, where its options are.
  CHECK(runner("run --dir x", dir).err ==
        "searcher-run run: --config FILE is required\n(see 'searcher-run help run')\n");
  CHECK(runner("run --config c.yaml --dir x --slots 0", dir)
            .err.starts_with(
                "searcher-run run: --slots: must be an integer between 1 and 4096, got '0'"));
  CHECK(runner("run --config c.yaml --dir x --trial-timeout -1", dir)
            .err.starts_with("searcher-run run: --trial-timeout: must be a number >= 0, got '-1'"));
  const fs::path config =
      write_config(dir, "  name: single\n  metric: loss\n  max_length: 2\n", "  x: 0.1\n");
  fs::create_directories(dir / "busy");
  std::ofstream(dir / "busy" / "file") << "x";
  const Run busy =
      runner("run --config '" + config.string() + "' --dir '" + (dir / "busy").string() + "'", dir);
  CHECK(busy.code == 2);
  CHECK(busy.err.find("is not empty; continue it with 'searcher-run resume") != std::string::npos);
  const fs::path no_entry = dir / "no-entry.yaml";
  std::ofstream(no_entry)
      << "searcher: {name: single, metric: loss, max_length: 2}\nhyperparameters: {x: 1}\n";
  const Run missing =
      runner("run --config '" + no_entry.string() + "' --dir '" + (dir / "e").string() + "'", dir);
  CHECK(missing.code == 2);
  CHECK(missing.err.find("the config has no entrypoint") != std::string::npos);
  // Refused before it began: nothing is left behind, so the corrected command runs there (a
  // directory that was there and empty stays, empty).
  CHECK(!fs::exists(dir / "e"));
  fs::create_directories(dir / "empty");
  CHECK(runner("run --config '" + no_entry.string() + "' --dir '" + (dir / "empty").string() + "'",
               dir)
            .code == 2);
  CHECK(fs::is_directory(dir / "empty"));
  CHECK(fs::is_empty(dir / "empty"));
  CHECK(runner("run --config '" + config.string() + "' --dir '" + (dir / "e").string() + "'", dir)
            .code == 0);
  const Run file_dir = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "busy" / "file").string() + "'",
      dir);
  CHECK(file_dir.code == 2);
  CHECK(file_dir.err.find("exists and is not a directory") != std::string::npos);
  const Run nowhere = runner("resume '" + (dir / "nowhere").string() + "'", dir);
  CHECK(nowhere.code == 2);
  CHECK(nowhere.err.find("does not exist: no experiment there") != std::string::npos);
  const fs::path no_slots = dir / "no-slots.yaml";
  std::ofstream(no_slots)
      << "searcher: {name: single, metric: loss, max_length: 2}\nentrypoint: python3 t.py\n"
         "resources: {slots_per_trial: 0}\n";
  const Run slots =
      runner("run --config '" + no_slots.string() + "' --dir '" + (dir / "s").string() + "'", dir);
  CHECK(slots.code == 2);
  CHECK(slots.err.find("resources.slots_per_trial: must be an integer >= 1, got 0") !=
        std::string::npos);
  const Run not_dir = runner("resume '" + dir.string() + "'", dir);
  CHECK(not_dir.code == 2);
  CHECK(not_dir.err.find("is not an experiment directory (no run.json)") != std::string::npos);
  CHECK(runner("help", dir).out.find("Exit codes:") != std::string::npos);
}

TEST_CASE(
    "searcher-run: every command's help comes from its declared options, arguments are checked") {
  const fs::path dir = scratch("help");
  // `help CMD` and `CMD --help` print the same text, exit 0, and need none of the arguments.
  for (const char* command :
       {"run", "resume", "create", "ls", "describe", "pause", "activate", "kill", "delete"}) {
    const Run help = runner(std::string("help ") + command, dir);
    CHECK(help.code == 0);
    CHECK(help.out.starts_with(std::string("Usage: searcher-run ") + command));
    const Run flag = runner(std::string(command) + " --help", dir);
    CHECK(flag.code == 0);
    CHECK(flag.out == help.out);
  }
  // The shared groups appear where they apply, and only there.
  const std::string run_help = runner("help run", dir).out;
  CHECK(run_help.find("  --sbatch-arg ARG ") != std::string::npos);
  CHECK(run_help.find("  --pause-seconds X ") != std::string::npos);
  const std::string activate_help = runner("help activate", dir).out;
  CHECK(activate_help.find("  --slots N ") != std::string::npos);
  CHECK(activate_help.find("--launcher") == std::string::npos);
  CHECK(runner("help delete", dir).out.find("Arguments:\n  ID ") != std::string::npos);
  // The main help lists every command's synopsis.
  const std::string main_help = runner("help", dir).out;
  for (const char* synopsis :
       {"searcher-run run --config FILE --dir DIR", "searcher-run resume DIR",
        "searcher-run describe ID [--json]", "searcher-run delete ID"}) {
    CHECK(main_help.find(synopsis) != std::string::npos);
  }
  const Run missing = runner("delete", dir);
  CHECK(missing.code == 2);
  CHECK(missing.err.starts_with("searcher-run delete: ID is required"));
  CHECK(runner("resume a b", dir)
            .err.starts_with("searcher-run resume: unexpected argument 'b' (resume takes DIR)"));
  CHECK(runner("ls --json=yes", dir)
            .err.starts_with("searcher-run ls: --json: takes no value, got '--json=yes'"));
  CHECK(runner("help nope", dir).code == 2);
  // --sbatch-arg is repeatable, and like every Slurm option refused without --launcher slurm
  // (before anything is read or created).
  const Run sbatch =
      runner("run --config c.yaml --dir x --sbatch-arg=--mem=1G --sbatch-arg --qos=low", dir);
  CHECK(sbatch.code == 2);
  CHECK(sbatch.err.starts_with("searcher-run run: --sbatch-arg: only with --launcher slurm"));
  CHECK_FALSE(fs::exists(dir / "x"));
  CHECK(runner("run --config c.yaml --dir x --time 1 --time 2", dir)
            .err.starts_with("searcher-run run: --time: given twice"));
}

TEST_CASE("searcher-run: the plain shell trial of docs/runner.md") {
  const fs::path dir = scratch("shell");
  const std::string config = std::string(HPSEARCH_SOURCE_DIR) + "/bench/runner/overhead.yaml";
  const Run run =
      runner("run --config '" + config + "' --dir '" + (dir / "exp").string() + "' --slots 2", dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["state"] == "completed");
  CHECK(exp["trials"].size() == 200);
  CHECK(outcomes(exp).at("completed") >= 1);
  CHECK(exp["runner"]["validations_handled"].get<int>() >= 200);
  // The span up to the answers lies within the whole batch's and holds its syncs.
  const nlohmann::json& costs = exp["runner"];
  CHECK(costs["mean_answer_ms"].get<double>() >= costs["mean_decision_sync_ms"].get<double>());
  CHECK(costs["mean_answer_ms"].get<double>() <= costs["mean_decision_ms"].get<double>() + 1e-3);
}

TEST_CASE("searcher-run: a crash between a create and its trial_created is recovered") {
  // The window is too narrow to hit with a kill, so it is made by hand: a finished run's
  // journal cut right after a record that created a trial, before the trial_created record,
  // and no snapshot. Resuming must tell the searcher about the trial and finish exactly as
  // the uninterrupted run did (--slots 1).
  const std::string hps = "  x: {type: double, minval: 0, maxval: 1}\n";
  const fs::path dir = scratch("create-window");
  const fs::path config = write_config(dir, kAsha, hps);
  REQUIRE(runner("run --config '" + config.string() + "' --dir '" + (dir / "reference").string() +
                     "' --slots 1",
                 dir)
              .code == 0);
  const nlohmann::json reference = experiment(dir / "reference");
  fs::copy(dir / "reference", dir / "cut", fs::copy_options::recursive);
  fs::remove(dir / "cut" / "snapshot.json");
  std::ifstream in(dir / "reference" / "journal.jsonl");
  std::string kept;
  bool cut = false;
  for (std::string line; std::getline(in, line) && !cut;) {
    kept += line + "\n";
    const nlohmann::json record = nlohmann::json::parse(line);
    cut = record.contains("in") && record["in"]["event"] == "validation_completed" &&
          record["out"]["operations"].dump().find("\"create\"") != std::string::npos;
  }
  REQUIRE(cut);
  std::ofstream(dir / "cut" / "journal.jsonl", std::ios::trunc) << kept;
  const Run resumed = runner("resume '" + (dir / "cut").string() + "' --slots 1", dir);
  INFO(resumed.err);
  CHECK(resumed.code == 0);
  const nlohmann::json exp = experiment(dir / "cut");
  REQUIRE(exp["trials"].size() == reference["trials"].size());
  for (std::size_t i = 0; i < exp["trials"].size(); ++i) {
    CHECK(exp["trials"][i]["request_id"] == reference["trials"][i]["request_id"]);
    CHECK(exp["trials"][i]["validations"] == reference["trials"][i]["validations"]);
  }
}

TEST_CASE("searcher-run: resuming a damaged journal names the line and changes nothing") {
  const std::string hps = "  x: {type: double, minval: 0, maxval: 1}\n";
  const fs::path dir = scratch("damaged-journal");
  const fs::path config = write_config(dir, kAsha, hps);
  REQUIRE(runner("run --config '" + config.string() + "' --dir '" + (dir / "reference").string() +
                     "' --slots 1",
                 dir)
              .code == 0);
  std::vector<std::string> lines;
  {
    std::ifstream in(dir / "reference" / "journal.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  REQUIRE(lines.size() > 6);
  // What resume mishandled before fuzz/journal_fuzz.cpp's contract: a record whose seq was
  // damaged to an earlier one was skipped as if it came before the snapshot, and a runner
  // record of the wrong shape ended resume with the JSON library's message and no line.
  const auto resume_with = [&](const std::string& name, std::size_t line,
                               const std::string& record) {
    fs::copy(dir / "reference", dir / name, fs::copy_options::recursive);
    fs::remove(dir / name / "snapshot.json");
    std::string text;
    for (std::size_t k = 0; k < lines.size(); ++k)
      text += (k + 1 == line ? record : lines[k]) + "\n";
    std::ofstream(dir / name / "journal.jsonl", std::ios::trunc) << text;
    const Run resumed = runner("resume '" + (dir / name).string() + "' --slots 1", dir);
    CHECK(resumed.code != 0);
    CHECK(read_file(dir / name / "journal.jsonl") == text);
    return resumed.err;
  };
  nlohmann::json repeated = nlohmann::json::parse(lines[4]);
  repeated["seq"] = 1;
  const std::string journal = (fs::absolute(dir) / "seq" / "journal.jsonl").string();
  CHECK(resume_with("seq", 5, repeated.dump())
            .find("journal '" + journal +
                  "' line 5: 'seq' must be 4, got 1: records are "
                  "missing, repeated or out of order") != std::string::npos);
  const std::string shape = resume_with("shape", 6, "{\"seq\":5,\"checkpoint\":7}");
  CHECK(shape.find("line 6: the record's fields are not what the runner writes: "
                   "{\"checkpoint\":7,\"seq\":5}") != std::string::npos);
  CHECK(shape.find("json.exception") == std::string::npos);
}

namespace {

// The key run.json gives this experiment's trial processes (HPSEARCH_EXPERIMENT_KEY).
std::string experiment_key(const fs::path& dir) {
  return nlohmann::json::parse(read_file(dir / "run.json"))["key"].get<std::string>();
}

// Processes whose environment holds the experiment's key (zombies have none).
std::vector<pid_t> scan_for_key(const std::string& key) {
  const std::string marker = "HPSEARCH_EXPERIMENT_KEY=" + key;
  std::vector<pid_t> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream environ_file(entry.path() / "environ", std::ios::binary);
    for (std::string variable; std::getline(environ_file, variable, '\0');) {
      if (variable == marker) found.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return found;
}

// The same, after waiting up to 5 s for them to go (a killed process takes a moment).
std::vector<pid_t> processes_with_key(const std::string& key) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<pid_t> found = scan_for_key(key);
  while (!found.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    found = scan_for_key(key);
  }
  return found;
}

}  // namespace

TEST_CASE(
    "searcher-run: kill -9 of the runner leaves no process of any trial, grandchildren included") {
  // Each trial leaves a `sleep 300` in a session of its own, and runs under `sh -c`.
  const fs::path dir = scratch("orphans");
  const fs::path config = write_config(dir, kAsha,
                                       "  x: {type: double, minval: 0, maxval: 1}\n  sleep: 0.02\n"
                                       "  mode: background_child\n");
  CHECK(run_and_kill(config.string(), dir, "2", 12, SIGKILL) == 128 + SIGKILL);
  const std::string key = experiment_key(dir / "exp");
  CHECK(processes_with_key(key).empty());
  // And a trial whose main process ended took its leftovers with it: after a whole run,
  // nothing carries the key.
  const Run resumed = runner("resume '" + (dir / "exp").string() + "' --slots 2", dir);
  CHECK(resumed.code == 0);
  CHECK(processes_with_key(key).empty());
}

TEST_CASE("searcher-run: resume kills what an earlier run left behind") {
  const fs::path dir = scratch("leftovers");
  const fs::path config =
      write_config(dir, "  name: single\n  metric: loss\n  max_length: 2\n", "  x: 0.25\n");
  REQUIRE(
      runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'", dir)
          .code == 0);
  // A process that survived somehow (its shepherd was killed too), in a session of its own.
  const std::string key = experiment_key(dir / "exp");
  const std::string command =
      "HPSEARCH_EXPERIMENT_KEY=" + key + " setsid sleep 300 > /dev/null 2>&1 &";
  REQUIRE(std::system(command.c_str()) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(scan_for_key(key).size() == 1);
  const Run resumed = runner("resume '" + (dir / "exp").string() + "'", dir);
  CHECK(resumed.code == 0);
  CHECK(resumed.err.find("killed 1 trial processes left over from the previous run") !=
        std::string::npos);
  CHECK(processes_with_key(key).empty());
}

TEST_CASE("searcher-run: a trial's shepherd is a spawned image with the runner's environment") {
  // The trial finds its shepherd among its ancestors and records what /proc says of both.
  const fs::path dir = scratch("shepherd");
  std::ofstream(dir / "probe.sh") << R"(pid=$$
while [ "$pid" -gt 1 ]; do
  if tr '\0' '\n' < /proc/$pid/cmdline | grep -qx -- --hpsearch-shepherd; then
    tr '\0' '\n' < /proc/$pid/cmdline > "$PROBE_DIR/shepherd_cmdline"
    tr '\0' '\n' < /proc/$pid/environ > "$PROBE_DIR/shepherd_environ"
    cat /proc/$pid/comm > "$PROBE_DIR/shepherd_comm"
    break
  fi
  pid=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' /proc/$pid/stat)
done
tr '\0' '\n' < /proc/$$/environ > "$PROBE_DIR/trial_environ"
exec <&3
while read -r command; do
  case "$command" in
    *validate_after*) printf '{"type":"validation","length":1,"metrics":{"loss":0.5}}\n' >&4 ;;
    *) exit 0 ;;
  esac
done
)";
  std::ofstream(dir / "config.yaml")
      << "entrypoint: sh probe.sh\n"
      << "environment:\n  environment_variables:\n    - PROBE_DIR=" << dir.string()
      << "\n    - PROBE_VAR=for-trials-only\n"
      << "searcher:\n  name: single\n  metric: loss\n  max_length: 1\n"
      << "hyperparameters:\n  x: 0.5\n";
  const Run run = runner("run --config '" + (dir / "config.yaml").string() + "' --dir '" +
                             (dir / "exp").string() + "'",
                         dir);
  REQUIRE(run.code == 0);
  const auto lines = [&](const std::string& name) {
    std::vector<std::string> found;
    std::istringstream text(read_file(dir / name));
    for (std::string line; std::getline(text, line);) found.push_back(line);
    return found;
  };
  const auto holds = [](const std::vector<std::string>& all, const std::string& line) {
    return std::find(all.begin(), all.end(), line) != all.end();
  };
  // Exec'd, not a fork of the runner (which would carry the runner's command line).
  const std::vector<std::string> cmdline = lines("shepherd_cmdline");
  REQUIRE(cmdline.size() > 2);
  CHECK(cmdline[0] == "hpsearch-shepherd");
  // The trial's environment is not on it: every user can read a command line (ps), and the
  // environment holds the runner's and the config's secrets and the trial's channel token.
  for (const std::string& arg : cmdline) {
    CHECK(arg.find("PROBE_VAR") == std::string::npos);
    CHECK(arg.find("HPSEARCH_TRIAL_TOKEN") == std::string::npos);
  }
  CHECK(lines("shepherd_comm") == std::vector<std::string>{"hps-shepherd"});
  // The runner's environment and the experiment's key; the config's variables are the trial's.
  const std::string key = "HPSEARCH_EXPERIMENT_KEY=" + experiment_key(dir / "exp");
  const std::vector<std::string> shepherd = lines("shepherd_environ");
  const std::vector<std::string> trial = lines("trial_environ");
  CHECK(holds(shepherd, key));
  CHECK_FALSE(holds(shepherd, "PROBE_VAR=for-trials-only"));
  CHECK(holds(trial, key));
  CHECK(holds(trial, "PROBE_VAR=for-trials-only"));
}

TEST_CASE("searcher-run: two runners cannot share an experiment") {
  const fs::path dir = scratch("lock");
  const fs::path config = write_config(dir, "  name: single\n  metric: loss\n  max_length: 40\n",
                                       "  x: 0.25\n  sleep: 0.1\n");
  fs::create_directories(dir / "first");
  fs::create_directories(dir / "second");
  std::thread first([&] {
    (void)runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'",
                 dir / "first");
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir / "exp" / "journal.jsonl") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The first runner is stopped while the others try, so that any change to the runner's own
  // files (the directory's top level: the trial writes only below trials/) is theirs.
  const Run status = runner("status --dir '" + (dir / "exp").string() + "' --json", dir);
  REQUIRE(status.code == 0);
  const nlohmann::json holder = nlohmann::json::parse(status.out)["runner_pid"];
  REQUIRE(holder.is_number_integer());
  const auto pid = holder.get<pid_t>();
  const auto top_level_files = [&] {
    std::map<std::string, std::string> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir / "exp")) {
      if (entry.is_regular_file()) files[entry.path().filename()] = read_file(entry.path());
    }
    return files;
  };
  std::map<std::string, std::string> before;
  std::map<std::string, std::string> after;
  Run second;
  Run again;
  {
    REQUIRE(::kill(pid, SIGSTOP) == 0);
    struct Continue {  // on every way out of this block: first.join() waits for that runner
      pid_t pid;
      ~Continue() { ::kill(pid, SIGCONT); }
    } continue_first{pid};
    before = top_level_files();
    second = runner("resume '" + (dir / "exp").string() + "'", dir / "second");
    // A new run into it is told the experiment is running, not to resume it (which the lock
    // would refuse), and it changes nothing there.
    again = runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'",
                   dir / "second");
    after = top_level_files();
  }
  CHECK(second.code == 2);
  CHECK(second.err.find("another searcher-run is running the experiment") != std::string::npos);
  CHECK(again.code == 2);
  CHECK(again.err.find("an experiment is running in '" + (dir / "exp").string() + "'") !=
        std::string::npos);
  CHECK(again.err.find("resume") == std::string::npos);
  CHECK(before.contains("journal.jsonl"));
  CHECK(after == before);
  first.join();
  CHECK(experiment(dir / "exp")["state"] == "completed");
}

TEST_CASE(
    "searcher-run: a failed trial's output that is not UTF-8 is kept, its bad bytes replaced") {
  // The last lines went into snapshot.json as they were, and its strict JSON dump ended the
  // run with the JSON library's "incomplete UTF-8 string".
  const fs::path dir = scratch("latin1-output");
  std::ofstream(dir / "fail.sh") << "printf 'caf\\351 au lait\\n'\nexit 3\n";
  std::ofstream(dir / "config.yaml") << "entrypoint: sh fail.sh\nmax_restarts: 0\n"
                                        "searcher: {name: single, metric: loss, max_length: 2}\n"
                                        "hyperparameters:\n  x: 1\n";
  const Run run = runner("run --config '" + (dir / "config.yaml").string() + "' --dir '" +
                             (dir / "exp").string() + "'",
                         dir);
  CHECK(run.code == 1);  // the trial errored; the run ended as a run ends, not with an exception
  CHECK(run.err.find("json.exception") == std::string::npos);
  const nlohmann::json exp = experiment(dir / "exp");
  CHECK(exp["trials"][0]["last_failure"]["output_tail"] ==
        nlohmann::json::array({"caf\xef\xbf\xbd au lait"}));
}

TEST_CASE("searcher-run: exit 0 before the operation is done is a user-requested stop") {
  const fs::path dir = scratch("quit-early");
  const fs::path config = write_config(
      dir,
      "  name: random\n  metric: loss\n  max_trials: 3\n  max_length: 4\n  max_concurrent_trials: "
      "1\n",
      "  x: {type: double, minval: 0, maxval: 1}\n  mode: quit_early\n", "max_restarts: 0\n");
  const Run run =
      runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'", dir);
  CHECK(run.code == 0);  // not a crash: no restart, no failure
  const nlohmann::json exp = experiment(dir / "exp");
  REQUIRE(exp["trials"].size() == 3);
  for (const nlohmann::json& t : exp["trials"]) {
    CHECK(t["outcome"] == "user_requested_stop");
    CHECK(t["restarts"] == 0);
  }
  CHECK(
      read_file(dir / "exp" / "runner.log")
          .find(
              "exited (exit code 0) before reporting its validation at 4: a user-requested stop") !=
      std::string::npos);
}

TEST_CASE(
    "searcher-run: a failed trial's last lines of output are in runner.log and experiment.json") {
  const fs::path dir = scratch("last-lines");
  const fs::path config = write_config(dir, "  name: single\n  metric: loss\n  max_length: 2\n",
                                       "  x: 0.75\n  mode: always_crash\n", "max_restarts: 0\n");
  const Run run =
      runner("run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "'", dir);
  CHECK(run.code == 1);
  CHECK(run.err.find("ended with exit code 1; its last lines of output:") != std::string::npos);
  CHECK(run.err.find("  | RuntimeError: always_crash at x = 0.75") != std::string::npos);
  const nlohmann::json failure = experiment(dir / "exp")["trials"][0]["last_failure"];
  CHECK(failure["status"] == "exit code 1");
  REQUIRE(!failure["output_tail"].empty());
  CHECK(failure["output_tail"].back() == "RuntimeError: always_crash at x = 0.75");
  CHECK(failure["output_tail"].dump().find("about to fail") != std::string::npos);
}

TEST_CASE(
    "searcher-run: a disk full or read-only mid-run stops it with a clear error, and resume loses "
    "nothing") {
  // HPSEARCH_TEST_FAIL_WRITE=N:E makes the N-th journal or state file write (and every later
  // one) write half its bytes and fail with E. Each trial leaves a process in a session of its
  // own behind (background_child): none may outlive the runner.
  const std::string hps = "  x: {type: double, minval: 0, maxval: 1}\n  mode: background_child\n";
  const fs::path reference_dir = scratch("disk-reference");
  const std::string asha =
      "  name: async_halving\n  metric: loss\n  num_rungs: 3\n  divisor: 3\n  max_trials: 5\n"
      "  max_length: 9\n  max_concurrent_trials: 2\n";
  const fs::path reference_config = write_config(reference_dir, asha, hps);
  REQUIRE(runner("run --config '" + reference_config.string() + "' --dir '" +
                     (reference_dir / "exp").string() + "' --slots 1",
                 reference_dir)
              .code == 0);
  const nlohmann::json reference = experiment(reference_dir / "exp");
  struct Case {
    int write;
    const char* error;
    const char* words;
  };
  for (const Case c :
       {Case{6, "ENOSPC", "No space left on device\n  the filesystem is full, so the run stopped"},
        Case{22, "EROFS",
             "Read-only file system\n  the filesystem is read-only, so the run stopped"},
        Case{40, "EACCES",
             "Permission denied\n  searcher-run may not write there, so the run stopped"}}) {
    INFO("write " << c.write << " fails with " << c.error);
    const fs::path dir = scratch(std::string("disk-") + c.error);
    const fs::path config = write_config(dir, asha, hps);
    const fs::path exp_dir = dir / "exp";
    const Run failed =
        run_program("env",
                    "HPSEARCH_TEST_FAIL_WRITE=" + std::to_string(c.write) + ":" + c.error + " '" +
                        SEARCHER_RUN + "' run --config '" + config.string() + "' --dir '" +
                        exp_dir.string() + "' --slots 1",
                    dir);
    INFO(failed.err);
    CHECK(failed.code == 1);
    CHECK(failed.err.find("searcher-run run: cannot write '" + exp_dir.string() + "/") !=
          std::string::npos);
    CHECK(failed.err.find(c.words) != std::string::npos);
    CHECK(failed.err.find("everything recorded before is kept") != std::string::npos);
    CHECK(failed.err.find("then: searcher-run resume " + exp_dir.string() + "\n") !=
          std::string::npos);
    // The runner waited for every trial's tree to be killed before it exited.
    CHECK(scan_for_key(experiment_key(exp_dir)).empty());
    const auto before = journaled_validations(exp_dir);
    const Run resumed = runner("resume '" + exp_dir.string() + "' --slots 1", dir);
    INFO(resumed.err);
    CHECK(resumed.code == 0);
    const nlohmann::json exp = experiment(exp_dir);
    const auto after = validations(exp);
    for (const auto& v : before) CHECK(after.contains(v));
    // As after a kill: --slots 1 gives the uninterrupted run.
    REQUIRE(exp["trials"].size() == reference["trials"].size());
    for (std::size_t i = 0; i < exp["trials"].size(); ++i) {
      CHECK(exp["trials"][i]["request_id"] == reference["trials"][i]["request_id"]);
      CHECK(exp["trials"][i]["validations"] == reference["trials"][i]["validations"]);
      CHECK(exp["trials"][i]["outcome"] == reference["trials"][i]["outcome"]);
    }
    CHECK(processes_with_key(experiment_key(exp_dir)).empty());
  }
  // The first write fails (run.json, before the run begins): nothing was recorded, so nothing
  // is kept and the advice is not "resume"; the same command runs once the disk has room.
  const fs::path dir = scratch("disk-at-start");
  const fs::path config = write_config(dir, asha, hps);
  const std::string run_args =
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 1";
  const Run refused = run_program(
      "env", "HPSEARCH_TEST_FAIL_WRITE=1:ENOSPC '" + std::string(SEARCHER_RUN) + "' " + run_args,
      dir);
  CHECK(refused.code == 1);
  CHECK(refused.err.find("No space left on device") != std::string::npos);
  CHECK(refused.err.find("resume") == std::string::npos);
  CHECK(!fs::exists(dir / "exp"));
  CHECK(runner(run_args, dir).code == 0);
}

TEST_CASE(
    "searcher-run: group commit: no trial is told anything before the journal records that "
    "decided it are synced, and resume after a crash at a sync loses nothing") {
  // HPSEARCH_TEST_FAIL_SYNC=N: the N-th journal fdatasync cuts the journal back to what its
  // last sync made durable and fails, as a machine crash at that sync leaves the file. The
  // trial writes each command it is told to its output.log as it reads it; every one must
  // have been decided by a record still in the journal: a command sent before its batch's
  // sync (or without one) shows up here with no record behind it.
  const fs::path dir = scratch("group-commit");
  const fs::path trial = fs::path(HPSEARCH_SOURCE_DIR) / "tests/runner/trials/told_trial.sh";
  const auto write_told_config = [&](const fs::path& at, int in_flight) {
    std::ofstream(at) << "entrypoint: sh " << trial.string() << "\n"
                      << "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
                      << "searcher:\n  name: async_halving\n  metric: loss\n  num_rungs: 3\n"
                      << "  divisor: 3\n  max_trials: 12\n  max_length: 9\n"
                      << "  max_concurrent_trials: " << in_flight << "\n";
  };
  // The (request id, length) of every validate_after the journal holds; and what trials were told.
  const auto decided = [](const fs::path& exp_dir) {
    std::set<std::pair<std::string, std::uint64_t>> all;
    std::ifstream journal(exp_dir / "journal.jsonl");
    for (std::string line; std::getline(journal, line);) {
      const nlohmann::json record = nlohmann::json::parse(line);
      if (!record.contains("out")) continue;
      for (const nlohmann::json& op : record["out"]["operations"]) {
        if (op["type"] == "validate_after")
          all.insert({op["request_id"].get<std::string>(), op["length"].get<std::uint64_t>()});
      }
    }
    return all;
  };
  const auto told = [](const fs::path& exp_dir) {
    std::set<std::pair<std::string, std::uint64_t>> all;
    if (!fs::exists(exp_dir / "trials")) return all;  // stopped before any launch
    for (const auto& entry : fs::directory_iterator(exp_dir / "trials")) {
      std::ifstream out(entry.path() / "output.log");
      for (std::string word, id, command; out >> word;) {
        if (word != "told" || !(out >> id) || !std::getline(out, command)) continue;
        const std::size_t at = command.find("\"length\":");
        if (at != std::string::npos)
          all.insert({id, std::stoull(command.substr(at + std::string("\"length\":").size()))});
      }
    }
    return all;
  };
  const fs::path reference_config = dir / "reference.yaml";
  write_told_config(reference_config, 1);
  REQUIRE(runner("run --config '" + reference_config.string() + "' --dir '" +
                     (dir / "reference").string() + "' --slots 1",
                 dir)
              .code == 0);
  const nlohmann::json reference = experiment(dir / "reference");
  REQUIRE(told(dir / "reference") == decided(dir / "reference"));  // the oracle sees commands
  struct Case {
    int sync;
    int in_flight;
  };
  for (const Case c : {Case{3, 1}, Case{8, 1}, Case{14, 1}, Case{25, 1}, Case{33, 1}, Case{5, 4},
                       Case{11, 4}, Case{20, 4}}) {
    INFO("sync " << c.sync << " fails, " << c.in_flight << " in flight");
    const fs::path config = dir / ("config" + std::to_string(c.in_flight) + ".yaml");
    write_told_config(config, c.in_flight);
    const fs::path exp_dir = dir / ("exp-" + std::to_string(c.sync));
    const Run failed =
        run_program("env",
                    "HPSEARCH_TEST_FAIL_SYNC=" + std::to_string(c.sync) + " '" + SEARCHER_RUN +
                        "' run --config '" + config.string() + "' --dir '" + exp_dir.string() +
                        "' --slots " + std::to_string(c.in_flight),
                    dir);
    INFO(failed.err);
    CHECK(failed.code == 1);
    CHECK(failed.err.find("cannot sync the journal '" + exp_dir.string() + "/journal.jsonl'") !=
          std::string::npos);
    const auto on_disk = decided(exp_dir);
    for (const auto& command : told(exp_dir)) {
      INFO("told " << command.first << " validate_after " << command.second);
      CHECK(on_disk.contains(command));
    }
    CHECK(processes_with_key(experiment_key(exp_dir)).empty());
    const auto before = journaled_validations(exp_dir);
    const Run resumed = runner("resume '" + exp_dir.string() + "' --slots 1", dir);
    INFO(resumed.err);
    CHECK(resumed.code == 0);
    const nlohmann::json exp = experiment(exp_dir);
    CHECK(exp["state"] == "completed");
    const auto after = validations(exp);
    for (const auto& v : before) CHECK(after.contains(v));
    if (c.in_flight == 1) {  // one trial at a time: the uninterrupted run's trials and outcomes
      REQUIRE(exp["trials"].size() == reference["trials"].size());
      for (std::size_t i = 0; i < exp["trials"].size(); ++i) {
        CHECK(exp["trials"][i]["request_id"] == reference["trials"][i]["request_id"]);
        CHECK(exp["trials"][i]["validations"] == reference["trials"][i]["validations"]);
        CHECK(exp["trials"][i]["outcome"] == reference["trials"][i]["outcome"]);
      }
    }
  }
}

TEST_CASE(
    "searcher-run: a PBT clone restarts from its parent's checkpoint after the parent closed") {
  // Population 2, rounds of 2, truncate 0.5, metric 1 / trial id. Round 1: trial 2 beats 1:
  // 1 closed, 2 cloned as 3 (from 2's checkpoint at 2). Round 2: 3 (no checkpoint of its own)
  // beats 2: 2 closed, whose save policy keeps only its latest checkpoint (at 4), and 3
  // cloned as 4, which starts fresh (3 has no checkpoint). 3 then dies at its next operation
  // once the journal has 2's trial_closed; its restart needs 2's checkpoint at 2 again: the save
  // policy kept it.
  const fs::path dir = scratch("pbt-save-policy");
  const fs::path config = dir / "config.yaml";
  std::ofstream(config) << "entrypoint: python3 " << HPSEARCH_SOURCE_DIR
                        << "/tests/runner/trials/pbt_trial.py\n"
                           "checkpoint_storage: {save_trial_latest: 1, save_trial_best: 0}\n"
                           "searcher:\n  name: pbt\n  metric: loss\n  population_size: 2\n"
                           "  num_rounds: 3\n  length_per_round: 2\n"
                           "  replace_function: {truncate_fraction: 0.5}\n"
                           "  explore_function: {resample_probability: 0, perturb_factor: 0}\n"
                           "hyperparameters:\n  x: 1\n";
  const Run run = runner(
      "run --config '" + config.string() + "' --dir '" + (dir / "exp").string() + "' --slots 2",
      dir);
  CHECK(run.code == 0);
  const nlohmann::json exp = experiment(dir / "exp");
  REQUIRE(exp["trials"].size() == 4);
  CHECK(exp["state"] == "completed");
  const nlohmann::json& clone = exp["trials"][2];
  CHECK(clone["parent"] == exp["trials"][1]["request_id"]);
  CHECK(clone["restarts"] == 1);
  const std::string out = read_file(fs::path(clone["directory"].get<std::string>()) / "output.log");
  std::size_t restored = 0;
  for (std::size_t at = out.find("restored {\"trial\": 2, \"length\": 2}"); at != std::string::npos;
       at = out.find("restored {\"trial\": 2, \"length\": 2}", at + 1)) {
    ++restored;
  }
  // Every launch of the clone got its parent's checkpoint at 2 (one more if it was paused
  // between its operations), the one after the crash too, and it completed both operations.
  CHECK(restored >= 2);
  CHECK(clone["validations"].size() == 2);
  const std::string log = read_file(dir / "exp" / "runner.log");
  CHECK(log.find("starts fresh: its parent has no checkpoint yet") != std::string::npos);
  CHECK_FALSE(exp["trials"][3].contains("warm_start"));
}
