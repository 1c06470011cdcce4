#include "hpsearch/runner/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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

// Writes all of `text` at `offset`, or at the file's position if it is negative.
void write_all(int fd, const std::string& text, const std::filesystem::path& path,
               std::int64_t offset = -1) {
  std::size_t done = 0;
  const auto write_some = [&](std::size_t size) {
    return offset < 0 ? ::write(fd, text.data() + done, size)
                      : ::pwrite(fd, text.data() + done, size,
                                 static_cast<off_t>(offset + static_cast<std::int64_t>(done)));
  };
  if (const int error = injected_write_failure(); error != 0) {
    (void)!write_some(text.size() / 2);
    errno = error;
    throw file_error("cannot write", path);
  }
  while (done < text.size()) {
    const ssize_t n = write_some(text.size() - done);
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

namespace {

// Spare space grows by the journal's size so far, at least 64 KiB and at most 4 MiB at a time:
// one extension (and its metadata sync) per thousands of records, and a short run's journal
// holds little that is not records.
constexpr std::uint64_t kMinGrowth = std::uint64_t{64} << 10;
constexpr std::uint64_t kMaxGrowth = std::uint64_t{4} << 20;

// The readers' rule (docs/store.md): a journal's records end at its first zero byte, which no
// record holds (JSON writes control characters escaped); spare space follows, and anything but
// zeros after it is what a crash left of writes that were never synced (every synced record
// lies before it). Fed the journal's bytes in order, in pieces of any size.
class RecordsEnd {
 public:
  void feed(std::string_view piece) {
    if (!spare_) {
      const std::size_t zero = piece.find('\0');
      const std::size_t records = zero == std::string_view::npos ? piece.size() : zero;
      if (records > 0) last_ = piece[records - 1];
      end_ += records;
      if (zero == std::string_view::npos) return;
      spare_ = true;
      piece.remove_prefix(zero);
    }
    if (piece.find_first_not_of('\0') != std::string_view::npos) after_zero_ = true;
  }
  [[nodiscard]] std::uint64_t end() const { return end_; }
  [[nodiscard]] bool spare() const { return spare_; }
  [[nodiscard]] bool after_zero() const { return after_zero_; }
  // The records end with a whole line (or there are none).
  [[nodiscard]] bool whole() const { return end_ == 0 || last_ == '\n'; }

 private:
  std::uint64_t end_ = 0;
  char last_ = '\n';
  bool spare_ = false;
  bool after_zero_ = false;
};

// Where `fd`'s records end by the readers' rule. A journal whose records end short of a line,
// or with anything but zeros after the first zero byte, has a torn tail: resuming cuts it back
// first (Experiment::recover), so opening refuses it.
std::uint64_t records_length(int fd, std::uint64_t size, const std::filesystem::path& path) {
  char block[65536];
  RecordsEnd records;
  for (std::uint64_t at = 0; at < size && !records.after_zero();) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(size - at, sizeof block));
    const ssize_t got = ::pread(fd, block, want, static_cast<off_t>(at));
    if (got <= 0) throw file_error("cannot read the journal", path);
    records.feed(std::string_view(block, static_cast<std::size_t>(got)));
    at += static_cast<std::uint64_t>(got);
  }
  if (records.after_zero() || !records.whole()) {
    throw std::runtime_error("journal '" + path.string() +
                             "' ends in a torn record: searcher-run resume cuts it back first");
  }
  return records.end();
}

}  // namespace

Journal::Journal(const std::filesystem::path& path, Growth growth) : path_(path), growth_(growth) {
  // Spare space is written at the records' end, not the file's; otherwise appended as ever.
  positioned_ = growth == Growth::spare_space;
  const int append = positioned_ ? 0 : O_APPEND;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | append, 0644);
  if (fd_ < 0) throw file_error("cannot open the journal", path);
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  file_size_ = size > 0 ? static_cast<std::uint64_t>(size) : 0;
  // Spare space a run that did not close the journal left (resuming cut it back to the
  // records, so this is for any other opener): written over from the last record on.
  written_size_ = synced_size_ =
      growth_ == Growth::spare_space ? records_length(fd_, file_size_, path) : file_size_;
  sync_directory(path.parent_path());
}

