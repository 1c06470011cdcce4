#include "yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "hpsearch/config/config.hpp"

namespace hpsearch::config_detail {
namespace {

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString };

bool is_plain(const YAML::Node& node) { return node.Tag() != "!"; }

bool is_integer_text(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return c >= '0' && c <= '9'; });
}

bool is_float_text(std::string_view text) {
  if (text == ".inf" || text == "+.inf" || text == "-.inf" || text == ".Inf" || text == "-.Inf" ||
      text == ".INF" || text == "-.INF" || text == ".nan" || text == ".NaN" || text == ".NAN") {
    return true;
  }
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  bool digits = false;
  bool dot = false;
  bool exponent = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot && !exponent) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits && !exponent) {
      exponent = true;
      digits = false;
      if (i + 1 < text.size() && (text[i + 1] == '-' || text[i + 1] == '+')) ++i;
    } else {
      return false;
    }
  }
  return digits;
}

ScalarKind kind_of(const YAML::Node& node) {
  if (node.IsNull()) return ScalarKind::kNull;
  if (!node.IsScalar() || !is_plain(node)) return ScalarKind::kString;
  const std::string& text = node.Scalar();
  if (text == "true" || text == "True" || text == "TRUE" || text == "false" || text == "False" ||
      text == "FALSE") {
    return ScalarKind::kBool;
  }
  if (is_integer_text(text)) return ScalarKind::kInt;
  if (is_float_text(text)) return ScalarKind::kFloat;
  return ScalarKind::kString;
}

double parse_float(const std::string& text) {
  std::string_view view = text;
  const bool negative = view.starts_with('-');
  if (view.starts_with('-') || view.starts_with('+')) view.remove_prefix(1);
  if (view.size() == 4 && view[0] == '.' && (view[1] == 'i' || view[1] == 'I')) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (view.size() == 4 && view[0] == '.' && (view[1] == 'n' || view[1] == 'N')) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return std::strtod(text.c_str(), nullptr);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view key, const std::vector<std::string>& allowed) {
  std::string best;
  std::size_t best_distance = 3;  // suggest only near misses
  for (const std::string& candidate : allowed) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace

void Reader::fail(const YAML::Mark& mark, const std::string& path,
                  const std::string& message) const {
  throw ConfigError(location(mark), path, message);
}

std::string Reader::location(const YAML::Mark& mark) const {
  if (mark.is_null()) return source_;
  return source_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string describe(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  switch (kind_of(node)) {
    case ScalarKind::kNull:
      return "null";
    case ScalarKind::kBool:
    case ScalarKind::kInt:
    case ScalarKind::kFloat:
      return node.Scalar();
    case ScalarKind::kString:
      break;
  }
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return "'" + text + "'";
}

std::vector<std::pair<YAML::Node, YAML::Node>> map_entries(const Reader& reader,
                                                            const YAML::Node& node,
                                                            const std::string& path) {
  if (!node.IsMap()) {
    reader.fail(node, path.empty() ? std::string("<config>") : path,
                "must be a map, got " + describe(node));
  }
  std::vector<std::pair<YAML::Node, YAML::Node>> entries;
  std::set<std::string> seen;
  for (const auto& entry : node) {
    const YAML::Node key = entry.first;
    if (!key.IsScalar()) reader.fail(key, path, "keys must be plain names, got " + describe(key));
    if (!seen.insert(key.Scalar()).second) {
      reader.fail(key, join_path(path, key.Scalar()), "duplicate key");
    }
    entries.emplace_back(key, entry.second);
  }
  return entries;
}

Map::Map(const Reader& reader, const YAML::Node& node, std::string path,
         std::vector<std::string> allowed, std::string owner)
    : reader_(&reader), node_(node), path_(std::move(path)) {
  entries_ = map_entries(reader, node, path_);
  std::sort(allowed.begin(), allowed.end());
  for (const auto& [key, value] : entries_) {
    (void)value;
    const std::string& name = key.Scalar();
    if (std::binary_search(allowed.begin(), allowed.end(), name)) continue;
    std::string message = "unknown field";
    if (const std::string near = closest(name, allowed); !near.empty()) {
      message += " (did you mean '" + near + "'?)";
    }
    message += "; valid fields " + owner + " are: ";
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      message += (i == 0 ? "" : ", ") + allowed[i];
    }
    reader.fail(key, join_path(path_, name), message);
  }
}

bool Map::has(std::string_view key) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto& entry) { return entry.first.Scalar() == key; });
}

