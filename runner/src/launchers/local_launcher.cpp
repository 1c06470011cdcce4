// Local trials under a shepherd. The runner starts a shepherd per trial, a fresh image of its
// own program (/proc/self/exe, entered before main: enter_shepherd below) spawned with
// posix_spawn, and the shepherd forks and execs the trial. Spawned, not forked: a forked
// shepherd would share the runner's pages copy-on-write for the trial's whole life, so every
// launch would copy the runner's page tables and every page the runner then wrote would be
// copied again (measured in docs/PERFORMANCE.md), a cost that grows with the runner's memory.
// The shepherd is a child subreaper, so every process the trial leaves behind (a shell's
// background job, torchrun's workers) becomes its child; it kills the whole tree when the
// trial's main process exits, when the runner asks, or when its control pipe reaches end of
// file, which happens when the runner dies for any reason, SIGKILL included.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hpsearch/runner/launcher.hpp"
#include "launchers/launcher_table.hpp"

extern char** environ;

namespace hpsearch {
namespace {

constexpr int kCommandFd = 3;  // the trial reads commands here
constexpr int kReportFd = 4;   // and writes reports here
constexpr int kControlFd = 5;  // the shepherd reads the runner's requests here
constexpr int kStatusFd = 6;   // and writes what happened here

// The signals a shell sends the runner's whole process group (Ctrl-C) and the runner survives:
// blocked in a shepherd from its spawn until it has a process group of its own, so that one
// sent meanwhile cannot kill it (its handlers are the defaults until it blocks them itself).
constexpr int kSpawnBlocked[] = {SIGINT, SIGTERM};

// What the shepherd tells the runner: the trial's pid once it has exec'd, the errno if it
// could not, and its wait status when it has ended and its tree is gone.
struct StatusRecord {
  char kind = 0;  // 'P', 'E', 'S'
  int value = 0;
};

// Throws what failed with errno's text: a DescriptorShortage for EMFILE and ENFILE.
[[noreturn]] void throw_system_error(const std::string& what) {
  const int error = errno;
  const std::string text = what + ": " + std::strerror(error);
  if (is_descriptor_shortage(error)) throw DescriptorShortage(text);
  throw std::runtime_error(text);
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

bool write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads one status record; false at end of file (or on an error).
bool read_record(int fd, StatusRecord& record) {
  std::size_t done = 0;
  char* bytes = reinterpret_cast<char*>(&record);
  while (done < sizeof record) {
    const ssize_t n = ::read(fd, bytes + done, sizeof record - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Every process whose parent chain leads to `root`, from /proc.
std::vector<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(proc)) {
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      std::ifstream stat(std::string("/proc/") + entry->d_name + "/stat");
      std::string text;
      std::getline(stat, text);
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const std::size_t close = text.rfind(')');
      if (close == std::string::npos || close + 4 >= text.size()) continue;
      const long ppid = std::strtol(text.c_str() + close + 4, nullptr, 10);
      children.emplace(static_cast<pid_t>(ppid), static_cast<pid_t>(pid));
    }
    ::closedir(proc);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      found.push_back(it->second);
      frontier.push_back(it->second);
    }
  }
  return found;
}

void pause_briefly() {
  const timespec delay{0, 10'000'000};
  ::nanosleep(&delay, nullptr);
}

// ---- the shepherd (its own process image, never returns) ----------------------------------

class Shepherd {
 public:
  explicit Shepherd(pid_t trial) : trial_(trial) {}

  [[noreturn]] void run(int signal_fd) {
    while (true) {
      pollfd fds[2] = {{kControlFd, POLLIN, 0}, {signal_fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) finish();
      if (fds[0].revents != 0) {
        char request = 0;
        const ssize_t n = ::read(kControlFd, &request, 1);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
          kill_tree();  // the runner is gone: nobody will ever read our status
          ::_exit(0);
        }
        if (n == 1 && request == 'K') kill_tree();
        if (n == 1 && request == 'T') signal_tree(SIGTERM);
      }
      if (fds[1].revents != 0) {
        signalfd_siginfo info{};
        while (::read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
          if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGHUP) kill_tree();
        }
        reap();
        if (trial_status_) finish();
      }
    }
  }

