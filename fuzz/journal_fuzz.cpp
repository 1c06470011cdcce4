// Fuzz target: journal replay (runner/src/engine/journal.cpp,
// runner/src/engine/journaled_searcher.cpp) of a journal that a crash cut short or that was
// damaged.
//
// Input: the first line picks the searcher (byte 0, support/searchers.hpp) and the allowed
// events a run journals (the rest, as in `drive`; some are followed by a runner record). The
// journal is written by the runner's own JournaledSearcher, to a memory file. The second line
// says how it is damaged: byte 0 the kind (0 cut at the position: a torn tail; 1 the bytes
// from the position, as many as byte 3 says, replaced by the payload; 2 the same, then cut
// after the payload; 3 line number "position" (modulo the number of lines) removed), bytes 1-2
// the position (at most the journal's length: 0xffff is its end). The rest of the input is
// the payload.
//
// Contract, with m the number of complete lines before the first damaged byte: reading the
// journal either refuses it with the documented message naming a line after those m, or
// gives every complete line as a record (the first m exactly the run's), says whether a torn
// tail follows, and how many bytes the complete records take; a journal whose complete lines
// are all the run's (a torn tail only) is always read. Replaying it in a fresh searcher
// replays the first m records with the run's answers; a damaged record after them either
// replays or is refused with a RunnerError naming its line (after the m), one line of bounded
// length; never another exception. The run's own complete records (a torn tail only, or the
// whole journal) replay to the very state the run had after them.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/journaled_searcher.hpp"
#include "hpsearch/runner/errors.hpp"
#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "support/fuzz_support.hpp"
#include "support/master.hpp"
#include "support/searchers.hpp"

namespace {

using hpsearch::fuzz::broken;
using hpsearch::fuzz::Choices;
using hpsearch::runner_detail::JournaledSearcher;

constexpr std::size_t kMaxMessage = 1000;
const std::string kName = "fuzz.jsonl";

// A file in memory, reached by a path as the runner reaches its journal.
class MemoryFile {
 public:
  MemoryFile() : fd_(::memfd_create("journal", MFD_CLOEXEC)) {
    if (fd_ < 0) broken("cannot create a memory file", "");
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  [[nodiscard]] std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  [[nodiscard]] std::string text() const {
    std::string out;
    char chunk[4096];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, chunk, sizeof chunk, at);
      if (n <= 0) return out;
      out.append(chunk, static_cast<std::size_t>(n));
      at += n;
    }
  }

 private:
  int fd_;
};

// A run: the searcher and the events the input chooses, all journaled. `states[k]` is the
// searcher after the first k records.
std::string journaled_run(JournaledSearcher& run, std::string_view recipe,
                          std::vector<hpsearch::Searcher>& states) {
  const MemoryFile file;
  run.open(file.path());
  states.push_back(run.searcher());
  Choices choices(recipe);
  hpsearch::fuzz::Master master(run.searcher());
  const std::size_t steps = choices.below(48);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::optional<std::string> line = master.next(choices);
    if (!line) break;
    const nlohmann::json j = nlohmann::json::parse(*line);
    if (j.at("event") == "initial_operations") {
      master.answered(hpsearch::operations_answer(run.initial_operations()));
      states.push_back(run.searcher());
      continue;
    }
    const hpsearch::Event event = hpsearch::event_from_json(j);
    const bool validation = std::holds_alternative<hpsearch::ValidationCompleted>(event);
    master.answered(hpsearch::operations_answer(
        run.handle(event, validation ? nlohmann::json{{"loss", j.at("metric")}, {"epoch", i}}
                                     : nlohmann::json())));
    states.push_back(run.searcher());
    if (choices.below(4) == 0) {
      run.append_runner_record("restart",
                               {{"request_id", j.at("request_id")}, {"why", "exit code 1"}});
      states.push_back(run.searcher());
    }
  }
  return file.text();
}

