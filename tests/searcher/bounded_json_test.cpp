#include "hpsearch/searcher/bounded_json.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace hpsearch;

namespace {

std::string nested(std::size_t depth, const std::string& inside = "") {
  return std::string(depth, '[') + inside + std::string(depth, ']');
}

}  // namespace

TEST_CASE("bounded JSON: depth up to the limit is read, one more is refused at its bracket") {
  CHECK(kMaxJsonDepth == 128);
  const nlohmann::json deepest = parse_json(nested(128));
  CHECK(deepest.is_array());
  CHECK_FALSE(json_limit_violation(nested(128)).has_value());
  // The 129th '[' is byte 129.
  CHECK(json_limit_violation(nested(129)) ==
        "JSON nested deeper than 128 levels (the limit) at byte 129");
  // Objects count as arrays do; the position counts from 1 like nlohmann's.
  const std::string objects = R"({"a":{"b":[{}]}})";
  CHECK_FALSE(json_limit_violation(objects, {.max_depth = 4}).has_value());
  CHECK(json_limit_violation(objects, {.max_depth = 3}) ==
        "JSON nested deeper than 3 levels (the limit) at byte 12");
  CHECK_THROWS_WITH_AS(
      (void)parse_json(nested(60000)),
      "[json.exception.parse_error.101] parse error at byte 129: JSON nested deeper than 128 "
      "levels (the limit)",
      nlohmann::json::parse_error);
  CHECK(parse_json_or_discarded(nested(60000)).is_discarded());
}

TEST_CASE("bounded JSON: an object with the same key twice is refused, at any depth") {
  // nlohmann::json alone keeps the last value silently.
  CHECK(nlohmann::json::parse(R"({"a":1,"a":2})") == nlohmann::json{{"a", 2}});
  CHECK_THROWS_WITH_AS((void)parse_json(R"({"a":1,"a":2})"),
                       "[json.exception.parse_error.101] parse error: JSON object has the key "
                       "\"a\" twice",
                       nlohmann::json::parse_error);
  CHECK_THROWS_AS((void)parse_json(R"([{"x":{"b":1,"c":2,"b":3}}])"), nlohmann::json::parse_error);
  CHECK(parse_json_or_discarded(R"({"a":1,"a":2})").is_discarded());
  // The same key in different objects, or a key equal to a value, is fine.
  CHECK(parse_json(R"({"a":{"a":1},"b":[{"a":2},{"a":3}],"c":"a"})")["b"][1]["a"] == 3);
  std::istringstream file(R"({"seq":1,"seq":2})");
  CHECK_THROWS_AS((void)parse_json(file), nlohmann::json::parse_error);
}

TEST_CASE("bounded JSON: brackets inside strings are text, escaped quotes do not end strings") {
  const std::string text = R"(["[[[[", "\"[[[[", "\\", [1]])";
  CHECK_FALSE(json_limit_violation(text, {.max_depth = 2}).has_value());
  CHECK(json_limit_violation(text, {.max_depth = 1}).has_value());
  CHECK(parse_json(text, {.max_depth = 2}) ==
        nlohmann::json::array({"[[[[", "\"[[[[", "\\", nlohmann::json::array({1})}));
  // Closing brackets without openers (invalid JSON) never make the depth negative.
  CHECK_FALSE(json_limit_violation("]]]]}}[[", {.max_depth = 2}).has_value());
  CHECK(json_limit_violation("]]]]}}[[[", {.max_depth = 2}).has_value());
}

TEST_CASE("bounded JSON: text longer than the limit is refused before parsing") {
  CHECK(json_limit_violation("[1,2]", {.max_bytes = 5}) == std::nullopt);
  CHECK(json_limit_violation("[1,2] ", {.max_bytes = 5}) ==
        "JSON text of 6 bytes is longer than the limit of 5 bytes at byte 6");
  CHECK_THROWS_AS((void)parse_json("[1,2] ", {.max_bytes = 5}), nlohmann::json::parse_error);
  // A stream is read no further than the limit and one byte.
  std::istringstream big(std::string(1000, ' ') + "1");
  CHECK_THROWS_WITH((void)parse_json(big, {.max_bytes = 100}),
                    doctest::Contains("longer than the limit of 100 bytes"));
  CHECK(big.tellg() == std::streampos(101));
  std::istringstream small(" {\"a\": [1]} ");
  CHECK(parse_json(small) == nlohmann::json{{"a", {1}}});
  std::istringstream deep(nested(200));
  CHECK(parse_json_or_discarded(deep).is_discarded());
  // Syntax errors are nlohmann's own.
  CHECK_THROWS_WITH((void)parse_json("[1,"), doctest::Contains("syntax error"));
}

TEST_CASE("bounded JSON: read_line holds at most the limit and skips the rest of a long line") {
  std::istringstream in("short\n" + std::string(50, 'x') + "\nnext\r\nlast");
  std::string line;
  CHECK(read_line(in, line, 10) == LineRead::kLine);
  CHECK(line == "short");
  CHECK(read_line(in, line, 10) == LineRead::kTooLong);
  CHECK(line == std::string(10, 'x'));
  CHECK(read_line(in, line, 10) == LineRead::kLine);
  CHECK(line == "next\r");  // as std::getline: the caller drops a CR
  CHECK(read_line(in, line, 10) == LineRead::kLine);
  CHECK(line == "last");
  CHECK(read_line(in, line, 10) == LineRead::kEnd);
  CHECK(line.empty());
  std::istringstream empty_lines("\n\n");
  CHECK(read_line(empty_lines, line, 10) == LineRead::kLine);
  CHECK(read_line(empty_lines, line, 10) == LineRead::kLine);
  CHECK(read_line(empty_lines, line, 10) == LineRead::kEnd);
  // A line of exactly the limit is whole.
  std::istringstream exact(std::string(10, 'y') + "\n");
  CHECK(read_line(exact, line, 10) == LineRead::kLine);
  CHECK(line.size() == 10);
}
