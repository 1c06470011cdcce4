#include "store/store.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/runner/trial_environment.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

// The whole file as an F_OFD lock description (write lock when taking, query when testing).
struct flock whole_file(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  return lock;
}

std::string range_text(const std::vector<std::uint64_t>& ids) {
  if (ids.empty()) return "none";
  std::string text;
  std::size_t i = 0;
  while (i < ids.size()) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    text += std::to_string(ids[i]) + (j > i ? "-" + std::to_string(ids[j]) : "");
    i = j + 1;
  }
  return text;
}

// Holds ROOT/ids.lock (flock) while trial ids are handed out or forgotten.
class IdsLock {
 public:
  explicit IdsLock(const fs::path& root)
      : fd_(::open((root / "ids.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    // Retried when a signal interrupts the wait: the runner takes SIGCHLD and SIGUSR1.
    int locked = -1;
    while (fd_ >= 0 && (locked = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {}
    if (fd_ < 0 || locked != 0) {
      throw StoreError("cannot lock " + (root / "ids.lock").string() + ": " + std::strerror(errno));
    }
  }
  ~IdsLock() { ::close(fd_); }
  IdsLock(const IdsLock&) = delete;
  IdsLock& operator=(const IdsLock&) = delete;

 private:
  int fd_;
};

std::vector<nlohmann::json> read_lines(const fs::path& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    // A line cut short by a crash was never handed out: skip it.
    nlohmann::json j = parse_json_or_discarded(line, kDocumentLimits);
    if (!j.is_discarded()) lines.push_back(std::move(j));
  }
  return lines;
}

}  // namespace

fs::path default_root() {
  if (const char* home = std::getenv(trial_environment::kHome); home && *home)
    return fs::absolute(home);
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    return fs::path(data) / "hpsearch";
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw StoreError("neither HPSEARCH_HOME nor HOME is set: where is the experiment store?");
  return fs::path(home) / ".local" / "share" / "hpsearch";
}

std::uint64_t parse_experiment_id(const std::string& text) {
  std::uint64_t id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id == 0) {
    throw StoreError("'" + text +
                     "' is not an experiment id (a positive integer, as `searcher-run ls` shows)");
  }
  return id;
}

std::optional<std::uint64_t> experiment_of_run_directory(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::path run = std::filesystem::weakly_canonical(directory, error);
  if (error) return std::nullopt;
  if (run.filename().empty()) run = run.parent_path();  // a trailing slash
  const std::filesystem::path experiment = run.parent_path();
  if (run.filename() != "run" || experiment.parent_path().filename() != "experiments" ||
      !std::filesystem::exists(experiment / "state.json", error)) {
    return std::nullopt;
  }
  try {
    return parse_experiment_id(experiment.filename().string());
  } catch (const StoreError&) {
    return std::nullopt;
  }
}

bool wait_until(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

RegistryLock::RegistryLock(const fs::path& root, Mode mode, bool create) {
  const fs::path models = root / "models";
  std::error_code error;
  if (create) fs::create_directories(models, error);
  if (!fs::is_directory(models)) return;  // no registry: nothing to keep
  const int fd = ::open((models / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  int locked = -1;
  while (fd >= 0 && (locked = ::flock(fd, LOCK_EX | (mode == kTry ? LOCK_NB : 0))) != 0 &&
         errno == EINTR) {}
  if (fd >= 0 && locked == 0) {
    fd_ = fd;
    return;
  }
  const int cause = errno;
  if (fd >= 0) ::close(fd);
  if (mode == kTry && cause == EWOULDBLOCK) return;  // held elsewhere
  throw StoreError("cannot lock the model registry " + (models / "lock").string() + ": " +
                   std::strerror(cause));
}

RegistryLock::~RegistryLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<RegisteredVersion> registered_versions(const fs::path& root) {
  std::vector<RegisteredVersion> versions;
  std::error_code error;
  if (!fs::is_directory(root / "models", error)) return versions;
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "models")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const nlohmann::json model = parse_json_or_discarded(in);
    if (model.is_discarded() || !model.is_object() || !model.contains("versions") ||
        !model["versions"].is_array())
      continue;
    for (const nlohmann::json& v : model["versions"]) {
      if (!v.is_object()) continue;
      RegisteredVersion r{model.value("name", std::string("?")),
                          v.value("version", nlohmann::json(nullptr)),
                          v.value("checkpoint_uuid", std::string()), std::nullopt};
      if (v.contains("experiment_id") && v["experiment_id"].is_number_unsigned())
        r.experiment_id = v["experiment_id"].get<std::uint64_t>();
      versions.push_back(std::move(r));
    }
  }
  return versions;
}

RunLock::RunLock(const fs::path& experiment_directory, std::uint64_t id)
    : fd_(::open((experiment_directory / "store.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                 0600)) {
  if (fd_ < 0)
    throw StoreError("experiment " + std::to_string(id) +
                     ": cannot open store.lock: " + std::strerror(errno));
  struct flock lock = whole_file(F_WRLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &lock) != 0) {
    ::close(fd_);
    throw StoreError("experiment " + std::to_string(id) +
                     " is already running (another process holds its lock)");
  }
}

RunLock::~RunLock() {
  ::close(fd_);
}

Store::Store(fs::path root) : root_(std::move(root)) {
  // The store is its user's alone (configs, models, logs, checkpoints and the trials' channel
  // sockets): the root is made 0700, and an older store of this user's found readable by others
  // is closed the same way, as per-user stores like ~/.ssh are (issue 25).
  std::error_code error;
  fs::create_directories(root_.parent_path(), error);
  if (::mkdir(root_.c_str(), 0700) != 0 && errno != EEXIST)
    throw StoreError("cannot create the experiment store '" + root_.string() +
                     "': " + std::strerror(errno));
  struct stat info {};
  if (::stat(root_.c_str(), &info) == 0 && info.st_uid == ::geteuid() &&
      (info.st_mode & 077) != 0 && ::chmod(root_.c_str(), info.st_mode & 07700) != 0)
    throw StoreError("cannot make the experiment store '" + root_.string() +
                     "' private (mode 0700): " + std::strerror(errno));
  fs::create_directories(root_ / "experiments", error);
  if (error)
    throw StoreError("cannot create the experiment store '" + root_.string() +
                     "': " + error.message());
  check_format();
}

void Store::check_format() const {
  // docs/store.md: ROOT/store.json {"format_version": N}. None: a new store, or one from before
  // the field, whose layout is version 1's: it is stamped. A newer version is refused before
  // anything is read or written in it; an older one would be migrated here, under ids.lock,
  // its version written only once the migration is complete.
  const fs::path file = root_ / "store.json";
  std::ifstream in(file);
  if (!in) {
    const IdsLock lock(root_);
    if (!fs::exists(file))
      write_file_atomically(file, nlohmann::json{{"format_version", kFormatVersion}}.dump() + '\n');
    return;
  }
  const nlohmann::json j = parse_json_or_discarded(in);
  if (j.is_discarded() || !j.is_object() || !j.contains("format_version") ||
      !j["format_version"].is_number_unsigned()) {
    throw StoreError("the experiment store's " + file.string() +
                     " is damaged: expected {\"format_version\": N}, a positive integer");
  }
  const auto version = j["format_version"].get<std::uint64_t>();
  if (version > kFormatVersion) {
    throw StoreError("the experiment store " + root_.string() + " has format_version " +
                     std::to_string(version) + " (" + file.string() +
                     "); this searcher-run reads " + "format_version " +
                     std::to_string(kFormatVersion) +
                     " and older: use a newer searcher-run, or another HPSEARCH_HOME");
  }
}

std::vector<std::uint64_t> Store::ids() const {
  std::vector<std::uint64_t> ids;
  for (const fs::directory_entry& entry : fs::directory_iterator(root_ / "experiments")) {
    const std::string name = entry.path().filename().string();
    std::uint64_t id = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (error == std::errc() && end == name.data() + name.size() && id > 0 && entry.is_directory())
      ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

fs::path Store::directory(std::uint64_t id) const {
  fs::path dir = root_ / "experiments" / std::to_string(id);
  if (!fs::is_directory(dir)) {
    throw StoreError("experiment " + std::to_string(id) + " not found in " + root_.string() +
                     " (experiments: " + range_text(ids()) + ")");
  }
  return dir;
}

std::uint64_t Store::allocate() {
  // Ids are never reused, as Determined's: ROOT/next_experiment_id only grows, and moves (under
  // ids.lock, before the directory is made) so that a crash loses a number, never hands one out
  // twice. A store from before the counter starts it above the largest id present.
  const IdsLock lock(root_);
  std::uint64_t next = 0;
  if (std::ifstream in(root_ / "next_experiment_id"); in) in >> next;
  const std::vector<std::uint64_t> present = ids();
  if (!present.empty()) next = std::max(next, present.back() + 1);
  next = std::max<std::uint64_t>(next, 1);
  while (true) {
    write_file_atomically(root_ / "next_experiment_id", std::to_string(next + 1) + '\n');
    const fs::path dir = root_ / "experiments" / std::to_string(next);
    if (::mkdir(dir.c_str(), 0700) == 0) return next;
    if (errno != EEXIST)
      throw StoreError("cannot create " + dir.string() + ": " + std::strerror(errno));
    ++next;  // made by hand, or by a process that predates the counter: the next one
  }
}

Status Store::status(std::uint64_t id) const {
  const fs::path dir = directory(id);
  Status status;
  if (std::ifstream in(dir / "state.json"); in) {
    status.record = parse_json_or_discarded(in);
    if (status.record.is_discarded() || !status.record.is_object()) {
      // Written atomically by the runner: a file that does not parse was damaged afterwards.
      // Say so rather than guess a state from what is left.
      status.record = nlohmann::json::object();
      status.damaged.push_back("state.json");
    }
  }
  const int fd = ::open((dir / "store.lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    struct flock probe = whole_file(F_WRLCK);
    status.alive = ::fcntl(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
    ::close(fd);
  }
  const bool kill_requested = fs::exists(dir / "kill_requested");
  if (!status.alive && !status.damaged.empty()) {
    status.state = "ERROR";
    status.reason = "its record " + (dir / "state.json").string() +
                    " is damaged (not a JSON object): its state is unknown";
  } else if (status.alive) {
    status.state = kill_requested ? "STOPPING_CANCELED" : "ACTIVE";
  } else if (status.record.contains("ended")) {
    status.state = status.record.value("state", "ERROR");
    if (status.state == "PAUSED")
      status.reason = "paused; `searcher-run activate " + std::to_string(id) + "` resumes it";
  } else if (kill_requested) {
    status.state = "CANCELED";
  } else if (status.record.contains("pid")) {
    status.state = "PAUSED";
    status.reason = "its runner (pid " + status.record["pid"].dump() +
                    ") ended without recording an end (killed?); `searcher-run activate " +
                    std::to_string(id) + "` resumes it";
  } else {
    status.state = "ERROR";
    status.reason = "it never started (see " + (dir / "experiment.log").string() + ")";
  }
  return status;
}

nlohmann::json Status::end_time() const {
  const bool ended = state == "COMPLETED" || state == "CANCELED" || state == "ERROR";
  return ended ? record.value("ended", nlohmann::json(nullptr)) : nlohmann::json(nullptr);
}

namespace {

// Whether process `pid` has a handler for `signal` (the SigCgt mask of /proc/PID/status).
bool catches(pid_t pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("SigCgt:")) continue;
    const std::uint64_t mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (mask >> (signal - 1) & 1U) != 0;
  }
  return false;
}

}  // namespace

bool Store::signal_runner(std::uint64_t id, int signal, bool only_if_caught) const {
  // A run that has just taken the lock may not have written its pid yet (state.json still
  // holds the previous run's, with its end): wait for it rather than signal a stale pid.
  Status current;
  wait_until(
      [&] {
        current = status(id);
        return !current.alive ||
               (current.record.contains("pid") && !current.record.contains("ended"));
      },
      10);
  if (!current.alive || !current.record.contains("pid") || current.record.contains("ended"))
    return false;
  const auto pid = current.record["pid"].get<pid_t>();
  if (only_if_caught && !catches(pid, signal)) return false;
  return ::kill(pid, signal) == 0;
}

void Store::write_state(std::uint64_t id, const nlohmann::json& record) const {
  write_file_atomically(directory(id) / "state.json", record.dump(2) + '\n');
}

std::string Store::record_end(std::uint64_t id, int exit_code) const {
  const fs::path dir = directory(id);
  nlohmann::json record = status(id).record;
  const bool killed = fs::exists(dir / "kill_requested");
  record["state"] = killed                                 ? "CANCELED"
                    : exit_code == 0                       ? "COMPLETED"
                    : exit_code == 130 || exit_code == 143 ? "PAUSED"
                                                           : "ERROR";
  record["exit_code"] = exit_code;
  record["ended"] = utc_now();
  write_state(id, record);
  return record["state"].get<std::string>();
}

std::uint64_t Store::trial_id(std::uint64_t experiment, const std::string& request_id,
                              std::uint32_t index) {
  if (!trial_ids_loaded_) {
    for (const nlohmann::json& j : read_lines(root_ / "trials.jsonl")) {
      trial_ids_[{j.value("experiment_id", std::uint64_t{0}),
                  j.value("request_id", std::string())}] = j.value("trial_id", std::uint64_t{0});
    }
    trial_ids_loaded_ = true;
  }
  if (const auto known = trial_ids_.find({experiment, request_id}); known != trial_ids_.end())
    return known->second;
  const IdsLock lock(root_);
  // The counter moves first: a crash before the line is written loses a number, never reuses one.
  std::uint64_t next = 1;
  if (std::ifstream in(root_ / "next_trial_id"); in) {
    in >> next;
  } else {
    for (const nlohmann::json& j : read_lines(root_ / "trials.jsonl"))
      next = std::max(next, j.value("trial_id", std::uint64_t{0}) + 1);
  }
  write_file_atomically(root_ / "next_trial_id", std::to_string(next + 1) + '\n');
  const std::string line = nlohmann::json{{"trial_id", next},
                                          {"experiment_id", experiment},
                                          {"request_id", request_id},
                                          {"index", index}}
                               .dump() +
                           '\n';
  const int fd =
      ::open((root_ / "trials.jsonl").c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  // A line torn by a crash (no newline at the end) is ended first: appended onto it, this trial's
  // line would be unreadable and its id lost. The torn piece stays a line that read_lines skips.
  char last = '\n';
  const off_t size = fd >= 0 ? ::lseek(fd, 0, SEEK_END) : 0;
  if (size > 0 && ::pread(fd, &last, 1, size - 1) != 1) last = '\0';
  const std::string text = (last == '\n' ? "" : "\n") + line;
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      ::fdatasync(fd) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw StoreError("cannot append to " + (root_ / "trials.jsonl").string() + ": " + why);
  }
  ::close(fd);
  trial_ids_[{experiment, request_id}] = next;
  return next;
}

std::map<std::string, std::uint64_t> Store::trial_ids(std::uint64_t experiment) const {
  std::map<std::string, std::uint64_t> ids;
  for (const nlohmann::json& j : read_lines(root_ / "trials.jsonl")) {
    if (j.value("experiment_id", std::uint64_t{0}) == experiment)
      ids[j.value("request_id", std::string())] = j.value("trial_id", std::uint64_t{0});
  }
  return ids;
}

void check_checkpoint_id(const std::string& uuid) {
  if (uuid.empty() || uuid.size() > 255 || uuid.front() == '.' || uuid.front() == '-' ||
      uuid.find_first_of(std::string("/\\\0", 3)) != std::string::npos) {
    throw StoreError("'" + uuid +
                     "' is not a checkpoint id: expected the plain name the trial reported (a "
                     "UUID), not a path");
  }
}

fs::path Store::checkpoint_storage(std::uint64_t id) const {
  const fs::path run = directory(id) / "run";
  std::ifstream in(run / "run.json");
  const nlohmann::json recorded = in ? parse_json_or_discarded(in) : nlohmann::json();
  if (recorded.is_object() && recorded.contains("checkpoint_storage") &&
      recorded["checkpoint_storage"].is_string() &&
      !recorded["checkpoint_storage"].get<std::string>().empty())
    return recorded["checkpoint_storage"].get<std::string>();
  return run / "checkpoints";
}

StoredCheckpoint Store::find_checkpoint(const std::string& uuid) const {
  check_checkpoint_id(uuid);
  for (const std::uint64_t id : ids()) {
    const fs::path storage = checkpoint_storage(id);
    const fs::path dir = storage / uuid;
    std::error_code error;
    if (fs::is_directory(fs::symlink_status(dir, error)) &&
        fs::is_regular_file(dir / "metadata.json", error))
      return StoredCheckpoint{uuid, id, storage, dir};
  }
  throw StoreError("checkpoint " + uuid + " not found in " + root_.string());
}

std::vector<nlohmann::json> Store::trials_of(std::uint64_t experiment) const {
  std::vector<nlohmann::json> trials;
  for (nlohmann::json& j : read_lines(root_ / "trials.jsonl")) {
    if (j.is_object() && j.value("experiment_id", std::uint64_t{0}) == experiment)
      trials.push_back(std::move(j));
  }
  std::sort(trials.begin(), trials.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("trial_id", std::uint64_t{0}) < b.value("trial_id", std::uint64_t{0});
  });
  return trials;
}

nlohmann::json Store::find_trial(std::uint64_t trial_id) const {
  for (nlohmann::json& j : read_lines(root_ / "trials.jsonl")) {
    if (j.is_object() && j.value("trial_id", std::uint64_t{0}) == trial_id &&
        j.contains("experiment_id") && j.contains("request_id"))
      return std::move(j);
  }
  throw StoreError("trial " + std::to_string(trial_id) + " not found in " + root_.string());
}

void Store::forget_trials(std::uint64_t experiment) const {
  const IdsLock lock(root_);
  std::string kept;
  for (const nlohmann::json& j : read_lines(root_ / "trials.jsonl")) {
    if (j.value("experiment_id", std::uint64_t{0}) != experiment) kept += j.dump() + '\n';
  }
  write_file_atomically(root_ / "trials.jsonl", kept);
}

}  // namespace hpsearch::store
