#pragma once
// Private to config/: a config file read into a tree of located values, the way Determined's
// CLI reads it (ruamel.yaml's safe loader, YAML 1.2 rules): plain scalars typed by ruamel's
// resolver (so 1_000, 0x10 and 0o17 are integers and 1e-3 a float), merge keys applied, and
// everything that cannot be read faithfully refused with file:line:col (recursive aliases,
// alias bombs, dates, tags JSON has no value for). yaml-cpp only parses; it never types a
// value. See docs/config.md, "How the file is read".

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace hpsearch::config_detail {

/// Where a value was written: 0-based line and column (line < 0 when unknown).
struct Mark {
  int line = -1;
  int column = -1;
  [[nodiscard]] bool known() const { return line >= 0; }
};

enum class NodeKind { kUndefined, kNull, kBool, kInt, kFloat, kString, kMap, kList };

struct MapEntry;

/// One value of the document. Scalars keep the text as written (for messages) and the value
/// it resolved to; maps keep their entries in document order (merged entries first, as ruamel
/// builds them), lists their items. An undefined node stands for an absent key.
class Node {
 public:
  Node() = default;
  static Node scalar(NodeKind kind, std::string text, nlohmann::json value, Mark mark);
  static Node map(std::vector<MapEntry> entries, Mark mark);
  static Node list(std::vector<Node> items, Mark mark);

  [[nodiscard]] NodeKind kind() const { return kind_; }
  [[nodiscard]] bool defined() const { return kind_ != NodeKind::kUndefined; }
  [[nodiscard]] bool is_null() const { return kind_ == NodeKind::kNull; }
  [[nodiscard]] bool is_map() const { return kind_ == NodeKind::kMap; }
  [[nodiscard]] bool is_list() const { return kind_ == NodeKind::kList; }
  [[nodiscard]] bool is_scalar() const {
    return kind_ != NodeKind::kUndefined && kind_ != NodeKind::kMap && kind_ != NodeKind::kList;
  }
  /// A scalar as written (quotes removed); empty for containers.
  [[nodiscard]] const std::string& text() const { return text_; }
  /// A scalar's value: null, boolean, integer (a double beyond 64 bits), number or string.
  [[nodiscard]] const nlohmann::json& value() const { return value_; }
  [[nodiscard]] Mark mark() const { return mark_; }
  [[nodiscard]] const std::vector<MapEntry>& entries() const { return entries_; }
  [[nodiscard]] const std::vector<Node>& items() const { return items_; }
  /// The value of `key` in a map, or nullptr.
  [[nodiscard]] const Node* find(std::string_view key) const;
  /// Moves the entries out (the node is left an empty map).
  [[nodiscard]] std::vector<MapEntry> release_entries();

 private:
  NodeKind kind_ = NodeKind::kUndefined;
  std::string text_;
  nlohmann::json value_;
  Mark mark_;
  std::vector<MapEntry> entries_;
  std::vector<Node> items_;
};

struct MapEntry {
  std::string key;  ///< the key as JSON would name it (0x10: -> "16", as Determined sends it)
  Mark key_mark;
  Node value;
};

// Defined once MapEntry is complete: clang instantiates the vector's move here, and that
// needs the element type.
inline std::vector<MapEntry> Node::release_entries() {
  return std::move(entries_);
}

/// The limits on what a config may expand to. Real configs are a few hundred values deep in
/// total; these stop alias bombs and pathological nesting long before memory or the stack do.
inline constexpr std::size_t kMaxDepth = 64;
inline constexpr std::size_t kMaxValues = 100000;

/// Reads one YAML (or JSON) document. `source` names it in messages. Throws ConfigError
/// ("file:line:col: path: message") for anything it cannot read faithfully; an empty document
/// gives an undefined node.
[[nodiscard]] Node read_document(std::string_view text, const std::string& source);

}  // namespace hpsearch::config_detail
