#include "hpsearch/methods/method_state.hpp"

#include "hpsearch/searcher/errors.hpp"

namespace hpsearch::method_state {

void expect_type(const nlohmann::json& state, const std::string& type) {
  if (!state.is_object() || !state.contains("search_method_type")) {
    throw ProtocolError("search_method_state: expected an object with search_method_type");
  }
  const nlohmann::json& found = state.at("search_method_type");
  if (found != type) {
    throw ProtocolError("search_method_state: the snapshot is of a " + found.dump() +
                        " search, but the config describes a \"" + type + "\" search");
  }
}

void expect_config(const nlohmann::json& state, const char* key, const nlohmann::json& expected) {
  const nlohmann::json& found = state.at(key);
  if (found != expected) {
    throw ProtocolError(std::string("search_method_state.") + key + ": the snapshot was taken with " +
                        found.dump() + " but the config says " + expected.dump());
  }
}

std::uint64_t read_count(const nlohmann::json& state, const char* key) {
  const nlohmann::json& value = state.at(key);
  if (!value.is_number_unsigned()) {
    throw ProtocolError(std::string("search_method_state.") + key +
                        ": must be a non-negative integer, got " + value.dump());
  }
  return value.get<std::uint64_t>();
}

}  // namespace hpsearch::method_state