 private:
  void reap() {
    int raw = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &raw, WNOHANG)) > 0) {
      if (pid == trial_) trial_status_ = raw;
    }
  }

  void signal_tree(int signal) {
    for (const pid_t pid : descendants(::getpid())) ::kill(pid, signal);
  }

  // SIGKILL every descendant until none is left; orphans come to us (we are a subreaper), so
  // a tree torn from the top is finished on the next pass.
  void kill_tree() {
    while (true) {
      const std::vector<pid_t> pids = descendants(::getpid());
      for (const pid_t pid : pids) ::kill(pid, SIGKILL);
      reap();
      if (pids.empty()) return;
      pause_briefly();
    }
  }

  [[noreturn]] void finish() {
    kill_tree();  // the main process has ended: nothing of the trial may outlive it
    const StatusRecord record{'S', trial_status_.value_or(SIGKILL)};
    (void)write_all(kStatusFd, &record, sizeof record);
    ::_exit(0);
  }

  pid_t trial_;
  std::optional<int> trial_status_;
};

// In the shepherd: starts the trial and watches it. `fds` are the descriptors it inherited, in
// the order of descriptors 0..6 of the layout above.
// `unblock` holds bit 1 << S for each signal S of kSpawnBlocked the runner had not blocked.
[[noreturn]] void shepherd_main(pid_t runner, const int (&fds)[7], char* const* argv,
                                char* const* envp, const char* directory, unsigned long unblock) {
  // Already out of the runner's process group (posix_spawn put it in its own before the exec).
  // Until the trial is forked, nothing is ours to clean up, so the runner's death simply ends
  // us (SIGKILL, sent as it dies). Set first, then checked: a runner that died before the
  // prctl sends nothing, but is no longer our parent.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 ||
      ::getppid() != runner) {
    ::_exit(127);
  }
  // A setup step that fails tells the runner its errno (EMFILE above all: we hold a copy of
  // every descriptor of the runner, so its shortage is ours).
  const auto fail = [](int status_fd) {
    const StatusRecord failed{'E', errno};
    (void)write_all(status_fd, &failed, sizeof failed);
    ::_exit(127);
  };
  // Descriptors 0..6 as the layout says, everything else closed: the runner's other pipes
  // (another trial's control pipe above all) must not stay open here.
  int high[7];
  for (int i = 0; i < 7; ++i) {
    high[i] = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 16);
    if (high[i] < 0) fail(fds[6]);
  }
  for (int i = 0; i < 7; ++i) {
    if (::dup2(high[i], i) < 0) fail(fds[6]);
  }
  ::close_range(7, ~0U, 0);
  ::fcntl(kControlFd, F_SETFD, FD_CLOEXEC);
  ::fcntl(kStatusFd, F_SETFD, FD_CLOEXEC);

  sigset_t watched;
  sigemptyset(&watched);
  for (const int s : {SIGCHLD, SIGTERM, SIGHUP, SIGINT}) sigaddset(&watched, s);
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &watched, &previous);
  // What kSpawnBlocked caught before posix_spawn gave us our own group was sent to the
  // runner's group, for the runner: dropped. The trial gets the runner's own mask.
  for (const int s : kSpawnBlocked) {
    if ((unblock & (1UL << s)) == 0) continue;
    sigdelset(&previous, s);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, s);
    const timespec now{0, 0};
    while (::sigtimedwait(&one, nullptr, &now) == s) {}
  }
  const int signal_fd = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  int exec_pipe[2];
  if (signal_fd < 0 || ::pipe2(exec_pipe, O_CLOEXEC) != 0) fail(kStatusFd);

  const pid_t shepherd = ::getpid();
  const pid_t trial = ::fork();
  if (trial < 0) fail(kStatusFd);
  if (trial == 0) {
    ::close(exec_pipe[0]);
    // No trial may start once the runner is gone (issue 25: one exec'd after the runner's
    // SIGKILL, and a resumed runner could relaunch it beside it). Our parent's death kills us
    // (set, then checked; the trial keeps it, and we outlive it unless killed ourselves); the
    // runner's death is the control pipe's hang-up, checked last before exec.
    pollfd control{kControlFd, POLLIN, 0};
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != shepherd ||
        ::poll(&control, 1, 0) < 0 || (control.revents & (POLLHUP | POLLERR)) != 0) {
      ::_exit(127);
    }
    ::setpgid(0, 0);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    int error = 0;
    if (::chdir(directory) == 0) {
      ::execve(argv[0], argv, envp);
    }
    error = errno;
    (void)write_all(exec_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(exec_pipe[1]);
  // From here on the runner's death is the control pipe's end of file: we outlive it to kill
  // the trial's whole tree (a SIGKILL would leave the tree to init).
  ::prctl(PR_SET_PDEATHSIG, 0);
  // The trial's ends are the trial's: the report pipe must reach end of file when it is gone.
  for (const int fd : {0, 1, 2, kCommandFd, kReportFd}) ::close(fd);
  int error = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof error)) {
    const StatusRecord failed{'E', error};
    (void)write_all(kStatusFd, &failed, sizeof failed);
    while (::waitpid(trial, nullptr, 0) < 0 && errno == EINTR) {}
    ::_exit(0);
  }
  const StatusRecord started{'P', trial};
  (void)write_all(kStatusFd, &started, sizeof started);
  Shepherd(trial).run(signal_fd);
}

