#include "hpsearch/runner/supervisor.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hpsearch/runner/errors.hpp"
#include "hpsearch/runner/trial_environment.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch {
namespace env = trial_environment;
namespace {

constexpr std::size_t kMaxHello = 4096;

}  // namespace

Supervisor::~Supervisor() {
  for (Connection& c : pending_) ::close(c.fd);
  for (auto& [trial, live] : live_) {
    for (Connection& c : live.connections) ::close(c.fd);
  }
}

bool Supervisor::enqueue(std::uint32_t trial) {
  if (live_.contains(trial) || queued_[trial]) return false;
  queued_[trial] = true;
  waiting_.push_back(trial);
  return true;
}

void Supervisor::launch_waiting(
    const std::function<std::optional<LaunchSpec>(std::uint32_t)>& prepare,
    const std::function<void(std::uint32_t, long)>& started,
    const std::function<void(std::uint32_t, const std::string&)>& failed) {
  while (live_order_.size() < slots_ && !waiting_.empty()) {
    if (std::chrono::steady_clock::now() < launch_at_) return;
    const std::uint32_t trial = waiting_.front();
    waiting_.pop_front();
    queued_.erase(trial);
    if (live_.contains(trial)) continue;
    std::optional<LaunchSpec> spec = prepare(trial);
    if (!spec) continue;
    std::string token;
    if (channel_ != nullptr) {
      token = random_token();
      spec->environment[env::kChannel] = channel_->address();
      spec->environment[env::kTrialToken] = token;
    }
    std::unique_ptr<TrialProcess> process;
    try {
      try {
        process = launcher_.launch(*spec);
      } catch (const DescriptorShortage& e) {
        on_shortage(std::string("starting a trial: ") + e.what());
        process = launcher_.launch(*spec);  // with the pending connections' descriptors
      }
    } catch (const DescriptorShortage& e) {
      // Not the trial's failure: it starts later, first in the queue.
      waiting_.push_front(trial);
      queued_[trial] = true;
      launch_at_ = std::chrono::steady_clock::now() + kShortagePause;
      return;
    } catch (const std::runtime_error& e) {
      failed(trial, e.what());
      continue;
    }
    const long pid = process->pid();
    if (!token.empty()) tokens_[token] = trial;
    Live& live =
        live_
            .emplace(trial,
                     Live{std::move(process), token, {}, false, false, {}, {}, {}, take_slot()})
            .first->second;
    if (live.process->handle().empty()) live.heard = std::chrono::steady_clock::now();
    live_order_.push_back(trial);
    started(trial, pid);
  }
}

void Supervisor::adopt(std::uint32_t trial, std::unique_ptr<TrialProcess> process,
                       const std::string& token) {
  if (live_.contains(trial)) return;
  if (!token.empty()) tokens_[token] = trial;
  live_.emplace(trial, Live{std::move(process), token, {}, false, false, {}, {}, {}, take_slot()});
  live_order_.push_back(trial);
}

std::uint64_t Supervisor::take_slot() {
  if (free_slots_.empty()) return next_slot_++;
  const std::uint64_t slot = free_slots_.top();
  free_slots_.pop();
  return slot;
}

std::vector<std::uint32_t> Supervisor::silent(std::chrono::steady_clock::duration limit,
                                              std::chrono::steady_clock::time_point now) const {
  std::vector<std::uint32_t> found;
  for (const std::uint32_t trial : live_order_) {
    const Live& live = live_.at(trial);
    if (live.heard && now - *live.heard > limit) found.push_back(trial);
  }
  return found;
}

std::optional<std::chrono::steady_clock::time_point> Supervisor::next_silence(
    std::chrono::steady_clock::duration limit) const {
  std::optional<std::chrono::steady_clock::time_point> next;
  for (const auto& [trial, live] : live_) {
    if (live.heard && (!next || *live.heard + limit < *next)) next = *live.heard + limit;
  }
  return next;
}

