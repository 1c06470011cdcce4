#pragma once
/// \file
/// The JSON-lines forms shared by `searcher-sim drive`, the simulator's trace and the runner's
/// journal: one JSON value per line, and the answer to an event.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

}  // namespace hpsearch
