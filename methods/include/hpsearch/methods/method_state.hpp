#pragma once
/// \file
/// Helpers for method snapshots: each method writes its counters plus an echo of its
/// configuration, and restore refuses a snapshot taken under another configuration.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace hpsearch::method_state {

/// Throws ProtocolError unless `state["search_method_type"] == type`.
void expect_type(const nlohmann::json& state, const std::string& type);
/// Throws ProtocolError unless `state[key] == expected` (a config echo); names both values.
void expect_config(const nlohmann::json& state, const char* key, const nlohmann::json& expected);
/// `state[key]` as an unsigned integer; throws ProtocolError naming the key otherwise.
[[nodiscard]] std::uint64_t read_count(const nlohmann::json& state, const char* key);

}  // namespace hpsearch::method_state
