#include "hpsearch/runner/trial_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace hpsearch {

TrialChannel::TrialChannel(const std::filesystem::path& path) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0)
    throw std::runtime_error(std::string("cannot create a socket: ") + std::strerror(errno));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = std::filesystem::absolute(path).string();
  socklen_t length = 0;
  if (text.size() < sizeof address.sun_path) {
    std::error_code ignored;
    std::filesystem::remove(text, ignored);
    std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + text.size() + 1);
    address_ = "unix:" + text;
    file_ = text;
  } else {
    // sun_path holds 107 characters: name the socket in the abstract namespace after the path.
    const std::string name = "hpsearch-" + std::to_string(std::hash<std::string>{}(text));
    address.sun_path[0] = '\0';
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    address_ = "unix:@" + name;
  }
  // The socket file only for its owner (connecting needs write permission), set before listen
  // so no other local user can connect at all (issue 25; the abstract name has no permissions:
  // there the hello's token is the guard).
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) != 0 ||
      (!file_.empty() && ::chmod(file_.c_str(), 0600) != 0) || ::listen(fd_, 128) != 0) {
    const std::string error = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("cannot listen on " + address_ + ": " + error);
  }
}

TcpEndpoint parse_tcp_endpoint(const std::string& text) {
  TcpEndpoint endpoint;
  std::string port;
  if (text.starts_with("[")) {  // [V6]:PORT
    const std::size_t close = text.find(']');
    if (close == std::string::npos)
      throw std::invalid_argument("'" + text + "' has no closing ']'");
    endpoint.host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':')
        throw std::invalid_argument("'" + text + "': expected ':PORT' after ']'");
      port = text.substr(close + 2);
    }
  } else if (const std::size_t colon = text.rfind(':');
             colon != std::string::npos && text.find(':') == colon) {
    endpoint.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  } else {
    endpoint.host = text;  // a bare IPv6 address has several colons and no port
  }
  if (endpoint.host.empty())
    throw std::invalid_argument("'" + text + "' has no host (expected HOST[:PORT])");
  if (!port.empty() || text.ends_with(":")) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || port.find_first_not_of("0123456789") != std::string::npos ||
        value > 65535) {
      throw std::invalid_argument(
          "'" + text + "': the port must be a number from 0 to 65535, got '" + port + "'");
    }
    endpoint.port = static_cast<std::uint16_t>(value);
  }
  return endpoint;
}

TrialChannel::TrialChannel(const TcpEndpoint& endpoint) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(endpoint.port);
  if (const int e = ::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found); e != 0) {
    throw std::runtime_error("cannot listen on '" + endpoint.host + "': " + ::gai_strerror(e));
  }
  std::string error = "no address";
  for (const addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd_ < 0) continue;
    // A resumed runner listens where the last one did, while the old connections linger.
    const int on = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd_, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd_, 128) == 0) break;
    error = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) {
    throw std::runtime_error("cannot listen on " + endpoint.host + ":" + port + ": " + error);
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  const std::uint16_t actual =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
  address_ = "tcp:" + endpoint.host + ":" + std::to_string(actual);
}

std::string peer_name(int fd) {
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return "an unknown peer";
  char host[INET6_ADDRSTRLEN] = "";
  if (peer.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&peer);
    ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (peer.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&peer);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
    std::string text = "[";  // appended, not "[" + ...: g++ 12 misreads that (-Wrestrict)
    text += host;
    text += "]:";
    text += std::to_string(ntohs(v6->sin6_port));
    return text;
  }
  return "a local process";
}

TrialChannel::~TrialChannel() {
  ::close(fd_);
  if (!file_.empty()) {
    std::error_code ignored;
    std::filesystem::remove(file_, ignored);
  }
}

int TrialChannel::accept() const {
  return ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

std::string random_token() {
  unsigned char bytes[16];
  std::size_t done = 0;
  while (done < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + done, sizeof bytes - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

}  // namespace hpsearch
