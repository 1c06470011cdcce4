#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch {

nlohmann::json operations_answer(const std::vector<Operation>& ops, bool explain) {
  nlohmann::json list = nlohmann::json::array();
  for (const Operation& op : ops) list.push_back(operation_to_json(op, explain));
  return {{"operations", std::move(list)}};
}

std::string parse_error_text(const nlohmann::json::exception& error) {
  std::string message = error.what();
  if (const auto end = message.find("] "); end != std::string::npos) message.erase(0, end + 2);
  return message;
}

std::string json_line(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hpsearch
