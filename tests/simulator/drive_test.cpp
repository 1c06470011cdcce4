// The drive protocol, line by line (docs/protocol.md).
#include <doctest/doctest.h>

#include <sstream>

#include "hpsearch/simulator/drive.hpp"

using namespace hpsearch;

namespace {
Searcher random_searcher() {
  return make_searcher(RandomConfig{.max_length = 100, .max_trials = 2, .max_concurrent_trials = 1},
                       HyperparameterSpace(), 0);
}
constexpr const char* kA = "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8";  // first id of seed 0

std::string answer(Searcher& s, const std::string& line) {
  return json_line(drive_line(s, line));
}

std::string error_of(Searcher& s, const std::string& line, const DriveOptions& options = {}) {
  const nlohmann::json response = drive_line(s, line, options);
  REQUIRE(response.contains("error"));
  return response["error"].get<std::string>();
}
}  // namespace

TEST_CASE("drive: a session answers every line with the protocol's shapes") {
  Searcher s = random_searcher();
  CHECK(
      answer(s, R"({"event":"initial_operations"})") ==
      R"({"operations":[{"hparams":{},"request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","trial_seed":441365315,"type":"create"},)"
      R"({"length":100,"request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","type":"validate_after"},)"
      R"({"request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","type":"close"}]})");
  CHECK(answer(s, std::string(R"({"event":"trial_created","request_id":")") + kA + "\"}") ==
        R"({"operations":[]})");
  CHECK(answer(s, std::string(R"({"event":"trial_progress","request_id":")") + kA +
                      R"(","units":25})") == R"({"operations":[]})");
  CHECK(answer(s, R"({"event":"progress"})") == R"({"progress":0.125})");
  CHECK(answer(s, std::string(R"({"event":"validation_completed","request_id":")") + kA +
                      R"(","metric":"-Infinity","length":100})") == R"({"operations":[]})");
  const std::string next =
      answer(s, std::string(R"({"event":"trial_closed","request_id":")") + kA + "\"}");
  CHECK(next.find(R"("request_id":"fb52a2db-c376-4d8b-a77d-e5d809a4746c")") != std::string::npos);
  const nlohmann::json snapshot = drive_line(s, R"({"event":"snapshot"})");
  REQUIRE(snapshot.contains("snapshot"));
  CHECK(snapshot["snapshot"]["format_version"] == 2);
  nlohmann::json restore{{"event", "restore"}, {"snapshot", snapshot["snapshot"]}};
  Searcher fresh = random_searcher();
  CHECK(answer(fresh, restore.dump()) == R"({"restored":true})");
  CHECK(fresh.snapshot() == s.snapshot());
}

