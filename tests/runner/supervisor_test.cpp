// The process supervisor in-process, with a fake Launcher: slots and FIFO order, whole report
// lines in order, exits delivered after the reports, launch failures and skipped launches.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hpsearch/runner/supervisor.hpp"

namespace {
using namespace hpsearch;

// A trial process the test drives by hand: its reports are written into a real pipe (so that
// poll() sees them), its exit is set by the test.
struct FakeState {
  int write_fd = -1;
  std::vector<std::string> received;  // command lines
  std::optional<ExitStatus> exit;
  int terminated = 0;  // 1 asked, 2 forced
  std::string handle;  // a cluster job's id; empty for a local process
  bool child = false;  // its end comes as SIGCHLD (a local process)
  int exit_polls = 0;  // poll_exit calls
};

class FakeProcess final : public TrialProcess {
 public:
  FakeProcess(FakeState& state, long pid) : state_(state), pid_(pid) {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
    read_fd_ = fds[0];
    state_.write_fd = fds[1];
  }
  ~FakeProcess() override {
    if (read_fd_ >= 0) ::close(read_fd_);
  }
  FakeProcess(const FakeProcess&) = delete;
  FakeProcess& operator=(const FakeProcess&) = delete;
  bool send(const std::string& line) override {
    state_.received.push_back(line);
    return !state_.exit.has_value();
  }
  int report_fd() const override { return read_fd_; }
  bool read_reports(std::string& buffer) override {
    char chunk[4096];
    while (true) {
      const ssize_t n = ::read(read_fd_, chunk, sizeof chunk);
      if (n > 0) {
        buffer.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0) return true;  // EAGAIN: nothing more for now
      ::close(read_fd_);
      read_fd_ = -1;
      return false;
    }
  }
  std::optional<ExitStatus> poll_exit() override {
    ++state_.exit_polls;
    return state_.exit;
  }
  bool ends_with_sigchld() const override { return state_.child; }
  void terminate(bool force) override { state_.terminated = force ? 2 : 1; }
  long pid() const override { return pid_; }
  std::string handle() const override { return state_.handle; }

 private:
  FakeState& state_;
  long pid_;
  int read_fd_ = -1;
};

class FakeLauncher final : public Launcher {
 public:
  std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) override {
    ++attempts;
    if (short_of_descriptors > 0) {
      --short_of_descriptors;
      throw DescriptorShortage("pipe: Too many open files");
    }
    if (spec.command == "fail") throw std::runtime_error("cannot start 'fail'");
    commands.push_back(spec.command);
    const long pid = 100 + static_cast<long>(commands.size());
    environments[pid] = spec.environment;
    if (spec.command.ends_with(" job")) states[pid].handle = "job " + std::to_string(pid);
    return std::make_unique<FakeProcess>(states[pid], pid);
  }
  std::size_t kill_leftovers(const std::string&) override { return 0; }
  std::map<long, std::map<std::string, std::string>> environments;
  std::vector<std::string> commands;
  std::map<long, FakeState> states;
  int short_of_descriptors = 0;  // the next launches that fail with EMFILE
  int attempts = 0;
};

struct Recorder final : SupervisorListener {
  void on_report(std::uint32_t trial, const std::string& line) override {
    events.push_back("report " + std::to_string(trial) + " " + line);
  }
  void on_oversized_report(std::uint32_t trial, const std::string& head) override {
    events.push_back("oversized " + std::to_string(trial) + " " + head.substr(0, 3));
  }
  void on_exited(std::uint32_t trial, const ExitStatus& status) override {
    events.push_back("exited " + std::to_string(trial) + " " + status.describe());
  }
  void on_refused(const std::string& who) override { refused.push_back(who); }
  void on_notice(const std::string& text) override { notices.push_back(text); }
  std::vector<std::string> notices;
  std::vector<std::string> events;
  std::vector<std::string> refused;
};