bool Supervisor::send(std::uint32_t trial, const std::string& line) {
  const auto it = live_.find(trial);
  if (it == live_.end()) return false;
  it->second.commands += line;
  bool taken = it->second.process->send(line);
  for (Connection& c : it->second.connections) {
    c.out += line;
    flush(c);
    taken = true;
  }
  return taken || channel_ != nullptr;  // a process may still connect and get it
}

void Supervisor::reply(std::uint32_t trial, const std::string& line) {
  const auto it = live_.find(trial);
  if (it == live_.end()) return;
  for (Connection& c : it->second.connections) {
    c.out += line;
    flush(c);
  }
}

void Supervisor::flush(Connection& c) {
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        c.out.clear();  // gone: the read side notices
      return;
    }
    c.out.erase(0, static_cast<std::size_t>(n));
  }
}

void Supervisor::terminate(std::uint32_t trial, bool force) {
  if (const auto it = live_.find(trial); it != live_.end()) it->second.process->terminate(force);
}

void Supervisor::wait(int timeout_ms, int wake_fd) {
  const auto now = std::chrono::steady_clock::now();
  // Not past the next hello deadline, nor the end of a shortage's pause.
  std::optional<std::chrono::steady_clock::time_point> until;
  if (!pending_.empty()) until = pending_.front().accepted + kHelloTimeout;
  for (const auto at : {accept_at_, launch_at_}) {
    if (at > now && (!until || at < *until)) until = at;
  }
  if (until) {
    const long long left = std::max<long long>(
        0, std::chrono::ceil<std::chrono::milliseconds>(*until - now).count() + 1);
    if (timeout_ms < 0 || left < timeout_ms) timeout_ms = static_cast<int>(left);
  }
  std::vector<pollfd> fds{{wake_fd, POLLIN, 0}};
  const bool listening = channel_ != nullptr && now >= accept_at_;
  if (listening) fds.push_back({channel_->listen_fd(), POLLIN, 0});
  for (const Connection& c : pending_) fds.push_back({c.fd, POLLIN, 0});
  const std::size_t first_live = fds.size();
  for (const std::uint32_t trial : live_order_) {
    const Live& live = live_.at(trial);
    if (live.process->report_fd() >= 0) fds.push_back({live.process->report_fd(), POLLIN, 0});
    for (const Connection& c : live.connections) {
      fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
    }
  }
  const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  if (ready < 0 && errno != EINTR) throw RunnerError(std::string("poll: ") + std::strerror(errno));
  readable_ = ready > 0;
  woken_ = readable_ && fds[0].revents != 0;
  connecting_ = readable_ && listening && fds[1].revents != 0;
  // Which trials deliver() reads: those with something ready (one read of each quiet pipe per
  // batch would be a system call per trial in flight, for nothing). In the order pushed above.
  std::size_t k = first_live;
  for (const std::uint32_t trial : live_order_) {
    Live& live = live_.at(trial);
    const std::size_t end = k + (live.process->report_fd() >= 0 ? 1 : 0) + live.connections.size();
    live.ready = false;
    for (; k < end; ++k) live.ready = live.ready || (readable_ && fds[k].revents != 0);
  }
}

void Supervisor::deliver() {
  if (readable_) {
    // Only when the channel has a connection waiting: an accept that finds none is a system
    // call in every batch (a trial's exit takes in late connections itself: reap).
    if (connecting_) accept_connections();
    read_pending();
    for (std::size_t k = 0; k < live_order_.size(); ++k) {
      if (live_.at(live_order_[k]).ready) read_reports(live_order_[k]);
    }
  }
  readable_ = false;
  expire_pending(std::chrono::steady_clock::now());
  reap();
}

void Supervisor::accept_connections() {
  if (channel_ == nullptr) return;
  while (std::chrono::steady_clock::now() >= accept_at_) {
    const int fd = channel_->accept();
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (const int error = errno; is_descriptor_shortage(error)) {
        on_shortage(std::string("accepting a trial's connection: ") + std::strerror(error));
      }
      return;  // EAGAIN: none left waiting
    }
    if (pending_.size() >= kMaxPending) {
      read_pending();
      if (pending_.size() >= kMaxPending) {
        notice_once(told_pending_, std::to_string(kMaxPending) +
                                       " channel connections are waiting for their hello: "
                                       "closing the oldest as new ones come (said once)");
        drop_pending(0);
      }
    }
    pending_.push_back(Connection{fd, {}, {}, false, std::chrono::steady_clock::now()});
  }
}

