#include "hpsearch/runner/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hpsearch/runner/trial_environment.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch {
namespace {

DiskError file_error(const std::string& what, const std::filesystem::path& path) {
  return DiskError(what, path, errno);
}

// The test hook for disk trouble (docs/runner.md, "Disk trouble"): with
// HPSEARCH_TEST_FAIL_WRITE=N[:ENOSPC|EROFS|EACCES] in the environment, the N-th write of a
// journal or of a file replaced atomically, and every one after it, writes half its bytes and
// fails with that error (default ENOSPC), as a filling disk does. Without it (any real run),
// nothing changes. Returns the errno to fail with, or 0.
int injected_write_failure() {
  static const std::pair<std::uint64_t, int> plan = [] {
    const char* text = std::getenv(trial_environment::kTestFailWrite);
    if (text == nullptr || *text == '\0') return std::pair<std::uint64_t, int>{0, 0};
    char* end = nullptr;
    const std::uint64_t n = std::strtoull(text, &end, 10);
    const std::string kind = *end == ':' ? std::string(end + 1) : "ENOSPC";
    return std::pair<std::uint64_t, int>{n, kind == "EROFS"    ? EROFS
                                            : kind == "EACCES" ? EACCES
                                                               : ENOSPC};
  }();
  static std::uint64_t writes = 0;
  if (plan.first == 0) return 0;
  return ++writes >= plan.first ? plan.second : 0;
}

// The test hook for a crash at a sync (docs/runner.md, "Group commit"): with
// HPSEARCH_TEST_FAIL_SYNC=N in the environment, the N-th fdatasync of a journal loses what was
// written since the journal's last sync (cut back to it) and fails with EIO, as a machine
// crash at that moment would leave the file; the run stops there. Without it (any real run),
// nothing changes. True for the sync that fails.
bool injected_sync_failure() {
  static const std::uint64_t plan = [] {
    const char* text = std::getenv(trial_environment::kTestFailSync);
    return text == nullptr ? std::uint64_t{0} : std::strtoull(text, nullptr, 10);
  }();
  static std::uint64_t syncs = 0;
  return plan != 0 && ++syncs == plan;
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  std::size_t done = 0;
  if (const int error = injected_write_failure(); error != 0) {
    (void)!::write(fd, text.data(), text.size() / 2);
    errno = error;
    throw file_error("cannot write", path);
  }
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw file_error("cannot write", path);
    done += static_cast<std::size_t>(n);
  }
}

void sync_directory(const std::filesystem::path& directory) {
  const int fd =
      ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

DiskError::DiskError(const std::string& operation, const std::filesystem::path& path,
                     int errno_value)
    : std::runtime_error(operation + " '" + path.string() + "': " + std::strerror(errno_value)),
      path_(path),
      errno_(errno_value) {}

Journal::Journal(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw file_error("cannot open the journal", path);
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  written_size_ = synced_size_ = size > 0 ? static_cast<std::uint64_t>(size) : 0;
  sync_directory(path.parent_path());
}

Journal::~Journal() {
  // A run ending by an exception in a batch: its records are written as they were before they
  // waited for the batch's sync (never synced here, nor acted on: the same as a crash).
  if (fd_ >= 0 && !pending_.empty()) (void)!::write(fd_, pending_.data(), pending_.size());
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const nlohmann::json& record, bool sync) {
  line_.clear();
  append_json(line_, record);
  append_text(line_, sync);
}

void Journal::append_text(std::string_view record, bool sync) {
  pending_.append(record);
  pending_ += '\n';
  if (held_) {
    if (sync) sync_owed_ = true;  // paid at release_syncs, before anything it decided is acted on
  } else if (sync) {
    sync_now();
  } else if (!sync_owed_) {
    write_pending();  // owing nothing, nothing waits: written now, as always
  }  // else written with the sync a batch left owed, which comes before anything else
}

void Journal::write_pending() {
  if (pending_.empty()) return;
  std::string text;
  text.swap(pending_);  // a failed write is not tried again (its torn tail is the reader's)
  write_all(fd_, text, path_);
  written_size_ += text.size();
  text.clear();
  pending_.swap(text);  // keeps the capacity
}

void Journal::sync_now() {
  write_pending();
  const auto started = std::chrono::steady_clock::now();
  if (injected_sync_failure()) {
    (void)!::ftruncate(fd_, static_cast<off_t>(synced_size_));
    errno = EIO;
    throw file_error("cannot sync the journal", path_);
  }
  if (::fdatasync(fd_) != 0) throw file_error("cannot sync the journal", path_);
  sync_owed_ = false;  // every record written so far is on disk
  synced_size_ = written_size_;
  ++syncs_;
  sync_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void Journal::sync_held() {
  if (sync_owed_) sync_now();
}

void Journal::sync_written() {
  write_pending();
  if (written_size_ > synced_size_) sync_now();
}

void Journal::release_syncs() {
  held_ = false;
  if (sync_owed_) {
    sync_now();
  } else {
    write_pending();
  }
}

void Journal::stop_holding() {
  held_ = false;
  if (!sync_owed_) write_pending();  // else written with the owed sync, the next thing it does
}

JournalContents read_journal(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};  // no journal yet
  std::ostringstream text;
  text << in.rdbuf();
  return parse_journal(text.str(), path.string());
}

JournalContents parse_journal(std::string_view text, const std::string& name) {
  JournalContents contents;
  std::size_t start = 0;
  std::uint64_t line = 1;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      contents.torn_tail = true;
      break;
    }
    nlohmann::json record;
    try {
      record = parse_json(text.substr(start, end - start), kDocumentLimits);
    } catch (const nlohmann::json::exception&) {
      record = nullptr;
    }
    if (!record.is_object()) {
      throw std::runtime_error("journal '" + name + "' line " + std::to_string(line) +
                               " is not a JSON record: the journal is damaged");
    }
    contents.records.push_back(std::move(record));
    start = end + 1;
    contents.valid_bytes = start;
    ++line;
  }
  return contents;
}

void truncate_journal(const std::filesystem::path& path, std::uint64_t size) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    throw file_error("cannot truncate the journal", path);
  }
}

double journal_time() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return static_cast<double>(ms.count()) / 1000.0;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw file_error("cannot write", temporary);
  try {
    write_all(fd, text, temporary);
    if (::fsync(fd) != 0) throw file_error("cannot sync", temporary);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());  // on a full disk, give back what it took
    throw;
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const DiskError error = file_error("cannot rename to", path);
    ::unlink(temporary.c_str());
    throw error;
  }
  sync_directory(path.parent_path());
}

}  // namespace hpsearch
