#include "hpsearch/searcher/bounded_json.hpp"

#include <algorithm>
#include <istream>
#include <set>
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

// A parser callback that refuses an object holding the same key twice, which nlohmann::json
// would read silently as its last value: a protocol line, a report or a record meant one thing.
class DuplicateKeys {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      keys_.emplace_back();
    } else if (event == Event::object_end) {
      keys_.pop_back();
    } else if (event == Event::key && !keys_.back().insert(parsed.get<std::string>()).second) {
      std::string key = nlohmann::json(parsed.get<std::string>()).dump();
      if (key.size() > 80) key = key.substr(0, 80) + "...";
      refuse(0, "JSON object has the key " + key + " twice");
    }
    return true;
  }

 private:
  std::vector<std::set<std::string>> keys_;  // the keys of each object being read
};

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
  return nlohmann::json::parse(text, DuplicateKeys());
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
    return nlohmann::json::parse(text, DuplicateKeys(), false);
  } catch (const nlohmann::json::parse_error&) {  // a key twice
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
