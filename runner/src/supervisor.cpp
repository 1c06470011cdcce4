#include "hpsearch/runner/supervisor.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "hpsearch/runner/experiment.hpp"

namespace hpsearch {

void Supervisor::enqueue(std::uint32_t trial) {
  if (live_.contains(trial) || queued_[trial]) return;
  queued_[trial] = true;
  waiting_.push_back(trial);
}

void Supervisor::launch_waiting(const std::function<std::optional<LaunchSpec>(std::uint32_t)>& prepare,
                                const std::function<void(std::uint32_t, long)>& started,
                                const std::function<void(std::uint32_t, const std::string&)>& failed) {
  while (live_order_.size() < slots_ && !waiting_.empty()) {
    const std::uint32_t trial = waiting_.front();
    waiting_.pop_front();
    queued_.erase(trial);
    if (live_.contains(trial)) continue;
    const std::optional<LaunchSpec> spec = prepare(trial);
    if (!spec) continue;
    std::unique_ptr<TrialProcess> process;
    try {
      process = launcher_.launch(*spec);
    } catch (const std::runtime_error& e) {
      failed(trial, e.what());
      continue;
    }
    const long pid = process->pid();
    live_.emplace(trial, Live{std::move(process), {}, false, false});
    live_order_.push_back(trial);
    started(trial, pid);
  }
}

bool Supervisor::send(std::uint32_t trial, const std::string& line) {
  const auto it = live_.find(trial);
  return it != live_.end() && it->second.process->send(line);
}

void Supervisor::terminate(std::uint32_t trial, bool force) {
  if (const auto it = live_.find(trial); it != live_.end()) it->second.process->terminate(force);
}

void Supervisor::wait(int timeout_ms, int wake_fd) {
  std::vector<pollfd> fds{{wake_fd, POLLIN, 0}};
  std::vector<std::uint32_t> owners{0};
  for (const std::uint32_t trial : live_order_) {
    const int fd = live_.at(trial).process->report_fd();
    if (fd >= 0) {
      fds.push_back({fd, POLLIN, 0});
      owners.push_back(trial);
    }
  }
  const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  if (ready < 0 && errno != EINTR) throw RunnerError(std::string("poll: ") + std::strerror(errno));
  ready_.clear();
  for (std::size_t k = 1; k < fds.size(); ++k) {
    if (ready > 0 && fds[k].revents != 0) ready_.push_back(owners[k]);
  }
}

void Supervisor::deliver() {
  for (const std::uint32_t trial : ready_) {
    if (live_.contains(trial)) read_reports(trial);
  }
  ready_.clear();
  reap();
}

void Supervisor::read_reports(std::uint32_t trial) {
  Live& live = live_.at(trial);
  const bool open = live.process->read_reports(live.buffer);
  std::size_t newline;
  while ((newline = live.buffer.find('\n')) != std::string::npos) {
    const std::string line = live.buffer.substr(0, newline);
    live.buffer.erase(0, newline + 1);
    listener_.on_report(trial, line);
  }
  if (live.buffer.size() > kMaxReportLine && !live.oversized) {
    live.oversized = true;
    listener_.on_oversized_report(trial, live.buffer.substr(0, 200));
  }
  if (!open) live.report_eof = true;
}

void Supervisor::reap() {
  for (std::size_t k = 0; k < live_order_.size();) {
    const std::uint32_t trial = live_order_[k];
    Live& live = live_.at(trial);
    const std::optional<ExitStatus> status = live.process->poll_exit();
    if (status && !live.report_eof) read_reports(trial);  // drain what it wrote before exiting
    if (!status || !live.report_eof) {
      ++k;
      continue;
    }
    live_order_.erase(live_order_.begin() + static_cast<long>(k));
    live_.erase(trial);
    listener_.on_exited(trial, *status);
  }
}

}  // namespace hpsearch
