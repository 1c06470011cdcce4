#include "engine/signals.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "hpsearch/runner/errors.hpp"

namespace hpsearch::runner_detail {
namespace {

// The handler can only reach a global; SignalPipe owns it for its lifetime.
int g_signal_pipe[2] = {
    -1, -1};  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): signal handler state

extern "C" void on_signal(int signal) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal);
  (void)!::write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

}  // namespace

SignalPipe::SignalPipe() {
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw RunnerError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (std::size_t k = 0; k < kSignals.size(); ++k) {
    ::sigaction(kSignals[k], kSignals[k] == SIGPIPE ? &ignore : &action, &saved_[k]);
  }
}

SignalPipe::~SignalPipe() {
  for (std::size_t k = 0; k < kSignals.size(); ++k) ::sigaction(kSignals[k], &saved_[k], nullptr);
  ::close(g_signal_pipe[0]);
  ::close(g_signal_pipe[1]);
  g_signal_pipe[0] = g_signal_pipe[1] = -1;
}

int SignalPipe::fd() const {
  return g_signal_pipe[0];
}

std::vector<int> SignalPipe::drain() const {
  std::vector<int> signals;
  unsigned char bytes[64];
  ssize_t n;
  while ((n = ::read(g_signal_pipe[0], bytes, sizeof bytes)) > 0) {
    for (ssize_t i = 0; i < n; ++i) signals.push_back(bytes[i]);
  }
  return signals;
}

}  // namespace hpsearch::runner_detail
