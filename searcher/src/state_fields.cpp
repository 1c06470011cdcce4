#include "hpsearch/searcher/state_fields.hpp"

#include "hpsearch/searcher/errors.hpp"

namespace hpsearch::state_fields {

void expect_type(const nlohmann::json& state, const std::string& section,
                 const std::string& type_key, const std::string& type, const std::string& noun) {
  if (!state.is_object() || !state.contains(type_key)) {
    throw ProtocolError(section + ": expected an object with " + type_key);
  }
  const nlohmann::json& found = state.at(type_key);
  if (found != type) {
    throw ProtocolError(section + ": the snapshot is of a " + found.dump() + " " + noun +
                        ", but the config describes a \"" + type + "\" " + noun);
  }
}

void expect_config(const nlohmann::json& state, const std::string& section, const char* key,
                   const nlohmann::json& expected) {
  const nlohmann::json& found = state.at(key);
  if (found != expected) {
    throw ProtocolError(section + "." + key + ": the snapshot was taken with " + found.dump() +
                        " but the config says " + expected.dump());
  }
}

std::uint64_t read_count(const nlohmann::json& state, const std::string& section, const char* key) {
  const nlohmann::json& value = state.at(key);
  if (!value.is_number_unsigned()) {
    throw ProtocolError(section + "." + key + ": must be a non-negative integer, got " +
                        value.dump());
  }
  return value.get<std::uint64_t>();
}

}  // namespace hpsearch::state_fields
