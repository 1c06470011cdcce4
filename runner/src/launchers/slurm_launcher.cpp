// Trials as Slurm jobs. The runner is single-threaded and polls: every trial's poll_exit reads
// a table of job states that one `squeue` call refreshes for all watched jobs at most every
// poll_seconds (`sbatch --wait` per job would notice too late and cost a process each).
// A job that Slurm requeues (preemption, `scontrol requeue`, a node failure with --requeue)
// is cancelled here and reported as preempted: the runner relaunches it as a new job from its
// latest checkpoint, which a requeued job, started again with its old environment, would not.
#include "hpsearch/runner/slurm_launcher.hpp"

#include "hpsearch/runner/trial_environment.hpp"
#include "launchers/launcher_table.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

extern char** environ;

namespace hpsearch {
namespace env = trial_environment;
namespace {

struct ProgramResult {
  int status = 0;  // the wait status
  std::string out;
  std::string err;
  [[nodiscard]] bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  // Slurm's message: its stderr without the trailing newline, on one line.
  [[nodiscard]] std::string message() const {
    std::string text = err.empty() ? out : err;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (char& c : text) {
      if (c == '\n') c = ' ';
    }
    return text.empty() ? "no message (exit status " + std::to_string(status) + ")" : text;
  }
};

// Runs a program (found on PATH) to completion and collects its output. `extra` entries
// ("NAME=VALUE") are added to (and override) the runner's environment.
ProgramResult run_program(const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& extra = {}) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (!extra.contains(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
  }
  for (const auto& [name, value] : extra) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = args;
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  int out_pipe[2];
  int err_pipe[2];
  // Out of descriptors, sbatch cannot run now, but may later: not the trial's failure.
  const auto pipe_error = [](int error) {
    const std::string text = std::string("pipe: ") + std::strerror(error);
    if (is_descriptor_shortage(error)) throw DescriptorShortage(text);
    throw std::runtime_error(text);
  };
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) pipe_error(errno);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    pipe_error(error);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ProgramResult result;
  if (spawned == 0) {
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.out, &result.err};
    int open = 2;
    while (open > 0) {
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (int k = 0; k < 2; ++k) {
        if (fds[k].fd < 0 || fds[k].revents == 0) continue;
        char chunk[4096];
        const ssize_t n = ::read(fds[k].fd, chunk, sizeof chunk);
        if (n > 0) {
          sinks[k]->append(chunk, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          fds[k].fd = -1;
          --open;
        }
      }
    }
    while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {}
  }
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (spawned != 0) {
    if (is_descriptor_shortage(spawned))
      throw DescriptorShortage("cannot run " + args.front() + ": " + std::strerror(spawned));
    throw std::runtime_error("cannot run " + args.front() + ": " + std::strerror(spawned) +
                             " (are the Slurm client commands installed and on PATH?)");
  }
  return result;
}

// What squeue says of one job.
struct JobState {
  std::string state;  // PENDING, RUNNING, COMPLETED, ...
  int restarts = 0;
  int exit_raw = 0;  // a wait status, as squeue's exit_code gives it
  std::string reason;
};

// Slurm's states in which the job's processes may still run (or will).
bool active(const std::string& state) {
  static const std::set<std::string> states{
      "PENDING",   "CONFIGURING", "RUNNING",      "COMPLETING",  "SUSPENDED",
      "RESIZING",  "REQUEUED",    "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING",
      "STAGE_OUT", "STOPPED",     "RESV_DEL_HOLD"};
  return states.contains(state);
}

// The table of watched jobs' states, refreshed by one squeue for all of them.
class JobTable {
 public:
  explicit JobTable(double poll_seconds) : interval_(std::chrono::duration<double>(poll_seconds)) {}

  void watch(const std::string& id) { watched_[id] = Watched{}; }
  void unwatch(const std::string& id) { watched_.erase(id); }