// The shepherd's command line, after argv[0]: kShepherdFlag, the runner's pid, the signals to
// unblock for the trial (shepherd_main's `unblock`), the seven
// inherited descriptors and the descriptor of the trial's description. That description (a
// memfd: the trial's working directory, the number of its environment entries, the entries,
// then its argv, each ending in a null) is not on the command line because /proc/PID/cmdline
// is readable by every user, and a trial's environment holds the runner's and the config's
// secrets (API keys, tokens); and because the command line and the shepherd's own environment
// share one ARG_MAX. Nor is it the shepherd's environment: what a config sets for its trials
// (LD_LIBRARY_PATH, say) must not change how the runner's own program starts.
constexpr const char* kShepherdFlag = "--hpsearch-shepherd";
constexpr int kShepherdArgs = 12;  // argv[0], the flag, pid, unblock, 7 fds, the description's fd

bool parse_int(const char* text, long& value) {
  char* end = nullptr;
  errno = 0;
  value = std::strtol(text, &end, 10);
  return errno == 0 && end != text && *end == '\0';
}

// The trial's description, read from descriptor `fd` (then closed): pointers into `text`.
struct TrialDescription {
  std::vector<char> text;
  const char* directory = nullptr;
  std::vector<char*> environment;  // ends in a null
  std::vector<char*> argv;         // ends in a null
};

bool read_description(int fd, TrialDescription& description) {
  std::vector<char>& text = description.text;
  char chunk[65536];
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(fd, chunk, sizeof chunk, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    text.insert(text.end(), chunk, chunk + n);
    offset += n;
  }
  ::close(fd);
  if (text.empty() || text.back() != '\0') return false;
  std::vector<char*> fields;
  for (std::size_t at = 0; at < text.size(); at += std::strlen(text.data() + at) + 1) {
    fields.push_back(text.data() + at);
  }
  long count = 0;
  if (fields.size() < 3 || !parse_int(fields[1], count) || count < 0 ||
      count > static_cast<long>(fields.size()) - 3) {
    return false;
  }
  description.directory = fields[0];
  const auto first_entry = fields.begin() + 2;
  description.environment.assign(first_entry, first_entry + count);
  description.environment.push_back(nullptr);
  description.argv.assign(first_entry + count, fields.end());
  description.argv.push_back(nullptr);
  return true;
}

// Runs before main in every program that links the local launcher: in a process the runner
// spawned as a shepherd, that is all it does (glibc passes argc, argv and envp to
// constructors). Any other process returns at once.
__attribute__((constructor)) void enter_shepherd(int argc, char** argv, char** /*envp*/) {
  if (argc < 2 || std::strcmp(argv[1], kShepherdFlag) != 0) return;
  long runner = 0;
  long unblock = 0;
  long described = 0;
  int fds[7];
  bool valid = argc == kShepherdArgs && parse_int(argv[2], runner) && parse_int(argv[3], unblock) &&
               unblock >= 0 && parse_int(argv[kShepherdArgs - 1], described) && described >= 0 &&
               described < (1L << 30);
  for (int i = 0; valid && i < 7; ++i) {
    long fd = 0;
    valid = parse_int(argv[4 + i], fd) && fd >= 0 && fd < (1L << 30);
    fds[i] = static_cast<int>(fd);
  }
  static TrialDescription description;  // shepherd_main never returns, and the trial needs it
  if (!valid || !read_description(static_cast<int>(described), description)) {
    ::_exit(127);  // not the runner's doing: nothing to report to anyone
  }
  ::prctl(PR_SET_NAME, "hps-shepherd");  // for top and ps -o comm ("exe" otherwise)
  shepherd_main(static_cast<pid_t>(runner), fds, description.argv.data(),
                description.environment.data(), description.directory,
                static_cast<unsigned long>(unblock));
}

// ---- the runner's side ----------------------------------------------------------------------

