// The web UI's experiment view (runner/src/ui/experiment_view.cpp): an event log followed as it
// grows, a torn last line waited for, a damaged record stopping the reading exactly there, a
// replaced log read again; the launches on their slots, with times, and an older journal's
// fallback. The expected trials and launches are the records written below.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "ui/charts.hpp"
#include "ui/experiment_view.hpp"

namespace {

namespace fs = std::filesystem;
using hpsearch::ui::ExperimentView;

const std::string kA = "00000000-0000-4000-8000-00000000000a";
const std::string kB = "00000000-0000-4000-8000-00000000000b";

std::string create(const std::string& id, double x, int length) {
  return R"({"hparams":{"x":)" + std::to_string(x) + R"(},"request_id":")" + id +
         R"(","trial_seed":1,"type":"create"},{"length":)" + std::to_string(length) +
         R"(,"request_id":")" + id + R"(","type":"validate_after"})";
}

std::string event(const std::string& in, const std::string& ops, int seq) {
  return R"({"in":)" + in + R"(,"out":{"operations":[)" + ops + R"(]},"seq":)" +
         std::to_string(seq) + "}\n";
}

std::string validation(const std::string& id, double metric, int length) {
  return R"({"event":"validation_completed","length":)" + std::to_string(length) + R"(,"metric":)" +
         std::to_string(metric) + R"(,"request_id":")" + id + R"("})";
}

struct Log {
  fs::path path;
  Log() {
    path = fs::temp_directory_path() / ("ui-view-test-" + std::to_string(::getpid()) + ".jsonl");
    fs::remove(path);
  }
  ~Log() { fs::remove(path); }
  void append(const std::string& text) const { std::ofstream(path, std::ios::app) << text; }
};

}  // namespace

TEST_CASE("experiment view: trials, validations and best so far from the log, as it grows") {
  const Log log;
  log.append(
      event(R"({"event":"initial_operations"})", create(kA, 1.5, 3) + "," + create(kB, 2.5, 3), 0));
  log.append(R"({"queued":{"request_id":")" + kA + "\"},\"seq\":1}\n");  // the runner's own
  log.append(event(R"({"event":"trial_created","request_id":")" + kA + "\"}", "", 2));
  log.append(event(validation(kA, 5, 3),
                   R"({"length":9,"request_id":")" + kA + R"(","type":"validate_after"})", 3));
  const std::string torn = event(validation(kB, 7, 3), "", 4);
  log.append(torn.substr(0, 20));  // being written
  ExperimentView view(log.path, fs::path(), true);
  view.refresh();
  REQUIRE(view.trials().size() == 2);
  CHECK(view.error().empty());
  CHECK(view.records() == 4);
  const auto& a = view.trials()[0];
  CHECK(a.index == 1);
  CHECK(a.request_id == kA);
  CHECK(a.hparams["x"] == 1.5);
  REQUIRE(a.validations.size() == 1);
  CHECK(a.validations[0].length == 3);
  CHECK(a.validations[0].metric == 5);
  CHECK(a.validations[0].at == 3);  // the journal's record number
  CHECK(a.target == 9);
  CHECK(view.trials()[1].validations.empty());
  REQUIRE(view.best_so_far().size() == 1);
  CHECK(view.best_trial() == 1u);
  const auto version = view.version();

  view.refresh();  // nothing new: the torn line is still being written
  CHECK(view.version() == version);
  CHECK(view.trials()[1].validations.empty());

  log.append(torn.substr(20));
  log.append(event(validation(kA, 2, 9), R"({"request_id":")" + kA + R"(","type":"close"})", 5));
  log.append(event(R"({"event":"trial_closed","request_id":")" + kA + "\"}", "", 6));
  view.refresh();
  CHECK(view.version() > version);
  CHECK(view.trials()[1].validations.size() == 1);  // the line completed, taken once
  CHECK(view.trials()[0].validations.size() == 2);
  CHECK(view.trials()[0].state == "COMPLETED");
  CHECK(view.trials()[0].ended_at == 6.0);
  CHECK(*view.trials()[0].best == 1);
  CHECK(view.best_so_far().back().metric == 2);
  CHECK(view.trials_at_length().at(3) == 2);
  CHECK(view.trials_at_length().at(9) == 1);
}

TEST_CASE("experiment view: a damaged record stops the reading there, nothing taken twice") {
  const Log log;
  log.append(event(R"({"event":"initial_operations"})", create(kA, 1, 3), 0));
  log.append(event(R"({"event":"trial_created","request_id":")" + kA + "\"}", "", 1));
  log.append("this is no record\n");
  log.append(event(validation(kA, 5, 3), "", 3));
  ExperimentView view(log.path, fs::path(), true);
  view.refresh();
  CHECK(view.trials().size() == 1);
  CHECK(view.trials()[0].validations.empty());
  CHECK(view.error().find("record 3") != std::string::npos);
  view.refresh();  // again: the same error, the same trials
  CHECK(view.trials().size() == 1);
  CHECK(view.trials()[0].validations.empty());
  CHECK(!view.error().empty());
}