  // The job's state as of the last poll (polling first if the table is stale); nullopt if
  // squeue has not listed it yet, `missing` counts the polls that did not list it.
  std::optional<JobState> state(const std::string& id, int& missing) {
    if (std::chrono::steady_clock::now() - polled_ >= interval_) refresh();
    const auto it = watched_.find(id);
    if (it == watched_.end()) return std::nullopt;
    missing = it->second.missing;
    return it->second.state;
  }

  // Asks squeue now, for these jobs only (nullopt: Slurm does not know the job). Throws if
  // squeue fails for another reason.
  static std::map<std::string, JobState> query(const std::set<std::string>& ids) {
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ",") + id;
    const ProgramResult r =
        run_program({"squeue", "--noheader", "--states=all", "--jobs=" + list,
                     "--Format=JobID:|,State:|,RestartCnt:|,exit_code:|,Reason:|"});
    std::map<std::string, JobState> found;
    if (!r.ok()) {
      // Every job of the list is unknown (long gone): squeue says so instead of listing none.
      if (r.err.find("Invalid job id") != std::string::npos) return found;
      throw std::runtime_error("squeue failed: " + r.message());
    }
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::istringstream parts(line);
      for (std::string f; std::getline(parts, f, '|');) fields.push_back(f);
      if (fields.size() < 4) continue;
      JobState s;
      s.state = fields[1];
      s.restarts = std::atoi(fields[2].c_str());
      s.exit_raw = std::atoi(fields[3].c_str());
      if (fields.size() > 4) s.reason = fields[4];
      found[fields[0]] = s;
    }
    return found;
  }

 private:
  struct Watched {
    std::optional<JobState> state;
    int missing = 0;
  };

  void refresh() {
    polled_ = std::chrono::steady_clock::now();
    if (watched_.empty()) return;
    std::set<std::string> ids;
    for (const auto& [id, w] : watched_) ids.insert(id);
    std::map<std::string, JobState> found;
    try {
      found = query(ids);
    } catch (const std::runtime_error&) {
      return;  // the controller is busy or restarting: keep what we knew, ask again next time
    }
    for (auto& [id, w] : watched_) {
      if (const auto it = found.find(id); it != found.end()) {
        w.state = it->second;
        w.missing = 0;
      } else {
        ++w.missing;
      }
    }
  }

  std::chrono::duration<double> interval_;
  std::chrono::steady_clock::time_point polled_{};
  std::map<std::string, Watched> watched_;
};

ExitStatus ended_by(EndCause cause, std::string detail) {
  ExitStatus status;
  status.cause = cause;
  status.detail = std::move(detail);
  return status;
}

class SlurmJob final : public TrialProcess {
 public:
  SlurmJob(std::shared_ptr<JobTable> table, std::string id)
      : table_(std::move(table)), id_(std::move(id)) {
    table_->watch(id_);
  }
  ~SlurmJob() override { table_->unwatch(id_); }  // a job outlives its runner: resume reattaches
  SlurmJob(const SlurmJob&) = delete;
  SlurmJob& operator=(const SlurmJob&) = delete;

  bool send(const std::string&) override { return false; }  // commands go over the channel
  int report_fd() const override { return -1; }
  bool read_reports(std::string&) override { return false; }
  long pid() const override { return std::strtol(id_.c_str(), nullptr, 10); }
  std::string describe() const override { return "Slurm job " + id_; }
  std::string handle() const override { return id_; }