class LocalProcess final : public TrialProcess {
 public:
  LocalProcess(pid_t shepherd, pid_t trial, Fd command, Fd report, Fd control, Fd status)
      : shepherd_(shepherd),
        trial_(trial),
        command_(std::move(command)),
        report_(std::move(report)),
        control_(std::move(control)),
        status_pipe_(std::move(status)) {}
  ~LocalProcess() override {
    if (!status_) {
      control_.reset();  // end of file: the shepherd kills the tree and exits
      // Retried when a signal cuts it short (the runner's handlers do not restart calls): a
      // shepherd left unwaited for would stay a zombie.
      while (::waitpid(shepherd_, nullptr, 0) < 0 && errno == EINTR) {}
    }
  }
  LocalProcess(const LocalProcess&) = delete;
  LocalProcess& operator=(const LocalProcess&) = delete;

  bool send(const std::string& line) override {
    if (command_.get() < 0) return false;
    if (!write_all(command_.get(), line.data(),
                   line.size())) {  // EPIPE: it closed its end; EAGAIN: it does not read
      command_.reset();
      return false;
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
        // Less than asked: the pipe is empty now (one more read would only say EAGAIN; what
        // comes later, or its end, is seen by the next poll).
        if (static_cast<std::size_t>(n) < sizeof chunk) return true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      report_.reset();  // end of stream, or an error that ends it
      return false;
    }
  }

  bool ends_with_sigchld() const override { return true; }  // the shepherd is our child

  std::optional<ExitStatus> poll_exit() override {
    if (status_) return status_;
    int raw = 0;
    if (::waitpid(shepherd_, &raw, WNOHANG) != shepherd_) return std::nullopt;
    StatusRecord record;
    // The shepherd writes the trial's status before it exits; without one it was killed
    // itself, and its own status is all there is.
    status_ = read_record(status_pipe_.get(), record) && record.kind == 'S'
                  ? exit_status_from_wait(record.value)
                  : exit_status_from_wait(raw);
    command_.reset();
    control_.reset();
    return status_;
  }

  void terminate(bool force) override {
    const char request = force ? 'K' : 'T';
    if (!status_ && control_.get() >= 0) (void)write_all(control_.get(), &request, 1);
  }

  long pid() const override { return trial_; }

 private:
  pid_t shepherd_;
  pid_t trial_;
  Fd command_;
  Fd report_;
  Fd control_;
  Fd status_pipe_;
  std::optional<ExitStatus> status_;
};

class LocalLauncher final : public Launcher {
 public:
  std::unique_ptr<TrialProcess> launch(const LaunchSpec& spec) override {
    std::vector<std::string> trial_environment;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const std::string name = entry.substr(0, entry.find('='));
      if (!spec.environment.contains(name)) trial_environment.push_back(entry);
    }
    for (const auto& [name, value] : spec.environment) {
      trial_environment.push_back(name + "=" + value);
    }
    const std::string directory = spec.working_directory.string();

