#include "hpsearch/runner/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch {
namespace {

std::runtime_error file_error(const std::string& what, const std::filesystem::path& path) {
  return std::runtime_error(what + " '" + path.string() + "': " + std::strerror(errno));
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw file_error("cannot write", path);
    done += static_cast<std::size_t>(n);
  }
}

void sync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

Journal::Journal(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw file_error("cannot open the journal", path);
  sync_directory(path.parent_path());
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const nlohmann::json& record) {
  write_all(fd_, json_line(record) + '\n', path_);
  if (::fdatasync(fd_) != 0) throw file_error("cannot sync the journal", path_);
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
      record = nlohmann::json::parse(text.substr(start, end - start));
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
    throw;
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) throw file_error("cannot rename to", path);
  sync_directory(path.parent_path());
}

}  // namespace hpsearch