  std::optional<ExitStatus> poll_exit() override {
    if (status_) return status_;
    int missing = 0;
    const std::optional<JobState> s = table_->state(id_, missing);
    if (!s) {
      // Listed by sbatch but not yet by squeue is normal for a moment; gone for good is not.
      if (missing >= kMissingPolls)
        status_ = ended_by(EndCause::kLost, describe() + " is no longer known to Slurm");
      return status_;
    }
    // A runner cancels a job Slurm requeues: one that has restarted was requeued while no
    // runner watched, and it runs (or will) from the checkpoint its first launch was given.
    if (s->restarts > 0 || s->state == "PREEMPTED" || s->state.starts_with("REQUEUE") ||
        (s->state == "PENDING" && running_seen_)) {
      // Requeued: relaunched as a new job from the latest checkpoint; this one must not run.
      cancel();
      status_ = ended_by(
          EndCause::kPreempted,
          describe() + " was preempted (" + s->state +
              (s->restarts > 0 ? ", requeued " + std::to_string(s->restarts) + " times" : "") +
              ")");
      return status_;
    }
    if (s->state == "RUNNING") running_seen_ = true;
    if (active(s->state)) return std::nullopt;
    if (s->state == "COMPLETED" || s->state == "FAILED" || s->state == "OUT_OF_MEMORY") {
      status_ = exit_status_from_wait(s->exit_raw);
      if (s->state != "COMPLETED" && status_->success()) status_->code = 1;  // failed all the same
    } else if (s->state == "CANCELLED" && cancelled_) {
      status_ = exit_status_from_wait(s->exit_raw);
      if (status_->success()) status_->signal = SIGKILL;  // cancelled before it ran
    } else if (s->state == "CANCELLED") {
      status_ = ended_by(EndCause::kCancelled,
                         describe() + " was cancelled from outside the runner (scancel)");
    } else if (s->state == "TIMEOUT" || s->state == "DEADLINE") {
      status_ =
          ended_by(EndCause::kTimeout, describe() + " reached its time limit (" + s->state + ")");
    } else {  // NODE_FAIL, BOOT_FAIL, and whatever a later Slurm adds
      status_ =
          ended_by(EndCause::kLost,
                   describe() + " ended with " + s->state +
                       (s->reason.empty() || s->reason == "None" ? "" : " (" + s->reason + ")"));
    }
    return status_;
  }

  void terminate(bool force) override {
    if (status_) return;
    cancelled_ = true;
    if (force) {
      cancel();
    } else {
      (void)run_program({"scancel", "--signal=TERM", "--full", id_});
    }
  }

 private:
  static constexpr int kMissingPolls = 5;

  void cancel() {
    cancelled_ = true;
    (void)run_program({"scancel", id_});
  }

  std::shared_ptr<JobTable> table_;
  std::string id_;
  bool running_seen_ = false;
  bool cancelled_ = false;  // by the runner
  std::optional<ExitStatus> status_;
};

class SlurmLauncher final : public Launcher {
 public:
  explicit SlurmLauncher(SlurmOptions options)
      : options_(std::move(options)), table_(std::make_shared<JobTable>(options_.poll_seconds)) {}

  // The options every job gets, in the order the user reads them in errors.
  std::vector<std::string> common_arguments() const {
    std::vector<std::string> args;
    if (!options_.partition.empty()) args.push_back("--partition=" + options_.partition);
    if (!options_.account.empty()) args.push_back("--account=" + options_.account);
    if (!options_.time.empty()) args.push_back("--time=" + options_.time);
    for (const std::string& a : options_.sbatch_args) args.push_back(a);
    return args;
  }

  std::string described_options() const {
    std::string text;
    const auto add = [&](const std::string& option, const std::string& value) {
      if (!value.empty()) text += (text.empty() ? "" : " ") + option + " " + value;
    };
    add("--partition", options_.partition);
    add("--account", options_.account);
    add("--time", options_.time);
    for (const std::string& a : options_.sbatch_args) add("--sbatch-arg", a);
    return text.empty() ? "the default sbatch options" : text;
  }

  void check() const {
    std::vector<std::string> args{"sbatch", "--test-only"};
    for (const std::string& a : common_arguments()) args.push_back(a);
    args.push_back("--wrap=true");
    const ProgramResult r = run_program(args);
    if (!r.ok())
      throw std::invalid_argument("Slurm refuses " + described_options() + ": " + r.message());
  }

