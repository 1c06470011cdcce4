#pragma once
/// \file
/// The JSON-lines protocol (docs/protocol.md): one event per line in, exactly one line out.

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string_view>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch {

/// Options of a drive session.
struct DriveOptions {
  /// Add an "explain" field to each validate_after and close that a metric-driven method
  /// decided (rung, rank, cut-off and a sentence).
  bool explain = false;
  /// A line longer or nested deeper than these is answered with an error (docs/security.md).
  JsonLimits limits;
};

/// Answers one protocol line. Never throws for bad input: a malformed line, an unknown event
/// or one the searcher refuses gives `{"error": "..."}` and leaves the searcher unchanged.
[[nodiscard]] nlohmann::json drive_line(Searcher& searcher, std::string_view line,
                                        const DriveOptions& options = {});

/// Answers one event already parsed from JSON (what drive_line does after parsing the line):
/// the Python module hands its events here as values, with no text in between.
[[nodiscard]] nlohmann::json drive_event(Searcher& searcher, const nlohmann::json& event,
                                         const DriveOptions& options = {});

/// Reads lines from `in` until end of input, writing one response line per input line to
/// `out`, flushed after each line so a peer can wait for it. A line longer than
/// options.limits.max_bytes is answered with one error line without being held in memory
/// beyond the limit; the rest of it is read and dropped, and the session goes on.
void run_drive(Searcher& searcher, std::istream& in, std::ostream& out,
               const DriveOptions& options = {});

}  // namespace hpsearch
