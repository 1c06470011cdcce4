#include "document.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "hpsearch/config/config.hpp"
#include "yaml_syntax.hpp"

namespace hpsearch::config_detail {

Node Node::scalar(NodeKind kind, std::string text, nlohmann::json value, Mark mark) {
  Node node;
  node.kind_ = kind;
  node.text_ = std::move(text);
  node.value_ = std::move(value);
  node.mark_ = mark;
  return node;
}

Node Node::map(std::vector<MapEntry> entries, Mark mark) {
  Node node;
  node.kind_ = NodeKind::kMap;
  node.entries_ = std::move(entries);
  node.mark_ = mark;
  return node;
}

Node Node::list(std::vector<Node> items, Mark mark) {
  Node node;
  node.kind_ = NodeKind::kList;
  node.items_ = std::move(items);
  node.mark_ = mark;
  return node;
}

const Node* Node::find(std::string_view key) const {
  for (const MapEntry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

namespace {

// ---- ruamel.yaml's implicit resolver for YAML 1.2 plain scalars ----------------------------

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

template <class Pred>
bool all_of_nonempty(std::string_view text, Pred pred) {
  return !text.empty() && std::all_of(text.begin(), text.end(), pred);
}

std::string_view without_sign(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return text;
}

// ruamel only tries the number patterns on text that starts with one of these.
bool may_be_number(std::string_view text) {
  return !text.empty() &&
         std::string_view("-+0123456789.").find(text.front()) != std::string_view::npos;
}

// [-+]?0b[0-1_]+ | [-+]?0o?[0-7_]+ | [-+]?[0-9_]+ | [-+]?0x[0-9a-fA-F_]+
bool matches_int(std::string_view text) {
  if (!may_be_number(text) || text.front() == '.') return false;
  const std::string_view s = without_sign(text);
  const auto digits = [](char c) { return is_digit(c) || c == '_'; };
  if (s.starts_with("0b"))
    return all_of_nonempty(s.substr(2), [](char c) { return c == '0' || c == '1' || c == '_'; });
  if (s.starts_with("0x"))
    return all_of_nonempty(s.substr(2), [](char c) { return is_hex(c) || c == '_'; });
  if (s.starts_with("0o"))
    return all_of_nonempty(s.substr(2), [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
  return all_of_nonempty(s, digits);
}

// [eE] then the sign ([-+]? or [-+] where required) then [0-9]+, to the end.
bool matches_exponent(std::string_view s, bool sign_required) {
  if (s.empty() || (s.front() != 'e' && s.front() != 'E')) return false;
  s.remove_prefix(1);
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    s.remove_prefix(1);
  } else if (sign_required) {
    return false;
  }
  return all_of_nonempty(s, is_digit);
}

//   [-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+]?[0-9]+)?
// | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
// | [-+]?\.[0-9_]+([eE][-+][0-9]+)?         (ruamel requires the exponent's sign here)
// | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)
bool matches_float(std::string_view text) {
  if (!may_be_number(text)) return false;
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return true;
  const std::string_view s = without_sign(text);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  const auto digits_end = [&](std::size_t i) {
    while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
    return i;
  };
  if (!s.empty() && is_digit(s.front())) {
    std::size_t i = digits_end(1);
    if (i < s.size() && s[i] == '.') {
      i = digits_end(i + 1);
      return i == s.size() || matches_exponent(s.substr(i), false);
    }
    return matches_exponent(s.substr(i), false);
  }
  if (!s.empty() && s.front() == '.') {
    const std::size_t i = digits_end(1);
    if (i == 1) return false;
    return i == s.size() || matches_exponent(s.substr(i), true);
  }
  return false;
}

// YYYY-MM-DD, or YYYY-M-D with a time: ruamel makes a date or datetime of these.
bool matches_timestamp(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&](std::size_t min, std::size_t max) {
    std::size_t n = 0;
    while (i < s.size() && n < max && is_digit(s[i])) {
      ++i;
      ++n;
    }
    return n >= min;
  };
  const auto literal = [&](char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  if (!digits(4, 4) || !literal('-')) return false;
  const std::size_t month = i;
  if (!digits(1, 2) || !literal('-') || !digits(1, 2)) return false;
  if (i == s.size()) return i == 10 && month == 5;  // the date form needs two-digit fields
  if (!literal('T') && !literal('t')) {
    if (i >= s.size() || (s[i] != ' ' && s[i] != '\t')) return false;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  return digits(1, 2) && literal(':') && digits(2, 2) && literal(':') && digits(2, 2);
}

std::string without_underscores(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

// ruamel's construct_yaml_int for YAML 1.2: underscores dropped, 0b / 0x / 0o prefixes, and
// otherwise decimal (a leading zero does not make it octal). Beyond 64 bits: a double, as Go
// decodes such a JSON number.
std::optional<nlohmann::json> construct_int(std::string_view text) {
  std::string s = without_underscores(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.erase(0, 1);
  }
  int base = 10;
  if (s.starts_with("0b") || s.starts_with("0x") || s.starts_with("0o")) {
    base = s[1] == 'b' ? 2 : (s[1] == 'x' ? 16 : 8);
    s.erase(0, 2);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t magnitude = 0;
  bool overflow = false;
  double approximate = 0;
  for (const char c : s) {
    const int digit = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10);
    if (!is_hex(c) || digit >= base) return std::nullopt;
    const auto b = static_cast<std::uint64_t>(base);
    const auto d = static_cast<std::uint64_t>(digit);
    if (magnitude > (std::numeric_limits<std::uint64_t>::max() - d) / b) overflow = true;
    magnitude = magnitude * b + d;
    approximate = approximate * base + digit;
  }
  constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
  if (!overflow && !negative && magnitude < kMinMagnitude)
    return static_cast<std::int64_t>(magnitude);
  if (!overflow && negative && magnitude <= kMinMagnitude) {
    return magnitude == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                      : -static_cast<std::int64_t>(magnitude);
  }
  return negative ? -approximate : approximate;
}

// ruamel's construct_yaml_float: underscores dropped, .inf and .nan in any case, else a
// decimal read the way Python's float() reads it.
std::optional<double> construct_float(std::string_view text) {
  std::string s = without_underscores(text);
  std::transform(s.begin(), s.end(), s.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  double sign = 1;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    sign = s.front() == '-' ? -1 : 1;
    s.erase(0, 1);
  }
  if (s == ".inf") return sign * std::numeric_limits<double>::infinity();
  if (s == ".nan") return std::numeric_limits<double>::quiet_NaN();
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
        return is_digit(c) || c == '.' || c == 'e' || c == '-' || c == '+';
      })) {
    return std::nullopt;
  }
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return sign * value;
}

bool is_null_text(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}
bool is_true_text(std::string_view s) {
  return s == "true" || s == "True" || s == "TRUE";
}
bool is_false_text(std::string_view s) {
  return s == "false" || s == "False" || s == "FALSE";
}

constexpr std::string_view kCoreTag = "tag:yaml.org,2002:";

// ---- the builder -----------------------------------------------------------------------------

std::string join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

Mark mark_of(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return {};
  return Mark{m.line, m.column};
}

std::string shown(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) + "'";
}

class Builder {
 public:
  explicit Builder(const std::string& source) : source_(source) {}

  Node build(const YAML::Node& node, const std::string& path, std::size_t depth) {
    if (++values_ > kMaxValues) {
      fail(node, path,
           "the document expands to more than " + std::to_string(kMaxValues) +
               " values (each alias repeats what it refers to); a config this "
               "large is not supported");
    }
    if (node.IsScalar() || node.IsNull()) return scalar(node, path);
    if (depth > kMaxDepth) {
      fail(node, path,
           "nested more than " + std::to_string(kMaxDepth) +
               " levels deep; a config this deep is not supported");
    }
    for (const YAML::Node& open : open_) {
      if (open.is(node)) {
        fail(node, path,
             "this alias refers to a value that contains it (a recursive alias); "
             "a config must be a tree, as JSON is");
      }
    }
    check_container_tag(node, path);
    open_.push_back(node);
    Node built = node.IsMap() ? map(node, path, depth) : list(node, path, depth);
    open_.pop_back();
    return built;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         const std::string& message) const {
    fail(mark_of(at), path, message);
  }
  [[noreturn]] void fail(Mark mark, const std::string& path, const std::string& message) const {
    const std::string location = mark.known() ? source_ + ":" + std::to_string(mark.line + 1) +
                                                    ":" + std::to_string(mark.column + 1)
                                              : source_;
    throw ConfigError(location, path, message);
  }

  void check_container_tag(const YAML::Node& node, const std::string& path) const {
    const std::string& tag = node.Tag();
    const std::string expected = std::string(kCoreTag) + (node.IsMap() ? "map" : "seq");
    if (tag.empty() || tag == "?" || tag == "!" || tag == expected) return;
    fail(node, path,
         "the tag '" + tag +
             "' has no JSON value; a config holds only maps, lists, "
             "strings, numbers, booleans and null");
  }

  Node scalar(const YAML::Node& node, const std::string& path) const {
    const Mark mark = mark_of(node);
    const std::string& tag = node.Tag();
    if (node.IsNull()) {
      if (tag == std::string(kCoreTag) + "str")
        return Node::scalar(NodeKind::kString, "", "", mark);
      return Node::scalar(NodeKind::kNull, "null", nullptr, mark);
    }
    const std::string& text = node.Scalar();
    if (tag == "!" || tag == std::string(kCoreTag) + "str") {
      return Node::scalar(NodeKind::kString, text, text, mark);
    }
    if (tag == "?" || tag.empty()) return plain(node, text, path, mark);
    const std::string_view name = std::string_view(tag).starts_with(kCoreTag)
                                      ? std::string_view(tag).substr(kCoreTag.size())
                                      : std::string_view();
    if (name == "int") {
      if (auto value = construct_int(text)) return Node::scalar(NodeKind::kInt, text, *value, mark);
      fail(node, path, "!!int " + shown(text) + " is not an integer");
    }
    if (name == "float") {
      std::optional<double> value;
      if (matches_float(text) || matches_int(text)) value = construct_float(text);
      if (value) return Node::scalar(NodeKind::kFloat, text, *value, mark);
      fail(node, path, "!!float " + shown(text) + " is not a number");
    }
    if (name == "bool") {
      std::string lower = text;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
      });
      for (const auto& [word, value] : {std::pair<const char*, bool>{"true", true},
                                        {"yes", true},
                                        {"on", true},
                                        {"false", false},
                                        {"no", false},
                                        {"off", false}}) {
        if (lower == word) return Node::scalar(NodeKind::kBool, text, value, mark);
      }
      fail(node, path, "!!bool " + shown(text) + " is not a boolean");
    }
    if (name == "null") return Node::scalar(NodeKind::kNull, text, nullptr, mark);
    fail(node, path,
         "the tag '" + tag +
             "' has no JSON value; quote the value to make it a "
             "string");
  }

  Node plain(const YAML::Node& node, const std::string& text, const std::string& path,
             Mark mark) const {
    if (is_null_text(text)) return Node::scalar(NodeKind::kNull, text, nullptr, mark);
    if (is_true_text(text)) return Node::scalar(NodeKind::kBool, text, true, mark);
    if (is_false_text(text)) return Node::scalar(NodeKind::kBool, text, false, mark);
    if (matches_float(text)) {
      if (auto value = construct_float(text))
        return Node::scalar(NodeKind::kFloat, text, *value, mark);
    } else if (matches_int(text)) {
      if (auto value = construct_int(text)) return Node::scalar(NodeKind::kInt, text, *value, mark);
      fail(node, path,
           shown(text) +
               " reads as an integer in YAML but has no digits; quote it "
               "to make it a string");
    } else if (matches_timestamp(text)) {
      fail(node, path,
           shown(text) +
               " reads as a date in YAML, which has no JSON value; quote "
               "it to make it a string");
    }
    return Node::scalar(NodeKind::kString, text, text, mark);
  }

  // A key as JSON names it: Determined's CLI reads `0x10:` as the integer 16 and sends "16".
  std::string key_of(const YAML::Node& key, const std::string& path) {
    if (!key.IsScalar() && !key.IsNull()) {
      fail(key, path,
           "keys must be plain names, got a " + std::string(key.IsMap() ? "map" : "list"));
    }
    const Node resolved = scalar(key, path);
    switch (resolved.kind()) {
      case NodeKind::kString:
        return resolved.text();
      case NodeKind::kFloat:
        if (!std::isfinite(resolved.value().get<double>())) {
          fail(key, path,
               "the key " + shown(resolved.text()) +
                   " is not a finite number, which "
                   "JSON cannot name");
        }
        return resolved.value().dump();
      default:
        return resolved.value().dump();
    }
  }

  static bool is_merge_key(const YAML::Node& key) {
    return key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<";
  }

  // `<<: *a` or `<<: [*a, *b]`: the merged maps' entries, an earlier map's key winning over a
  // later one's (YAML's merge key type, as ruamel applies it).
  std::vector<MapEntry> merged_entries(const YAML::Node& value, const std::string& path,
                                       std::size_t depth) {
    const std::string where = join(path, "<<");
    std::vector<YAML::Node> items;
    if (value.IsMap()) {
      items.push_back(value);
    } else if (value.IsSequence()) {
      for (const YAML::Node& item : value) items.push_back(item);
    }
    if (items.empty() && !value.IsMap()) {
      fail(value, where,
           "the merge key '<<' takes a map or a list of maps, got " +
               std::string(value.IsSequence() ? "an empty list"
                                              : (value.IsNull() ? "null" : "a scalar")));
    }
    std::vector<MapEntry> out;
    std::set<std::string> taken;
    for (const YAML::Node& item : items) {
      if (!item.IsMap()) {
        fail(item, where,
             "the merge key '<<' takes a map or a list of maps, got " +
                 std::string(item.IsSequence() ? "a list" : "a scalar") + " in the list");
      }
      Node source = build(item, where, depth + 1);
      for (MapEntry& entry : source.release_entries()) {
        if (taken.insert(entry.key).second) out.push_back(std::move(entry));
      }
    }
    return out;
  }

  Node map(const YAML::Node& node, const std::string& path, std::size_t depth) {
    std::vector<MapEntry> entries;
    std::optional<std::vector<MapEntry>> merged;
    std::set<std::string> keys;
    for (const auto& pair : node) {
      const YAML::Node key = pair.first;
      if (is_merge_key(key)) {
        if (merged) {
          fail(key, join(path, "<<"),
               "a map takes one merge key; merge several maps with a "
               "list: <<: [*a, *b]");
        }
        merged = merged_entries(pair.second, path, depth);
        continue;
      }
      std::string name = key_of(key, path);
      if (!keys.insert(name).second) fail(key, join(path, name), "duplicate key");
      Node value = build(pair.second, join(path, name), depth + 1);
      entries.push_back(MapEntry{std::move(name), mark_of(key), std::move(value)});
    }
    if (!merged) return Node::map(std::move(entries), mark_of(node));
    // As ruamel builds it: the merged entries first, each overridden by the map's own key.
    std::vector<MapEntry> out;
    for (MapEntry& entry : *merged) {
      if (!keys.contains(entry.key)) out.push_back(std::move(entry));
    }
    for (MapEntry& entry : entries) out.push_back(std::move(entry));
    return Node::map(std::move(out), mark_of(node));
  }

  Node list(const YAML::Node& node, const std::string& path, std::size_t depth) {
    std::vector<Node> items;
    std::size_t i = 0;
    for (const YAML::Node& item : node) {
      items.push_back(build(item, path + "[" + std::to_string(i++) + "]", depth + 1));
    }
    return Node::list(std::move(items), mark_of(node));
  }

  const std::string& source_;
  std::vector<YAML::Node> open_;  // containers being built: an alias back to one is a cycle
  std::size_t values_ = 0;
};

// The length of the UTF-8 sequence that starts `text` (well-formed as Unicode defines it: no
// overlong form, no surrogate, nothing above U+10FFFF), or 0 if none does.
std::size_t utf8_sequence(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;  // the range of the second byte, narrower after some leads
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  }
  return length;
}

