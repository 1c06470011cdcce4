// Fuzz target: drive protocol lines (DESIGN.md section 3) fed to a searcher in any state.
//
// Input: the first line picks the searcher (byte 0, from support/searchers.hpp), --explain
// (byte 1, odd) and a prefix of allowed events (the rest: their number, then the choices).
// Each further line is either `!` + choices, which plays that many more allowed events, or a
// protocol line sent as it is, after `@D` is replaced by the request id of trial D and `#D` by
// trial D's outstanding validate_after length (so mutations reach real trials). A line that
// starts with `~` is sent the same way but through run_drive's stream reader with a limit of
// kShortLine bytes, so that small inputs reach the refusal of an over-long line (the depth
// limit, 128, is within reach of any line).
//
// Contract: every line gets exactly one answer (through run_drive too, however long), an object
// with one field of the protocol (operations, progress, snapshot, restored, error); an error is a
// non-empty sentence without the JSON library's internals and leaves the state unchanged (the
// snapshot, and the derived structures behind it: support/master.hpp, same_state); operations read
// back as operations; every event the searcher's own state allows is accepted.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "hpsearch/simulator/drive.hpp"
#include "support/fuzz_support.hpp"
#include "support/master.hpp"
#include "support/searchers.hpp"

namespace {

using hpsearch::Searcher;
using hpsearch::fuzz::broken;
using hpsearch::fuzz::Choices;
using hpsearch::fuzz::Master;

// Replaces @D and #D (D one digit) with trial D's request id and outstanding length.
std::string substituted(const hpsearch::fuzz::Master& master, std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const bool marker =
        (c == '@' || c == '#') && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '9';
    if (!marker) {
      out += c;
      continue;
    }
    const auto n = static_cast<std::size_t>(line[++i] - '0');
    out += c == '@' ? master.trial_id(n) : std::to_string(master.trial_length(n));
  }
  return out;
}

void check_answer(const nlohmann::json& answer, std::string_view line) {
  const auto fail = [&](std::string_view what) {
    broken(what, "line:   " + std::string(line) + "\nanswer: " + hpsearch::json_line(answer));
  };
  if (!answer.is_object() || answer.size() != 1) fail("the answer is not an object with one field");
  if (hpsearch::json_line(answer).find('\n') != std::string::npos) fail("the answer spans lines");
  if (answer.contains("error")) {
    const nlohmann::json& error = answer.at("error");
    if (!error.is_string() || error.get_ref<const std::string&>().empty()) {
      fail("the error is not a non-empty string");
    }
    if (hpsearch::fuzz::leaks_json_internals(error.get_ref<const std::string&>(),
                                             hpsearch::fuzz::quotable(line))) {
      fail("the error leaks the JSON library's internals");
    }
  } else if (answer.contains("operations")) {
    for (const nlohmann::json& op : answer.at("operations")) {
      nlohmann::json shown = op;
      shown.erase("explain");
      if (nlohmann::json(op.get<hpsearch::Operation>()) != shown) {
        fail("an operation does not read back as itself");
      }
    }
  } else if (answer.contains("progress")) {
    const nlohmann::json& p = answer.at("progress");
    if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() < 0) {
      fail("progress is not a finite number >= 0");
    }
  } else if (!answer.contains("snapshot") && answer != nlohmann::json{{"restored", true}}) {
    fail("the answer has no field of the protocol");
  }
}

// Sends one line the searcher's state allows; returns false if none is.
bool play_allowed(Searcher& searcher, Master& master, Choices& choices,
                  const hpsearch::DriveOptions& options) {
  const std::optional<std::string> line = master.next(choices);
  if (!line) return false;
  const nlohmann::json answer = hpsearch::drive_line(searcher, *line, options);
  check_answer(answer, *line);
  if (answer.contains("error"))
    broken("an allowed event was refused", *line + "\n" + answer.dump());
  master.answered(answer);
  return true;
}

void play(Searcher& searcher, Master& master, std::string_view recipe,
          const hpsearch::DriveOptions& options) {
  Choices choices(recipe);
  const std::size_t steps = choices.below(64);
  for (std::size_t i = 0; i < steps && play_allowed(searcher, master, choices, options); ++i) {}
}

// The line limit of `~` lines: short enough for the fuzzer's inputs to pass it.
constexpr std::size_t kShortLine = 64;

// The one answer run_drive writes for `line` read from a stream, with lines limited to
// kShortLine bytes.
nlohmann::json through_stream(Searcher& searcher, const std::string& line,
                              hpsearch::DriveOptions options) {
  options.limits.max_bytes = kShortLine;
  std::istringstream in(line + "\n");
  std::ostringstream out;
  hpsearch::run_drive(searcher, in, out, options);
  const std::string text = out.str();
  if (text.empty() || text.find('\n') != text.size() - 1) {
    broken("run_drive did not answer one line with one line",
           "line:   " + line + "\nanswer: " + text);
  }
  const nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
  if (answer.is_discarded()) broken("run_drive answered with no JSON", text);
  if (line.size() > kShortLine && !answer.contains("error")) {
    broken("a line over the limit was not refused", line);
  }
  return answer;
}

void send_hostile(Searcher& searcher, Master& master, std::string_view raw,
                  const hpsearch::DriveOptions& options) {
  const bool stream = raw.starts_with('~');
  const std::string line = substituted(master, stream ? raw.substr(1) : raw);
  const Searcher before = searcher;
  const nlohmann::json answer = stream ? through_stream(searcher, line, options)
                                       : hpsearch::drive_line(searcher, line, options);
  check_answer(answer, line);
  if (!answer.contains("error")) {
    master.sync(searcher);  // an event or a restore it did not choose may have changed the state
  } else if (!hpsearch::fuzz::same_state(before, searcher)) {
    broken("a refused line changed the searcher", line + "\n" + answer.dump() +
                                                      "\nbefore: " + before.snapshot().dump() +
                                                      "\nafter:  " + searcher.snapshot().dump());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  const std::string_view header = hpsearch::fuzz::take_line(input);
  Choices pick(header.substr(0, 2));
  Searcher searcher = hpsearch::fuzz::pool_searcher(pick.below(256));
  Master master(searcher);
  const hpsearch::DriveOptions options{.explain = pick.below(2) == 1, .limits = {}};
  play(searcher, master, header.size() > 2 ? header.substr(2) : std::string_view{}, options);
  while (!input.empty()) {
    const std::string_view line = hpsearch::fuzz::take_line(input);
    if (line.starts_with('!')) {
      play(searcher, master, line.substr(1), options);
    } else {
      send_hostile(searcher, master, line, options);
    }
  }
  return 0;
}
