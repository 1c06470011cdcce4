#pragma once
// Private to config/: typed, located reads of the values of a config document (document.hpp).
// Every failure becomes a ConfigError that names the location, the dotted path, the value
// found and what was expected.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "document.hpp"

namespace hpsearch::config_detail {

/// Knows the source name; formats locations and throws ConfigError.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(Mark mark, const std::string& path, const std::string& message) const;
  [[noreturn]] void fail(const Node& at, const std::string& path,
                         const std::string& message) const {
    fail(at.mark(), path, message);
  }
  [[nodiscard]] std::string location(Mark mark) const;
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  std::string source_;
};

/// `parent.key` (or `key` at the top).
[[nodiscard]] std::string join_path(const std::string& parent, std::string_view key);

/// The allowed name nearest to `key` (within two edits), for a "did you mean"; empty if none.
[[nodiscard]] std::string closest(std::string_view key, const std::vector<std::string>& allowed);

/// How a value is shown in a message: numbers, booleans and null as written, strings quoted
/// and truncated, containers as "a map" / "a list".
[[nodiscard]] std::string describe(const Node& node);

/// A map whose keys were checked: not a map or an unknown key fail at once; an unknown key's
/// message lists the valid ones (and the closest, if any). Refers to the node it was made
/// from, which must outlive it.
class Map {
 public:
  Map(const Reader& reader, const Node& node, std::string path, std::vector<std::string> allowed,
      std::string owner);

  [[nodiscard]] bool has(std::string_view key) const { return node_->find(key) != nullptr; }
  /// The value of `key`, or an undefined node if absent.
  [[nodiscard]] const Node& get(std::string_view key) const;
  /// The value of `key`; fails at the map if it is absent: "missing required field" + hint.
  [[nodiscard]] const Node& require(std::string_view key, std::string_view hint = {}) const;
  [[nodiscard]] std::string path_of(std::string_view key) const { return join_path(path_, key); }
  [[nodiscard]] const Node& node() const { return *node_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Keys and values in document order.
  [[nodiscard]] const std::vector<MapEntry>& entries() const { return node_->entries(); }

 private:
  const Reader* reader_;
  const Node* node_;
  std::string path_;
};

/// The entries of a map without a fixed key set; fails if the node is not a map.
[[nodiscard]] const std::vector<MapEntry>& map_entries(const Reader& reader, const Node& node,
                                                       const std::string& path);

[[nodiscard]] std::int64_t read_int(const Reader& reader, const Node& node,
                                    const std::string& path);
/// An integer >= minimum ("must be an integer >= 1, got -5").
[[nodiscard]] std::uint64_t read_count(const Reader& reader, const Node& node,
                                       const std::string& path, std::uint64_t minimum);
/// A finite number.
[[nodiscard]] double read_number(const Reader& reader, const Node& node, const std::string& path);
[[nodiscard]] bool read_bool(const Reader& reader, const Node& node, const std::string& path);
[[nodiscard]] std::string read_string(const Reader& reader, const Node& node,
                                      const std::string& path);

/// Any value as JSON (numbers must be finite: JSON has no infinity or NaN).
[[nodiscard]] nlohmann::json to_json(const Reader& reader, const Node& node,
                                     const std::string& path);

}  // namespace hpsearch::config_detail