void write(FakeState& state, const std::string& text) {
  REQUIRE(::write(state.write_fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
}

void end(FakeState& state, int code) {
  ::close(state.write_fd);
  state.exit = ExitStatus{};
  state.exit->code = code;
}

struct Fixture {
  explicit Fixture(std::uint64_t slots, const TrialChannel* channel = nullptr)
      : supervisor(launcher, slots, recorder, channel) {}
  void launch() {
    supervisor.launch_waiting(
        [this](std::uint32_t trial) -> std::optional<LaunchSpec> {
          if (skip.contains(trial)) return std::nullopt;
          LaunchSpec spec;
          spec.command = trial == failing ? "fail"
                                          : "trial " + std::to_string(trial) +
                                                (jobs.contains(trial) ? " job" : "");
          return spec;
        },
        [this](std::uint32_t trial, long pid) { started[trial] = pid; },
        [this](std::uint32_t trial, const std::string& why) {
          failures.push_back(std::to_string(trial) + ": " + why);
        });
  }
  void step() {
    supervisor.wait(100, wake[0]);
    supervisor.deliver();
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  ~Fixture() {
    ::close(wake[0]);
    ::close(wake[1]);
  }
  FakeLauncher launcher;
  Recorder recorder;
  Supervisor supervisor;
  std::map<std::uint32_t, long> started;
  std::vector<std::string> failures;
  std::set<std::uint32_t> skip;
  std::set<std::uint32_t> jobs;  // launched as cluster jobs (with a handle)
  std::uint32_t failing = 999;
  int wake[2] = {-1, -1};
  bool pipe_ok = ::pipe(wake) == 0;
};

}  // namespace

TEST_CASE("supervisor: at most `slots` trials run, the rest wait in FIFO order") {
  Fixture f(2);
  for (const std::uint32_t trial : {7U, 3U, 5U, 3U}) f.supervisor.enqueue(trial);  // 3 twice: once
  f.launch();
  CHECK(f.launcher.commands == std::vector<std::string>{"trial 7", "trial 3"});
  CHECK(f.supervisor.running() == 2);
  CHECK(f.supervisor.waiting());
  end(f.launcher.states[f.started.at(7)], 0);
  f.step();
  CHECK(f.recorder.events == std::vector<std::string>{"exited 7 exit code 0"});
  CHECK(!f.supervisor.is_running(7));
  f.launch();
  CHECK(f.launcher.commands == std::vector<std::string>{"trial 7", "trial 3", "trial 5"});
  CHECK(!f.supervisor.waiting());
  CHECK(f.supervisor.running_trials() == std::vector<std::uint32_t>{3, 5});
}

TEST_CASE("supervisor: each running trial holds the lowest free slot until it exits") {
  Fixture f(3);
  for (const std::uint32_t trial : {4U, 8U, 6U, 2U, 9U}) f.supervisor.enqueue(trial);
  f.launch();  // 4, 8, 6 on slots 0, 1, 2 in launch order; 2 and 9 wait
  CHECK(f.supervisor.slot(4) == 0);
  CHECK(f.supervisor.slot(8) == 1);
  CHECK(f.supervisor.slot(6) == 2);
  end(f.launcher.states[f.started.at(8)], 0);
  f.step();
  f.launch();  // 2 takes the slot 8 freed
  CHECK(f.supervisor.slot(2) == 1);
  end(f.launcher.states[f.started.at(6)], 0);
  end(f.launcher.states[f.started.at(4)], 0);
  f.step();
  f.launch();  // slots 0 and 2 are free: 9 takes the lowest
  CHECK(f.supervisor.slot(9) == 0);
  CHECK(f.supervisor.running_trials() == std::vector<std::uint32_t>{2, 9});
}

TEST_CASE("supervisor: reports arrive as whole lines, in order, before the exit") {
  Fixture f(1);
  f.supervisor.enqueue(0);
  f.launch();
  FakeState& state = f.launcher.states[f.started.at(0)];
  write(state, "{\"a\":1}\n{\"b\"");
  f.step();
  CHECK(f.recorder.events == std::vector<std::string>{"report 0 {\"a\":1}"});
  write(state, ":2}\nlast\n");
  end(state, 3);  // exits with reports still unread: they come first
  f.step();
  CHECK(f.recorder.events == std::vector<std::string>{"report 0 {\"a\":1}", "report 0 {\"b\":2}",
                                                      "report 0 last", "exited 0 exit code 3"});
  CHECK(f.supervisor.running() == 0);
}

TEST_CASE("supervisor: told of SIGCHLD, it asks children whether they ended only after one") {
  Fixture f(2);
  f.supervisor.watch_child_signals();
  f.supervisor.enqueue(0);
  f.supervisor.enqueue(1);
  f.launch();
  FakeState& child = f.launcher.states[f.started.at(0)];
  FakeState& job = f.launcher.states[f.started.at(1)];
  child.child = true;
  f.step();  // the first batch asks everyone (an exit may have come before the watch began)
  CHECK(child.exit_polls == 1);
  CHECK(job.exit_polls == 1);
  write(child, "{\"a\":1}\n");
  f.step();
  f.step();
  CHECK(child.exit_polls == 1);  // reports, but no SIGCHLD: not asked
  CHECK(job.exit_polls == 3);    // a job is polled every batch
  child.exit = ExitStatus{};     // it ended, its pipe still open: unseen until the signal
  f.step();
  CHECK(f.supervisor.is_running(0));
  f.supervisor.child_exited();
  f.step();
  CHECK(child.exit_polls == 2);
  CHECK(f.recorder.events == std::vector<std::string>{"report 0 {\"a\":1}"});
  CHECK(f.supervisor.is_running(0));  // ended, reports not yet: waits for their end
  ::close(child.write_fd);            // its reports end: asked again without a signal, and gone
  f.step();
  CHECK(child.exit_polls == 3);
  CHECK(!f.supervisor.is_running(0));
  CHECK(f.recorder.events ==
        std::vector<std::string>{"report 0 {\"a\":1}", "exited 0 exit code 0"});
}

TEST_CASE("supervisor: commands and termination reach the right trial") {
  Fixture f(2);
  f.supervisor.enqueue(1);
  f.supervisor.enqueue(2);
  f.launch();
  CHECK(f.supervisor.send(2, "{\"op\":\"close\"}\n"));
  CHECK(!f.supervisor.send(9, "x\n"));  // not running
  f.supervisor.terminate(1, true);
  CHECK(f.launcher.states[f.started.at(2)].received ==
        std::vector<std::string>{"{\"op\":\"close\"}\n"});
  CHECK(f.launcher.states[f.started.at(1)].received.empty());
  CHECK(f.launcher.states[f.started.at(1)].terminated == 2);
  CHECK(f.launcher.states[f.started.at(2)].terminated == 0);
}

TEST_CASE("supervisor: a line longer than the limit is reported once") {
  Fixture f(1);
  f.supervisor.enqueue(0);
  f.launch();
  FakeState& state = f.launcher.states[f.started.at(0)];
  const std::string chunk(64 * 1024, 'x');
  for (std::size_t written = 0; written <= Supervisor::kMaxReportLine; written += chunk.size()) {
    write(state, chunk);
    f.step();
  }
  write(state, chunk);
  f.step();
  CHECK(f.recorder.events == std::vector<std::string>{"oversized 0 xxx"});
}

TEST_CASE("supervisor: skipped and failed launches take no slot") {
  Fixture f(1);
  f.skip = {0};
  f.failing = 1;
  for (const std::uint32_t trial : {0U, 1U, 2U}) f.supervisor.enqueue(trial);
  f.launch();
  CHECK(f.failures == std::vector<std::string>{"1: cannot start 'fail'"});
  CHECK(f.launcher.commands == std::vector<std::string>{"trial 2"});
  CHECK(f.supervisor.running_trials() == std::vector<std::uint32_t>{2});
  CHECK(!f.supervisor.waiting());
}

namespace {

// Connects to a channel address "unix:/path" and sends `text`.
int connect_and_send(const std::string& address, const std::string& text) {
  REQUIRE(address.rfind("unix:/", 0) == 0);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un where{};
  where.sun_family = AF_UNIX;
  std::strcpy(where.sun_path, address.c_str() + 5);
  REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0);
  REQUIRE(::send(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
  return fd;
}

std::string receive(int fd) {
  char buffer[4096];
  const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

TEST_CASE("supervisor: trials connect with their own token, others are refused") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hpsearch-supervisor-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    const TrialChannel channel(dir / "channel.sock");
    CHECK(channel.address() == "unix:" + (dir / "channel.sock").string());
    Fixture f(2, &channel);
    f.supervisor.enqueue(0);
    f.supervisor.enqueue(1);
    f.launch();
    const auto& env0 = f.launcher.environments.at(f.started.at(0));
    const auto& env1 = f.launcher.environments.at(f.started.at(1));
    CHECK(env0.at("HPSEARCH_CHANNEL") == channel.address());
    CHECK(env0.at("HPSEARCH_TRIAL_TOKEN").size() == 32);
    CHECK(env0.at("HPSEARCH_TRIAL_TOKEN") != env1.at("HPSEARCH_TRIAL_TOKEN"));

    // Two processes of trial 1 and a stranger.
    const int a = connect_and_send(channel.address(), "{\"type\":\"hello\",\"token\":\"" +
                                                          env1.at("HPSEARCH_TRIAL_TOKEN") +
                                                          "\",\"rank\":0}\nfirst\n");
    const int b = connect_and_send(
        channel.address(),
        "{\"type\":\"hello\",\"token\":\"" + env1.at("HPSEARCH_TRIAL_TOKEN") + "\",\"rank\":1}\n");
    const int stranger =
        connect_and_send(channel.address(), "{\"type\":\"hello\",\"token\":\"0123\"}\nsneaky\n");
    for (int k = 0; k < 5; ++k) f.step();
    std::string seen;
    for (const auto& e : f.recorder.events) seen += e + "|";
    INFO(seen);
    CHECK(f.recorder.events == std::vector<std::string>{"report 1 first"});
    CHECK(receive(stranger).find("\"error\"") != std::string::npos);
    CHECK(receive(stranger).empty());  // closed

    // Commands reach every connection of the trial; reports from any of them are its own.
    CHECK(f.supervisor.send(1, "{\"op\":\"pause\"}\n"));
    CHECK(receive(a) == "{\"op\":\"pause\"}\n");
    CHECK(receive(b) == "{\"op\":\"pause\"}\n");
    const std::string late = "from b\n";
    REQUIRE(::send(b, late.data(), late.size(), 0) == static_cast<ssize_t>(late.size()));
    // It ends with that line unread: the line comes first, then the exit, and the
    // connections are closed.
    end(f.launcher.states[f.started.at(1)], 0);
    f.step();
    CHECK(f.recorder.events ==
          std::vector<std::string>{"report 1 first", "report 1 from b", "exited 1 exit code 0"});
    CHECK(receive(a).empty());
    for (const int fd : {a, b, stranger}) ::close(fd);
  }
  CHECK(!std::filesystem::exists(dir / "channel.sock"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("supervisor: a launch out of descriptors waits and starts later, never a failure") {
  Fixture f(1);
  f.launcher.short_of_descriptors = 3;
  f.supervisor.enqueue(0);
  f.supervisor.enqueue(1);
  f.launch();  // fails, and fails again at once: trial 0 waits at the head of the queue
  CHECK(f.launcher.attempts == 2);
  CHECK(f.started.empty());
  CHECK(f.failures.empty());
  CHECK(f.supervisor.waiting());
  f.launch();  // within the pause: not tried
  CHECK(f.launcher.attempts == 2);
  // The pause is a lower bound: sleeping longer can only make the test surer.
  std::this_thread::sleep_for(Supervisor::kShortagePause + std::chrono::milliseconds(200));
  f.launch();  // fails once more, then starts with the retry
  CHECK(f.launcher.attempts == 4);
  CHECK(f.started.size() == 1);
  CHECK(f.started.contains(0));  // trial 0 kept its place before trial 1
  CHECK(f.failures.empty());
  REQUIRE(f.recorder.notices.size() == 1);  // told once
  CHECK(f.recorder.notices[0].find("out of file descriptors") != std::string::npos);
  CHECK(f.recorder.notices[0].find("no restart is counted") != std::string::npos);
}

TEST_CASE("supervisor: the channel closes connections without a hello, and caps them") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hpsearch-supervisor-limits-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    const TrialChannel channel(dir / "channel.sock");
    Fixture f(1, &channel);
    f.supervisor.enqueue(0);
    f.launch();
    const std::string token =
        f.launcher.environments.at(f.started.at(0)).at("HPSEARCH_TRIAL_TOKEN");
    const auto closed = [](int fd) {  // without waiting: the peer has closed it
      char byte;
      return ::recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
    };

    // More idle connections than may wait for their hello: the oldest are closed first.
    std::vector<int> idle;
    for (std::size_t k = 0; k < Supervisor::kMaxPending + 10; ++k)
      idle.push_back(connect_and_send(channel.address(), ""));
    const auto before_accept = std::chrono::steady_clock::now();
    f.step();
    for (std::size_t k = 0; k < idle.size(); ++k) {
      INFO("connection " << k);
      CHECK(closed(idle[k]) == (k < 10));
    }
    REQUIRE(f.recorder.notices.size() == 1);
    CHECK(f.recorder.notices[0].find("waiting for their hello") != std::string::npos);

    // The rest are closed once the hello timeout has passed (steady clock; the bound below
    // is generous so that a loaded machine cannot fail it), and the trial is untouched.
    const auto start = std::chrono::steady_clock::now();
    while (!closed(idle.back()) &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
      f.step();
    }
    CHECK(std::chrono::steady_clock::now() - before_accept >= Supervisor::kHelloTimeout);
    for (const int fd : idle) CHECK(closed(fd));
    CHECK(f.recorder.notices.size() == 2);
    CHECK(f.recorder.events.empty());
    CHECK(f.supervisor.is_running(0));

    // A trial's connections after hello are capped too: one more is refused.
    const std::string hello = "{\"type\":\"hello\",\"token\":\"" + token + "\"}\n";
    std::vector<int> mine;
    for (std::size_t k = 0; k < Supervisor::kMaxConnectionsPerTrial; ++k) {
      mine.push_back(connect_and_send(channel.address(), hello));
      if (k % 32 == 31) f.step();  // within the pending cap
    }
    const int extra = connect_and_send(channel.address(), hello);
    for (int k = 0; k < 3; ++k) f.step();
    CHECK(receive(extra).find("connections already") != std::string::npos);
    CHECK(receive(extra).empty());
    for (const int fd : mine) CHECK(!closed(fd));
    for (const int fd : idle) ::close(fd);
    for (const int fd : mine) ::close(fd);
    ::close(extra);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "supervisor: a trial that connects, reports and exits before its connection is taken is heard "
    "first") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hpsearch-supervisor-quick-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    const TrialChannel channel(dir / "channel.sock");
    Fixture f(1, &channel);
    f.supervisor.enqueue(0);
    f.launch();
    const std::string token =
        f.launcher.environments.at(f.started.at(0)).at("HPSEARCH_TRIAL_TOKEN");
    // The whole trial happens between two of the runner's looks: it connects, reports and
    // exits, and the runner's next look sees the exit with the connection still in the backlog.
    const int fd = connect_and_send(channel.address(), "{\"type\":\"hello\",\"token\":\"" + token +
                                                           "\"}\n{\"type\":\"invalid_hp\"}\n");
    ::close(fd);
    end(f.launcher.states[f.started.at(0)], 0);
    f.supervisor.deliver();
    CHECK(f.recorder.events ==
          std::vector<std::string>{"report 0 {\"type\":\"invalid_hp\"}", "exited 0 exit code 0"});
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "supervisor: a trial that says nothing for the limit is silent, any line or connection is "
    "talking") {
  using namespace std::chrono;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hpsearch-supervisor-silence-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    const TrialChannel channel(dir / "channel.sock");
    Fixture f(3, &channel);
    f.jobs = {2};  // a cluster job may wait in a queue: timed from its first connection
    const auto before = steady_clock::now();
    for (const std::uint32_t trial : {0U, 1U, 2U}) f.supervisor.enqueue(trial);
    f.launch();
    const auto after = steady_clock::now();
    const auto limit = seconds(100);
    CHECK(f.supervisor.silent(limit, before + seconds(99)).empty());
    CHECK(f.supervisor.silent(limit, after + seconds(101)) == std::vector<std::uint32_t>{0, 1});
    const auto next = f.supervisor.next_silence(limit);
    REQUIRE(next.has_value());
    CHECK(*next >= before + limit);
    CHECK(*next <= after + limit);

    // Trial 1 writes a line (not even a report: still talking), the job connects.
    std::this_thread::sleep_for(milliseconds(50));
    const auto talked = steady_clock::now();
    write(f.launcher.states[f.started.at(1)], "not json\n");
    const int job = connect_and_send(
        channel.address(),
        "{\"type\":\"hello\",\"token\":\"" +
            f.launcher.environments.at(f.started.at(2)).at("HPSEARCH_TRIAL_TOKEN") + "\"}\n");
    for (int k = 0; k < 3; ++k) f.step();
    CHECK(f.recorder.events == std::vector<std::string>{"report 1 not json"});
    // At `after` + 100 s + 10 ms, trial 0 (launched before `after`) is past the limit, trials 1
    // and 2 (heard from after `talked`, 50 ms later) are not.
    CHECK(f.supervisor.silent(limit, after + limit + milliseconds(10)) ==
          std::vector<std::uint32_t>{0});
    CHECK(f.supervisor.silent(limit, talked + limit) == std::vector<std::uint32_t>{0});
    CHECK(f.supervisor.silent(limit, steady_clock::now() + limit + milliseconds(1)) ==
          std::vector<std::uint32_t>{0, 1, 2});
    ::close(job);
  }
  std::filesystem::remove_all(dir);
}

namespace {

// Connects to "tcp:HOST:PORT" and sends `text`.
int connect_tcp_and_send(const std::string& address, const std::string& text) {
  REQUIRE(address.rfind("tcp:127.0.0.1:", 0) == 0);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port =
      htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&where), sizeof where) == 0);
  REQUIRE(::send(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
  return fd;
}

}  // namespace

TEST_CASE("trial channel: HOST[:PORT] is parsed, or refused with the reason") {
  CHECK(parse_tcp_endpoint("node1").host == "node1");
  CHECK(parse_tcp_endpoint("node1").port == 0);
  CHECK(parse_tcp_endpoint("10.0.0.5:5555").host == "10.0.0.5");
  CHECK(parse_tcp_endpoint("10.0.0.5:5555").port == 5555);
  CHECK(parse_tcp_endpoint("[fe80::1]:80").host == "fe80::1");
  CHECK(parse_tcp_endpoint("[fe80::1]:80").port == 80);
  CHECK(parse_tcp_endpoint("fe80::1").host == "fe80::1");
  CHECK_THROWS_WITH_AS((void)parse_tcp_endpoint("node1:http"),
                       doctest::Contains("the port must be a number"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_tcp_endpoint("node1:70000"), doctest::Contains("0 to 65535"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_tcp_endpoint("node1:"), doctest::Contains("got ''"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_tcp_endpoint(":80"), doctest::Contains("no host"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_tcp_endpoint("[::1"), doctest::Contains("no closing"),
                       std::invalid_argument);
}

TEST_CASE(
    "supervisor: over TCP, a trial reports with its token, a forged hello is refused and told") {
  const TrialChannel channel(TcpEndpoint{"127.0.0.1", 0});
  REQUIRE(channel.address().rfind("tcp:127.0.0.1:", 0) == 0);
  CHECK(channel.address() != "tcp:127.0.0.1:0");  // the port bound, not the one asked for
  Fixture f(2, &channel);
  f.supervisor.enqueue(0);
  f.launch();
  const std::string token = f.launcher.environments.at(f.started.at(0)).at("HPSEARCH_TRIAL_TOKEN");
  // A process of an earlier run, taken back with the token its launch was given.
  auto adopted = std::make_unique<FakeProcess>(f.launcher.states[77], 77);
  f.supervisor.adopt(1, std::move(adopted), "feedfacefeedfacefeedfacefeedface");
  CHECK(f.supervisor.is_running(1));

  const int trial = connect_tcp_and_send(
      channel.address(), "{\"type\":\"hello\",\"token\":\"" + token + "\"}\nmine\n");
  const int old = connect_tcp_and_send(
      channel.address(),
      "{\"type\":\"hello\",\"token\":\"feedfacefeedfacefeedfacefeedface\"}\nback\n");
  // A forger knows the protocol but not a token; it claims to be trial 0.
  const int forger = connect_tcp_and_send(
      channel.address(), "{\"type\":\"hello\",\"token\":\"" + std::string(32, '0') +
                             "\"}\n{\"type\":\"validation\",\"length\":1}\n");
  for (int k = 0; k < 5; ++k) f.step();
  std::vector<std::string> events = f.recorder.events;
  std::sort(events.begin(), events.end());
  CHECK(events == std::vector<std::string>{"report 0 mine", "report 1 back"});
  CHECK(receive(forger).find("\"error\"") != std::string::npos);
  REQUIRE(f.recorder.refused.size() == 1);
  CHECK(f.recorder.refused[0].rfind("127.0.0.1:", 0) == 0);
  for (const int fd : {trial, old, forger, f.launcher.states[77].write_fd}) ::close(fd);
}
