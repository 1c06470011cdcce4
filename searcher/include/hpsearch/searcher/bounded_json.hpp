#pragma once
/// \file
/// The one JSON reader for text from outside the process: protocol lines, snapshots, trial
/// messages, the journal and the store's files. It refuses text longer or nested deeper than a
/// limit before nlohmann::json builds anything, so a line of 60,000 `[` cannot exhaust the
/// stack of a recursive consumer (dump, copy, comparison, the Python conversion) and a huge
/// document cannot take gigabytes. The limits are listed in docs/security.md.

#include <cstddef>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hpsearch {

/// Deepest nesting of arrays and objects accepted. A config nests at most 64 levels
/// (config/src/document.hpp), and a snapshot or journal record wraps its hyperparameters in a
/// few more; 128 leaves room and keeps every recursive consumer's stack small.
inline constexpr std::size_t kMaxJsonDepth = 128;
/// Longest protocol line accepted by default (a `searcher-sim drive` line, a C ABI event):
/// 16 MiB. nlohmann::json can take about 24 times the text in memory (16 MiB of `[],` took
/// 400 MB in `drive`), so this bounds what one line costs. A `restore` line carries a whole
/// snapshot, about 450 bytes per ASHA trial, so `drive --max-line-bytes` raises it for searches
/// beyond some 35,000 trials.
inline constexpr std::size_t kMaxJsonLineBytes = std::size_t{16} << 20;
/// Largest file of the runner's own read back (snapshot.json, a journal record, the store's
/// files): 1 GiB. These are written by the runner; the limit guards against damage.
inline constexpr std::size_t kMaxJsonDocumentBytes = std::size_t{1} << 30;

struct JsonLimits {
  std::size_t max_depth = kMaxJsonDepth;
  std::size_t max_bytes = kMaxJsonLineBytes;
};

/// The limits for the runner's own files.
inline constexpr JsonLimits kDocumentLimits{kMaxJsonDepth, kMaxJsonDocumentBytes};

/// Why `text` is refused, if it is: "JSON text of N bytes is longer than the limit of M bytes"
/// or "JSON nested deeper than 128 levels (the limit) at byte N" (1-based, the bracket that
/// went past). One linear pass; it follows JSON's strings and escapes, so for any text that is
/// valid JSON the depth it counts is the value's depth (invalid text is refused by the parser).
[[nodiscard]] std::optional<std::string> json_limit_violation(std::string_view text,
                                                              const JsonLimits& limits = {});

/// nlohmann::json::parse(text) within the limits: text beyond them throws a
/// nlohmann::json::parse_error ("parse error at byte N: JSON nested deeper than ..."), so the
/// handlers of parse errors report it. An object with the same key twice is refused the same
/// way ("JSON object has the key \"id\" twice"), where nlohmann::json would keep the last.
[[nodiscard]] nlohmann::json parse_json(std::string_view text, const JsonLimits& limits = {});

/// The whole of `in` (a file) parsed within the limits: a stream longer than max_bytes is
/// refused after reading max_bytes + 1 bytes, never more.
[[nodiscard]] nlohmann::json parse_json(std::istream& in,
                                        const JsonLimits& limits = kDocumentLimits);

/// As parse_json, but a value that is not valid JSON or is beyond the limits gives a
/// discarded value instead of an exception (as nlohmann::json::parse(text, nullptr, false)).
[[nodiscard]] nlohmann::json parse_json_or_discarded(std::string_view text,
                                                     const JsonLimits& limits = {});
[[nodiscard]] nlohmann::json parse_json_or_discarded(std::istream& in,
                                                     const JsonLimits& limits = kDocumentLimits);

/// What read_line found.
enum class LineRead {
  kLine,     ///< a line (without its '\n'), the last one possibly without a '\n'
  kTooLong,  ///< a line longer than max_bytes: its first max_bytes are in `line`, the rest was
             ///< read and dropped up to and including its '\n', so the next read starts at
             ///< the next line
  kEnd,      ///< end of input, nothing read
};

/// std::getline with a bound: never holds more than max_bytes of one line in memory.
LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes);

}  // namespace hpsearch
