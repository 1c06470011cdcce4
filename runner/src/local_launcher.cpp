#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hpsearch/runner/launcher.hpp"

extern char** environ;

namespace hpsearch {
namespace {

constexpr int kCommandFd = 3;  // the trial reads commands here
constexpr int kReportFd = 4;   // and writes reports here

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// A descriptor that closes itself.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  [[nodiscard]] int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

class LocalProcess final : public TrialProcess {
 public:
  LocalProcess(pid_t pid, Fd command, Fd report)
      : pid_(pid), command_(std::move(command)), report_(std::move(report)) {}
  ~LocalProcess() override {
    if (!status_) {
      terminate(true);
      int raw = 0;
      ::waitpid(pid_, &raw, 0);
    }
  }
  LocalProcess(const LocalProcess&) = delete;
  LocalProcess& operator=(const LocalProcess&) = delete;

  bool send(const std::string& line) override {
    if (command_.get() < 0) return false;
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(command_.get(), line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {  // EPIPE: the trial has closed its end
        command_.reset();
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  int report_fd() const override { return report_.get(); }

  bool read_reports(std::string& buffer) override {
    if (report_.get() < 0) return false;
    char chunk[65536];
    while (true) {
      const ssize_t n = ::read(report_.get(), chunk, sizeof chunk);
      if (n > 0) {
        buffer.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      report_.reset();  // end of stream, or an error that ends it
      return false;
    }
  }

  std::optional<ExitStatus> poll_exit() override {
    if (status_) return status_;
    int raw = 0;
    const pid_t done = ::waitpid(pid_, &raw, WNOHANG);
    if (done != pid_) return std::nullopt;
    ExitStatus status;
    if (WIFEXITED(raw)) status.code = WEXITSTATUS(raw);
    if (WIFSIGNALED(raw)) status.signal = WTERMSIG(raw);
    status_ = status;
    command_.reset();
    return status_;
  }

  void terminate(bool force) override {
    if (!status_) ::kill(-pid_, force ? SIGKILL : SIGTERM);
  }

  long pid() const override { return pid_; }

 private:
  pid_t pid_;
  Fd command_;
  Fd report_;
  std::optional<ExitStatus> status_;
};

class LocalLauncher final : public Launcher {
 public:
  std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) override {
    // Everything the child needs is prepared before fork: after it, only async-signal-safe
    // calls are allowed.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const std::string name = entry.substr(0, entry.find('='));
      if (!spec.environment.contains(name)) env_strings.push_back(entry);
    }
    for (const auto& [name, value] : spec.environment) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string shell = "/bin/sh";
    std::string dash_c = "-c";
    std::string command = spec.command;
    char* argv[] = {shell.data(), dash_c.data(), command.data(), nullptr};
    const std::string directory = spec.working_directory.string();

    int command_pipe[2];
    int report_pipe[2];
    int error_pipe[2];
    if (::pipe2(command_pipe, O_CLOEXEC) != 0) throw system_error("pipe");
    Fd command_read(command_pipe[0]), command_write(command_pipe[1]);
    if (::pipe2(report_pipe, O_CLOEXEC) != 0) throw system_error("pipe");
    Fd report_read(report_pipe[0]), report_write(report_pipe[1]);
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) throw system_error("pipe");
    Fd error_read(error_pipe[0]), error_write(error_pipe[1]);
    Fd log(::open(spec.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (log.get() < 0) throw system_error("cannot open the log '" + spec.log.string() + "'");
    Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const pid_t parent = ::getpid();

    const pid_t pid = ::fork();
    if (pid < 0) throw system_error("fork");
    if (pid == 0) {
      // The child. Move the descriptors out of the way first, so that dup2 onto 0..4 never
      // meets one of them; dup2 clears close-on-exec on its targets.
      const auto fail = [&](int error) {
        (void)!::write(error_write.get(), &error, sizeof error);
        ::_exit(127);
      };
      ::setpgid(0, 0);
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
      const int fds[] = {null_in.get(), log.get(), command_read.get(), report_write.get()};
      int high[4];
      for (int i = 0; i < 4; ++i) {
        high[i] = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
        if (high[i] < 0) fail(errno);
      }
      if (::dup2(high[0], 0) < 0 || ::dup2(high[1], 1) < 0 || ::dup2(high[1], 2) < 0 ||
          ::dup2(high[2], kCommandFd) < 0 || ::dup2(high[3], kReportFd) < 0) {
        fail(errno);
      }
      ::signal(SIGPIPE, SIG_DFL);
      if (::chdir(directory.c_str()) != 0) fail(errno);
      ::execve(argv[0], argv, envp.data());
      fail(errno);
    }
    error_write.reset();
    int error = 0;
    ssize_t n;
    do {
      n = ::read(error_read.get(), &error, sizeof error);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof error)) {
      int raw = 0;
      ::waitpid(pid, &raw, 0);
      errno = error;
      throw system_error("cannot start '" + spec.command + "' in '" + directory + "'");
    }
    ::fcntl(report_read.get(), F_SETFL, O_NONBLOCK);
    return std::make_unique<LocalProcess>(pid, std::move(command_write), std::move(report_read));
  }
};

}  // namespace

std::string ExitStatus::describe() const {
  if (signal != 0) {
    std::string text = "killed by signal " + std::to_string(signal);
    if (const char* name = ::sigabbrev_np(signal)) {
      text += " (SIG";
      text += name;
      text += ")";
    }
    return text;
  }
  return "exit code " + std::to_string(code);
}

std::unique_ptr<Launcher> make_local_launcher() { return std::make_unique<LocalLauncher>(); }

}  // namespace hpsearch
