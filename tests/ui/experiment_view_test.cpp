// The web UI's experiment view (runner/src/ui/experiment_view.cpp): an event log followed as it
// grows, a torn last line waited for, a damaged record stopping the reading exactly there, a
// replaced log read again. The expected trials are the records written below.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

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
