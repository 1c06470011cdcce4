// The direct JSON writers (json_lines.hpp): the journal's records are their bytes, so each is
// checked against lines written out by hand from the format (keys sorted, nlohmann::json's
// number and string forms), and against json_line of the same value built as a nlohmann::json
// (the writer the journal used before), over many values.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

using namespace hpsearch;

namespace {

RequestId id(const char* text) {
  return *RequestId::parse(text);
}

template <typename Append, typename Value>
std::string written(Append append, const Value& value) {
  std::string out = "<";  // appended to what is there, never replacing it
  append(out, value);
  return out;
}

std::string string_text(std::string_view s) {
  return written([](std::string& out, std::string_view v) { append_json_string(out, v); }, s);
}
std::string double_text(double d) {
  return written([](std::string& out, double v) { append_json_number(out, v); }, d);
}
std::string metric_text(double d) {
  return written([](std::string& out, double v) { append_metric_json(out, v); }, d);
}
std::string event_text(const Event& e) {
  return written([](std::string& out, const Event& v) { append_event_json(out, v); }, e);
}
std::string answer_text(const std::vector<Operation>& ops) {
  return written(
      [](std::string& out, const std::vector<Operation>& v) { append_operations_answer(out, v); },
      ops);
}

// "<" and the text (what written() gives for it).
std::string marked(const std::string& text) {
  std::string out(1, '<');
  out.append(text);
  return out;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("direct JSON writer: strings are escaped as nlohmann::json dumps them") {
  CHECK(string_text("trial_created") == "<\"trial_created\"");
  CHECK(string_text("/tmp/run dir/trials/1-75a616b7/checkpoints/2") ==
        "<\"/tmp/run dir/trials/1-75a616b7/checkpoints/2\"");
  CHECK(string_text("") == "<\"\"");
  // The two-character escapes, \u00XX for the other control bytes, '/' and DEL as they are.
  CHECK(string_text("a\"b\\c\nd\te\x01/\x7f") == "<\"a\\\"b\\\\c\\nd\\te\\u0001/\x7f\"");
  // UTF-8 as it is; a byte that is not UTF-8 becomes U+FFFD (EF BF BD), as json_line replaces it.
  CHECK(string_text("caf\xc3\xa9") == "<\"caf\xc3\xa9\"");
  CHECK(string_text("a\xff"
                    "b") ==
        "<\"a\xef\xbf\xbd"
        "b\"");
}

TEST_CASE("direct JSON writer: numbers as nlohmann::json dumps them") {
  CHECK(written([](std::string& out, std::uint64_t v) { append_json_number(out, v); },
                std::uint64_t{18446744073709551615U}) == "<18446744073709551615");
  CHECK(written([](std::string& out, std::uint64_t v) { append_json_number(out, v); },
                std::uint64_t{0}) == "<0");
  // Shortest text that reads back the same double; a whole number keeps ".0"; exponents have
  // a sign and two digits at least.
  CHECK(double_text(0.5) == "<0.5");
  CHECK(double_text(500.999998) == "<500.999998");
  CHECK(double_text(0.1) == "<0.1");
  CHECK(double_text(1.0) == "<1.0");
  CHECK(double_text(-0.0) == "<-0.0");
  CHECK(double_text(-2.5) == "<-2.5");
  CHECK(double_text(1e300) == "<1e+300");
  CHECK(double_text(1e-7) == "<1e-07");
  CHECK(double_text(0.5488135039273248) == "<0.5488135039273248");
  CHECK(double_text(kNaN) == "<null");
  CHECK(double_text(kInf) == "<null");
  // Metrics: the strings for what JSON has no number for.
  CHECK(metric_text(0.25) == "<0.25");
  CHECK(metric_text(kNaN) == "<\"NaN\"");
  CHECK(metric_text(kInf) == "<\"Infinity\"");
  CHECK(metric_text(-kInf) == "<\"-Infinity\"");
}

TEST_CASE("direct JSON writer: events and operations, keys in sorted order") {
  const RequestId a = id("75a616b7-c0cc-41d8-83b3-4e9afb52a2db");
  const RequestId b = id("d3dea19f-1551-49a5-b2d6-666224b70570");
  CHECK(event_text(TrialCreated{a}) ==
        R"(<{"event":"trial_created","request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db"})");
  CHECK(event_text(ValidationCompleted{a, 500.999998, 2}) ==
        R"(<{"event":"validation_completed","length":2,"metric":500.999998,)"
        R"("request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db"})");
  CHECK(event_text(ValidationCompleted{a, kNaN, 16}) ==
        R"(<{"event":"validation_completed","length":16,"metric":"NaN",)"
        R"("request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db"})");
  CHECK(event_text(TrialProgress{a, 3.0}) ==
        R"(<{"event":"trial_progress","request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db",)"
        R"("units":3.0})");
  CHECK(event_text(TrialExitedEarly{a, ExitedReason::kInvalidHp}) ==
        R"(<{"event":"trial_exited_early","reason":"invalid_hp",)"
        R"("request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db"})");
  CHECK(event_text(TrialClosed{a}) ==
        R"(<{"event":"trial_closed","request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db"})");

  Create fresh{a, 192771779, {{"x", 0.5488135039273248}, {"lr", "adam"}, {"n", 3}}};
  Create clone{b, 7, {{"x", 1.0}}};
  clone.checkpoint = a;
  CHECK(answer_text({}) == R"(<{"operations":[]})");
  CHECK(answer_text({fresh, ValidateAfter{a, 2}}) ==
        R"(<{"operations":[{"hparams":{"lr":"adam","n":3,"x":0.5488135039273248},)"
        R"("request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db","trial_seed":192771779,)"
        R"("type":"create"},{"length":2,"request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db",)"
        R"("type":"validate_after"}]})");
  CHECK(answer_text({clone, Close{a}, Shutdown{false, true}}) ==
        R"(<{"operations":[{"checkpoint":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db",)"
        R"("hparams":{"x":1.0},"request_id":"d3dea19f-1551-49a5-b2d6-666224b70570",)"
        R"("trial_seed":7,"type":"create"},)"
        R"({"request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db","type":"close"},)"
        R"({"cancel":false,"failure":true,"type":"shutdown"}]})");
  // Explanations are not part of the journal's answer.
  ValidateAfter explained{a, 4};
  explained.explanation = Explanation{};
  CHECK(answer_text({explained}) ==
        R"(<{"operations":[{"length":4,"request_id":"75a616b7-c0cc-41d8-83b3-4e9afb52a2db",)"
        R"("type":"validate_after"}]})");
}

TEST_CASE("direct JSON writer: the same bytes as json_line of the nlohmann::json value") {
  std::mt19937_64 rng(20261127);
  const std::vector<double> specials{0.0,   -0.0,   1.0,  -1.0,  0.1,  1e-7, 1e21, 123456789.0,
                                     1e300, 5e-324, kInf, -kInf, kNaN, 0.3,  2.5,  -1e-5};
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  std::uniform_int_distribution<int> exponent(-320, 300);
  const auto any_double = [&] {
    switch (rng() % 3) {
      case 0:
        return specials[rng() % specials.size()];
      case 1:
        return uniform(rng);
      default:
        return uniform(rng) * std::pow(10.0, exponent(rng));
    }
  };
  const auto any_id = [&] {
    RequestId r;
    for (auto& byte : r.bytes) byte = static_cast<std::uint8_t>(rng());
    return r;
  };
  const std::vector<std::string> texts{
      "x", "a b", "é", "\x01\x1f", "q\"uote", "back\\slash", "\xff\xfe", "tab\there", "~\x7f"};
  for (int k = 0; k < 2000; ++k) {
    const double d = any_double();
    const RequestId r = any_id();
    const std::string& s = texts[rng() % texts.size()];
    const std::uint64_t n = rng() >> (rng() % 64);
    CHECK(double_text(d) == marked(json_line(nlohmann::json(d))));
    CHECK(metric_text(d) == marked(json_line(metric_to_json(d))));
    CHECK(string_text(s) == marked(json_line(nlohmann::json(s))));
    const std::vector<Event> events{
        TrialCreated{r}, ValidationCompleted{r, d, n}, TrialProgress{r, std::fabs(d)},
        TrialExitedEarly{r, static_cast<ExitedReason>(rng() % 5)}, TrialClosed{r}};
    for (const Event& e : events) CHECK(event_text(e) == marked(json_line(nlohmann::json(e))));
    Create create{r, static_cast<std::uint32_t>(rng()), {{s, d}, {"n", n}}};
    if (rng() % 2 == 0) create.checkpoint = any_id();
    const std::vector<Operation> ops{create, ValidateAfter{r, n}, Close{r},
                                     Shutdown{rng() % 2 == 0, rng() % 2 == 0}};
    CHECK(answer_text(ops) == marked(json_line(operations_answer(ops))));
    std::string appended = "<";
    append_json(appended, operations_answer(ops));
    CHECK(appended == marked(json_line(operations_answer(ops))));
  }
}