TEST_CASE("drive: bad lines are answered with an error and change nothing") {
  Searcher s = random_searcher();
  REQUIRE(drive_line(s, R"({"event":"initial_operations"})").contains("operations"));
  REQUIRE(drive_line(s, std::string(R"({"event":"trial_created","request_id":")") + kA + "\"}")
              .contains("operations"));
  const nlohmann::json before = s.snapshot();
  const std::string id = kA;

  CHECK(error_of(s, "nope").starts_with("not valid JSON: parse error at line 1, column 2"));
  CHECK(error_of(s, "") == "empty line: expected one JSON object per line");
  // Found by fuzzing (fuzz/corpus/drive/regress-number-overflow): a number beyond double's
  // range is refused like any malformed line instead of ending the session.
  CHECK(error_of(s, R"({"event":"trial_progress","request_id":")" + std::string(kA) +
                        R"(","units":1e999})") ==
        "not valid JSON: number overflow parsing '1e999'");
  CHECK(error_of(s, "[1,2]") ==
        R"(expected a JSON object like {"event":"trial_created",...}, got [1,2])");
  CHECK(error_of(s, R"({"request_id":"x"})") == "missing field 'event'");
  CHECK(error_of(s, R"({"event":7})") == "field 'event' must be a string, got 7");
  CHECK(error_of(s, R"({"event":"trial_finished"})") ==
        "unknown event 'trial_finished' (expected one of initial_operations, progress, snapshot, "
        "restore, trial_created, validation_completed, trial_progress, trial_exited_early, "
        "trial_closed)");
  CHECK(error_of(s, R"({"event":"trial_closed"})") == "trial_closed: missing field 'request_id'");
  CHECK(
      error_of(s, R"({"event":"trial_closed","request_id":"ABC"})") ==
      R"(trial_closed: request_id must be a UUID string like "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8", got "ABC")");
  CHECK(error_of(s, R"({"event":"trial_closed","request_id":")" + id + R"(","why":1})") ==
        "trial_closed: unexpected field 'why' (fields: event, request_id)");
  CHECK(error_of(s, R"({"event":"validation_completed","request_id":")" + id +
                        R"(","metric":"low","length":100})") ==
        "validation_completed for trial " + id +
            R"(: metric must be a number (or "Infinity", "-Infinity", "NaN"), got "low")");
  CHECK(error_of(s, R"({"event":"validation_completed","request_id":")" + id +
                        R"(","metric":1,"length":-3})") ==
        "validation_completed for trial " + id + ": length must be a non-negative integer, got -3");
  CHECK(error_of(s, R"({"event":"validation_completed","request_id":")" + id +
                        R"(","metric":1,"length":99})") ==
        "validation_completed for trial " + id +
            ": length 99 is not the trial's outstanding validate_after length 100");
  CHECK(
      error_of(s,
               R"({"event":"trial_exited_early","request_id":")" + id + R"(","reason":"bored"})") ==
      "trial_exited_early for trial " + id +
          R"(: reason must be one of errored, user_canceled, invalid_hp, init_invalid_hp, user_requested_stop, got "bored")");
  CHECK(error_of(s, R"({"event":"trial_progress","request_id":")" + id + R"(","units":"3"})") ==
        "trial_progress for trial " + id + R"(: units must be a number >= 0, got "3")");
  CHECK(
      error_of(
          s, R"({"event":"trial_created","request_id":"00000000-0000-4000-8000-000000000000"})") ==
      "trial_created for trial 00000000-0000-4000-8000-000000000000: no create operation has "
      "requested this id");
  CHECK(error_of(s, R"({"event":"initial_operations"})") ==
        "initial_operations: the search has already started");
  CHECK(error_of(s, R"({"event":"progress","x":1})") ==
        "progress: unexpected field 'x' (fields: event)");
  CHECK(error_of(s, R"({"event":"restore"})") == "restore: missing field 'snapshot'");
  CHECK(error_of(s, R"({"event":"restore","snapshot":{"format_version":1}})") ==
        "snapshot: key 'started' not found");
  CHECK(s.snapshot() == before);

  // A second completion of the same operation.
  REQUIRE(drive_line(s, R"({"event":"validation_completed","request_id":")" + id +
                            R"(","metric":1,"length":100})")
              .contains("operations"));
  CHECK(error_of(s, R"({"event":"validation_completed","request_id":")" + id +
                        R"(","metric":2,"length":100})") ==
        "validation_completed for trial " + id +
            ": its validate_after length 100 was already completed");
}

TEST_CASE("drive: nesting to the limit is parsed, deeper is refused before parsing") {
  Searcher s = random_searcher();
  REQUIRE(drive_line(s, R"({"event":"initial_operations"})").contains("operations"));
  const nlohmann::json before = s.snapshot();
  // The event object is level 1, so 127 arrays inside reach the limit of 128 exactly: the
  // line is parsed and refused for what it says, not for its depth.
  const std::string head = R"({"event":"restore","snapshot":)";
  const std::string at_limit = head + std::string(127, '[') + std::string(127, ']') + "}";
  CHECK(error_of(s, at_limit).find("nested") == std::string::npos);
  const std::string beyond = head + std::string(128, '[') + std::string(128, ']') + "}";
  CHECK(error_of(s, beyond) ==
        "line refused: JSON nested deeper than 128 levels (the limit) at byte " +
            std::to_string(head.size() + 128));
  CHECK(error_of(s, R"({"event":"progress"})",
                 DriveOptions{.explain = false, .limits = {.max_bytes = 10}}) ==
        "line refused: JSON text of 20 bytes is longer than the limit of 10 bytes at byte 11");
  CHECK(s.snapshot() == before);
}

TEST_CASE("drive: a line with a key twice is refused, state unchanged") {
  Searcher s = random_searcher();
  const nlohmann::json ops = drive_line(s, R"({"event":"initial_operations"})");
  const std::string id = ops["operations"][0]["request_id"].get<std::string>();
  const nlohmann::json before = s.snapshot();
  const std::string twice =
      R"({"event":"trial_created","request_id":")" + id + R"(","request_id":")" + id + R"("})";
  CHECK(error_of(s, twice).find("JSON object has the key \"request_id\" twice") !=
        std::string::npos);
  CHECK(error_of(s, R"({"event":"progress","event":"snapshot"})").find("twice") !=
        std::string::npos);
  CHECK(s.snapshot() == before);
}

