#pragma once
// Private to config/: a YAML syntax error said as the config's other errors are, in the
// config's own terms: where, what was found there and what was expected, instead of the
// parser's wording (yaml-cpp's "illegal map value", "end of map flow not found", ...).

#include <cstddef>
#include <string>
#include <string_view>

namespace hpsearch::config_detail {

/// Where the error is (0-based line; column in characters, 0-based) and what to say after
/// "invalid YAML: ": "found ..., expected ...".
struct YamlSyntaxError {
  std::size_t line = 0;
  std::size_t column = 0;
  std::string message;
};

/// Explains the parser's error `parser_message` at (`line`, `column`) of `text` (yaml-cpp's
/// mark, 0-based, the column in characters). The place may move to where the cause is (the
/// tab in an indentation, the key indented too far, the backslash of a bad escape). Reads
/// `text` only; the parser's wording is not repeated.
[[nodiscard]] YamlSyntaxError explain_yaml_error(std::string_view text, std::size_t line,
                                                 std::size_t column,
                                                 std::string_view parser_message);

}  // namespace hpsearch::config_detail
