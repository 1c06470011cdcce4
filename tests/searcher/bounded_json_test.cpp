#include "hpsearch/searcher/bounded_json.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

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

namespace {

// The same value with the same types throughout (nlohmann's == takes 1 and 1u and 1.0 as
// equal; the parser gives each its own type, and a record must read back as it always did).
bool identical(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key() || !identical(*x, *y)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!identical(a[k], b[k])) return false;
    }
    return true;
  }
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;  // -0.0 is not 0.0
  }
  return a == b;
}

// parse_json(text) is nlohmann::json::parse(text) (for text without a repeated key): the same
// value with the same types, or the same error.
void check_as_nlohmann(const std::string& text) {
  CAPTURE(text);
  std::string expected_error;
  nlohmann::json expected;
  try {
    expected = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    expected_error = e.what();
  }
  try {
    const nlohmann::json got = parse_json(text);
    CHECK(expected_error.empty());
    CHECK(identical(got, expected));
  } catch (const nlohmann::json::exception& e) {
    CHECK(std::string(e.what()) == expected_error);
  }
}

}  // namespace

TEST_CASE(
    "bounded JSON: every text reads as nlohmann::json reads it (the plain reader's texts too)") {
  // What a trial reports and the journal holds, and the edges of what the plain reader takes:
  // numbers of each type and at the limits of its integers, the literals, escapes and bytes it
  // leaves to the parser, and syntax errors (left to the parser, which says what is wrong).
  const std::vector<std::string> texts{
      R"({"type":"validation","length":2,"metrics":{"loss":500.999998}})",
      R"({"type":"checkpoint","path":"/tmp/x/trials/1-75a616b7/checkpoints/2","length":2})",
      R"( { "a" : [ 1 , -2 , 3.5 , -0 , 0 , -0.0 , 1e5 , 1E-5 , 2.5e+3 ] , "b" : { } , "c" : [ ] } )",
      "\t\r\n[true,false,null]\n",
      "999999999999999999",
      "1000000000000000000",
      "18446744073709551615",
      "18446744073709551616",
      "-999999999999999999",
      "-9223372036854775808",
      "-9223372036854775809",
      "0.1",
      "0.30000000000000004",
      "5e-324",
      "2.2250738585072014e-308",
      "1e-400",
      "1e308",
      "1e309",
      "-1e309",
      "1.7976931348623157e308",
      "123456789012345678901234567890.5",
      R"("escaped \" quote")",
      R"("tab\tnew\nline")",
      R"("\u00e9\ud83d\ude00")",
      "\"caf\xc3\xa9\"",
      "\"bad \xff byte\"",
      "\"del \x7f\"",
      "\"ctrl \x01\"",
      "",
      " ",
      "01",
      "-",
      "1.",
      ".5",
      "1e",
      "1e+",
      "+1",
      "--1",
      "0x10",
      "NaN",
      "Infinity",
      "tru",
      "truex",
      "nul",
      "[1,]",
      "[1 2]",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "{\"a\":}",
      "[",
      "]",
      "{",
      "}",
      "[1]]",
      "1 2",
      "\"open",
      "\xef\xbb\xbf[1]",
      "/* c */ 1",
      "[1]x"};
  for (const std::string& text : texts) check_as_nlohmann(text);

  // Random documents in the shapes above, written with random spacing.
  std::mt19937_64 rng(20261127);
  const std::vector<std::string> atoms{"0",
                                       "-0",
                                       "7",
                                       "-7",
                                       "42",
                                       "3.25",
                                       "-3.25",
                                       "1e3",
                                       "-2E-2",
                                       "6.02e23",
                                       "true",
                                       "false",
                                       "null",
                                       "\"s\"",
                                       "\"a b/c\"",
                                       "\"\"",
                                       "\"\\\\\"",
                                       "123456789012345678",
                                       "0.1000000000000000055511151231257827"};
  const auto space = [&] { return std::string(rng() % 3, " \t\n"[rng() % 3]); };
  std::function<std::string(int)> document = [&](int depth) -> std::string {
    const std::uint64_t pick = rng() % 6;
    if (depth > 3 || pick < 3) {
      if (rng() % 4 == 0) {  // a random decimal number
        std::string number = (rng() % 2 ? "-" : "") + std::to_string(rng() % 100000);
        if (rng() % 2) number += "." + std::to_string(rng() % 1000000);
        if (rng() % 3 == 0) number += "e" + std::to_string(static_cast<int>(rng() % 700) - 350);
        return number;
      }
      return atoms[rng() % atoms.size()];
    }
    const bool object = pick == 3 || pick == 4;
    std::string text = object ? "{" : "[";
    const std::uint64_t n = rng() % 4;
    for (std::uint64_t k = 0; k < n; ++k) {
      if (k > 0) text += ",";
      text += space();
      if (object) text += "\"k" + std::to_string(k) + "\"" + space() + ":" + space();
      text += document(depth + 1) + space();
    }
    return text + (object ? "}" : "]");
  };
  for (int k = 0; k < 3000; ++k) {
    std::string text = space() + document(0) + space();
    if (k % 10 == 0 && !text.empty()) text.erase(rng() % text.size(), 1);  // often invalid
    check_as_nlohmann(text);
  }
  // A repeated key: the plain reader declines, the parser refuses it as before.
  CHECK_THROWS_WITH_AS((void)parse_json(R"({"type":"validation","type":"checkpoint"})"),
                       "[json.exception.parse_error.101] parse error: JSON object has the key "
                       "\"type\" twice",
                       nlohmann::json::parse_error);
}