TEST_CASE("experiment view: an errored trial, and a log replaced by a shorter one read again") {
  const Log log;
  log.append(
      event(R"({"event":"initial_operations"})", create(kA, 1, 3) + "," + create(kB, 2, 3), 0));
  log.append(event(
      R"({"event":"trial_exited_early","reason":"errored","request_id":")" + kA + "\"}", "", 1));
  log.append(event(R"({"event":"trial_closed","request_id":")" + kA + "\"}", "", 2));
  ExperimentView view(log.path, fs::path(), false);
  view.refresh();
  CHECK(view.trials()[0].state == "ERROR");
  CHECK(view.trials()[0].exit_reason == "errored");
  CHECK(view.trials()[1].state == "ACTIVE");

  std::ofstream(log.path, std::ios::trunc)
      << event(R"({"event":"initial_operations"})", create(kB, 4, 3), 0);
  view.refresh();
  REQUIRE(view.trials().size() == 1);
  CHECK(view.trials()[0].request_id == kB);
  CHECK(view.better(2, 1));  // larger is better here
}

TEST_CASE("experiment view: a log replaced by a longer one, or by a running journal, read again") {
  const Log log;
  log.append(
      event(R"({"event":"initial_operations"})", create(kA, 1, 3) + "," + create(kB, 2, 3), 0));
  ExperimentView view(log.path, fs::path(), false);
  view.refresh();
  REQUIRE(view.trials().size() == 2);
  // A new run's journal while it runs: one record, then spare space (zeros, docs/store.md), so
  // the file is longer than the records taken in before, though it holds fewer.
  std::ofstream(log.path, std::ios::trunc | std::ios::binary)
      << event(R"({"event":"initial_operations"})", create(kB, 4, 3), 0)
      << std::string(std::size_t{64} << 10, '\0');
  view.refresh();
  REQUIRE(view.trials().size() == 1);
  CHECK(view.trials()[0].request_id == kB);
  // Replaced in place by a longer log whose first bytes differ: read again from the start.
  std::ofstream(log.path, std::ios::trunc | std::ios::binary)
      << event(R"({"event":"initial_operations"})", create(kA, 5, 3) + "," + create(kB, 6, 3), 0)
      << event(R"({"event":"trial_closed","request_id":")" + kA + "\"}", "", 1);
  view.refresh();
  REQUIRE(view.trials().size() == 2);
  CHECK(view.trials()[0].request_id == kA);
  // Appended to, as a running journal is: taken in from where it was, not again.
  const std::uint64_t version = view.version();
  log.append(event(R"({"event":"trial_closed","request_id":")" + kB + "\"}", "", 2));
  view.refresh();
  CHECK(view.trials().size() == 2);
  CHECK(view.version() == version + 1);

  // Replaced by another file whose bytes where the view stopped are the same (only the first
  // trial's x differs): a new file is a new log all the same.
  const std::string old_log =
      event(R"({"event":"initial_operations"})", create(kA, 1, 3) + "," + create(kB, 2, 3), 0);
  std::ofstream(log.path, std::ios::trunc | std::ios::binary) << old_log;
  view.refresh();
  REQUIRE(view.trials().size() == 2);
  CHECK(view.trials()[0].hparams["x"] == 1);
  const fs::path next = log.path.string() + ".next";
  std::ofstream(next, std::ios::binary)
      << event(R"({"event":"initial_operations"})", create(kA, 7, 3) + "," + create(kB, 2, 3), 0)
      << event(R"({"event":"trial_closed","request_id":")" + kA + "\"}", "", 1);
  fs::rename(next, log.path);
  view.refresh();
  REQUIRE(view.trials().size() == 2);
  CHECK(view.trials()[0].hparams["x"] == 7);

  // Gone for a moment (or not readable): the view keeps what it has.
  fs::remove(log.path);
  view.refresh();
  CHECK(view.trials().size() == 2);
}