std::size_t count_newlines(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string damaged(const std::string& original, std::string_view how, std::string_view payload) {
  Choices choices(how);
  const std::size_t kind = choices.below(4);
  const std::size_t high = choices.below(256);  // read in order: the operands of | are unsequenced
  const std::size_t position = std::min(original.size(), (high << 8) | choices.below(256));
  const std::size_t length = choices.below(256);
  if (kind == 0) return original.substr(0, position);
  if (kind == 1)
    return original.substr(0, position) + std::string(payload) +
           original.substr(std::min(original.size(), position + length));
  if (kind == 2) return original.substr(0, position) + std::string(payload);
  // Line number `position` (modulo the number of lines) removed.
  const std::size_t lines = count_newlines(original);
  if (lines == 0) return original;
  std::size_t start = 0;
  for (std::size_t k = 0; k < position % lines; ++k) start = original.find('\n', start) + 1;
  return original.substr(0, start) + original.substr(original.find('\n', start) + 1);
}

void check_message(const std::string& message, const std::string& expected_start,
                   std::size_t intact, const std::string& detail) {
  const auto fail = [&](std::string_view what) { broken(what, detail + "\nmessage: " + message); };
  if (!message.starts_with(expected_start))
    fail("the message does not name the journal and a line");
  const std::size_t number = std::stoul(message.substr(expected_start.size()));
  if (number <= intact) fail("the message names a line before the damage");
  if (message.size() > kMaxMessage) fail("a message longer than the limit");
  for (const char c : message) {
    if (static_cast<unsigned char>(c) < 0x20) fail("a message with a control character");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  const std::string_view header = hpsearch::fuzz::take_line(input);
  const std::size_t searcher_index = Choices(header.substr(0, 1)).below(256);
  const std::string_view how = hpsearch::fuzz::take_line(input);

  JournaledSearcher run(hpsearch::fuzz::pool_searcher(searcher_index));
  std::vector<hpsearch::Searcher> states;
  const std::string original =
      journaled_run(run, header.size() > 1 ? header.substr(1) : std::string_view{}, states);
  const std::string text = damaged(original, how, input);
  const std::string detail = "original:\n" + original + "\ndamaged:\n" + text;

  // The complete lines before the first damaged byte are the run's.
  std::size_t first_difference = 0;
  while (first_difference < std::min(original.size(), text.size()) &&
         original[first_difference] == text[first_difference]) {
    ++first_difference;
  }
  // A reader stops at the first zero byte (spare space, docs/store.md): no record holds one.
  const std::string_view records = std::string_view(text).substr(0, text.find('\0'));
  const std::size_t intact =
      count_newlines(records.substr(0, std::min(first_difference, records.size())));
  const std::size_t complete = count_newlines(records);
  const hpsearch::JournalContents run_records = hpsearch::parse_journal(original, kName);

  hpsearch::JournalContents contents;
  try {
    contents = hpsearch::parse_journal(text, kName);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (intact == complete)
      broken("a journal with a torn tail only was refused", detail + "\n" + message);
    check_message(message, "journal '" + kName + "' line ", intact, detail);
    if (!message.ends_with(" is not a JSON record: the journal is damaged"))
      broken("not the documented message", message);
    return 0;
  }
  if (contents.records.size() != complete) broken("not every complete line is a record", detail);
  const std::size_t last_newline = records.rfind('\n');
  const std::size_t valid_bytes = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (contents.valid_bytes != valid_bytes)
    broken("valid_bytes is not the end of the last complete line", detail);
  // Torn: bytes after the last complete line other than spare space (zeros to the end).
  const bool torn = valid_bytes < records.size() ||
                    (records.size() < text.size() &&
                     text.find_first_not_of('\0', records.size()) != std::string::npos);
  if (contents.torn_tail != torn) broken("torn_tail is wrong", detail);
  if (contents.spare_space != (records.size() < text.size()))
    broken("spare_space is wrong", detail);
  for (std::size_t k = 0; k < intact; ++k) {
    if (contents.records[k] != run_records.records[k])
      broken("an intact record reads back differently", detail);
  }

  JournaledSearcher replayed(hpsearch::fuzz::pool_searcher(searcher_index));
  std::size_t applied = 0;
  try {
    const std::uint64_t count =
        replayed.replay_journal(contents, kName, [&](const auto&) { ++applied; });
    if (count != contents.records.size() || applied != count)
      broken("not every record was replayed", detail);
  } catch (const hpsearch::RunnerError& e) {
    if (intact == complete)
      broken("the run's own records did not replay", detail + "\n" + e.what());
    if (applied < intact)
      broken("a record before the damage did not replay", detail + "\n" + e.what());
    check_message(e.what(), "journal '" + kName + "' line ", intact, detail);
    return 0;
  } catch (const std::exception& e) {
    broken("an exception other than RunnerError", detail + "\n" + e.what());
  }
  // What resume after a crash relies on: the run's records, a torn tail dropped, give the
  // state the run had after them (a whole journal: the run's last state).
  if (intact == complete && !hpsearch::fuzz::same_state(states.at(complete), replayed.searcher())) {
    broken("the run's records replay to another state than the run had after them", detail);
  }
  return 0;
}
