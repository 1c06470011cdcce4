#include "store/store_run.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "hpsearch/runner/trial_environment.hpp"

namespace hpsearch::store {
namespace env = trial_environment;
namespace {

// Under the lock: ACTIVE with this process's pid, the run, then its end.
int run_locked(Store& store, std::uint64_t id, RunnerOptions options, const RunBody& body,
               const std::function<void()>& started, std::ostream& out, std::ostream& err) {
  const RunLock lock(store.directory(id), id);
  nlohmann::json record = store.status(id).record;
  record.erase("ended");
  record.erase("exit_code");
  record["state"] = "ACTIVE";
  record["pid"] = ::getpid();
  // The experiment's start, kept by `activate` (Determined's start time is the experiment's).
  if (!record.contains("started")) record["started"] = utc_now();
  store.write_state(id, record);
  started();
  options.trial_id = [&store, id](const std::string& request_id, std::uint32_t index) {
    return store.trial_id(id, request_id, index);
  };
  options.lock_registry =
      [root = store.root()](bool wait) -> std::optional<RunnerOptions::LockedRegistry> {
    // The registry's directory is made first: a registration that made it meanwhile would not
    // be excluded by a lock on a registry that did not exist yet.
    auto registry_lock =
        std::make_shared<RegistryLock>(root, wait ? RegistryLock::kWait : RegistryLock::kTry, true);
    if (!registry_lock->held()) return std::nullopt;
    RunnerOptions::LockedRegistry registry{registry_lock, {}};
    for (const RegisteredVersion& v : registered_versions(root))
      registry.registered_checkpoints.insert(v.checkpoint_uuid);
    return registry;
  };
  options.trial_environment[env::kExperimentId] = std::to_string(id);
  options.continue_command = "searcher-run activate " + std::to_string(id);
  options.kill_requested = [directory = store.directory(id)] {
    return std::filesystem::exists(directory / "kill_requested");
  };
  const int code = body(options, out, err);
  (void)store.record_end(id, code);
  return code;
}

}  // namespace

int run_in_store(Store& store, std::uint64_t id, bool detach, RunnerOptions options,
                 const RunBody& body, const std::function<void()>& after_start, std::ostream& out,
                 std::ostream& err) {
  if (!detach) return run_locked(store, id, std::move(options), body, after_start, out, err);
  options.terminal = false;
  const std::filesystem::path log = store.directory(id) / "experiment.log";
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    throw StoreError("experiment " + std::to_string(id) + ": pipe failed");
  out.flush();
  err.flush();
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) throw StoreError("experiment " + std::to_string(id) + ": fork failed");
  if (child == 0) {
    // The intermediate child: a new session, then the runner in a grandchild it leaves
    // behind, so the runner is nobody's child (init adopts it) and has no terminal.
    ::close(ready[0]);
    ::setsid();
    const pid_t runner = ::fork();
    if (runner != 0) ::_exit(runner < 0 ? 1 : 0);
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null_in < 0 || log_fd < 0 || ::dup2(null_in, 0) < 0 || ::dup2(log_fd, 1) < 0 ||
        ::dup2(log_fd, 2) < 0)
      ::_exit(1);
    ::close(null_in);
    ::close(log_fd);
    int code = 1;
    try {
      code = run_locked(
          store, id, std::move(options), body,
          [&] {
            const char ok = 1;
            (void)!::write(ready[1], &ok, 1);
            ::close(ready[1]);
          },
          std::cout, std::cerr);
    } catch (const std::exception& e) {
      std::cerr << "searcher-run: experiment " << id << ": " << e.what() << '\n';
    }
    std::cout.flush();
    std::cerr.flush();
    ::_exit(code);
  }
  ::close(ready[1]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  char ok = 0;
  ssize_t n = 0;
  do {
    n = ::read(ready[0], &ok, 1);
  } while (n < 0 && errno == EINTR);
  ::close(ready[0]);
  if (n != 1) {
    err << "searcher-run: experiment " << id << ": the detached runner did not start (see "
        << log.string() << ")\n";
    return 1;
  }
  after_start();
  return 0;
}

}  // namespace hpsearch::store
