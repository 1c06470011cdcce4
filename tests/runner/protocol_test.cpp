// The trial protocol's lines and the journal's crash safety.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/runner/trial_protocol.hpp"
#include "support/ops.hpp"

using namespace hpsearch;

TEST_CASE("trial protocol: commands are one JSON line each") {
  CHECK(command_line(TrainCommand{27}) == "{\"length\":27,\"op\":\"validate_after\"}\n");
  CHECK(command_line(CloseCommand{}) == "{\"op\":\"close\"}\n");
  CHECK(command_line(PauseCommand{}) == "{\"op\":\"pause\"}\n");
}

TEST_CASE("trial protocol: reports are parsed and checked") {
  const TrialReport v = parse_trial_report(
      R"({"type":"validation","length":9,"metrics":{"loss":0.25,"accuracy":0.9}})", "loss");
  REQUIRE(std::holds_alternative<ValidationReport>(v));
  CHECK(std::get<ValidationReport>(v).length == 9);
  CHECK(std::get<ValidationReport>(v).metric == 0.25);
  CHECK(std::get<ValidationReport>(v).metrics["accuracy"] == 0.9);
  const TrialReport nan =
      parse_trial_report(R"({"type":"validation","length":1,"metrics":{"loss":"NaN"}})", "loss");
  CHECK(std::isnan(std::get<ValidationReport>(nan).metric));
  CHECK(std::get<ProgressReport>(parse_trial_report(R"({"type":"progress","units":3})", "loss"))
            .units == 3);
  CHECK(
      std::get<ProgressReport>(parse_trial_report(R"({"type":"progress","fraction":0.5})", "loss"))
          .fraction == 0.5);
  const TrialReport m = parse_trial_report(
      R"({"type":"metrics","group":"validation","steps_completed":20,"metrics":{"x":[1,2]}})",
      "loss");
  CHECK(std::get<MetricsReport>(m).group == "validation");
  CHECK(std::get<MetricsReport>(m).steps_completed == 20);
  CHECK(std::get<MetricsReport>(m).metrics["x"] == nlohmann::json::array({1, 2}));
  const TrialReport c = parse_trial_report(
      R"({"type":"checkpoint","storage_id":"8f2e","steps_completed":20,"metadata":{"steps_completed":20}})",
      "loss");
  CHECK(std::get<CheckpointReport>(c).storage_id == "8f2e");
  CHECK(std::get<CheckpointReport>(c).length == 20);
  CHECK(std::get<EarlyExitReport>(
            parse_trial_report(R"({"type":"early_exit","reason":"invalid_hp"})", "loss"))
            .reason == ExitedReason::kInvalidHp);
  CHECK(std::get<RequestReport>(
            parse_trial_report(R"({"type":"request","id":7,"what":"best_validation"})", "loss"))
            .id == 7);
  CHECK(std::get<RequestReport>(
            parse_trial_report(R"({"type":"request","id":8,"what":"sync"})", "loss"))
            .what == "sync");
  CHECK(
      std::get<StatusReport>(parse_trial_report(R"({"type":"status","text":"warming up"})", "loss"))
          .text == "warming up");
  CHECK(std::get<CheckpointReport>(
            parse_trial_report(R"({"type":"checkpoint","path":"/c","length":3})", "loss"))
            .path == "/c");
  CHECK(std::get<InvalidHpReport>(
            parse_trial_report(R"({"type":"invalid_hp","reason":"lr"})", "loss"))
            .reason == "lr");

  const auto error = [](const std::string& line) {
    try {
      (void)parse_trial_report(line, "loss");
    } catch (const TrialProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(error("nonsense") == "not a JSON object");
  CHECK(error("[1]") == "not a JSON object");
  const std::string types =
      "progress, validation, checkpoint, invalid_hp, metrics, status, early_exit, request, "
      "preemption_acknowledged, checkpoint_deleted";
  CHECK(error(R"({"units":1})") == "missing field 'type' (one of " + types + ")");
  CHECK(error(R"({"type":"done"})") == "unknown type 'done' (types: " + types + ")");
  CHECK(error(R"({"type":"progress","units":-1})") ==
        "progress: 'units' must be a number >= 0 (or give 'fraction' alone)");
  CHECK(error(R"({"type":"progress","fraction":1.5})") ==
        "progress: 'fraction' must be a number between 0 and 1, got 1.5");
  CHECK(error(R"({"type":"metrics","group":"a.b","steps_completed":1,"metrics":{}})") ==
        "metrics: 'group' must be a non-empty name without '.', got \"a.b\"");
  CHECK(error(R"({"type":"metrics","group":"training","steps_completed":-1,"metrics":{}})") ==
        "metrics: 'steps_completed' must be an integer >= 0, got -1");
  CHECK(error(R"({"type":"checkpoint","storage_id":"../x","steps_completed":1})") ==
        "checkpoint: 'storage_id' must be a plain name (a UUID), got \"../x\"");
  CHECK(error(R"({"type":"early_exit","reason":"bored"})") ==
        "early_exit: 'reason' must be \"invalid_hp\" or \"user_requested_stop\", got \"bored\"");
  CHECK(error(R"({"type":"request","id":1,"what":"weather"})") ==
        "request: unknown request 'weather' (requests: best_validation, sync)");
  CHECK(error(R"({"type":"validation","length":-3,"metrics":{"loss":1}})") ==
        "validation: 'length' must be an integer >= 0, got -3");
  CHECK(error(R"({"type":"validation","length":3,"metrics":{"acc":1}})") ==
        "validation: the metrics lack the searcher's metric 'loss'");
  CHECK(error(R"({"type":"validation","length":3,"metrics":{"loss":"low"}})") ==
        "validation: metric 'loss' must be a number, got \"low\"");
  CHECK(error(R"({"type":"checkpoint","length":3})") ==
        "checkpoint: 'path' must be a non-empty string");
  CHECK(error(R"({"type":"progress","units":1,"extra":2})") ==
        "progress: unknown field 'extra' (fields: fraction, units)");
  // Found with fuzz/trial_report_fuzz.cpp's seeds: a number beyond double's range escaped as
  // the JSON library's exception (ending the runner); a trial's control characters reached the
  // log; a long type was quoted whole.
  CHECK(error(R"({"type":"progress","units":1e999})") == "not a JSON object");
  CHECK(error(R"({"type":"bad\u001b[31m\n"})") ==
        "unknown type 'bad\\x1b[31m\\x0a' (types: " + types + ")");
  CHECK(error(R"({"type":")" + std::string(300, 'x') + "\"}") ==
        "unknown type '" + std::string(100, 'x') + "...' (types: " + types + ")");
  // The cut at 100 bytes fell inside a character ("\xc3\xa9", bytes 100 and 101 of the type) and
  // left half of it, not UTF-8, in the message: the cut is before the character.
  CHECK(error(R"({"type":")" + std::string(99, 'x') + "\xc3\xa9\xc3\xa9\"}") ==
        "unknown type '" + std::string(99, 'x') + "...' (types: " + types + ")");
  CHECK(error(R"({"type":")" + std::string(98, 'x') + "\xc3\xa9\xc3\xa9\"}") ==
        "unknown type '" + std::string(98, 'x') + "\xc3\xa9...' (types: " + types + ")");
}