namespace {

// A record with the runner's time ("at", seconds since the epoch), or an old one without.
std::string timed(const std::string& record, std::optional<double> at) {
  if (!at) return record;
  std::ostringstream text;
  text << record.substr(0, record.size() - 2) << ",\"at\":" << *at << "}\n";
  return text.str();
}

// The runner's launch and exit records: {"seq", KIND: {"request_id", "slot", "at"}}; an old
// runner's carry the request id alone.
std::string order(const char* kind, const std::string& id, int seq, std::optional<int> slot,
                  std::optional<double> at) {
  std::ostringstream text;
  text << "{\"" << kind << "\":{\"request_id\":\"" << id << '"';
  if (slot) text << ",\"slot\":" << *slot << ",\"at\":" << *at;
  text << "},\"seq\":" << seq << "}\n";
  return text.str();
}

// Two trials on two slots: A launched, validated, exited (paused) and promoted onto its slot
// again; B launched, validated, and the run interrupted under both (no exit is journaled for a
// trial paused by Ctrl-C); on resume B is launched again. `timed_log`: with the fields this
// change added (slot and "at"), else as an older runner wrote it.
void write_two_slot_journal(const Log& log, bool timed_log) {
  const auto at = [&](double t) {
    return timed_log ? std::optional<double>(1000 + t) : std::nullopt;
  };
  const auto slot = [&](int s) { return timed_log ? std::optional<int>(s) : std::nullopt; };
  log.append(timed(
      event(R"({"event":"initial_operations"})", create(kA, 1, 3) + "," + create(kB, 2, 3), 0),
      at(0)));
  log.append(order("launched", kA, 1, slot(0), at(0.5)));
  log.append(order("launched", kB, 2, slot(1), at(0.75)));
  log.append(timed(event(validation(kA, 5, 3), "", 3), at(2)));
  log.append(order("exited", kA, 4, slot(0), at(2.5)));
  log.append(timed(
      event(R"({"event":"trial_progress","units":1.5,"request_id":")" + kB + "\"}", "", 5), at(4)));
  log.append(timed(
      event(R"({"event":"trial_progress","units":3,"request_id":")" + kA + "\"}", "", 6), at(5)));
  log.append(order("launched", kA, 7, slot(0), at(6)));
  log.append(order("launched", kB, 8, slot(1), at(20)));  // resumed after the interruption
}

}  // namespace

TEST_CASE("experiment view: each launch on its slot, with times, and an old journal's fallback") {
  {
    const Log log;
    write_two_slot_journal(log, true);
    ExperimentView view(log.path, fs::path(), true);
    view.refresh();
    CHECK(view.error().empty());
    CHECK(view.clock() == hpsearch::ui::Clock::kSeconds);
    REQUIRE(view.trials().size() == 2);
    REQUIRE(view.trials()[0].validations.size() == 1);
    CHECK(view.trials()[0].validations[0].at == 2);  // seconds since the first record
    REQUIRE(view.best_so_far().size() == 1);
    CHECK(view.best_so_far()[0].at == 2);
    CHECK(view.places() == 2);
    CHECK(view.unplaced_launches() == 0);
    const auto& l = view.launches();
    REQUIRE(l.size() == 4);
    // A's first launch: 0.5 to its exit at 2.5, on slot 0.
    CHECK((l[0].trial == 1 && l[0].place == 0 && l[0].start == 0.5 && l[0].end == 2.5));
    // B's first launch, interrupted: until the last the journal heard of it (its progress at 4).
    CHECK((l[1].trial == 2 && l[1].place == 1 && l[1].start == 0.75 && l[1].end == 4.0));
    CHECK((l[2].trial == 1 && l[2].place == 0 && l[2].start == 6 && !l[2].end));
    CHECK((l[3].trial == 2 && l[3].place == 1 && l[3].start == 20 && !l[3].end));
    CHECK(view.last_at() == 20);

    const nlohmann::json charts =
        hpsearch::ui::chart_data(view, [](const hpsearch::ui::TrialView& t) { return t.index; });
    CHECK(charts["timeUnit"] == "seconds");
    const nlohmann::json& timeline = charts["timeline"];
    CHECK(timeline["kind"] == "workers");
    CHECK(timeline["lanes"] == 2);
    REQUIRE(timeline["spans"].size() == 4);
    CHECK(timeline["spans"][2]["end"] == 20);  // still running: until the latest record
    CHECK(timeline["spans"][2]["running"] == true);
  }
  {
    const Log log;
    write_two_slot_journal(log, false);
    ExperimentView view(log.path, fs::path(), true);
    view.refresh();
    CHECK(view.error().empty());
    CHECK(view.clock() == hpsearch::ui::Clock::kRecordNumber);
    REQUIRE(view.trials().size() == 2);
    CHECK(view.trials()[0].validations[0].at == 3);  // the record's number
    CHECK(view.launches().empty());
    CHECK(view.unplaced_launches() == 4);
    const nlohmann::json charts =
        hpsearch::ui::chart_data(view, [](const hpsearch::ui::TrialView& t) { return t.index; });
    CHECK(charts["timeUnit"] == "journal record");
    CHECK(charts["timeline"]["kind"] == "trials");  // each trial's life, packed into lanes
    CHECK(charts["timeline"]["spans"].size() == 2);
  }
  {
    // A damaged slot far beyond any run's: not drawn as a lane (the trial timeline instead).
    const Log log;
    write_two_slot_journal(log, true);
    log.append(order("exited", kA, 9, 0, 1030.0));
    log.append(order("launched", kA, 10, 1 << 30, 1031.0));
    ExperimentView view(log.path, fs::path(), true);
    view.refresh();
    CHECK(view.error().empty());
    CHECK(view.launches().size() == 4);
    CHECK(view.unplaced_launches() == 1);
    CHECK(view.places() == 2);
    const nlohmann::json charts =
        hpsearch::ui::chart_data(view, [](const hpsearch::ui::TrialView& t) { return t.index; });
    CHECK(charts["timeline"]["kind"] == "trials");
  }
}
