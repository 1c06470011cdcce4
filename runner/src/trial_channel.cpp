#include "hpsearch/runner/trial_channel.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace hpsearch {

TrialChannel::TrialChannel(const std::filesystem::path& path) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("cannot create a socket: ") + std::strerror(errno));
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
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) != 0 || ::listen(fd_, 128) != 0) {
    const std::string error = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("cannot listen on " + address_ + ": " + error);
  }
}

TrialChannel::~TrialChannel() {
  ::close(fd_);
  if (!file_.empty()) {
    std::error_code ignored;
    std::filesystem::remove(file_, ignored);
  }
}

int TrialChannel::accept() const { return ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK); }

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