TEST_CASE("trial protocol and journal: JSON nested beyond the limit is refused (issue 25)") {
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  // A trial's report: refused as no report, the run goes on.
  CHECK_THROWS_AS(
      (void)parse_trial_report(
          R"({"type":"validation","length":1,"metrics":{"loss":1,"x":)" + deep + "}}", "loss"),
      TrialProtocolError);
  // A journal record: refused as damage, naming its line, like any record that is no record.
  HPSEARCH_CHECK_THROWS_TEXT(
      (void)parse_journal("{\"seq\":0}\n{\"seq\":1,\"in\":" + deep + "}\n", "j.jsonl"),
      "journal 'j.jsonl' line 2 is not a JSON record: the journal is damaged", std::runtime_error);
  // 128 levels are read.
  const std::string at_limit = std::string(127, '[') + std::string(127, ']');
  CHECK(parse_journal("{\"seq\":0,\"in\":" + at_limit + "}\n", "j.jsonl").records.size() == 1);
}

namespace {
// An empty directory of this test process's own under the temporary directory.
std::filesystem::path fresh_directory(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("journal: records survive, a torn last line is dropped, damage is refused") {
  const std::filesystem::path dir = fresh_directory("hpsearch-journal-test");
  const std::filesystem::path path = dir / "journal.jsonl";
  {
    Journal journal(path);
    journal.append({{"seq", 0}});
    journal.append({{"seq", 1}});
  }
  std::ofstream(path, std::ios::app) << "{\"seq\":2,\"in\":";  // the process died mid-write
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 2);
  CHECK(contents.torn_tail);
  truncate_journal(path, contents.valid_bytes);
  {
    Journal journal(path);
    journal.append({{"seq", 2}});
  }
  contents = read_journal(path);
  CHECK_FALSE(contents.torn_tail);
  REQUIRE(contents.records.size() == 3);
  CHECK(contents.records[2]["seq"] == 2);
  HPSEARCH_CHECK_THROWS_TEXT(
      (void)parse_journal("{\"seq\":0}\n[1]\n{\"seq\":2}\n", "j.jsonl"),
      "journal 'j.jsonl' line 2 is not a JSON record: the journal is damaged", std::runtime_error);
  CHECK(parse_journal("", "j.jsonl").records.empty());
  CHECK(parse_journal("{}\n{", "j.jsonl").valid_bytes == 3);
  std::ofstream(path, std::ios::app) << "garbage\n{\"seq\":4}\n";
  HPSEARCH_CHECK_THROWS_TEXT(
      (void)read_journal(path),
      "journal '" + path.string() + "' line 4 is not a JSON record: the journal is damaged",
      std::runtime_error);
  write_file_atomically(dir / "state.json", "one");
  write_file_atomically(dir / "state.json", "two");
  std::ifstream in(dir / "state.json");
  std::string text;
  in >> text;
  CHECK(text == "two");
  CHECK_FALSE(std::filesystem::exists(dir / "state.json.tmp"));
}

TEST_CASE("journal: records waiting for a sync are written together just before it, none lost") {
  const std::filesystem::path dir = fresh_directory("hpsearch-journal-batch");
  const std::filesystem::path path = dir / "journal.jsonl";
  const auto records = [&] { return read_journal(path).records.size(); };
  {
    Journal journal(path);
    // A batch: its records wait for its one sync, and are in the file when it comes.
    journal.hold_syncs();
    journal.append({{"seq", 0}});
    journal.append({{"seq", 1}}, false);
    CHECK(journal.sync_owed());
    CHECK(records() == 0);
    journal.release_syncs();
    CHECK(records() == 2);
    CHECK(journal.syncs() == 1);
    CHECK_FALSE(journal.sync_owed());
    // A batch that decided nothing leaves its sync owed; what follows waits with it.
    journal.hold_syncs();
    journal.append({{"seq", 2}});
    journal.stop_holding();
    CHECK(journal.sync_owed());
    journal.append({{"seq", 3}}, false);
    CHECK(records() == 2);
    journal.sync_held();
    CHECK(records() == 4);
    CHECK(journal.syncs() == 2);
    // Owing nothing, an unsynced record is written at once; a synced one is synced at once.
    journal.append({{"seq", 4}}, false);
    CHECK(records() == 5);
    CHECK(journal.syncs() == 2);
    journal.append({{"seq", 5}});
    CHECK(records() == 6);
    CHECK(journal.syncs() == 3);
    // A batch without a sync yet, when the runner stops by an exception: written anyway.
    journal.hold_syncs();
    journal.append({{"seq", 6}});
  }
  const JournalContents contents = read_journal(path);
  REQUIRE(contents.records.size() == 7);
  for (std::size_t k = 0; k < 7; ++k) CHECK(contents.records[k]["seq"] == k);
  std::filesystem::remove_all(dir);
}

namespace {
std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("journal: spare space is zeros after the records, cut off at close, never read") {
  const std::filesystem::path dir = fresh_directory("hpsearch-journal-spare");
  const std::filesystem::path path = dir / "journal.jsonl";
  const std::string two = "{\"seq\":0}\n{\"seq\":1}\n";
  {
    Journal journal(path, Journal::Growth::spare_space);
    journal.append({{"seq", 0}});
    journal.append({{"seq", 1}});
    // While open: the records, then zeros: 64 KiB at least in all (docs/store.md, "Spare space").
    const std::string open = file_text(path);
    REQUIRE(open.size() >= (64 << 10));
    CHECK(open.substr(0, two.size()) == two);
    CHECK(open.find_first_not_of('\0', two.size()) == std::string::npos);
    const JournalContents contents = read_journal(path);
    CHECK(contents.records.size() == 2);
    CHECK(contents.spare_space);
    CHECK_FALSE(contents.torn_tail);
    CHECK(contents.valid_bytes == two.size());
  }
  CHECK(file_text(path) == two);  // closed: exactly its records
  CHECK_FALSE(read_journal(path).spare_space);

  // A run that died with spare space: opened again, it appends after the last record.
  {
    std::ofstream(path, std::ios::app) << std::string(5000, '\0');
    Journal journal(path, Journal::Growth::spare_space);
    journal.append({{"seq", 2}});
  }
  CHECK(file_text(path) == two + "{\"seq\":2}\n");

  // More records than the first spare space holds: it grows, nothing is lost or zeroed.
  {
    Journal journal(path, Journal::Growth::spare_space);
    for (int k = 3; k < 3000; ++k) journal.append({{"seq", k}, {"pad", std::string(40, 'x')}});
  }
  const JournalContents grown = read_journal(path);
  REQUIRE(grown.records.size() == 3000);
  for (std::size_t k = 0; k < 3000; ++k) CHECK(grown.records[k]["seq"] == k);
  CHECK_FALSE(grown.spare_space);

  // What a crash can leave: a record cut short before the zeros, or pieces of writes never
  // synced after them. Both are a torn tail; the records before the first zero are kept.
  const std::string zeros(100, '\0');
  const JournalContents cut = parse_journal(two + "{\"seq\":2,\"in" + zeros, "j.jsonl");
  CHECK(cut.records.size() == 2);
  CHECK(cut.torn_tail);
  CHECK(cut.valid_bytes == two.size());
  const JournalContents pieces =
      parse_journal(two + zeros + "\"seq\":9}\n{\"seq\":10}\n" + zeros, "j.jsonl");
  CHECK(pieces.records.size() == 2);
  CHECK(pieces.torn_tail);
  CHECK(pieces.valid_bytes == two.size());
  CHECK(pieces.after_zero);
  CHECK(pieces.spare_from == two.size());
  CHECK_FALSE(cut.after_zero);
  const JournalContents spare = parse_journal(two + zeros, "j.jsonl");
  CHECK(spare.spare_space);
  CHECK_FALSE(spare.torn_tail);
  CHECK_FALSE(spare.after_zero);

  // Kept aside, not deleted: the bytes after the first zero, its last zeros left out.
  std::ofstream(path, std::ios::trunc | std::ios::binary)
      << two + zeros + "\"seq\":9}\n{\"seq\":10}\n" + zeros;
  keep_after_zero(path, two.size(), dir / "aside");
  CHECK(file_text(dir / "aside") == zeros + "\"seq\":9}\n{\"seq\":10}\n");

  // Opening goes by the readers' rule: a torn record before the zeros, or anything after
  // them, is refused (resuming cuts it back first), so nothing is appended where no reader
  // would find it.
  std::ofstream(path, std::ios::trunc | std::ios::binary) << two + "{\"seq\":2,\"in" + zeros;
  CHECK_THROWS_AS(Journal(path, Journal::Growth::spare_space), std::runtime_error);
  std::ofstream(path, std::ios::trunc | std::ios::binary) << two + zeros + "x" + zeros;
  CHECK_THROWS_AS(Journal(path, Journal::Growth::spare_space), std::runtime_error);
  // No record before the zeros, pieces after them: refused too (it once opened as empty, to be
  // written over the pieces).
  std::ofstream(path, std::ios::trunc | std::ios::binary) << zeros + "x" + zeros;
  CHECK_THROWS_AS(Journal(path, Journal::Growth::spare_space), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("journal: no room for spare space, the records are appended as they come") {
  const std::filesystem::path dir = fresh_directory("hpsearch-journal-full");
  const std::filesystem::path path = dir / "journal.jsonl";
  // A file size limit of 32 KiB, below the first 64 KiB of spare space, in a child process:
  // the zeros cannot be written (EFBIG), the records can.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{32 << 10, 32 << 10};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      Journal journal(path, Journal::Growth::spare_space);
      for (int k = 0; k < 100; ++k) journal.append({{"seq", k}});
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::string expected;
  for (int k = 0; k < 100; ++k) expected += "{\"seq\":" + std::to_string(k) + "}\n";
  CHECK(file_text(path) == expected);
  std::filesystem::remove_all(dir);
}
