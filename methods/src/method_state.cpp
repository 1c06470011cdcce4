#include "hpsearch/methods/method_state.hpp"

#include "hpsearch/searcher/state_fields.hpp"

namespace hpsearch::method_state {

void expect_type(const nlohmann::json& state, const std::string& type) {
  state_fields::expect_type(state, "search_method_state", "search_method_type", type, "search");
}

void expect_config(const nlohmann::json& state, const char* key, const nlohmann::json& expected) {
  state_fields::expect_config(state, "search_method_state", key, expected);
}

std::uint64_t read_count(const nlohmann::json& state, const char* key) {
  return state_fields::read_count(state, "search_method_state", key);
}

}  // namespace hpsearch::method_state
