#include "engine/custom_exchange.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/runner/trial_channel.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::runner_detail {

namespace {

// A file's JSON, or null if it is absent, not (yet) JSON, larger than a JSON line may be
// (16 MiB), or not a regular file: a symbolic link planted in the exchange is never followed,
// so nothing outside the run directory is read through it.
nlohmann::json read_json_file(const fs::path& path) {
  // O_NOFOLLOW refuses a link at open itself (a check before the open could be raced: the file
  // swapped for a link between the two); O_NONBLOCK keeps a planted FIFO from blocking the
  // open, and fstat on what was opened refuses anything but a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  std::string text;
  bool usable = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
                static_cast<std::uint64_t>(info.st_size) <= kMaxJsonLineBytes;
  if (usable) {
    text.resize(static_cast<std::size_t>(info.st_size));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
  }
  ::close(fd);
  if (!usable) return nullptr;
  std::istringstream in(text);
  nlohmann::json value = parse_json_or_discarded(in, JsonLimits{});  // a line's limits
  return value.is_discarded() ? nlohmann::json(nullptr) : value;
}

}  // namespace

fs::path custom_exchange_directory(const fs::path& run_directory) {
  return run_directory / "custom_searcher";
}

void open_custom_exchange(const fs::path& run_directory) {
  const fs::path dir = custom_exchange_directory(run_directory);
  fs::create_directories(dir / "inbox");
  fs::create_directories(dir / "results");
}

std::vector<InboxPost> read_custom_inbox(const fs::path& run_directory) {
  std::vector<InboxPost> posts;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(custom_exchange_directory(run_directory) / "inbox", error)) {
    const std::string name = entry.path().filename().string();
    // write_file_atomically's temporary files are not posts yet.
    if (name.empty() || name.front() == '.' || name.find(".tmp") != std::string::npos) continue;
    posts.push_back({name, read_json_file(entry.path())});
  }
  std::sort(posts.begin(), posts.end(),
            [](const InboxPost& a, const InboxPost& b) { return a.name < b.name; });
  return posts;
}

void answer_custom_post(const fs::path& run_directory, const std::string& name,
                        const nlohmann::json& result) {
  const fs::path dir = custom_exchange_directory(run_directory);
  write_file_atomically(dir / "results" / name, result.dump() + '\n');
  std::error_code error;
  fs::remove(dir / "inbox" / name, error);
}

void publish_custom_events(const fs::path& run_directory, const nlohmann::json& events,
                           const std::string& state) {
  write_file_atomically(custom_exchange_directory(run_directory) / "events.json",
                        nlohmann::json{{"events", events}, {"state", state}}.dump() + '\n');
}

nlohmann::json read_custom_events(const fs::path& run_directory) {
  nlohmann::json events = read_json_file(custom_exchange_directory(run_directory) / "events.json");
  if (!events.is_object()) {
    return nlohmann::json{{"events", nlohmann::json::array()}, {"state", "starting"}};
  }
  return events;
}

std::string send_custom_post(const fs::path& run_directory, nlohmann::json post) {
  char id[24];
  std::snprintf(id, sizeof id, "%020llu",
                static_cast<unsigned long long>(post.value("triggered_by", std::uint64_t{0})));
  const std::string name = std::string(id) + "-" + random_token() + ".json";
  post["post"] = name;
  write_file_atomically(custom_exchange_directory(run_directory) / "inbox" / name,
                        post.dump() + '\n');
  return name;
}

nlohmann::json take_custom_result(const fs::path& run_directory, const std::string& name) {
  const fs::path path = custom_exchange_directory(run_directory) / "results" / name;
  nlohmann::json result = read_json_file(path);
  if (result.is_null()) return nullptr;
  std::error_code error;
  fs::remove(path, error);
  return result;
}

}  // namespace hpsearch::runner_detail
