// Fuzz target: snapshots given to Searcher::restore.
//
// Input: the first line picks the searcher (byte 0, from support/searchers.hpp) and a prefix
// of allowed events that puts it into some state first (the rest: their number, then the
// choices). The rest of the input is JSON (within the readers' limits, docs/security.md): an array
// is a JSON Patch (RFC 6902) applied to the searcher's own snapshot, so that small inputs reach
// deep, nearly valid snapshots (a count one off, a trial removed, two ids swapped); anything else
// is the snapshot itself.
//
// Contract: restore either throws ProtocolError, with a sentence that names what is wrong
// (no JSON library internals), and leaves the state unchanged, or it accepts, and then
// the state is whole: its snapshot restores into a fresh searcher to the same snapshot, and
// every event the restored state allows is accepted (a few dozen are played).
#include <cstdint>
#include <functional>
#include <string>

#include "hpsearch/simulator/drive.hpp"
#include "support/fuzz_support.hpp"
#include "support/master.hpp"
#include "support/searchers.hpp"

namespace {

using hpsearch::Searcher;
using hpsearch::fuzz::broken;
using hpsearch::fuzz::Choices;

// `context` says where, if an event is refused: a snapshot's text costs more than the events,
// so it is written only then.
void play(Searcher& searcher, Choices& choices, std::size_t steps,
          const std::function<std::string()>& context) {
  hpsearch::fuzz::Master master(searcher);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::optional<std::string> line = master.next(choices);
    if (!line) return;
    const nlohmann::json answer = hpsearch::drive_line(searcher, *line);
    if (answer.contains("error")) {
      broken("an allowed event was refused",
             context() + "\nline:   " + *line + "\nanswer: " + answer.dump());
    }
    master.answered(answer);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  const std::string_view header = hpsearch::fuzz::take_line(input);
  Choices choices(header);
  const std::size_t pool_index = choices.below(256);
  // Read as every way in reads a snapshot (drive, the C ABI): beyond the depth or size limit
  // it never reaches restore, like text that is not JSON.
  const nlohmann::json edit = hpsearch::parse_json_or_discarded(input);
  if (edit.is_discarded()) return 0;

  Searcher searcher = hpsearch::fuzz::pool_searcher(pool_index);
  play(searcher, choices, choices.below(64), [] { return std::string("before the restore"); });
  const Searcher before = searcher;
  nlohmann::json snapshot;
  try {
    snapshot = edit.is_array() ? searcher.snapshot().patch(edit) : edit;
  } catch (const nlohmann::json::exception&) {
    return 0;  // a patch that does not apply: no snapshot to test
  }
  try {
    searcher.restore(snapshot);
  } catch (const hpsearch::ProtocolError& e) {
    const std::string message = e.what();
    if (message.empty() ||
        hpsearch::fuzz::leaks_json_internals(message, hpsearch::fuzz::decoded(snapshot))) {
      broken("a refused snapshot is not explained in a sentence", message);
    }
    if (!hpsearch::fuzz::same_state(before, searcher)) {
      broken("a refused snapshot changed the searcher", message);
    }
    return 0;
  }
  const nlohmann::json restored = searcher.snapshot();
  Searcher fresh = hpsearch::fuzz::pool_searcher(pool_index);
  try {
    fresh.restore(restored);
  } catch (const hpsearch::ProtocolError& e) {
    broken("the snapshot of a restored searcher does not restore", e.what());
  }
  if (fresh.snapshot() != restored) {
    broken("the snapshot of a restored searcher restores to another state",
           restored.dump() + "\n" + fresh.snapshot().dump());
  }
  play(searcher, choices, 48, [&] { return "after the restore of " + restored.dump(); });
  return 0;
}
