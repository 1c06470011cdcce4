#pragma once
/// \file
/// Where trials reach the runner: a listening stream socket whose address every trial finds
/// in its environment (HPSEARCH_CHANNEL), so that any process of a trial's tree can connect,
/// whatever launched it. A connection's first line names its trial by the random token the
/// runner gave that launch (HPSEARCH_TRIAL_TOKEN): {"type":"hello","token":T,"rank":R}; after
/// it, the connection carries the same JSON lines as descriptors 3 and 4 (docs/runner.md).
/// Nothing here is specific to Unix sockets but the constructor: a TCP listener for a cluster
/// launcher gives the same stream of lines.

#include <cstdint>
#include <filesystem>
#include <string>

namespace hpsearch {

/// Where a TCP channel listens: a host name or address of the interface trials reach, and a
/// port (0: any free one).
struct TcpEndpoint {
  std::string host;
  std::uint16_t port = 0;
};

/// Parses "HOST[:PORT]" ("[V6]:PORT" for an IPv6 address). Throws std::invalid_argument.
[[nodiscard]] TcpEndpoint parse_tcp_endpoint(const std::string& text);

class TrialChannel {
 public:
  /// Listens on a Unix socket at `path` (an old socket file there is replaced). A path too
  /// long for a socket address gets an address in Linux's abstract namespace instead, named
  /// after the path. Throws std::runtime_error.
  explicit TrialChannel(const std::filesystem::path& path);
  /// Listens on TCP at `endpoint` (all trials on a cluster reach it there); the address is
  /// "tcp:HOST:PORT" with the port actually bound. Throws std::runtime_error.
  explicit TrialChannel(const TcpEndpoint& endpoint);
  ~TrialChannel();
  TrialChannel(const TrialChannel&) = delete;
  TrialChannel& operator=(const TrialChannel&) = delete;

  /// "unix:/abs/path", "unix:@name" (abstract) or "tcp:HOST:PORT".
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

/// Who is at the other end of a connection, for the log: "10.1.2.3:40112", or "a local process".
[[nodiscard]] std::string peer_name(int fd);

/// A random token of 32 hex digits, from the kernel's generator (for authentication: it
/// decides nothing and is never replayed).
[[nodiscard]] std::string random_token();

}  // namespace hpsearch
