#include "hpsearch/searcher/bounded_json.hpp"

#include <algorithm>
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

// nlohmann::json::parse(text) with DomWithoutDuplicateKeys: its errors, and the duplicate key.
nlohmann::json parse_checked(std::string_view text) {
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
