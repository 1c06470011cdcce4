#pragma once
/// \file
/// The process supervisor. It knows nothing of the search: it runs trials through a Launcher,
/// at most `slots` at once with the rest waiting in FIFO order, accepts the trials'
/// connections on a TrialChannel, passes each complete report line (from descriptor 4 or from
/// any connection of the trial) to its listener, sends commands to all of them, and tells the
/// listener when a trial has ended (after everything it wrote has been read).

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "hpsearch/runner/launcher.hpp"
#include "hpsearch/runner/trial_channel.hpp"

namespace hpsearch {

/// What the supervisor reports back. Trials are named by the caller's dense index.
class SupervisorListener {
 public:
  virtual ~SupervisorListener() = default;
  /// One report line (without its newline).
  virtual void on_report(std::uint32_t trial, const std::string& line) = 0;
  /// The trial wrote a line longer than the limit without a newline; `head` is its start.
  virtual void on_oversized_report(std::uint32_t trial, const std::string& head) = 0;
  /// The trial has ended and all its reports were delivered; it no longer runs.
  virtual void on_exited(std::uint32_t trial, const ExitStatus& status) = 0;
  /// A connection was refused (no hello with the token of a running trial): `who` is its peer.
  virtual void on_refused(const std::string& who) { (void)who; }
  /// A channel limit was reached or descriptors ran short (a sentence for the log); each kind
  /// is told once per run.
  virtual void on_notice(const std::string& text) { (void)text; }
};

/// Not thread-safe; one per experiment.
///
/// The channel's limits (docs/runner.md "Limits"): whoever can reach the socket can connect,
/// so a connection costs a descriptor only briefly until its hello names a running launch.
/// Timed on the steady clock, they close connections and delay launches, nothing else: no
/// limit decides anything the searcher sees.
class Supervisor {
 public:
  static constexpr std::size_t kMaxReportLine = 1 << 20;
  /// A connection without a valid hello this long after it was accepted is closed.
  static constexpr std::chrono::seconds kHelloTimeout{5};
  /// At most this many connections wait for their hello; one more closes the oldest of them.
  static constexpr std::size_t kMaxPending = 64;
  /// At most this many connections per running trial; a hello beyond them is refused.
  static constexpr std::size_t kMaxConnectionsPerTrial = 128;
  /// Out of descriptors (EMFILE, ENFILE) in accept or in a launch: the connections waiting for
  /// their hello are closed and accepting pauses this long; a launch is tried once more, and
  /// if it fails again, the trial waits at the head of the queue and launching pauses too. No
  /// failure, no restart is counted.
  static constexpr std::chrono::milliseconds kShortagePause{500};

  /// `channel` (may be null) is where trials connect; each launch then gets its address and a
  /// token of its own in HPSEARCH_CHANNEL and HPSEARCH_TRIAL_TOKEN.
  Supervisor(Launcher& launcher, std::uint64_t slots, SupervisorListener& listener,
             const TrialChannel* channel = nullptr)
      : launcher_(launcher), slots_(slots), listener_(listener), channel_(channel) {}
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  /// Puts a trial at the back of the queue; false (and nothing done) if it is queued or running.
  bool enqueue(std::uint32_t trial);
  [[nodiscard]] bool waiting() const { return !waiting_.empty(); }
  [[nodiscard]] std::size_t running() const { return live_order_.size(); }
  [[nodiscard]] bool is_running(std::uint32_t trial) const { return live_.contains(trial); }
  [[nodiscard]] const std::vector<std::uint32_t>& running_trials() const { return live_order_; }

  /// While slots are free, takes waiting trials in order and asks `prepare` for their launch;
  /// nullopt skips a trial that no longer needs to run. `started` is told the pid of each
  /// launch, `failed` the reason a launch could not start.
  void launch_waiting(const std::function<std::optional<LaunchSpec>(std::uint32_t)>& prepare,
                      const std::function<void(std::uint32_t, long)>& started,
                      const std::function<void(std::uint32_t, const std::string&)>& failed);

  /// Takes a trial process started by an earlier run (Launcher::reattach) as running, with the
  /// token that launch was given (its connections, new or renewed, say it).
  void adopt(std::uint32_t trial, std::unique_ptr<TrialProcess> process, const std::string& token);
  /// A running trial's process and its launch's token.
  [[nodiscard]] const TrialProcess& process(std::uint32_t trial) const {
    return *live_.at(trial).process;
  }
  [[nodiscard]] const std::string& token(std::uint32_t trial) const {
    return live_.at(trial).token;
  }
  /// The slot a running trial holds: 0 to slots - 1, the lowest one free at its launch (or
  /// adoption), held until its exit. A record of where it ran (the web UI's worker timeline);
  /// nothing is decided by it.
  [[nodiscard]] std::uint64_t slot(std::uint32_t trial) const { return live_.at(trial).slot; }

