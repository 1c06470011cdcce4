#include "yaml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hpsearch/config/config.hpp"

namespace hpsearch::config_detail {
namespace {

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

const Node& undefined() {
  static const Node none;
  return none;
}

}  // namespace

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

void Reader::fail(Mark mark, const std::string& path, const std::string& message) const {
  throw ConfigError(location(mark), path, message);
}

std::string Reader::location(Mark mark) const {
  if (!mark.known()) return source_;
  return source_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string describe(const Node& node) {
  switch (node.kind()) {
    case NodeKind::kUndefined:
      return "nothing";
    case NodeKind::kMap:
      return "a map";
    case NodeKind::kList:
      return "a list";
    case NodeKind::kNull:
      return "null";
    case NodeKind::kBool:
    case NodeKind::kInt:
    case NodeKind::kFloat:
      return node.text();
    case NodeKind::kString:
      break;
  }
  const std::string& text = node.text();
  return "'" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) + "'";
}

const std::vector<MapEntry>& map_entries(const Reader& reader, const Node& node,
                                         const std::string& path) {
  if (!node.is_map()) {
    reader.fail(node, path.empty() ? std::string("<config>") : path,
                "must be a map, got " + describe(node));
  }
  return node.entries();
}

Map::Map(const Reader& reader, const Node& node, std::string path, std::vector<std::string> allowed,
         std::string owner)
    : reader_(&reader), node_(&node), path_(std::move(path)) {
  std::sort(allowed.begin(), allowed.end());
  for (const MapEntry& entry : map_entries(reader, node, path_)) {
    if (std::binary_search(allowed.begin(), allowed.end(), entry.key)) continue;
    std::string message = "unknown field";
    if (const std::string near = closest(entry.key, allowed); !near.empty()) {
      message += " (did you mean '" + near + "'?)";
    }
    message += "; valid fields " + owner + " are: ";
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      message += (i == 0 ? "" : ", ") + allowed[i];
    }
    reader.fail(entry.key_mark, join_path(path_, entry.key), message);
  }
}

const Node& Map::get(std::string_view key) const {
  const Node* value = node_->find(key);
  return value != nullptr ? *value : undefined();
}

const Node& Map::require(std::string_view key, std::string_view hint) const {
  if (!has(key)) reader_->fail(*node_, path_of(key), "missing required field" + std::string(hint));
  return get(key);
}

std::int64_t read_int(const Reader& reader, const Node& node, const std::string& path) {
  if (node.kind() != NodeKind::kInt) {
    reader.fail(node, path, "must be an integer, got " + describe(node));
  }
  if (!node.value().is_number_integer()) {
    reader.fail(node, path,
                "must be an integer between -9223372036854775808 and "
                "9223372036854775807, got " +
                    node.text());
  }
  return node.value().get<std::int64_t>();
}

std::uint64_t read_count(const Reader& reader, const Node& node, const std::string& path,
                         std::uint64_t minimum) {
  const std::string expected = "must be an integer >= " + std::to_string(minimum);
  if (node.kind() != NodeKind::kInt) reader.fail(node, path, expected + ", got " + describe(node));
  const std::int64_t value = read_int(reader, node, path);
  if (value < 0 || static_cast<std::uint64_t>(value) < minimum) {
    reader.fail(node, path, expected + ", got " + node.text());
  }
  return static_cast<std::uint64_t>(value);
}

double read_number(const Reader& reader, const Node& node, const std::string& path) {
  if (node.kind() != NodeKind::kInt && node.kind() != NodeKind::kFloat) {
    reader.fail(node, path, "must be a number, got " + describe(node));
  }
  const double value = node.value().get<double>();
  if (!std::isfinite(value)) reader.fail(node, path, "must be a finite number, got " + node.text());
  return value;
}

bool read_bool(const Reader& reader, const Node& node, const std::string& path) {
  if (node.kind() != NodeKind::kBool) {
    reader.fail(node, path, "must be true or false, got " + describe(node));
  }
  return node.value().get<bool>();
}

std::string read_string(const Reader& reader, const Node& node, const std::string& path) {
  if (node.kind() != NodeKind::kString) {
    reader.fail(node, path, "must be a string, got " + describe(node));
  }
  return node.text();
}

nlohmann::json to_json(const Reader& reader, const Node& node, const std::string& path) {
  switch (node.kind()) {
    case NodeKind::kList: {
      nlohmann::json array = nlohmann::json::array();
      std::size_t i = 0;
      for (const Node& item : node.items()) {
        array.push_back(to_json(reader, item, path + "[" + std::to_string(i++) + "]"));
      }
      return array;
    }
    case NodeKind::kMap: {
      nlohmann::json object = nlohmann::json::object();
      for (const MapEntry& entry : node.entries()) {
        object[entry.key] = to_json(reader, entry.value, join_path(path, entry.key));
      }
      return object;
    }
    case NodeKind::kFloat:
      if (!std::isfinite(node.value().get<double>())) {
        reader.fail(node, path,
                    "must be a finite number (JSON has no infinity or NaN), got " + node.text());
      }
      return node.value();
    case NodeKind::kUndefined:
      return nullptr;
    default:
      return node.value();
  }
}

}  // namespace hpsearch::config_detail
