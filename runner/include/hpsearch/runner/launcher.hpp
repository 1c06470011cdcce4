#pragma once
/// \file
/// Launching trial processes. An interface, so that a cluster back-end can follow the local
/// one: the runner only needs to start a command with an environment, write command lines to
/// it, read its report lines, and learn when it has ended.

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

/// One running trial process.
class TrialProcess {
 public:
  virtual ~TrialProcess() = default;
  /// Writes one command line. False if the trial no longer reads (it has exited).
  virtual bool send(const std::string& line) = 0;
  /// A descriptor that becomes readable when the trial reports (for poll()); -1 once closed.
  [[nodiscard]] virtual int report_fd() const = 0;
  /// Reads what is available: appends to `buffer`; false at end of stream (then closed).
  virtual bool read_reports(std::string& buffer) = 0;
  /// Checks (without blocking) whether the process has ended.
  virtual std::optional<ExitStatus> poll_exit() = 0;
  /// Asks it to stop (SIGTERM to its process group), or forces it (SIGKILL).
  virtual void terminate(bool force) = 0;
  [[nodiscard]] virtual long pid() const = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  /// Starts a process. Throws std::runtime_error if it cannot be started.
  virtual std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) = 0;
};

/// Processes on this machine: fork and exec of /bin/sh -c COMMAND in its own process group,
/// commands on descriptor 3, reports on descriptor 4, killed if the runner dies.
[[nodiscard]] std::unique_ptr<Launcher> make_local_launcher();

}  // namespace hpsearch