// A config is UTF-8 text, as YAML read by Determined's CLI and JSON are. yaml-cpp passes other
// bytes through into strings, and the JSON they go on to (searcher-run's config.json, the
// trials' hyperparameters) cannot hold them: refuse them here, where the byte is known.
// Control characters other than tab, line feed and carriage return are not allowed in a YAML
// stream or raw in JSON either, and yaml-cpp mangles them (a NUL and the byte after it became
// one byte that is not UTF-8: found by fuzzing). Columns count characters, as editors do.
void check_utf8(std::string_view text, const std::string& source) {
  int line = 0;
  int column = 0;
  for (std::size_t at = 0; at < text.size(); ++column) {
    const std::size_t length = utf8_sequence(text.substr(at));
    const auto byte = static_cast<unsigned char>(text[at]);
    const bool control =
        (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f;
    if (length == 0 || control) {
      static constexpr char kHex[] = "0123456789abcdef";
      const std::string shown = std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0x0fU];
      throw ConfigError(source + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1),
                        "",
                        length == 0 ? "the file is not UTF-8 text (" + shown + "); save it as UTF-8"
                                    : "the file holds a control character (" + shown +
                                          "), which a YAML or JSON document may not; remove it");
    }
    if (text[at] == '\n') {
      ++line;
      column = -1;
    }
    at += length;
  }
}