YAML::Node Map::get(std::string_view key) const {
  for (const auto& [k, value] : entries_) {
    if (k.Scalar() == key) return value;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node Map::require(std::string_view key, std::string_view hint) const {
  if (!has(key)) {
    reader_->fail(node_, path_of(key), "missing required field" + std::string(hint));
  }
  return get(key);
}

bool is_null(const YAML::Node& node) { return node.IsNull(); }

std::int64_t read_int(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (kind_of(node) != ScalarKind::kInt) {
    reader.fail(node, path, "must be an integer, got " + describe(node));
  }
  const std::string& text = node.Scalar();
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
  std::int64_t value = 0;
  const auto result = std::from_chars(first, text.data() + text.size(), value);
  if (result.ec != std::errc()) {
    reader.fail(node, path, "must be an integer between -9223372036854775808 and "
                            "9223372036854775807, got " + text);
  }
  return value;
}

std::uint64_t read_count(const Reader& reader, const YAML::Node& node, const std::string& path,
                         std::uint64_t minimum) {
  const std::string expected = "must be an integer >= " + std::to_string(minimum);
  if (kind_of(node) != ScalarKind::kInt) reader.fail(node, path, expected + ", got " + describe(node));
  const std::int64_t value = read_int(reader, node, path);
  if (value < 0 || static_cast<std::uint64_t>(value) < minimum) {
    reader.fail(node, path, expected + ", got " + node.Scalar());
  }
  return static_cast<std::uint64_t>(value);
}

double read_number(const Reader& reader, const YAML::Node& node, const std::string& path) {
  const ScalarKind kind = kind_of(node);
  if (kind != ScalarKind::kInt && kind != ScalarKind::kFloat) {
    reader.fail(node, path, "must be a number, got " + describe(node));
  }
  const double value = parse_float(node.Scalar());
  if (!std::isfinite(value)) reader.fail(node, path, "must be a finite number, got " + node.Scalar());
  return value;
}

bool read_bool(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (kind_of(node) != ScalarKind::kBool) {
    reader.fail(node, path, "must be true or false, got " + describe(node));
  }
  const char first = node.Scalar().front();
  return first == 't' || first == 'T';
}

std::string read_string(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (kind_of(node) != ScalarKind::kString || !node.IsScalar()) {
    reader.fail(node, path, "must be a string, got " + describe(node));
  }
  return node.Scalar();
}

nlohmann::json to_json(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (node.IsSequence()) {
    nlohmann::json array = nlohmann::json::array();
    std::size_t i = 0;
    for (const YAML::Node& item : node) {
      array.push_back(to_json(reader, item, path + "[" + std::to_string(i++) + "]"));
    }
    return array;
  }
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [key, value] : map_entries(reader, node, path)) {
      object[key.Scalar()] = to_json(reader, value, join_path(path, key.Scalar()));
    }
    return object;
  }
  switch (kind_of(node)) {
    case ScalarKind::kNull:
      return nullptr;
    case ScalarKind::kBool:
      return read_bool(reader, node, path);
    case ScalarKind::kInt: {
      const std::string& text = node.Scalar();
      std::int64_t value = 0;
      const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
      if (std::from_chars(first, text.data() + text.size(), value).ec == std::errc()) return value;
      return parse_float(text);  // beyond int64: a JSON number, as Go would decode it
    }
    case ScalarKind::kFloat: {
      const double value = parse_float(node.Scalar());
      if (!std::isfinite(value)) {
        reader.fail(node, path, "must be a finite number (JSON has no infinity or NaN), got " +
                                    node.Scalar());
      }
      return value;
    }
    case ScalarKind::kString:
      break;
  }
  return node.Scalar();
}

}  // namespace hpsearch::config_detail
