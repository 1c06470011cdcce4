// What the web UI shows of one experiment, followed from its event log (experiment_view.hpp).
#include "ui/experiment_view.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "hpsearch/searcher/operation.hpp"

namespace hpsearch::ui {

namespace fs = std::filesystem;

ExperimentView::ExperimentView(fs::path log, fs::path experiment_json, bool smaller_is_better)
    : log_(std::move(log)),
      experiment_json_(std::move(experiment_json)),
      smaller_is_better_(smaller_is_better) {}

bool ExperimentView::better(double a, double b) const {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return smaller_is_better_ ? a < b : a > b;
}

const TrialView* ExperimentView::trial(std::uint32_t index) const {
  if (index == 0 || index > trials_.size()) return nullptr;
  return &trials_[index - 1];
}

void ExperimentView::reset() {
  offset_ = 0;
  taken_tail_.clear();
  log_id_.reset();
  records_ = 0;
  trials_.clear();
  by_request_.clear();
  best_so_far_.clear();
  best_trial_.reset();
  best_metric_.reset();
  trials_at_length_.clear();
  shutdown_ = nullptr;
  last_at_ = 0;
  clock_ = Clock::kRecordNumber;
  origin_ = 0;
  launches_.clear();
  places_ = 0;
  unplaced_launches_ = 0;
  experiment_json_time_ = {};  // taken in again over the new trials
}

void ExperimentView::refresh() {
  bool changed = false;
  // One open file for all of it: its size, its identity and its bytes are the same file's. Not
  // there, or not readable now (no descriptor left, say): nothing changes until a later refresh.
  const int fd = ::open(log_.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat file {};
  if (fd >= 0 && ::fstat(fd, &file) == 0) {
    const auto size = static_cast<std::uint64_t>(file.st_size);
    const FileId id{file.st_dev, file.st_ino};
    // Replaced by another log (a new file, or this one cut back or written over from the
    // start): start again. A new run's journal with spare space is longer than the old records.
    if ((log_id_ && *log_id_ != id) || size < offset_ || !still_taken(fd)) {
      reset();
      changed = true;
    }
    log_id_ = id;
    if (size > offset_) {
      // Up to the first zero byte: a running journal's spare space follows (docs/store.md),
      // up to megabytes of zeros not worth reading at every refresh.
      std::string text;
      std::size_t zero = std::string::npos;
      while (zero == std::string::npos && text.size() < size - offset_) {
        const std::size_t have = text.size();
        text.resize(have + std::min<std::size_t>(std::size_t{64} << 10, size - offset_ - have));
        const ssize_t got =
            ::pread(fd, text.data() + have, text.size() - have, static_cast<off_t>(offset_ + have));
        text.resize(have + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
        if (text.size() == have) break;
        zero = text.find('\0', have);
      }
      text.resize(std::min(text.size(), zero));
      // Record by record, so that a damaged one stops the reading exactly there: what came
      // before it is taken in once, and a later refresh tries it again (a torn last line is
      // one being written: it is complete next time).
      std::size_t start = 0;
      log_error_.clear();
      while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string::npos) break;
        try {
          const JournalContents line =
              parse_journal(std::string_view(text).substr(start, end + 1 - start), log_.string());
          for (const nlohmann::json& record : line.records) apply(record);
        } catch (const std::exception& e) {
          log_error_ = log_.string() + " record " + std::to_string(records_ + 1) +
                       " cannot be read (" + e.what() + "): what follows it is not shown";
          break;
        }
        offset_ += end + 1 - start;
        start = end + 1;
        changed = true;
      }
      remember_tail(text.substr(0, start));
    }
  }
  if (fd >= 0) ::close(fd);
  const std::string before = error_;
  if (!experiment_json_.empty()) take_experiment_json();
  error_ = log_error_;
  if (error_.empty() && run_record_.is_object() && run_record_.contains("error"))
    error_ = run_record_["error"].get<std::string>();
  if (changed || error_ != before) ++version_;
}

bool ExperimentView::still_taken(int fd) const {
  if (taken_tail_.empty()) return true;
  std::string there(taken_tail_.size(), '\0');
  return ::pread(fd, there.data(), there.size(),
                 static_cast<off_t>(offset_ - taken_tail_.size())) ==
             static_cast<ssize_t>(there.size()) &&
         there == taken_tail_;
}

void ExperimentView::remember_tail(std::string_view taken) {
  constexpr std::size_t kTail = 64;
  if (taken.size() >= kTail) {
    taken_tail_.assign(taken.substr(taken.size() - kTail));
  } else {
    taken_tail_ = (taken_tail_ + std::string(taken))
                      .substr(std::max(taken_tail_.size() + taken.size(), kTail) - kTail);
  }
}

void ExperimentView::take_experiment_json() {
  std::error_code error;
  const fs::file_time_type time = fs::last_write_time(experiment_json_, error);
  if (error) return;  // not written yet
  const std::uintmax_t size = fs::file_size(experiment_json_, error);
  if (error || (time == experiment_json_time_ && size == experiment_json_size_)) return;
  experiment_json_time_ = time;
  experiment_json_size_ = size;
  ++version_;
  std::ifstream in(experiment_json_);
  nlohmann::json j = parse_json_or_discarded(in);
  if (j.is_discarded() || !j.is_object()) {
    // Written atomically by the runner: one that does not parse was damaged afterwards.
    run_record_ = {{"error", experiment_json_.string() + " does not parse: it is damaged"}};
    return;
  }
  if (j.contains("trials") && j["trials"].is_array()) {
    for (const nlohmann::json& t : j["trials"]) {
      if (!t.is_object() || !t.contains("request_id") || !t["request_id"].is_string()) continue;
      const auto found = by_request_.find(t["request_id"].get<std::string>());
      // experiment.json lags the journal: a trial it lists is one the journal has.
      if (found == by_request_.end()) continue;
      TrialView& trial = trials_[found->second];
      trial.restarts = t.value("restarts", std::uint64_t{0});
      trial.outcome = t.value("outcome", std::string());
      trial.checkpoints = t.value("stored_checkpoints", nlohmann::json::array());
      trial.last_failure = t.value("last_failure", nlohmann::json(nullptr));
    }
    j.erase("trials");
  }
  run_record_ = std::move(j);
}

// The first record sets the clock: a trace's records carry "time" (virtual seconds), a run's
// "at" (journal_time: seconds since the epoch, counted here from the first record); a journal
// whose first record has neither was written before records carried a time, and is read by
// record number throughout (a later runner's times in it would start from a different origin).
std::optional<double> ExperimentView::time_of(const nlohmann::json& record,
                                              const nlohmann::json* body) {
  const auto number = [](const nlohmann::json& j, const char* key) -> std::optional<double> {
    const auto found = j.find(key);
    if (found == j.end() || !found->is_number()) return std::nullopt;
    return found->get<double>();
  };
  if (records_ == 1) {
    if (number(record, "time")) {
      clock_ = Clock::kVirtualSeconds;
    } else if (const auto at = number(record, "at")) {
      clock_ = Clock::kSeconds;
      origin_ = *at;
    }
  }
  switch (clock_) {
    case Clock::kVirtualSeconds:
      return number(record, "time");
    case Clock::kSeconds: {
      std::optional<double> at = number(record, "at");
      if (!at && body != nullptr && body->is_object()) at = number(*body, "at");
      if (!at) return std::nullopt;
      return std::round((*at - origin_) * 1000) / 1000;  // journal times are to the millisecond
    }
    case Clock::kRecordNumber:
      break;
  }
  if (const auto seq = number(record, "seq")) return seq;
  return static_cast<double>(records_);
}

void ExperimentView::apply(const nlohmann::json& record) {
  ++records_;
  const auto in = record.find("in");
  const auto out = record.find("out");
  if (in == record.end() || !in->is_object()) {
    // The runner's own records, and the trace's: a launch and an exit are the worker timeline.
    for (const char* kind : {"launched", "exited"}) {
      const auto body = record.find(kind);
      if (body == record.end() || !body->is_object()) continue;
      const std::optional<double> at = time_of(record, &*body);
      if (at) take_launch(kind, *body, *at);
    }
    return;
  }
  const double at = time_of(record, nullptr).value_or(last_at_);
  last_at_ = at;
  if (in->value("event", std::string()) != "initial_operations") {
    const Event event = event_from_json(*in);
    const auto found = by_request_.find(request_id_of(event).to_string());
    if (found != by_request_.end()) {
      TrialView& trial = trials_[found->second];
      trial.last_heard = at;
      if (const auto* v = std::get_if<ValidationCompleted>(&event)) {
        take_validation(found->second, v->length, v->metric, at);
      } else if (const auto* exited = std::get_if<TrialExitedEarly>(&event)) {
        trial.exit_reason = std::string(to_string(exited->reason));
      } else if (std::holds_alternative<TrialClosed>(event)) {
        trial.ended_at = at;
        trial.state = trial.exit_reason == "errored"         ? "ERROR"
                      : trial.exit_reason == "user_canceled" ? "CANCELED"
                                                             : "COMPLETED";
      }
    }
  }
  if (out == record.end() || !out->is_object() || !out->contains("operations")) return;
  for (const nlohmann::json& j : (*out)["operations"]) {
    Operation op;
    from_json(j, op);
    if (const auto* create = std::get_if<Create>(&op)) {
      TrialView trial;
      trial.index = static_cast<std::uint32_t>(trials_.size() + 1);
      trial.request_id = create->request_id.to_string();
      trial.hparams = create->hparams;
      trial.created_at = at;
      by_request_.emplace(trial.request_id, trial.index - 1);
      trials_.push_back(std::move(trial));
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      if (const auto found = by_request_.find(validate->request_id.to_string());
          found != by_request_.end())
        trials_[found->second].target = validate->length;
    } else if (const auto* shutdown = std::get_if<Shutdown>(&op)) {
      shutdown_ = {{"cancel", shutdown->cancel}, {"failure", shutdown->failure}};
    }
  }
}

void ExperimentView::take_launch(const std::string& kind, const nlohmann::json& body, double at) {
  const auto id = body.find("request_id");
  if (id == body.end() || !id->is_string()) return;
  const auto found = by_request_.find(id->get<std::string>());
  if (found == by_request_.end()) return;
  TrialView& trial = trials_[found->second];
  last_at_ = std::max(last_at_, at);
  if (kind == "exited") {
    if (trial.running) {
      launches_[*trial.running].end = at;
      launches_[*trial.running].crashed = body.value("crashed", false);
      trial.running.reset();
    }
    return;
  }
  std::optional<std::uint64_t> place;
  for (const char* key : {"slot", "worker"})
    if (const auto p = body.find(key); p != body.end() && p->is_number_unsigned())
      place = p->get<std::uint64_t>();
  if (!place || *place >= kMaxPlaces) {
    ++unplaced_launches_;
    return;
  }
  // Launched again without an exit in between: the run was interrupted under it (a trial
  // paused by Ctrl-C is relaunched first on resume, so its exit is not journaled). It ran
  // until the last the log heard of it.
  if (trial.running) launches_[*trial.running].end = trial.last_heard;
  trial.last_heard = at;
  trial.running = launches_.size();
  launches_.push_back({found->second + 1, *place, at, std::nullopt, false});
  places_ = std::max(places_, *place + 1);
}

void ExperimentView::take_validation(std::uint32_t index, std::uint64_t length, double metric,
                                     double at) {
  TrialView& trial = trials_[index];
  trial.validations.push_back({length, metric, at});
  if (!trial.best || better(metric, trial.validations[*trial.best].metric))
    trial.best = trial.validations.size() - 1;
  ++trials_at_length_[length];
  if (!std::isnan(metric) && (!best_metric_ || better(metric, *best_metric_))) {
    best_metric_ = metric;
    best_trial_ = index + 1;
    best_so_far_.push_back({at, metric, index + 1});
  }
}

}  // namespace hpsearch::ui