Journal::~Journal() {
  // A run ending by an exception in a batch: its records are written as they were before they
  // waited for the batch's sync (never synced here, nor acted on: the same as a crash).
  if (fd_ < 0) return;
  if (!pending_.empty()) {
    const ssize_t n = positioned_ ? ::pwrite(fd_, pending_.data(), pending_.size(),
                                             static_cast<off_t>(written_size_))
                                  : ::write(fd_, pending_.data(), pending_.size());
    if (n > 0) written_size_ += static_cast<std::uint64_t>(n);
  }
  // Closed: the file is its records again (readers need not know about spare space).
  if (file_size_ > written_size_) (void)!::ftruncate(fd_, static_cast<off_t>(written_size_));
  ::close(fd_);
}

void Journal::make_room(std::uint64_t size) {
  const std::uint64_t growth = std::clamp(file_size_, kMinGrowth, kMaxGrowth);
  const std::uint64_t target = std::max(size, file_size_) + growth;
  static const std::string zeros(std::size_t{64} << 10, '\0');
  for (std::uint64_t at = file_size_; at < target;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), target - at));
    const ssize_t done = ::pwrite(fd_, zeros.data(), n, static_cast<off_t>(at));
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) {
      // No room for spare space (a full disk, a file size limit): give back what it took and
      // write the records at the file's end from now on, as an appended journal does; the
      // record's own write says whether there is room for it.
      (void)!::ftruncate(fd_, static_cast<off_t>(file_size_));
      growth_ = Growth::as_written;
      return;
    }
    at += static_cast<std::uint64_t>(done);
  }
  file_size_ = target;  // before the sync: a close after a failed sync still cuts the zeros off
  // The new size and blocks made durable once here, so that a record's sync writes data only.
  // Counted with the record syncs: it is part of what durability costs the runner.
  const auto started = std::chrono::steady_clock::now();
  if (::fdatasync(fd_) != 0) throw file_error("cannot sync the journal", path_);
  ++syncs_;
  sync_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
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
  if (growth_ == Growth::spare_space && written_size_ + pending_.size() > file_size_) {
    make_room(written_size_ + pending_.size());
  }
  std::string text;
  text.swap(pending_);  // a failed write is not tried again (its torn tail is the reader's)
  write_all(fd_, text, path_, positioned_ ? static_cast<std::int64_t>(written_size_) : -1);
  written_size_ += text.size();
  text.clear();
  pending_.swap(text);  // keeps the capacity
}

void Journal::sync_now() {
  write_pending();
  const auto started = std::chrono::steady_clock::now();
  if (injected_sync_failure()) {
    // What was written since the last sync is lost: zeros where it was (spare space, as the
    // file is after a crash), or the file cut back to the sync (an appended journal).
    if (positioned_) {
      const std::string lost(written_size_ - synced_size_, '\0');
      (void)!::pwrite(fd_, lost.data(), lost.size(), static_cast<off_t>(synced_size_));
    } else {
      (void)!::ftruncate(fd_, static_cast<off_t>(synced_size_));
      file_size_ = synced_size_;
    }
    written_size_ = synced_size_;
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
  RecordsEnd records;
  records.feed(text);
  if (records.spare()) {
    contents.spare_space = true;
    contents.spare_from = records.end();
    contents.after_zero = records.after_zero();
    contents.torn_tail = contents.after_zero;  // pieces of writes never synced
    text = text.substr(0, records.end());
  }
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

void keep_after_zero(const std::filesystem::path& path, std::uint64_t from,
                     const std::filesystem::path& aside) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(from));
  std::string rest{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t last = rest.find_last_not_of('\0');
  rest.resize(last == std::string::npos ? 0 : last + 1);
  write_file_atomically(aside, rest);
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
