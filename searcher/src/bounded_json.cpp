#include "hpsearch/searcher/bounded_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <istream>
#include <vector>

namespace hpsearch {
namespace {

[[noreturn]] void refuse(std::size_t byte, const std::string& why) {
  throw nlohmann::json::parse_error::create(/*id_=*/101, byte, why, nullptr);
}

// Where the text breaks a limit (the 1-based byte, as nlohmann counts), and why.
struct Violation {
  std::size_t byte;
  std::string why;
};

std::optional<Violation> find_violation(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Violation{limits.max_bytes + 1, "JSON text of " + std::to_string(text.size()) +
                                               " bytes is longer than the limit of " +
                                               std::to_string(limits.max_bytes) + " bytes"};
  }
  std::size_t depth = 0;
  bool in_string = false;
  const char* const data = text.data();
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits.max_depth) {
        return Violation{i + 1, "JSON nested deeper than " + std::to_string(limits.max_depth) +
                                    " levels (the limit)"};
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// Builds the value from nlohmann::json's SAX events as its own DOM parser does, and refuses
// an object holding the same key twice, which nlohmann::json would read silently as its last
// value: a protocol line, a report or a record meant one thing. A SAX handler rather than a
// parser callback: the callback parser makes a JSON value of each key and calls through a
// std::function for every value, and a set of keys per object found the duplicates; here the
// object being filled finds them itself (the runner parses a trial's reports on its hot path).
class DomWithoutDuplicateKeys {
 public:
  using json = nlohmann::json;

  explicit DomWithoutDuplicateKeys(json& root) : root_(root) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(json::number_integer_t value) { return add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return add(value); }
  bool number_float(json::number_float_t value, const json::string_t& /*text*/) {
    return add(value);
  }
  bool string(json::string_t& value) { return add(std::move(value)); }
  bool binary(json::binary_t& value) { return add(std::move(value)); }
  bool start_object(std::size_t /*elements: unknown in JSON text*/) {
    open_.push_back(place(json::value_t::object));
    return true;
  }
  bool key(json::string_t& name) {
    auto& members = open_.back()->get_ref<json::object_t&>();
    const auto [member, added] = members.try_emplace(std::move(name), nullptr);
    if (!added) {
      std::string shown = json(member->first).dump();
      if (shown.size() > 80) shown = shown.substr(0, 80) + "...";
      refuse(0, "JSON object has the key " + shown + " twice");
    }
    member_ = &member->second;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*elements: unknown in JSON text*/) {
    open_.push_back(place(json::value_t::array));
    return true;
  }
  bool end_array() { return close(); }
  template <typename Exception>
  bool parse_error(std::size_t /*byte*/, const std::string& /*token*/, const Exception& error) {
    throw error;  // a syntax error, or a number beyond double's range (out_of_range)
  }

 private:
  // The value goes where the parser is: the root, the array being filled, or the member
  // whose key came last.
  template <typename Value>
  json* place(Value&& value) {
    if (open_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    if (json& parent = *open_.back(); parent.is_array()) {
      auto& elements = parent.get_ref<json::array_t&>();
      elements.emplace_back(std::forward<Value>(value));
      return &elements.back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }
  template <typename Value>
  bool add(Value&& value) {
    (void)place(std::forward<Value>(value));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  json& root_;
  std::vector<json*> open_;  // the arrays and objects being filled, innermost last
  json* member_ = nullptr;   // the member whose key came last
};

// The plain JSON most lines are (a trial's report, a journal record), read without
// nlohmann::json's lexer, which costs some 150 instructions a byte: strings of printable ASCII
// without escapes, numbers, literals, arrays and objects without a repeated key. Anything else
// (an escape, a byte outside printable ASCII, a number it cannot convert exactly as the lexer
// does, a repeated key, any syntax error) is left to nlohmann::json's parser, which reads the
// whole text again and gives the value or the error it always gave: this reader never refuses
// anything, it only declines. What it accepts, it builds exactly as the parser would (a
// positive integer as number_unsigned, a negative one as number_integer, a fraction or
// exponent as number_float, correctly rounded as strtod does): bounded_json_test.cpp compares
// the two over many texts. The depth was checked first (find_violation), so its recursion is
// bounded.
class PlainJsonReader {
 public:
  using json = nlohmann::json;

  explicit PlainJsonReader(std::string_view text)
      : at_(text.data()), end_(text.data() + text.size()) {}

  std::optional<json> read() {
    json value;
    skip_space();
    if (!value_into(value)) return std::nullopt;
    skip_space();
    if (at_ != end_) return std::nullopt;
    return value;
  }

 private:
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  void skip_space() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) ++at_;
  }

  bool value_into(json& out) {
    if (at_ == end_) return false;
    switch (*at_) {
      case '{':
        return object_into(out);
      case '[':
        return array_into(out);
      case '"': {
        std::string text;
        if (!string_into(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't':
        return literal_into("true", true, out);
      case 'f':
        return literal_into("false", false, out);
      case 'n':
        return literal_into("null", nullptr, out);
      default:
        return number_into(out);
    }
  }

  template <typename Value>
  bool literal_into(std::string_view word, Value value, json& out) {
    if (static_cast<std::size_t>(end_ - at_) < word.size() ||
        std::string_view(at_, word.size()) != word)
      return false;
    at_ += word.size();
    out = value;
    return true;
  }

  bool string_into(std::string& text) {
    const char* const start = ++at_;  // after the opening quote
    for (; at_ != end_; ++at_) {
      const auto byte = static_cast<unsigned char>(*at_);
      if (byte == '"') {
        text.assign(start, at_);
        ++at_;
        return true;
      }
      if (byte < 0x20 || byte > 0x7e || byte == '\\') return false;
    }
    return false;
  }

  bool number_into(json& out) {
    const char* const start = at_;
    const bool negative = *at_ == '-';
    if (negative) ++at_;
    if (at_ == end_ || !digit(*at_)) return false;
    if (*at_ == '0') {
      ++at_;
    } else {
      while (at_ != end_ && digit(*at_)) ++at_;
    }
    const char* const integer_end = at_;
    bool fraction_or_exponent = false;
    if (at_ != end_ && *at_ == '.') {
      ++at_;
      if (at_ == end_ || !digit(*at_)) return false;
      while (at_ != end_ && digit(*at_)) ++at_;
      fraction_or_exponent = true;
    }
    if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
      ++at_;
      if (at_ != end_ && (*at_ == '+' || *at_ == '-')) ++at_;
      if (at_ == end_ || !digit(*at_)) return false;
      while (at_ != end_ && digit(*at_)) ++at_;
      fraction_or_exponent = true;
    }
    if (!fraction_or_exponent) {
      const char* digits = negative ? start + 1 : start;
      if (integer_end - digits > 18) return false;  // the lexer's overflow rules decide
      std::uint64_t value = 0;
      for (; digits != integer_end; ++digits)
        value = value * 10 + static_cast<std::uint64_t>(*digits - '0');
      if (negative) {
        out = -static_cast<std::int64_t>(value);  // "-0" too: the lexer's number_integer 0
      } else {
        out = value;
      }
      return true;
    }
    // Correctly rounded, as strtod is; out of double's range (either way) is left to the lexer,
    // which refuses an overflow and reads an underflow as strtod does.
    double value = 0;
    const auto [stop, error] = std::from_chars(start, at_, value);
    if (error != std::errc() || stop != at_ || !std::isfinite(value)) return false;
    out = value;
    return true;
  }

  bool array_into(json& out) {
    ++at_;
    out = json::array();
    auto& elements = out.get_ref<json::array_t&>();
    skip_space();
    if (at_ != end_ && *at_ == ']') {
      ++at_;
      return true;
    }
    while (true) {
      skip_space();
      elements.emplace_back();
      if (!value_into(elements.back())) return false;
      skip_space();
      if (at_ == end_) return false;
      if (*at_ == ']') {
        ++at_;
        return true;
      }
      if (*at_ != ',') return false;
      ++at_;
    }
  }

  bool object_into(json& out) {
    ++at_;
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    skip_space();
    if (at_ != end_ && *at_ == '}') {
      ++at_;
      return true;
    }
    while (true) {
      skip_space();
      std::string key;
      if (at_ == end_ || *at_ != '"' || !string_into(key)) return false;
      skip_space();
      if (at_ == end_ || *at_ != ':') return false;
      ++at_;
      skip_space();
      const auto [member, added] = members.try_emplace(std::move(key), nullptr);
      if (!added) return false;  // the parser refuses it, naming the key
      if (!value_into(member->second)) return false;
      skip_space();
      if (at_ == end_) return false;
      if (*at_ == '}') {
        ++at_;
        return true;
      }
      if (*at_ != ',') return false;
      ++at_;
    }
  }

  const char* at_;
  const char* const end_;
};

// nlohmann::json::parse(text) with DomWithoutDuplicateKeys: its errors, and the duplicate key;
// plain text is read by PlainJsonReader first, to the same value.
nlohmann::json parse_checked(std::string_view text) {
  if (std::optional<nlohmann::json> plain = PlainJsonReader(text).read()) return std::move(*plain);
  nlohmann::json value;
  DomWithoutDuplicateKeys dom(value);
  (void)nlohmann::json::sax_parse(text, &dom);
  return value;
}

// Reads all of `in`, at most max_bytes + 1 bytes (one more tells that the stream is longer).
std::string read_bounded(std::istream& in, std::size_t max_bytes) {
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= max_bytes) {
    const std::size_t want = std::min(sizeof buffer, max_bytes + 1 - text.size());
    const auto got =
        static_cast<std::size_t>(in.read(buffer, static_cast<std::streamsize>(want)).gcount());
    if (got == 0) break;
    text.append(buffer, got);
  }
  return text;
}

}  // namespace

std::optional<std::string> json_limit_violation(std::string_view text, const JsonLimits& limits) {
  std::optional<Violation> found = find_violation(text, limits);
  if (!found) return std::nullopt;
  return found->why + " at byte " + std::to_string(found->byte);
}

nlohmann::json parse_json(std::string_view text, const JsonLimits& limits) {
  if (std::optional<Violation> found = find_violation(text, limits))
    refuse(found->byte, found->why);
  return parse_checked(text);
}

nlohmann::json parse_json(std::istream& in, const JsonLimits& limits) {
  const std::string text = read_bounded(in, limits.max_bytes);
  if (text.size() > limits.max_bytes) {
    refuse(limits.max_bytes + 1,
           "JSON text longer than the limit of " + std::to_string(limits.max_bytes) + " bytes");
  }
  return parse_json(text, limits);
}

nlohmann::json parse_json_or_discarded(std::string_view text, const JsonLimits& limits) {
  if (find_violation(text, limits)) return nlohmann::json(nlohmann::json::value_t::discarded);
  try {
    return parse_checked(text);
  } catch (const nlohmann::json::exception&) {  // a syntax error, a number too large, a key twice
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

nlohmann::json parse_json_or_discarded(std::istream& in, const JsonLimits& limits) {
  return parse_json_or_discarded(read_bounded(in, limits.max_bytes), limits);
}

LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  std::istream::sentry sentry(in, /*noskipws=*/true);
  if (!sentry) return LineRead::kEnd;
  std::streambuf& buffer = *in.rdbuf();
  bool any = false;
  bool too_long = false;
  for (;;) {
    const int c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(any ? std::ios::eofbit : std::ios::eofbit | std::ios::failbit);
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() < max_bytes) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  if (!any) return LineRead::kEnd;
  return too_long ? LineRead::kTooLong : LineRead::kLine;
}

}  // namespace hpsearch
