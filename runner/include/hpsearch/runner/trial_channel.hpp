#pragma once
/// \file
/// Where trials reach the runner: a listening stream socket whose address every trial finds
/// in its environment (HPSEARCH_CHANNEL), so that any process of a trial's tree can connect,
/// whatever launched it. A connection's first line names its trial by the random token the
/// runner gave that launch (HPSEARCH_TRIAL_TOKEN): {"type":"hello","token":T,"rank":R}; after
/// it, the connection carries the same JSON lines as descriptors 3 and 4 (docs/runner.md).
/// Nothing here is specific to Unix sockets but the constructor: a TCP listener for a cluster
/// launcher gives the same stream of lines.

#include <filesystem>
#include <string>

namespace hpsearch {

class TrialChannel {
 public:
  /// Listens on a Unix socket at `path` (an old socket file there is replaced). A path too
  /// long for a socket address gets an address in Linux's abstract namespace instead, named
  /// after the path. Throws std::runtime_error.
  explicit TrialChannel(const std::filesystem::path& path);
  ~TrialChannel();
  TrialChannel(const TrialChannel&) = delete;
  TrialChannel& operator=(const TrialChannel&) = delete;

  /// "unix:/abs/path" or "unix:@name" (abstract).
  [[nodiscard]] const std::string& address() const { return address_; }
  /// Readable when a connection is waiting.
  [[nodiscard]] int listen_fd() const { return fd_; }
  /// A waiting connection (non-blocking, close-on-exec), or -1.
  [[nodiscard]] int accept() const;

 private:
  int fd_ = -1;
  std::string address_;
  std::filesystem::path file_;  // removed at the end (empty for an abstract address)
};

/// A random token of 32 hex digits, from the kernel's generator (for authentication: it
/// decides nothing and is never replayed).
[[nodiscard]] std::string random_token();

}  // namespace hpsearch