TEST_CASE("drive: run_drive answers line for line, including CRLF input") {
  Searcher s = random_searcher();
  std::istringstream in("{\"event\":\"progress\"}\r\nbad\n{\"event\":\"initial_operations\"}\n");
  std::ostringstream out;
  run_drive(s, in, out);
  std::istringstream lines(out.str());
  std::vector<std::string> answers;
  for (std::string line; std::getline(lines, line);) answers.push_back(line);
  REQUIRE(answers.size() == 3);
  CHECK(answers[0] == R"({"progress":0.0})");
  CHECK(answers[1].starts_with(R"({"error":"not valid JSON)"));
  CHECK(answers[2].starts_with(R"({"operations":[{"hparams")"));
}

TEST_CASE("drive: --explain adds the reason to decided operations only") {
  Searcher s = make_searcher(AshaConfig{.max_length = 4,
                                        .max_trials = 2,
                                        .num_rungs = 2,
                                        .divisor = 2,
                                        .max_concurrent_trials = 1,
                                        .stop_once = true},
                             HyperparameterSpace(), 0);
  const DriveOptions explain{.explain = true, .limits = {}};
  const nlohmann::json initial = drive_line(s, R"({"event":"initial_operations"})", explain);
  REQUIRE(initial["operations"].size() == 2);
  CHECK_FALSE(initial["operations"][1].contains("explain"));  // rung 0 is not a decision
  REQUIRE(drive_line(s, std::string(R"({"event":"trial_created","request_id":")") + kA + "\"}")
              .contains("operations"));
  const nlohmann::json answer =
      drive_line(s,
                 std::string(R"({"event":"validation_completed","request_id":")") + kA +
                     R"(","metric":0.25,"length":2})",
                 explain);
  REQUIRE(answer["operations"].size() == 1);
  CHECK(answer["operations"][0] ==
        nlohmann::json::parse(std::string(R"({"type":"validate_after","request_id":")") + kA +
                              R"(","length":4,"explain":{"reason":"continued","rung":0,"length":2,
                              "rank":1,"of":1,"cutoff":1,"metric":0.25,
                              "text":"ranked 1 of 1 at rung 0 (length 2); the top 1 continue"}})"));
}

TEST_CASE("drive: a pbt clone's create carries its parent in checkpoint, across a restore") {
  // Population 2, truncate 0.5: after round 1 the better trial (metric 1 < 2) is cloned.
  const PbtConfig config{
      .population_size = 2, .num_rounds = 2, .length_per_round = 10, .truncate_fraction = 0.5};
  Searcher s = make_searcher(config, HyperparameterSpace(), 0);
  const nlohmann::json start = drive_line(s, R"({"event":"initial_operations"})");
  const std::string a = start["operations"][0]["request_id"];
  const std::string b = start["operations"][2]["request_id"];
  CHECK(a == kA);
  CHECK_FALSE(start["operations"][0].contains("checkpoint"));
  for (const std::string& id : {a, b}) {
    CHECK(answer(s, R"({"event":"trial_created","request_id":")" + id + "\"}") ==
          R"({"operations":[]})");
  }
  CHECK(answer(s, R"({"event":"validation_completed","request_id":")" + a +
                      R"(","metric":1,"length":10})") == R"({"operations":[]})");
  const nlohmann::json snapshot = drive_line(s, R"({"event":"snapshot"})");
  Searcher restored = make_searcher(config, HyperparameterSpace(), 0);
  CHECK(drive_line(restored, json_line({{"event", "restore"}, {"snapshot", snapshot["snapshot"]}}))
            .value("error", "") == "");
  const std::string last =
      R"({"event":"validation_completed","request_id":")" + b + R"(","metric":2,"length":10})";
  const nlohmann::json ops = drive_line(s, last)["operations"];
  CHECK(drive_line(restored, last)["operations"] == ops);
  // close b, create the clone of a (checkpoint a), its validate_after, a's next round.
  REQUIRE(ops.size() == 4);
  CHECK(ops[0] == nlohmann::json{{"type", "close"}, {"request_id", b}});
  CHECK(ops[1]["type"] == "create");
  CHECK(ops[1]["checkpoint"] == a);
  CHECK(ops[3] == nlohmann::json{{"type", "validate_after"}, {"request_id", a}, {"length", 20}});
}
