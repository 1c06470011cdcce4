// The run's settings (engine/experiment_impl.hpp): run.json, what only the runner reads of the
// config, the experiment directory's lock, and the run stopped by disk errors.
#include "engine/experiment_impl.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::runner_detail {

ExperimentLock::ExperimentLock(const fs::path& directory)
    : fd_(::open((directory / "runner.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
  if (fd_ < 0)
    throw RunnerSetupError("cannot open " + (directory / "runner.lock").string() + ": " +
                           std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw RunnerSetupError("another searcher-run is running the experiment in '" +
                           directory.string() + "' (it holds runner.lock); stop it first");
  }
}

// Writes the launch settings and --trial-timeout into run.json (what resume keeps unless told
// otherwise), the channel's address with the port it bound, and where checkpoints are stored
// (what the SDK looks in for a checkpoint's uuid).
void save_run_settings(const fs::path& directory, const RunnerOptions& options,
                       const std::string& channel, const fs::path& checkpoint_storage) {
  const LaunchSettings& settings = options.launch;
  std::string channel_address;
  if (channel.starts_with("tcp:")) {
    const std::string host_port = channel.substr(4);
    const std::string host = host_port.substr(0, host_port.rfind(':'));
    channel_address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                      host_port.substr(host_port.rfind(':'));
  }
  const fs::path run_path = directory / "run.json";
  std::ifstream in(run_path);
  nlohmann::json run = parse_json(in);
  // The launcher's own fields beside the ones every launcher has.
  nlohmann::json launch = settings.options;
  launch["launcher"] = settings.launcher;
  launch["channel_address"] = channel_address;
  launch["shared_dir"] =
      settings.shared_dir.empty() ? "" : fs::absolute(settings.shared_dir).string();
  run["launch"] = launch;
  run["trial_timeout"] = options.trial_timeout.value_or(0);
  run["checkpoint_storage"] = checkpoint_storage.string();
  write_file_atomically(run_path, run.dump(2) + '\n');
}

namespace {

// Whether process `pid` has `file` open: one of its descriptors is that file (stat follows the
// /proc link to it, so its device is the one stat() gives here, whatever /proc/locks prints).
bool has_open(const std::string& pid, const struct stat& file) {
  std::error_code error;
  for (fs::directory_iterator fd("/proc/" + pid + "/fd", error), end; !error && fd != end;
       fd.increment(error)) {
    struct stat target {};
    if (::stat(fd->path().c_str(), &target) == 0 && target.st_dev == file.st_dev &&
        target.st_ino == file.st_ino) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<long> runner_lock_holder(const fs::path& directory) {
  // ExperimentLock's flock shows in /proc/locks as "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE
  // 0 EOF" (major and minor in hex); a waiter's line has "->" and holds nothing. The device
  // there is the superblock's, which on some filesystems (btrfs) is not stat()'s: a line whose
  // inode matches but whose device does not is confirmed by the holder's open descriptors.
  struct stat file {};
  if (::stat((directory / "runner.lock").c_str(), &file) != 0) return std::nullopt;
  std::ifstream locks("/proc/locks");
  char device[32];
  std::snprintf(device, sizeof device, "%02x:%02x:", ::major(file.st_dev), ::minor(file.st_dev));
  const std::string inode = std::to_string(file.st_ino);
  for (std::string line; std::getline(locks, line);) {
    if (line.find("->") != std::string::npos) continue;
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, where;
    fields >> number >> kind >> mode >> access >> pid >> where;
    const std::size_t last = where.rfind(':');
    if (kind != "FLOCK" || last == std::string::npos || where.substr(last + 1) != inode) continue;
    if (where != device + inode && !has_open(pid, file)) continue;
    try {
      return std::stol(pid);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

RunnerSetupError no_experiment_in(const fs::path& directory) {
  std::error_code error;
  // Appended to one string: GCC 12 at -O3 sees a false overlap in "'" + std::string&&
  // (-Werror=restrict) once this file is compiled with some others.
  std::string text = "'";
  text += directory.string();
  text += fs::exists(directory, error) ? "' is not an experiment directory (no run.json)"
                                       : "' does not exist: no experiment there";
  return RunnerSetupError(text);
}

// The experiment's files cannot be written (a full or read-only disk): nothing more can be
// recorded, so the run stops. By the time the caller prints this, the Experiment is destroyed,
// and with it every local trial (each shepherd kills its tree); Slurm jobs keep running, as
// after a kill -9, for resume to reattach. The message says which file, what failed and what
// to do; what was recorded before is in the journal (a record cut short is dropped on resume).
RunOutcome stopping_on_disk_errors(const fs::path& directory, const RunnerOptions& options,
                                   const std::function<RunOutcome()>& body) {
  try {
    return body();
  } catch (const DiskError& e) {
    std::string cause;
    std::string fix;
    switch (e.errno_value()) {
      case ENOSPC:
        cause = "the filesystem is full";
        fix = "free space on it";
        break;
      case EDQUOT:
        cause = "the disk quota is exceeded";
        fix = "free space or raise the quota";
        break;
      case EROFS:
        cause = "the filesystem is read-only";
        fix = "make it writable again (remount it read-write)";
        break;
      case EACCES:
      case EPERM:
        cause = "searcher-run may not write there";
        fix = "give it write permission";
        break;
      default:
        cause = "the file cannot be written";
        fix = "fix the cause";
        break;
    }
    const std::string resume = options.continue_command.empty()
                                   ? "searcher-run resume " + directory.string()
                                   : options.continue_command;
    throw RunnerError(std::string(e.what()) + "\n  " + cause +
                      ", so the run stopped and its trials were killed; " +
                      "everything recorded before is kept (a journal record cut short is dropped "
                      "on resume).\n  To go " +
                      "on, " + fix + ", then: " + resume);
  }
}

// What only the runner reads of the config: resources.slots_per_trial and
// checkpoint_storage's save policy. The whole config goes to the trials as JSON
// (det.get_cluster_info().trial._config).
void Experiment::read_run_settings_from_document() {
  const nlohmann::json& doc = config_.document;
  const auto count = [&](const char* section, const char* field, std::uint64_t minimum,
                         std::uint64_t fallback) -> std::uint64_t {
    if (!doc.is_object() || !doc.contains(section) || !doc[section].is_object() ||
        !doc[section].contains(field) || doc[section][field].is_null()) {
      return fallback;
    }
    const nlohmann::json& value = doc[section][field];
    if (!value.is_number_integer() ||
        value.get<std::int64_t>() < static_cast<std::int64_t>(minimum)) {
      throw RunnerSetupError(std::string(section) + "." + field + ": must be an integer >= " +
                             std::to_string(minimum) + ", got " + value.dump());
    }
    return value.get<std::uint64_t>();
  };
  slots_per_trial_ = count("resources", "slots_per_trial", 1, 1);
  save_policy_.experiment_best =
      count("checkpoint_storage", "save_experiment_best", 0, save_policy_.experiment_best);
  save_policy_.trial_best =
      count("checkpoint_storage", "save_trial_best", 0, save_policy_.trial_best);
  save_policy_.trial_latest =
      count("checkpoint_storage", "save_trial_latest", 0, save_policy_.trial_latest);
  // The config the trials see is the one the run uses: the experiment seed filled in (the
  // given one, --seed's, or the store's pick), as Determined's master fills it in.
  // (A config with no JSON form, e.g. YAML's .inf somewhere, stays null.)
  nlohmann::json used = doc;
  if (used.is_object()) {
    if (!used.contains("reproducibility") || !used["reproducibility"].is_object())
      used["reproducibility"] = nlohmann::json::object();
    used["reproducibility"]["experiment_seed"] = settings_.seed;
  }
  write_file_atomically(directory_ / "config.json", used.dump(2) + '\n');
}

}  // namespace hpsearch::runner_detail

namespace hpsearch {

namespace fs = std::filesystem;

LaunchSettings saved_launch_settings(const fs::path& directory) {
  std::ifstream in(directory / "run.json");
  if (!in) throw runner_detail::no_experiment_in(directory);
  LaunchSettings settings;
  try {
    const nlohmann::json run = parse_json(in);
    if (!run.contains("launch")) return settings;  // from before launchers were saved: local
    const nlohmann::json& l = run.at("launch");
    settings.launcher = l.at("launcher").get<std::string>();
    settings.channel_address = l.at("channel_address").get<std::string>();
    settings.shared_dir = l.at("shared_dir").get<std::string>();
    settings.options = l;  // the launcher's own fields, for its row in the launcher table
    for (const char* common : {"launcher", "channel_address", "shared_dir"}) {
      settings.options.erase(common);
    }
  } catch (const nlohmann::json::exception& e) {
    throw RunnerSetupError((directory / "run.json").string() + " is damaged: " + e.what());
  }
  return settings;
}

}  // namespace hpsearch