void Supervisor::drop_pending(std::size_t index) {
  ::close(pending_[index].fd);
  pending_.erase(pending_.begin() + static_cast<long>(index));
}

void Supervisor::expire_pending(std::chrono::steady_clock::time_point now) {
  // Accepted in order, so the overdue ones are at the front.
  std::size_t overdue = 0;
  while (overdue < pending_.size() && now - pending_[overdue].accepted >= kHelloTimeout) {
    ::close(pending_[overdue].fd);
    ++overdue;
  }
  if (overdue == 0) return;
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(overdue));
  notice_once(told_timeout_, "closed a channel connection that sent no hello within " +
                                 std::to_string(kHelloTimeout.count()) +
                                 " s (said once; later ones are closed silently)");
}

void Supervisor::on_shortage(const std::string& what) {
  read_pending();  // hellos already sent are taken in first
  for (Connection& c : pending_) ::close(c.fd);
  pending_.clear();
  accept_at_ = std::chrono::steady_clock::now() + kShortagePause;
  notice_once(told_shortage_,
              "out of file descriptors (" + what +
                  "): closed the channel connections still waiting for their hello; accepting "
                  "(and launching, if a launch still cannot start) pauses " +
                  std::to_string(kShortagePause.count()) +
                  " ms at a time; a trial that cannot start waits, no restart is counted (said "
                  "once)");
}

void Supervisor::notice_once(bool& told, const std::string& text) {
  if (told) return;
  told = true;
  listener_.on_notice(text);
}

