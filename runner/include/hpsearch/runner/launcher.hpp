#pragma once
/// \file
/// Launching trial processes. An interface, so that a cluster back-end can follow the local
/// one: the runner only needs to start a command with an environment, write command lines to
/// it, read its report lines, learn when it has ended, and be sure that nothing of it is left
/// once it has.

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace hpsearch {

struct LaunchSpec {
  std::string command;                         ///< run by /bin/sh -c
  std::filesystem::path working_directory;
  std::map<std::string, std::string> environment;  ///< added to (and overriding) the runner's
  std::filesystem::path log;                   ///< stdout and stderr are appended here
};

/// How a process ended.
struct ExitStatus {
  int code = 0;       ///< exit code, if it exited
  int signal = 0;     ///< the signal that killed it, else 0
  [[nodiscard]] bool success() const { return signal == 0 && code == 0; }
  [[nodiscard]] std::string describe() const;  ///< "exit code 1", "killed by signal 9 (SIGKILL)"
};

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
  /// Asks every process of the trial to stop (SIGTERM), or kills them all (SIGKILL).
  virtual void terminate(bool force) = 0;
  /// The main process's id.
  [[nodiscard]] virtual long pid() const = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  /// Starts a trial. Throws std::runtime_error if it cannot be started.
  virtual std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) = 0;
  /// Kills whatever an earlier run left of trials whose environment held `marker`
  /// ("NAME=VALUE"); returns how many processes it killed.
  virtual std::size_t kill_leftovers(const std::string& marker) = 0;
};

/// Processes on this machine. Each trial runs under a small shepherd process that is a child
/// subreaper: it starts `/bin/sh -c COMMAND` (commands on descriptor 3, reports on descriptor
/// 4), adopts every process the trial leaves behind, and kills the whole tree when the main
/// process exits, when asked, or when the runner dies (even by SIGKILL).
[[nodiscard]] std::unique_ptr<Launcher> make_local_launcher();

}  // namespace hpsearch
