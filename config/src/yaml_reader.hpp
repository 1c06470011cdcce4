#pragma once
// Private to config/: typed, located reads of YAML nodes. Every failure becomes a ConfigError
// that names the location, the dotted path, the value found and what was expected.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace hpsearch::config_detail {

/// Knows the source name; formats locations and throws ConfigError.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         const std::string& message) const {
    fail(at.Mark(), path, message);
  }
  [[nodiscard]] std::string location(const YAML::Mark& mark) const;
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  std::string source_;
};

/// `parent.key` (or `key` at the top).
[[nodiscard]] std::string join_path(const std::string& parent, std::string_view key);

/// How a value is shown in a message: numbers, booleans and null as written, strings quoted
/// and truncated, containers as "a map" / "a list".
[[nodiscard]] std::string describe(const YAML::Node& node);

/// A YAML mapping whose keys were checked: not a map, a duplicate key or an unknown key fail
/// at once; an unknown key's message lists the valid ones (and the closest, if any).
class Map {
 public:
  Map(const Reader& reader, const YAML::Node& node, std::string path,
      std::vector<std::string> allowed, std::string owner);

  [[nodiscard]] bool has(std::string_view key) const;
  /// The value of `key`, or an undefined node if absent.
  [[nodiscard]] YAML::Node get(std::string_view key) const;
  /// The value of `key`; fails at the map if it is absent: "missing required field" + hint.
  [[nodiscard]] YAML::Node require(std::string_view key, std::string_view hint = {}) const;
  [[nodiscard]] std::string path_of(std::string_view key) const { return join_path(path_, key); }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Keys and values in document order.
  [[nodiscard]] const std::vector<std::pair<YAML::Node, YAML::Node>>& entries() const {
    return entries_;
  }

 private:
  const Reader* reader_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::pair<YAML::Node, YAML::Node>> entries_;
};

/// Reads a YAML map without a fixed key set (only duplicate keys are refused).
[[nodiscard]] std::vector<std::pair<YAML::Node, YAML::Node>> map_entries(
    const Reader& reader, const YAML::Node& node, const std::string& path);

[[nodiscard]] std::int64_t read_int(const Reader& reader, const YAML::Node& node,
                                    const std::string& path);
/// An integer >= minimum ("must be an integer >= 1, got -5").
[[nodiscard]] std::uint64_t read_count(const Reader& reader, const YAML::Node& node,
                                       const std::string& path, std::uint64_t minimum);
/// A finite number.
[[nodiscard]] double read_number(const Reader& reader, const YAML::Node& node,
                                 const std::string& path);
[[nodiscard]] bool read_bool(const Reader& reader, const YAML::Node& node, const std::string& path);
[[nodiscard]] std::string read_string(const Reader& reader, const YAML::Node& node,
                                      const std::string& path);
/// Whether the node is null (`key:`, `~`, `null`).
[[nodiscard]] bool is_null(const YAML::Node& node);

/// Any YAML value as JSON, with YAML 1.2 core-schema typing of plain scalars (null, bool,
/// integer, float, else string); quoted scalars stay strings.
[[nodiscard]] nlohmann::json to_json(const Reader& reader, const YAML::Node& node,
                                     const std::string& path);

}  // namespace hpsearch::config_detail
