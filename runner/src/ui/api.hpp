#pragma once
// Private to runner/: the web UI's JSON API and its pages, as plain functions of a request:
// the HTTP server (server.cpp) hands every request here, and so do the tests and the benchmark,
// without a socket. Paths and shapes follow Determined's REST API (/api/v1/...); docs/ui.md
// lists them with example answers.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hpsearch::ui {

struct Request {
  std::string method;  ///< GET or POST (anything else is refused)
  std::string path;    ///< without the query
  std::map<std::string, std::string> query;
  std::string authorization;  ///< the Authorization header, if any
  std::string host;           ///< the Host header, if any
};

struct Response {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
};

struct ApiSettings {
  /// Serve the experiment store at this root (every experiment, pause/activate/kill)...
  std::optional<std::filesystem::path> store_root;
  /// ... or one directory: a run's (journal.jsonl) or a simulation's (`searcher-sim run --out`,
  /// trace.jsonl), read-only, as experiment 1.
  std::optional<std::filesystem::path> run_directory;
  /// What a POST must carry as "Authorization: Bearer TOKEN".
  std::string token;
  /// The Host headers answered (the address the server listens on, and localhost for a loopback
  /// one): another name is a 403, so a web page elsewhere cannot reach the API through DNS
  /// rebinding. Empty: any.
  std::vector<std::string> hosts;
  /// searcher-run itself: `activate` runs `PROGRAM activate ID`, as a user would.
  std::filesystem::path program;
};

class Api {
 public:
  /// Throws RunnerSetupError for a run directory that is neither kind, StoreError for a store
  /// that cannot be opened.
  explicit Api(ApiSettings settings);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  /// Sets ApiSettings::hosts (the server knows its port only once it listens).
  void allow_hosts(std::vector<std::string> hosts);

  /// Answers one request; never throws (an error is a JSON {"error": ...} with its status).
  /// Safe to call from several threads.
  [[nodiscard]] Response handle(const Request& request);

  struct State;  ///< what is served (api.cpp)

 private:
  std::unique_ptr<State> state_;
  std::mutex mutex_;
};

/// Serves `api` over HTTP on host:port (port 0: a free one), on a few threads, until the
/// process ends; `ready(port)` runs once it listens. Throws RunnerSetupError if it cannot
/// listen there.
void serve(Api& api, const std::string& host, int port, const std::function<void(int)>& ready);

/// A fresh token: 32 hex digits from /dev/urandom (RunnerSetupError if it cannot be read).
[[nodiscard]] std::string new_token();

}  // namespace hpsearch::ui
