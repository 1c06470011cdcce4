// The web UI's API, pause, activate and kill (api_detail.hpp), once api.cpp has checked the
// token: through the store's own requests (store_control.cpp), and `searcher-run activate`.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "store/store_control.hpp"
#include "ui/api_detail.hpp"

extern char** environ;

namespace hpsearch::ui::api_detail {

namespace fs = std::filesystem;

namespace {

/// Runs `program args...` with HPSEARCH_HOME set to the store's root; its exit code and output.
std::pair<int, std::string> run_program(const fs::path& program, const fs::path& root,
                                        const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {-1, "cannot make a pipe"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // Nothing else of the server's: the activated runner outlives it and must not hold its
  // listening socket (the port would stay taken) or its connections.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<std::string> strings{program.string()};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string_view(*e).rfind("HPSEARCH_HOME=", 0) != 0) env_strings.emplace_back(*e);
  env_strings.push_back("HPSEARCH_HOME=" + root.string());
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    return {-1, "cannot run " + program.string()};
  }
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

Response experiment_action(Api::State& state, const std::string& id_text,
                           const std::string& action) {
  if (!state.store)
    throw HttpError{409,
                    "this server shows a directory, read-only: pause, activate and kill "
                    "are for the experiment store (searcher-run ui without --dir)"};
  const std::uint64_t id = id_segment(id_text, "experiment");
  try {
    (void)state.store->directory(id);
  } catch (const store::StoreError& e) {
    throw HttpError{404, e.what()};
  }
  std::string message;
  try {
    if (action == "pause") {
      message = store::request_pause(*state.store, id) ? "pausing" : "already PAUSED";
    } else if (action == "kill") {
      const store::KillStart start = store::request_kill(*state.store, id);
      message = start == store::KillStart::kAlreadyEnded ? "already ended"
                : start == store::KillStart::kSignalled  ? "stopping"
                                                         : "CANCELED";
    } else {
      // The command itself: it resumes the experiment detached, as `activate` does.
      const auto [code, output] = run_program(state.settings.program, state.store->root(),
                                              {"activate", std::to_string(id)});
      if (code != 0) throw HttpError{409, output};
      message = output;
    }
  } catch (const store::StoreError& e) {
    throw HttpError{409, e.what()};
  }
  return json_response({{"id", id},
                        {"action", action},
                        {"message", message},
                        {"state", "STATE_" + state.store->status(id).state}});
}

}  // namespace hpsearch::ui::api_detail
