// The journal's records as bytes (runner/src/engine/journaled_searcher.cpp): written directly,
// without a nlohmann::json on the way, they must stay the lines journals have always held
// (resume, the web UI and recovery read them; the golden and replay tests compare them). The
// expected lines are written out by hand from the format: keys sorted, numbers and strings as
// nlohmann::json dumps them.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/journaled_searcher.hpp"
#include "engine/trial_record.hpp"
#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "support/ops.hpp"

using namespace hpsearch;
using namespace hpsearch::runner_detail;

namespace {

// The lines of a journal still open: its records, up to the spare space (zeros) after them.
std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t zero = text.find('\0');
  if (zero != std::string::npos) {
    CHECK(text.find_first_not_of('\0', zero) == std::string::npos);  // nothing after the zeros
    text.resize(zero);
  }
  std::istringstream records(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(records, line);) lines.push_back(line);
  return lines;
}

// A searcher record begins {"at":T,"in":... where T is journal_time() when it was written: each
// such T is checked to lie in [from, to] and the field is cut out, leaving the bytes a test can
// know in advance.
std::vector<std::string> without_times(std::vector<std::string> lines, double from, double to) {
  const std::string head = "{\"at\":";
  for (std::string& line : lines) {
    if (line.rfind(head, 0) != 0) continue;
    const std::size_t comma = line.find(',', head.size());
    REQUIRE(comma != std::string::npos);
    const double at = std::stod(line.substr(head.size(), comma - head.size()));
    CHECK(at >= from);
    CHECK(at <= to);
    CHECK(line.compare(comma, 6, ",\"in\":") == 0);
    line = "{" + line.substr(comma + 1);
  }
  return lines;
}

}  // namespace

TEST_CASE("journal records: the searcher's and the runner's records, byte for byte") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hpsearch-journal-records-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const ExperimentConfig config = parse_config(R"(
hyperparameters:
  x: {type: double, minval: 0, maxval: 1}
searcher:
  name: async_halving
  stop_once: true
  metric: loss
  num_rungs: 3
  divisor: 2
  max_trials: 2
  max_length: 8
  max_concurrent_trials: 1
)",
                                               "exp.yaml");
  // journal_time is to the millisecond: the bounds are widened by one.
  const double from = journal_time() - 0.001;
  JournaledSearcher searcher(make_searcher(config.searcher, config.hyperparameters, 0));
  searcher.open(dir / "journal.jsonl");

  const std::vector<Operation> initial = searcher.initial_operations();
  const Create create = testing::only_create(initial);
  const std::string id = create.request_id.to_string();
  const std::string x = json_line(create.hparams.at("x"));  // drawn by the RNG: its text as dumped
  (void)searcher.handle(TrialCreated{create.request_id});
  searcher.append_runner_record("queued", {{"request_id", id}}, false);
  searcher.append_runner_record_text(
      "checkpoint",
      checkpoint_record_json(Checkpoint{"/runs/a b/ckpt\"2", 2, ""}, create.request_id));
  searcher.append_runner_record_text(
      "checkpoint", checkpoint_record_json(Checkpoint{"/store/u1", 0, "u1"}, create.request_id));
  (void)searcher.handle(ValidationCompleted{create.request_id, 0.5, 2},
                        {{"loss", 0.5}, {"accuracy", "NaN"}});
  searcher.append_runner_record("restart", {{"request_id", id}, {"why", "exit code 1"}});
  searcher.append_runner_record("seqs", {{"n", 1}});  // a kind after "seq" goes after it

  const std::vector<std::string> expected{
      R"({"in":{"event":"initial_operations"},"out":{"operations":[{"hparams":{"x":)" + x +
          R"(},"request_id":")" + id + R"(","trial_seed":)" + std::to_string(create.trial_seed) +
          R"(,"type":"create"},{"length":2,"request_id":")" + id +
          R"(","type":"validate_after"}]},"seq":0})",
      R"({"in":{"event":"trial_created","request_id":")" + id +
          R"("},"out":{"operations":[]},"seq":1})",
      R"({"queued":{"request_id":")" + id + R"("},"seq":2})",
      R"({"checkpoint":{"length":2,"path":"/runs/a b/ckpt\"2","request_id":")" + id +
          R"("},"seq":3})",
      R"({"checkpoint":{"length":0,"path":"/store/u1","request_id":")" + id +
          R"(","storage_id":"u1"},"seq":4})",
      R"({"in":{"event":"validation_completed","length":2,"metric":0.5,"request_id":")" + id +
          R"("},"metrics":{"accuracy":"NaN","loss":0.5},"out":{"operations":[{"length":4,)"
          R"("request_id":")" +
          id + R"(","type":"validate_after"}]},"seq":5})",
      R"({"restart":{"request_id":")" + id + R"(","why":"exit code 1"},"seq":6})",
      R"({"seq":7,"seqs":{"n":1}})",
  };
  const double to = journal_time() + 0.001;
  CHECK(without_times(lines_of(dir / "journal.jsonl"), from, to) == expected);
  // And the journal reads back as the records it holds.
  const JournalContents contents = read_journal(dir / "journal.jsonl");
  REQUIRE(contents.records.size() == expected.size());
  CHECK(contents.records[5]["metrics"]["loss"] == 0.5);
  std::filesystem::remove_all(dir);
}