  /// Writes a command line to a running trial: on its descriptor 3 and on each of its
  /// connections; a connection made later gets every command of the launch first, so no
  /// process misses one that was sent before it connected. False if nothing of it reads.
  bool send(std::uint32_t trial, const std::string& line);
  /// Writes a line to the trial's connections only, and only to those it has now (an answer
  /// to a request).
  void reply(std::uint32_t trial, const std::string& line);
  /// Asks a running trial to stop (SIGTERM), or kills it (SIGKILL).
  void terminate(std::uint32_t trial, bool force);

  /// Running trials that have said nothing (no report line, no connection) for longer than
  /// `limit` at `now`, counted from their launch. A launch with a handle (a cluster job, which
  /// may wait in a queue first) is counted from its first connection; an adopted one too.
  [[nodiscard]] std::vector<std::uint32_t> silent(std::chrono::steady_clock::duration limit,
                                                  std::chrono::steady_clock::time_point now) const;
  /// When the next running trial becomes silent for `limit`, if any is being timed.
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> next_silence(
      std::chrono::steady_clock::duration limit) const;

  /// Waits up to `timeout_ms` for reports or connections, or for `wake_fd` to be readable.
  void wait(int timeout_ms, int wake_fd);
  /// The last wait saw something to read (a report, a connection, an exit, the wake pipe).
  [[nodiscard]] bool readable() const { return readable_; }
  /// The last wait saw its wake_fd readable (a signal came).
  [[nodiscard]] bool woken() const { return woken_; }
  /// Accepts connections, delivers the reports that arrived, then the exits.
  void deliver();
  /// From now on the caller reports each SIGCHLD (child_exited): until one comes, deliver()
  /// does not ask the trials whose end comes as SIGCHLD whether they ended (a system call per
  /// trial in flight in every batch, for nothing). Only a trial whose reports have ended is
  /// asked regardless: its exit is near, or came before the signal was seen.
  void watch_child_signals() { watching_children_ = true; }
  /// A SIGCHLD came: the next deliver() asks every trial whether it ended.
  void child_exited() { child_exited_ = true; }

 private:
  struct Connection {
    int fd = -1;
    std::string in;
    std::string out;  // what the peer has not taken yet
    bool oversized = false;
    std::chrono::steady_clock::time_point accepted{};  // for the hello timeout
  };
  struct Live {
    std::unique_ptr<TrialProcess> process;
    std::string token;
    std::string buffer;
    bool report_eof = false;
    bool oversized = false;
    std::vector<Connection> connections;
    std::string commands;  // every command sent to this launch, for late connections
    std::optional<std::chrono::steady_clock::time_point>
        heard;               // last line or connection; none: not timed yet
    std::uint64_t slot = 0;  // slot(): the lowest free at its launch
    bool ready = false;      // the last wait saw its report pipe or a connection ready
  };
  void read_reports(std::uint32_t trial);
  // Reads what a connection has; false once it is closed (then the caller drops it).
  bool read_connection(Connection& connection, const std::function<void(const std::string&)>& line,
                       const std::function<void(const std::string&)>& oversized);
  // Appends what has arrived to `in`; false once the peer has closed.
  bool receive(Connection& connection);
  void flush(Connection& connection);
  void accept_connections();
  void read_pending();
  // Closes the pending connection at `index`.
  void drop_pending(std::size_t index);
  // Closes pending connections whose hello is overdue at `now`.
  void expire_pending(std::chrono::steady_clock::time_point now);
  // Descriptors ran short while trying to `what`: reads the hellos already sent, closes the
  // connections still pending (nobody's yet) and pauses accepting.
  void on_shortage(const std::string& what);
  // Tells the listener `text` unless `told`, then sets it.
  void notice_once(bool& told, const std::string& text);
  void reap();
  // The lowest slot no running trial holds (O(log slots)); release gives it back.
  std::uint64_t take_slot();
  void release_slot(std::uint64_t slot) { free_slots_.push(slot); }

  Launcher& launcher_;
  std::uint64_t slots_;
  SupervisorListener& listener_;
  const TrialChannel* channel_;
  std::deque<std::uint32_t> waiting_;
  std::unordered_map<std::uint32_t, bool> queued_;
  std::unordered_map<std::uint32_t, Live> live_;
  std::unordered_map<std::string, std::uint32_t> tokens_;  // of running launches
  std::vector<std::uint32_t> live_order_;  // launch order: reports are read in a fixed order
  std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>>
      free_slots_;                   // given back by trials that exited
  std::uint64_t next_slot_ = 0;      // never held yet: this one and above
  std::vector<Connection> pending_;  // connected, no hello yet
  bool readable_ = false;            // the last wait saw something to read
  bool woken_ = false;               // its wake_fd among it
  bool connecting_ = false;          // and a connection waiting on the channel
  bool watching_children_ = false;   // watch_child_signals(): exits come as SIGCHLD
  bool child_exited_ = true;         // one came since reap() last asked (or none asked yet)
  // After a descriptor shortage: when accepting, and launching, may start again.
  std::chrono::steady_clock::time_point accept_at_{};
  std::chrono::steady_clock::time_point launch_at_{};
  bool told_timeout_ = false;
  bool told_pending_ = false;
  bool told_per_trial_ = false;
  bool told_shortage_ = false;
};

}  // namespace hpsearch
