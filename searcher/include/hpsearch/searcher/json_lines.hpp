#pragma once
/// \file
/// The JSON-lines forms shared by `searcher-sim drive`, the simulator's trace and the runner's
/// journal: one JSON value per line, and the answer to an event.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/operation.hpp"

namespace hpsearch {

/// A JSON value as one line (invalid UTF-8 in strings is replaced, never thrown).
[[nodiscard]] std::string json_line(const nlohmann::json& value);

/// What a JSON parse error says, without nlohmann's `[json.exception.parse_error.N] ` prefix:
/// "parse error at line 1, column 2: ...". Any json exception parse() throws: a syntax error,
/// or a number out of range (1e999, found by fuzzing).
[[nodiscard]] std::string parse_error_text(const nlohmann::json::exception& error);

/// The protocol's answer to an event: `{"operations": [...]}` (with explanations if asked).
[[nodiscard]] nlohmann::json operations_answer(const std::vector<Operation>& ops,
                                               bool explain = false);

/// \name Direct writers
/// JSON text appended to `out`, byte for byte what json_line writes for the same value (keys in
/// nlohmann::json's std::map order, numbers as its dump writes them, strings escaped alike,
/// invalid UTF-8 replaced), without building a nlohmann::json first: the runner's journal
/// writes a record per event on its hot path (docs/PERFORMANCE.md, the runner). The journal
/// and snapshot formats are those bytes, so tests/searcher/json_writer_test.cpp checks each
/// writer against hand-written lines and against json_line of the same value.
///@{
/// json_line(value), appended.
void append_json(std::string& out, const nlohmann::json& value);
/// A JSON string.
void append_json_string(std::string& out, std::string_view text);
/// An unsigned integer.
void append_json_number(std::string& out, std::uint64_t value);
/// A double as nlohmann::json dumps it (shortest round trip, "1.0" for a whole number; null
/// if not finite).
void append_json_number(std::string& out, double value);
/// metric_to_json(value): a finite number, or "Infinity", "-Infinity", "NaN".
void append_metric_json(std::string& out, double value);
/// json_line(nlohmann::json(event)).
void append_event_json(std::string& out, const Event& event);
/// json_line(operation_to_json(op, false)).
void append_operation_json(std::string& out, const Operation& op);
/// json_line(operations_answer(ops)).
void append_operations_answer(std::string& out, const std::vector<Operation>& ops);
///@}

}  // namespace hpsearch