// A %YAML directive other than 1.2 would change how plain scalars read (YAML 1.1: yes/no are
// booleans, 010 is octal); refuse it rather than guess. Directives come before the document.
void check_directives(std::string_view text, const std::string& source) {
  int line = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view current = text.substr(0, end);
    if (current.starts_with("%YAML")) {
      std::string_view version = current.substr(5);
      while (!version.empty() && (version.front() == ' ' || version.front() == '\t')) {
        version.remove_prefix(1);
      }
      version = version.substr(0, version.find_first_of(" \t\r#"));
      if (version != "1.2") {
        throw ConfigError(source + ":" + std::to_string(line + 1) + ":1", "",
                          "%YAML " + std::string(version) +
                              ": hpsearch reads YAML 1.2, as Determined's CLI does without a "
                              "directive; remove the directive (under YAML 1.1, yes/no would be "
                              "booleans and 010 an octal number)");
      }
    } else if (!current.empty() && current.front() != '%' && current.front() != '#' &&
               current.find_first_not_of(" \t\r") != std::string_view::npos) {
      return;  // the document has started
    }
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
    ++line;
  }
}

// Where each document of a stream starts: the mark of its document start and of its first
// value. Only counts; the values are built by YAML::Load.
class DocumentMarks final : public YAML::EventHandler {
 public:
  struct Document {
    YAML::Mark start;
    YAML::Mark first_value = YAML::Mark::null_mark();
  };
  std::vector<Document> documents;

