// Whole-searcher outputs recorded from Determined 0.37.0's own Go searcher
// (tests/golden/determined/go-searcher.json), reproduced bit for bit in-process and through
// `searcher-sim drive`.
#include <doctest/doctest.h>

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "support/golden.hpp"
#include "support/process.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("hpsearch-golden-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

Searcher searcher_for(const std::string& yaml, std::uint32_t seed) {
  const ExperimentConfig config = parse_config(yaml, "golden.yaml");
  return make_searcher(config.searcher, config.hyperparameters, seed);
}

/// Spec 6.1 with the first-in-creation-order pick: every trial keeps a queue of its pending
/// operations, and the first trial (in creation order) with something pending acts next.
/// Every event and the answer it got is kept, to be replayed through `searcher-sim drive`.
struct FifoPlay {
  std::map<std::string, std::uint64_t> shapes;  // "411 1234" -> trials
  std::vector<nlohmann::json> events;
  std::vector<nlohmann::json> answers;
};

FifoPlay fifo_play(Searcher& searcher, double (*metric)(std::uint64_t trial_number)) {
  struct Trial {
    RequestId id;
    std::deque<Operation> pending;
    std::vector<std::uint64_t> lengths;
  };
  std::vector<Trial> trials;
  std::map<RequestId, std::size_t> index;
  bool shut_down = false;
  FifoPlay play;
  const auto take = [&](const std::vector<Operation>& ops) {
    play.answers.push_back({{"operations", ops}});
    for (const Operation& op : ops) {
      if (std::holds_alternative<Shutdown>(op)) {
        shut_down = true;
      } else if (const auto* create = std::get_if<Create>(&op)) {
        index[create->request_id] = trials.size();
        trials.push_back(Trial{create->request_id, {op}, {}});
      } else {
        trials[index.at(*request_id_of(op))].pending.push_back(op);
      }
    }
  };
  const auto send = [&](const Event& event) {
    play.events.push_back(event);
    take(searcher.handle(event));
  };
  play.events.push_back({{"event", "initial_operations"}});
  take(searcher.initial_operations());
  while (!shut_down) {
    std::size_t next = 0;
    while (next < trials.size() && trials[next].pending.empty()) ++next;
    REQUIRE(next < trials.size());  // something must be pending until the shutdown
    Trial& trial = trials[next];
    const Operation op = trial.pending.front();
    trial.pending.pop_front();
    if (std::holds_alternative<Create>(op)) {
      send(TrialCreated{trial.id});
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      trial.lengths.push_back(validate->length);
      send(TrialProgress{trial.id, static_cast<double>(validate->length)});
      send(ValidationCompleted{trial.id, metric(next + 1), validate->length});
    } else {
      trial.pending.clear();
      send(TrialClosed{trial.id});
    }
  }
  for (const Trial& trial : trials) {
    std::string key;
    for (const std::uint64_t length : trial.lengths) {
      if (!key.empty()) key += ' ';
      key += std::to_string(length);
    }
    ++play.shapes[key];
  }
  return play;
}

// The golden recordings' metric: a constant per trial, scrambled over trial numbers.
double scrambled(std::uint64_t n) {
  return static_cast<double>(n * 7919 % 101) / 101.0;
}

std::string drive_input(const std::vector<nlohmann::json>& events) {
  std::string input;
  for (const nlohmann::json& event : events) input += event.dump() + "\n";
  return input;
}

std::vector<nlohmann::json> answer_lines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

}  // namespace

TEST_CASE("determined golden: random search with log hyperparameters, seed 0") {
  const nlohmann::json golden = go_searcher_golden().at("log_samples");
  const std::string yaml = golden.at("config");
  REQUIRE(golden.at("seed") == 0);
  const nlohmann::json& creates = golden.at("creates");
  REQUIRE(creates.size() == 500);

  const auto check_creates = [&](const nlohmann::json& operations) {
    std::size_t i = 0;
    for (const nlohmann::json& op : operations) {
      if (op.at("type") != "create") continue;
      REQUIRE(i < creates.size());
      INFO("create " << i);
      CHECK(op.at("request_id") == creates[i].at("request_id"));
      CHECK(op.at("trial_seed") == creates[i].at("trial_seed"));
      // Exact doubles: the golden values are Go's shortest round-trip forms.
      CHECK(op.at("hparams").at("lr").get<double>() ==
            creates[i].at("hparams").at("lr").get<double>());
      CHECK(op.at("hparams").at("wd").get<double>() ==
            creates[i].at("hparams").at("wd").get<double>());
      ++i;
    }
    CHECK(i == creates.size());
  };

  SUBCASE("in-process") {
    Searcher searcher = searcher_for(yaml, 0);
    check_creates(nlohmann::json(searcher.initial_operations()));
  }
  SUBCASE("through searcher-sim drive") {
    const fs::path config = scratch() / "log_samples.yaml";
    std::ofstream(config) << yaml;
    const Run run = run_program(SEARCHER_SIM, "drive --seed 0 --config '" + config.string() + "'",
                                scratch(), "{\"event\":\"initial_operations\"}\n");
    REQUIRE(run.code == 0);
    const auto lines = answer_lines(run.out);
    REQUIRE(lines.size() == 1);
    check_creates(lines[0].at("operations"));
  }
}

TEST_CASE("determined golden: adaptive ASHA shapes whose rungs depend on Go's Log and Pow") {
  const nlohmann::json golden = go_searcher_golden().at("fifo_shapes").at("cases");
  REQUIRE(golden.size() == 3);
  for (const auto& item : golden.items()) {
    // INFO captures what it shows in a lambda, and clang 14 cannot capture a structured binding.
    const std::string name = item.key();
    const nlohmann::json& recorded = item.value();
    INFO(name);
    REQUIRE(recorded.at("status") == "OK");
    const std::string yaml =
        "hyperparameters: {}\nsearcher: " + recorded.at("searcher").get<std::string>() + "\n";
    Searcher searcher = searcher_for(yaml, 0);
    const FifoPlay play = fifo_play(searcher, scrambled);
    std::map<std::string, std::uint64_t> expected;
    for (const auto& [shape, count] : recorded.at("shapes").items()) {
      expected[shape] = count.get<std::uint64_t>();
    }
    CHECK(play.shapes == expected);

    // The same events through the program give the same answers, line for line.
    const fs::path config = scratch() / "fifo.yaml";
    std::ofstream(config) << yaml;
    const Run run = run_program(SEARCHER_SIM, "drive --seed 0 --config '" + config.string() + "'",
                                scratch(), drive_input(play.events));
    REQUIRE(run.code == 0);
    const auto lines = answer_lines(run.out);
    REQUIRE(lines.size() == play.events.size());
    std::size_t operation_answers = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("event " << i << ": " << play.events[i].dump());
      CHECK(lines[i] == play.answers[i]);
      if (lines[i].contains("operations")) ++operation_answers;
    }
    CHECK(operation_answers == lines.size());
  }
}
