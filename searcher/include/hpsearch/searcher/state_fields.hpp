#pragma once
/// \file
/// Reading the parts of a snapshot that a method or a sampler writes: each echoes its type and
/// configuration, and restore refuses a snapshot taken under another configuration. `section`
/// names the part in messages (`search_method_state`, `sampler_state`).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace hpsearch::state_fields {

/// Throws ProtocolError unless `state[type_key] == type`, e.g. "sampler_state: the snapshot is
/// of a "random" sampler, but the config describes a "tpe" sampler".
void expect_type(const nlohmann::json& state, const std::string& section,
                 const std::string& type_key, const std::string& type, const std::string& noun);
/// Throws ProtocolError unless `state[key] == expected` (a config echo); names both values.
void expect_config(const nlohmann::json& state, const std::string& section, const char* key,
                   const nlohmann::json& expected);
/// `state[key]` as an unsigned integer; throws ProtocolError naming the key otherwise.
[[nodiscard]] std::uint64_t read_count(const nlohmann::json& state, const std::string& section,
                                       const char* key);

}  // namespace hpsearch::state_fields