// A new connection's first line must be a hello with the token of a running launch.
void Supervisor::read_pending() {
  for (std::size_t k = 0; k < pending_.size();) {
    Connection& c = pending_[k];
    const bool open = receive(c);
    const std::size_t newline = c.in.find('\n');
    std::optional<std::string> hello;
    if (newline != std::string::npos) {
      hello = c.in.substr(0, newline);
      c.in.erase(0, newline + 1);
    }
    if (!hello) {
      if (!open || c.in.size() > kMaxHello) {
        ::close(c.fd);
        pending_.erase(pending_.begin() + static_cast<long>(k));
      } else {
        ++k;
      }
      continue;
    }
    std::optional<std::uint32_t> trial;
    try {
      const nlohmann::json j = parse_json(*hello);
      if (j.value("type", "") == "hello" && j.contains("token") && j.at("token").is_string()) {
        if (const auto it = tokens_.find(j.at("token").get<std::string>()); it != tokens_.end())
          trial = it->second;
      }
    } catch (const nlohmann::json::exception&) {}
    Connection moved = std::move(c);
    pending_.erase(pending_.begin() + static_cast<long>(k));
    if (trial && live_.at(*trial).connections.size() >= kMaxConnectionsPerTrial) {
      notice_once(told_per_trial_, "refused a connection of a trial that has " +
                                       std::to_string(kMaxConnectionsPerTrial) +
                                       " already (the limit per trial; said once)");
      const std::string refusal = "{\"error\":\"this trial has " +
                                  std::to_string(kMaxConnectionsPerTrial) +
                                  " connections already (the limit)\"}\n";
      (void)!::send(moved.fd, refusal.data(), refusal.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(moved.fd);
      continue;
    }
    if (!trial) {
      const std::string refusal =
          "{\"error\":\"the first line must be {\\\"type\\\":\\\"hello\\\",\\\"token\\\":T} "
          "with the token of a running trial (HPSEARCH_TRIAL_TOKEN)\"}\n";
      (void)!::send(moved.fd, refusal.data(), refusal.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      listener_.on_refused(peer_name(moved.fd));
      ::close(moved.fd);
      continue;
    }
    // Lines that came with the hello are the trial's first reports.
    std::string rest = std::move(moved.in);
    moved.in.clear();
    moved.out = live_.at(*trial).commands;
    flush(moved);
    live_.at(*trial).connections.push_back(std::move(moved));
    live_.at(*trial).heard = std::chrono::steady_clock::now();
    for (std::size_t end; (end = rest.find('\n')) != std::string::npos;) {
      listener_.on_report(*trial, rest.substr(0, end));
      rest.erase(0, end + 1);
    }
    live_.at(*trial).connections.back().in = std::move(rest);
  }
}

bool Supervisor::receive(Connection& c) {
  flush(c);
  char chunk[65536];
  while (true) {
    const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      c.in.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN ||
                     errno == EWOULDBLOCK);  // else end of stream, or an error that ends it
  }
}

bool Supervisor::read_connection(Connection& c, const std::function<void(const std::string&)>& line,
                                 const std::function<void(const std::string&)>& oversized) {
  const bool open = receive(c);
  std::size_t newline;
  while ((newline = c.in.find('\n')) != std::string::npos) {
    const std::string text = c.in.substr(0, newline);
    c.in.erase(0, newline + 1);
    line(text);
  }
  if (c.in.size() > kMaxReportLine && !c.oversized) {
    c.oversized = true;
    oversized(c.in.substr(0, 200));
  }
  return open;
}

void Supervisor::read_reports(std::uint32_t trial) {
  const auto deliver_line = [&](const std::string& text) {
    live_.at(trial).heard =
        std::chrono::steady_clock::now();  // any line is talking, even a bad one
    listener_.on_report(trial, text);
  };
  const auto too_long = [&](const std::string& head) {
    listener_.on_oversized_report(trial, head);
  };
  {
    Live& live = live_.at(trial);
    const bool open = live.process->read_reports(live.buffer);
    std::size_t newline;
    while ((newline = live.buffer.find('\n')) != std::string::npos) {
      const std::string text = live.buffer.substr(0, newline);
      live.buffer.erase(0, newline + 1);
      deliver_line(text);
    }
    if (live.buffer.size() > kMaxReportLine && !live.oversized) {
      live.oversized = true;
      too_long(live.buffer.substr(0, 200));
    }
    if (!open) live.report_eof = true;
  }
  // The listener may send to this trial while we read (appending to a connection's outbox);
  // it never adds or removes connections, so references stay valid.
  std::vector<Connection>& connections = live_.at(trial).connections;
  for (std::size_t k = 0; k < connections.size();) {
    if (read_connection(connections[k], deliver_line, too_long)) {
      ++k;
    } else {
      ::close(connections[k].fd);
      connections.erase(connections.begin() + static_cast<long>(k));
    }
  }
}

void Supervisor::reap() {
  const bool ask_all = !watching_children_ || child_exited_;
  child_exited_ = false;
  for (std::size_t k = 0; k < live_order_.size();) {
    const std::uint32_t trial = live_order_[k];
    Live& live = live_.at(trial);
    if (!ask_all && !live.report_eof && live.process->ends_with_sigchld()) {
      ++k;  // no SIGCHLD since it was last asked: still running
      continue;
    }
    const std::optional<ExitStatus> status = live.process->poll_exit();
    if (status) {
      // A connection its tree made before exiting may still wait in the channel's backlog, or
      // for its hello to be read: take those in first, or what it sent on them is lost (a
      // trial that connected, reported invalid_hp and exited at once looked like a plain exit).
      accept_connections();
      read_pending();
    }
    if (status && !live.report_eof) read_reports(trial);  // drain what it wrote before exiting
    if (!status || !live_.at(trial).report_eof) {
      ++k;
      continue;
    }
    // Its whole tree is gone, so what its connections hold is complete: read it, close them.
    read_reports(trial);
    Live ended = std::move(live_.at(trial));
    for (Connection& c : ended.connections) ::close(c.fd);
    if (!ended.token.empty()) tokens_.erase(ended.token);
    release_slot(ended.slot);
    live_order_.erase(live_order_.begin() + static_cast<long>(k));
    live_.erase(trial);
    listener_.on_exited(trial, *status);
  }
}

}  // namespace hpsearch
