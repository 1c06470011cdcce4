#pragma once
// Private to runner/: SIGINT, SIGTERM and SIGCHLD reach the runner's loop through a self-pipe,
// so that poll() wakes up for them; SIGPIPE is ignored (a trial that closed its end must not
// kill the runner).

#include <signal.h>

#include <array>
#include <vector>

namespace hpsearch::runner_detail {

/// Installs the handlers for its lifetime (one at a time per process).
class SignalPipe {
 public:
  SignalPipe();
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  /// Becomes readable when a signal arrived.
  [[nodiscard]] int fd() const;
  /// The signals that arrived since the last call.
  [[nodiscard]] std::vector<int> drain() const;

 private:
  // SIGUSR1: a trial's kill was requested (`searcher-run trial ID --kill`, kill_trials/).
  static constexpr std::array<int, 5> kSignals{SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGUSR1};
  std::array<struct sigaction, 5> saved_{};
};

}  // namespace hpsearch::runner_detail
