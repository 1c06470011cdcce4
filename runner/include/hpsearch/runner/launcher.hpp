#pragma once
/// \file
/// Launching trial processes. An interface, so that a cluster back-end can follow the local
/// one: the runner only needs to start a command with an environment, write command lines to
/// it, read its report lines, learn when it has ended, and be sure that nothing of it is left
/// once it has.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace hpsearch {

struct LaunchSpec {
  std::string command;  ///< run by /bin/sh -c
  std::filesystem::path working_directory;
  std::map<std::string, std::string> environment;  ///< added to (and overriding) the runner's
  std::filesystem::path log;                       ///< stdout and stderr are appended here
  std::uint64_t slots = 1;  ///< CPUs the trial needs (a cluster launcher reserves them)
  std::string marker;       ///< "NAME=VALUE" naming the experiment (for kill_leftovers)
};

/// Why a trial's process ended, beyond its exit status: a cluster scheduler can end a job for
/// reasons that are not the trial's.
enum class EndCause {
  kExited,     ///< it exited (or was killed by the runner): `code`/`signal` say how
  kPreempted,  ///< the scheduler took it back (preempted, requeued): not the trial's fault
  kCancelled,  ///< cancelled from outside the runner (e.g. scancel by a person)
  kTimeout,    ///< it reached its time limit
  kLost,       ///< its node failed, or the scheduler no longer knows the job
};

/// How a process ended.
struct ExitStatus {
  int code = 0;    ///< exit code, if it exited
  int signal = 0;  ///< the signal that killed it, else 0
  EndCause cause = EndCause::kExited;
  std::string
      detail;  ///< the scheduler's words for a cause other than kExited ("Slurm job 7 TIMEOUT")
  [[nodiscard]] bool success() const {
    return cause == EndCause::kExited && signal == 0 && code == 0;
  }
  /// "exit code 1", "killed by signal 9 (SIGKILL)", or the detail.
  [[nodiscard]] std::string describe() const;
};

/// A launch failed for want of file descriptors (EMFILE: the runner's limit, ENFILE: the
/// system's): not the trial's fault, so it is not a trial failure; the supervisor launches the
/// trial again later.
class DescriptorShortage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether a call failed with `error` for want of file descriptors.
[[nodiscard]] inline bool is_descriptor_shortage(int error) {
  return error == EMFILE || error == ENFILE;
}

/// The ExitStatus a wait status (waitpid's, or Slurm's exit_code) stands for.
[[nodiscard]] ExitStatus exit_status_from_wait(int raw);

/// One running trial: its main process and everything that process started.
class TrialProcess {
 public:
  virtual ~TrialProcess() = default;
  /// Writes one command line on the trial's descriptor 3. False if the trial no longer reads.
  virtual bool send(const std::string& line) = 0;
  /// A descriptor that becomes readable when the trial reports on its descriptor 4 (for
  /// poll()); -1 once closed.
  [[nodiscard]] virtual int report_fd() const = 0;
  /// Reads what is available: appends to `buffer`; false at end of stream (then closed).
  virtual bool read_reports(std::string& buffer) = 0;
  /// Checks (without blocking) whether the trial has ended: its main process has exited and
  /// every other process of its tree has been killed.
  virtual std::optional<ExitStatus> poll_exit() = 0;
  /// Its end reaches this process as SIGCHLD (its main process, or the shepherd over it, is a
  /// child of this one): a Supervisor told of SIGCHLD (watch_child_signals) asks poll_exit only
  /// after one came. False: asked every time (a cluster job, polled through the cluster).
  [[nodiscard]] virtual bool ends_with_sigchld() const { return false; }
  /// Asks every process of the trial to stop (SIGTERM), or kills them all (SIGKILL).
  virtual void terminate(bool force) = 0;
  /// The main process's id.
  [[nodiscard]] virtual long pid() const = 0;
  /// What it is, for the log: "pid 123", "Slurm job 45".
  [[nodiscard]] virtual std::string describe() const { return "pid " + std::to_string(pid()); }
  /// A name that outlives the runner (a cluster job id), journaled so that a resumed runner
  /// can reattach; empty for a process that dies with the runner.
  [[nodiscard]] virtual std::string handle() const { return {}; }
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  /// Starts a trial. Throws std::runtime_error if it cannot be started, DescriptorShortage if
  /// that is for want of file descriptors.
  virtual std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) = 0;
  /// Kills whatever an earlier run left of trials whose environment held `marker`
  /// ("NAME=VALUE"); returns how many processes it killed.
  virtual std::size_t kill_leftovers(const std::string& marker) = 0;
  /// Takes back a trial an earlier run launched (by its handle()) if it is still queued or
  /// running, or ended while nobody watched (poll_exit then gives its final state); null if
  /// the launcher cannot (local processes die with their runner) or the job is unknown.
  /// kill_leftovers spares what was reattached. Throws std::runtime_error if it cannot tell.
  virtual std::unique_ptr<TrialProcess> reattach(const std::string& handle) {
    (void)handle;
    return nullptr;
  }
};

/// Processes on this machine. Each trial runs under a small shepherd process that is a child
/// subreaper: it starts `/bin/sh -c COMMAND` (commands on descriptor 3, reports on descriptor
/// 4), adopts every process the trial leaves behind, and kills the whole tree when the main
/// process exits, when asked, or when the runner dies (even by SIGKILL).
[[nodiscard]] std::unique_ptr<Launcher> make_local_launcher();

/// Where trials run and how they reach the runner; kept in DIR/run.json, so that resume runs
/// the experiment's trials the same way (its own options override).
struct LaunchSettings {
  std::string launcher = "local";  ///< a name in the launcher table: "local" or "slurm"
  /// The launcher's own settings, as run.json keeps them beside `launcher` (slurm: partition,
  /// account, time, sbatch_args); what its row in the launcher table reads and writes.
  nlohmann::json options = nlohmann::json::object();
  /// HOST[:PORT] of a TCP trial channel; empty: a Unix socket in the experiment directory.
  /// Once listening, the port bound is kept, so that a resumed runner listens where its jobs
  /// look for it.
  std::string channel_address;
  std::filesystem::path shared_dir;  ///< checkpoints go to SHARED_DIR/checkpoints; empty: DIR
};

/// The launcher the settings name, made by its row in the launcher table (a Slurm one checks its
/// options with sbatch first). Throws std::invalid_argument for an unknown name or options the
/// launcher refuses.
[[nodiscard]] std::unique_ptr<Launcher> make_launcher(const LaunchSettings& settings);

}  // namespace hpsearch