    const auto make_pipe = [](Fd& read_end, Fd& write_end) {
      int ends[2];
      if (::pipe2(ends, O_CLOEXEC) != 0) throw_system_error("pipe");
      read_end.reset(ends[0]);
      write_end.reset(ends[1]);
    };
    Fd command_read, command_write, report_read, report_write, control_read, control_write,
        status_read, status_write;
    make_pipe(command_read, command_write);
    make_pipe(report_read, report_write);
    make_pipe(control_read, control_write);
    make_pipe(status_read, status_write);
    Fd log(::open(spec.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (log.get() < 0) throw_system_error("cannot open the log '" + spec.log.string() + "'");
    Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (null_in.get() < 0) throw_system_error("cannot open /dev/null");
    const int layout[7] = {null_in.get(),      log.get(),          log.get(),
                           command_read.get(), report_write.get(), control_read.get(),
                           status_write.get()};

    // The trial's description, for the shepherd to read (see kShepherdArgs).
    // Each string up to its first null, as execve would have read it.
    std::string description;
    const auto add = [&description](const std::string& field) {
      description.append(field.c_str());
      description += '\0';
    };
    add(directory);
    add(std::to_string(trial_environment.size()));
    for (const std::string& entry : trial_environment) add(entry);
    for (const std::string& arg : {std::string("/bin/sh"), std::string("-c"), spec.command})
      add(arg);
    Fd described(::memfd_create("hpsearch-trial", MFD_CLOEXEC));
    if (described.get() < 0) throw_system_error("cannot create the trial's description (memfd)");
    if (!write_all(described.get(), description.data(), description.size())) {
      throw_system_error("cannot write the trial's description (memfd)");
    }

    // Out of the runner's process group before its exec, and kSpawnBlocked blocked until then:
    // a Ctrl-C on the terminal (SIGINT to the foreground group) or a SIGTERM to the group is
    // the runner's (it pauses the trials), and must not kill a shepherd still starting.
    sigset_t spawn_mask;
    ::sigprocmask(SIG_BLOCK, nullptr, &spawn_mask);
    unsigned long unblock = 0;
    for (const int s : kSpawnBlocked) {
      if (sigismember(&spawn_mask, s) == 1) continue;
      unblock |= 1UL << s;
      sigaddset(&spawn_mask, s);
    }
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &spawn_mask);

    std::vector<std::string> args = {"hpsearch-shepherd", kShepherdFlag, std::to_string(::getpid()),
                                     std::to_string(unblock)};
    for (const int fd : layout) args.push_back(std::to_string(fd));
    args.push_back(std::to_string(described.get()));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The shepherd runs with the runner's own environment, and the experiment's marker so
    // that kill_leftovers finds it too.
    std::string marker = spec.marker;
    std::vector<char*> envp;
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    if (!marker.empty()) envp.push_back(marker.data());
    envp.push_back(nullptr);

    // The shepherd's ends cross the exec: close-on-exec is cleared on them for the spawn only
    // (the runner is single-threaded, so nothing else execs meanwhile), and they are closed
    // here once it has them.
    for (const int fd : layout) ::fcntl(fd, F_SETFD, 0);
    ::fcntl(described.get(), F_SETFD, 0);
    pid_t shepherd = 0;
    const int spawned =
        ::posix_spawn(&shepherd, "/proc/self/exe", nullptr, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) {
      errno = spawned;
      throw_system_error("cannot start the shepherd of '" + spec.command + "' (/proc/self/exe)");
    }
    described.reset();
    status_write.reset();
    StatusRecord first;
    if (!read_record(status_read.get(), first) || first.kind != 'P') {
      int raw = 0;
      while (::waitpid(shepherd, &raw, 0) < 0 && errno == EINTR) {}
      const std::string what = "cannot start '" + spec.command + "' in '" + directory + "'";
      if (first.kind == 'E') {
        errno = first.value;
        throw_system_error(what);
      }
      // It ended before it could say why: killed, or this program could not run as one.
      throw std::runtime_error(what + ": its shepherd (this program run again, /proc/self/exe)" +
                               " ended first (" + exit_status_from_wait(raw).describe() + ")");
    }
    ::fcntl(report_read.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(status_read.get(), F_SETFL, O_NONBLOCK);
    // A trial that talks over the channel never reads descriptor 3: once its pipe is full,
    // the write fails (EAGAIN) and the pipe is dropped, instead of blocking the runner.
    ::fcntl(command_write.get(), F_SETFL, O_NONBLOCK);
    return std::make_unique<LocalProcess>(shepherd, first.value, std::move(command_write),
                                          std::move(report_read), std::move(control_write),
                                          std::move(status_read));
  }

  std::size_t kill_leftovers(const std::string& marker) override {
    std::set<pid_t> killed;
    for (int pass = 0; pass < 100; ++pass) {
      std::size_t found = 0;
      if (DIR* proc = ::opendir("/proc")) {
        while (const dirent* entry = ::readdir(proc)) {
          char* end = nullptr;
          const long pid = std::strtol(entry->d_name, &end, 10);
          if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
          std::ifstream file(std::string("/proc/") + entry->d_name + "/environ", std::ios::binary);
          for (std::string variable; std::getline(file, variable, '\0');) {
            if (variable == marker) {
              ::kill(static_cast<pid_t>(pid), SIGKILL);
              killed.insert(static_cast<pid_t>(pid));
              ++found;
              break;
            }
          }
        }
        ::closedir(proc);
      }
      if (found == 0) break;
      pause_briefly();  // killed processes linger until reaped; look again
    }
    return killed.size();
  }
};

}  // namespace

ExitStatus exit_status_from_wait(int raw) {
  ExitStatus status;
  if (WIFEXITED(raw)) status.code = WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) status.signal = WTERMSIG(raw);
  return status;
}

std::string ExitStatus::describe() const {
  if (cause != EndCause::kExited) return detail;
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

std::unique_ptr<Launcher> make_local_launcher() {
  return std::make_unique<LocalLauncher>();
}

LauncherKind local_launcher_kind() {
  return LauncherKind{
      .name = "local",
      .help = "processes on this machine",
      .remote = false,
      .options = cli::OptionSet("local launcher options"),
      .read_options = [](const cli::Args&, nlohmann::json) { return nlohmann::json::object(); },
      .make = [](const nlohmann::json&) { return make_local_launcher(); },
  };
}

}  // namespace hpsearch