  std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) override {
    std::vector<std::string> args{"sbatch",
                                  "--parsable",
                                  "--requeue",
                                  "--open-mode=append",
                                  "--output=" + spec.log.string(),
                                  "--chdir=" + spec.working_directory.string(),
                                  "--ntasks=1",
                                  "--cpus-per-task=" + std::to_string(spec.slots)};
    if (const auto it = spec.environment.find(env::kTrialId); it != spec.environment.end()) {
      args.push_back("--job-name=hpsearch-trial-" + it->second);
    }
    if (!spec.marker.empty()) args.push_back("--comment=" + spec.marker);
    for (const std::string& a : common_arguments()) args.push_back(a);
    args.push_back("--wrap=" + spec.command);
    std::map<std::string, std::string> environment = spec.environment;
    environment.emplace(env::kReconnectSeconds, std::to_string(options_.reconnect_seconds));
    const ProgramResult r = run_program(args, environment);
    // --parsable prints "ID" or "ID;CLUSTER".
    const std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
    if (!r.ok() || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error("sbatch refused the job (" + described_options() +
                               "): " + r.message());
    }
    return std::make_unique<SlurmJob>(table_, id);
  }

  std::unique_ptr<TrialProcess> reattach(const std::string& handle) override {
    const std::map<std::string, JobState> found = JobTable::query({handle});
    if (!found.contains(handle)) return nullptr;
    reattached_.insert(handle);
    return std::make_unique<SlurmJob>(table_, handle);
  }

  // Jobs of this experiment (their comment is the marker) that nothing reattached: a run that
  // died between sbatch and its journal record, or trials resume does not continue.
  std::size_t kill_leftovers(const std::string& marker) override {
    const ProgramResult r =
        run_program({"squeue", "--noheader", "--me", "--Format=JobID:|,State:|,Comment:|"});
    if (!r.ok()) throw std::runtime_error("squeue failed: " + r.message());
    std::size_t cancelled = 0;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::istringstream parts(line);
      for (std::string f; std::getline(parts, f, '|');) fields.push_back(f);
      if (fields.size() < 3 || fields[2] != marker || !active(fields[1]) ||
          reattached_.contains(fields[0]))
        continue;
      (void)run_program({"scancel", fields[0]});
      ++cancelled;
    }
    return cancelled;
  }

 private:
  SlurmOptions options_;
  std::shared_ptr<JobTable> table_;
  std::set<std::string> reattached_;
};

}  // namespace

std::unique_ptr<Launcher> make_slurm_launcher(const SlurmOptions& options) {
  auto launcher = std::make_unique<SlurmLauncher>(options);
  launcher->check();
  return launcher;
}

LauncherKind slurm_launcher_kind() {
  cli::OptionSet options("slurm launcher options");
  options.value("--partition", "P", "the jobs' Slurm partition (slurm only)")
      .value("--account", "A", "the jobs' Slurm account (slurm only)")
      .value("--time", "T", "the jobs' Slurm time limit (slurm only)")
      .repeatable("--sbatch-arg", "ARG",
                  "one more sbatch option for every job (repeat it: --sbatch-arg=--mem=4G)");
  // run.json's fields: the options as given; a resumed run keeps those not given again.
  auto read_options = [](const cli::Args& args, nlohmann::json saved) {
    nlohmann::json fields{
        {"partition", ""}, {"account", ""}, {"time", ""}, {"sbatch_args", nlohmann::json::array()}};
    for (const char* key : {"partition", "account", "time", "sbatch_args"}) {
      if (saved.contains(key)) fields[key] = saved[key];
    }
    for (const char* key : {"partition", "account", "time"}) {
      if (const std::optional<std::string> v = args.value(std::string("--") + key))
        fields[key] = *v;
    }
    if (args.has("--sbatch-arg")) fields["sbatch_args"] = args.all("--sbatch-arg");
    return fields;
  };
  auto make = [](const nlohmann::json& fields) {
    SlurmOptions slurm;
    slurm.partition = fields.value("partition", "");
    slurm.account = fields.value("account", "");
    slurm.time = fields.value("time", "");
    slurm.sbatch_args = fields.value("sbatch_args", std::vector<std::string>{});
    return make_slurm_launcher(slurm);
  };
  return LauncherKind{
      .name = "slurm",
      .help =
          "one Slurm job per trial launch (sbatch), so --slots may exceed\n"
          "this machine's CPUs",
      .remote = true,
      .options = std::move(options),
      .read_options = read_options,
      .make = make,
  };
}

}  // namespace hpsearch
