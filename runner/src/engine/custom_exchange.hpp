#pragma once
// Private to runner/: how a custom search's client (`searcher-run searcher`, which the Python
// determined.searcher calls) and the runner serving the experiment exchange events and
// operations, through files the runner owns in its directory (docs/custom-searcher.md):
//   DIR/custom_searcher/events.json    the event queue and the run's state, replaced atomically
//                                      by the runner after every change it has made durable
//   DIR/custom_searcher/inbox/NAME     a post (custom_post_to_json's form plus "post": NAME),
//                                      written atomically by the client; the runner reads the
//                                      inbox every pass (at most 100 ms apart)
//   DIR/custom_searcher/results/NAME   the runner's answer to post NAME: {"ok": true} or
//                                      {"error": "..."}; written before the post is removed
// A post is journaled with its NAME before it is answered: a runner killed in between answers
// it again after resume (its NAME is the last post it applied), never applies it twice.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpsearch::runner_detail {

namespace fs = std::filesystem;

[[nodiscard]] fs::path custom_exchange_directory(const fs::path& run_directory);

/// A post found in the inbox: its NAME and its body (null if it is not JSON: refused).
struct InboxPost {
  std::string name;
  nlohmann::json body;
};

// ---- the runner's side ---------------------------------------------------------------------

/// Makes the exchange's directories (the runner, when it starts or resumes).
void open_custom_exchange(const fs::path& run_directory);
/// The posts waiting, oldest NAME first (names start with the triggering event's id, padded).
[[nodiscard]] std::vector<InboxPost> read_custom_inbox(const fs::path& run_directory);
/// Answers post NAME and removes it from the inbox.
void answer_custom_post(const fs::path& run_directory, const std::string& name,
                        const nlohmann::json& result);
/// Replaces events.json with `{"events": [...], "state": STATE}`; STATE is "running",
/// "completed", "failed" or "paused".
void publish_custom_events(const fs::path& run_directory, const nlohmann::json& events,
                           const std::string& state);

// ---- the client's side ---------------------------------------------------------------------

/// events.json as the runner last wrote it; `{"events": [], "state": "starting"}` before it has.
[[nodiscard]] nlohmann::json read_custom_events(const fs::path& run_directory);
/// Puts a post in the inbox under a new NAME (the triggering event's id, then a random token);
/// returns NAME.
[[nodiscard]] std::string send_custom_post(const fs::path& run_directory, nlohmann::json post);
/// The runner's answer to post NAME, taken (removed), or null if it has not answered yet.
[[nodiscard]] nlohmann::json take_custom_result(const fs::path& run_directory,
                                                const std::string& name);

}  // namespace hpsearch::runner_detail
