// The web UI's JSON API (api.hpp): what is served, routing, the Host check and the token; the
// routes' answers are in api_experiments.cpp, api_trials.cpp and api_control.cpp.
#include "ui/api.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hpsearch/runner/errors.hpp"
#include "ui/api_detail.hpp"
#include "ui/assets.hpp"
#include "ui/experiment_view.hpp"

namespace hpsearch::ui {

namespace fs = std::filesystem;
using api_detail::Entry;
using api_detail::HttpError;
using api_detail::id_segment;
using api_detail::json_response;
using nlohmann::json;

namespace {

// Text from the files may not be UTF-8: replaced, never a crash of dump().
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// With its charset: cpp-httplib (Debian's, built with Brotli) compresses an answer whose type is
// exactly "application/json", or text/*, with Brotli at its highest quality when the browser
// accepts it: about a second for the 170 kB charts answer of a 10,000-trial experiment, all
// loss on a loopback connection (measured: 1.14 s against 0.017 s; docs/ui.md).
constexpr const char* kJson = "application/json; charset=utf-8";

}  // namespace

namespace api_detail {

Response json_response(const json& j, int status) {
  return {status, kJson, dump(j)};
}

std::uint64_t id_segment(const std::string& text, const char* what) {
  std::uint64_t value = 0;
  const bool digits =
      !text.empty() && text.size() <= 18 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) value = std::stoull(text);
  if (!digits || value == 0)
    throw HttpError{404, std::string(what) + " '" + text + "' is not an id (a positive integer)"};
  return value;
}

std::uint64_t count_param(const Request& request, const std::string& name, std::uint64_t fallback,
                          std::uint64_t low, std::uint64_t high) {
  const auto found = request.query.find(name);
  if (found == request.query.end()) return fallback;
  const std::string& text = found->second;
  const bool digits =
      !text.empty() && text.size() <= 18 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::uint64_t value = digits ? std::stoull(text) : 0;
  if (!digits || value < low || value > high) {
    throw HttpError{400, "query parameter " + name + "='" + text + "': expected an integer from " +
                             std::to_string(low) + " to " + std::to_string(high)};
  }
  return value;
}

}  // namespace api_detail

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool same_secret(const std::string& a, const std::string& b) {
  // Compared in time independent of where they differ.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Api::Api(ApiSettings settings) : state_(std::make_unique<State>()) {
  state_->settings = std::move(settings);
  if (state_->settings.store_root) {
    state_->store = std::make_unique<store::Store>(*state_->settings.store_root);
    return;
  }
  const fs::path dir = state_->settings.run_directory.value_or(fs::path("."));
  auto entry = std::make_unique<Entry>();
  entry->id = 1;
  entry->directory = dir;
  entry->name = fs::absolute(dir).lexically_normal().filename().string();
  if (fs::exists(dir / "trace.jsonl")) {
    entry->simulation = true;
    entry->metric = "workload value";
    entry->searcher = "simulation";
    entry->view = std::make_unique<ExperimentView>(dir / "trace.jsonl", fs::path(), true);
  } else if (fs::exists(dir / "journal.jsonl")) {
    entry->config = dir / "config.yaml";
    const std::string directory_name = entry->name;
    api_detail::read_config(*entry);
    if (entry->name.empty()) entry->name = directory_name;
    entry->view = std::make_unique<ExperimentView>(dir / "journal.jsonl", dir / "experiment.json",
                                                   entry->smaller_is_better);
  } else {
    throw RunnerSetupError("--dir '" + dir.string() +
                           "': expected a run directory (with journal.jsonl) or a simulation's "
                           "--out directory (with trace.jsonl), found neither");
  }
  entry->view->refresh();  // a large log is read once, now, not by the first page
  state_->entries.emplace(1, std::move(entry));
}

Api::~Api() = default;

void Api::allow_hosts(std::vector<std::string> hosts) {
  const std::lock_guard<std::mutex> lock(mutex_);
  state_->settings.hosts = std::move(hosts);
}

Response Api::handle(const Request& request) {
  try {
    State& state = *state_;
    if (!state.settings.hosts.empty() &&
        std::find(state.settings.hosts.begin(), state.settings.hosts.end(), request.host) ==
            state.settings.hosts.end()) {
      throw HttpError{403, "Host '" + request.host + "' is not this server's address"};
    }
    const std::vector<std::string> parts = split_path(request.path);
    if (!parts.empty() && parts[0] == "api" && (parts.size() < 2 || parts[1] != "v1"))
      throw HttpError{404, "no such API path: " + request.path + " (the API is /api/v1/...)"};
    if (parts.empty() || parts[0] != "api") {
      if (request.method != "GET") throw HttpError{405, "only GET is answered here"};
      const Asset* asset = find_asset(request.path == "/" ? "/index.html" : request.path);
      if (asset == nullptr) return {404, "text/plain; charset=utf-8", "not found\n"};
      return {200, std::string(asset->content_type), std::string(asset->body)};
    }
    const std::vector<std::string> rest(parts.begin() + 2, parts.end());
    if (request.method == "POST") {
      if (rest.size() != 3 || rest[0] != "experiments" ||
          (rest[2] != "pause" && rest[2] != "activate" && rest[2] != "kill"))
        throw HttpError{404, "no such action: POST " + request.path};
      // The token before anything else: without it, nothing is looked at or changed.
      if (request.authorization.empty())
        throw HttpError{401,
                        "POST needs the token: Authorization: Bearer TOKEN (printed by "
                        "`searcher-run ui` at start-up)"};
      if (!same_secret(request.authorization, "Bearer " + state.settings.token))
        throw HttpError{403, "wrong token"};
      return api_detail::experiment_action(state, rest[1], rest[2]);
    }
    if (request.method != "GET") throw HttpError{405, "only GET and POST are answered"};
    const std::lock_guard<std::mutex> lock(mutex_);
    if (rest.size() == 1 && rest[0] == "experiments") return api_detail::list_experiments(state);
    if (rest.size() >= 2 && rest[0] == "experiments") {
      const std::uint64_t id = id_segment(rest[1], "experiment");
      if (rest.size() == 2) return api_detail::get_experiment(state, id);
      if (rest.size() == 3 && rest[2] == "trials")
        return api_detail::list_trials(state, id, request);
      if (rest.size() == 3 && rest[2] == "charts")
        return api_detail::experiment_charts(state, id, request);
    }
    if (rest.size() >= 2 && rest[0] == "trials") {
      const std::uint64_t id = id_segment(rest[1], "trial");
      if (rest.size() == 2) return api_detail::get_trial(state, id);
      if (rest.size() == 3 && rest[2] == "metrics")
        return api_detail::trial_metrics(state, id, request);
      if (rest.size() == 3 && rest[2] == "logs") return api_detail::trial_logs(state, id, request);
      if (rest.size() == 3 && rest[2] == "checkpoints")
        return api_detail::trial_checkpoints(state, id);
    }
    throw HttpError{404, "no such API path: " + request.path};
  } catch (const HttpError& e) {
    return json_response({{"error", e.message}}, e.status);
  } catch (const std::exception& e) {
    return json_response({{"error", e.what()}}, 500);
  }
}

std::string new_token() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw RunnerSetupError("cannot read /dev/urandom for the UI's token");
  constexpr const char* kHex = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

}  // namespace hpsearch::ui