  void OnDocumentStart(const YAML::Mark& mark) override { documents.push_back({mark}); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { value_at(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { value_at(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    value_at(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    value_at(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    value_at(mark);
  }
  void OnMapEnd() override {}

 private:
  void value_at(const YAML::Mark& mark) {
    if (!documents.empty() && documents.back().first_value.is_null()) {
      documents.back().first_value = mark;
    }
  }
};

std::string located(const std::string& source, const YAML::Mark& mark) {
  return mark.is_null()
             ? source
             : source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// The documents of the stream. yaml-cpp 0.7's parser can stop advancing on malformed input
// (a plain scalar starting with ','), returning the same empty document again and again, and
// YAML::LoadAll then loops forever, allocating (found by fuzzing; fixed upstream after 0.7).
// Each document must start past the previous one.
std::vector<DocumentMarks::Document> documents_of(const std::string& text,
                                                  const std::string& source) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentMarks marks;
  while (parser.HandleNextDocument(marks)) {
    const std::size_t n = marks.documents.size();
    if (n >= 2 && marks.documents[n - 1].start.pos <= marks.documents[n - 2].start.pos) {
      throw ConfigError(located(source, marks.documents[n - 1].start), "",
                        "invalid YAML: cannot be read from here on");
    }
  }
  return std::move(marks.documents);
}

}  // namespace

Node read_document(std::string_view text, const std::string& source) {
  check_utf8(text, source);
  check_directives(text, source);
  const std::string yaml(text);
  YAML::Node root;
  try {
    const std::vector<DocumentMarks::Document> documents = documents_of(yaml, source);
    if (documents.size() > 1) {
      throw ConfigError(located(source, documents[1].first_value), "",
                        "the file holds " + std::to_string(documents.size()) +
                            " YAML documents (separated by ---); a config is one document");
    }
    if (documents.empty()) return Node();
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) throw ConfigError(source, "", "invalid YAML: " + e.msg);
    // Said in the config's terms: what is there and what was expected (yaml_syntax.hpp).
    const YamlSyntaxError error =
        explain_yaml_error(yaml, static_cast<std::size_t>(e.mark.line),
                           static_cast<std::size_t>(e.mark.column), e.msg);
    throw ConfigError(
        source + ":" + std::to_string(error.line + 1) + ":" + std::to_string(error.column + 1), "",
        "invalid YAML: " + error.message);
  }
  if (!root.IsDefined()) return Node();
  return Builder(source).build(root, "", 0);
}

}  // namespace hpsearch::config_detail
