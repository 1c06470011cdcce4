#include "hpsearch/searcher/json_lines.hpp"

#include <array>
#include <charconv>
#include <cmath>

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
  std::string text;
  append_json(text, value);
  return text;
}

void append_json(std::string& out, const nlohmann::json& value) {
  // What value.dump(-1, ' ', false, replace) does, appending to `out` instead of a new string.
  nlohmann::detail::serializer<nlohmann::json> serializer(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ',
      nlohmann::json::error_handler_t::replace);
  serializer.dump(value, false, false, 0);
}

void append_json_string(std::string& out, std::string_view text) {
  // Printable ASCII other than '"' and '\\' is written as it is by nlohmann::json's dump (it
  // escapes only those two and the bytes below 0x20, and checks UTF-8 from 0x80 on): request
  // ids, names and most paths. Anything else takes the dump itself.
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7e || c == '"' || c == '\\') {
      append_json(out, nlohmann::json(std::string(text)));
      return;
    }
  }
  out += '"';
  out += text;
  out += '"';
}

void append_json_number(std::string& out, std::uint64_t value) {
  std::array<char, 24> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  out.append(digits.data(), end);
}

void append_json_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";  // as nlohmann::json's serializer writes it
    return;
  }
  // The serializer's own formatting (Grisu2, shortest round trip, ".0" on whole numbers).
  std::array<char, 64> digits{};
  char* const end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
  out.append(digits.data(), end);
}

void append_metric_json(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "\"NaN\"";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    append_json_number(out, value);
  }
}

namespace {

// Each writes the fields in the order std::map keeps them: sorted by key.
void append_request_id(std::string& out, const RequestId& id) {
  out += "\"request_id\":\"";
  id.append_to(out);
  out += '"';
}

struct EventWriter {
  std::string& out;
  void operator()(const TrialCreated& e) const {
    out += "{\"event\":\"trial_created\",";
    append_request_id(out, e.request_id);
    out += '}';
  }
  void operator()(const ValidationCompleted& e) const {
    out += "{\"event\":\"validation_completed\",\"length\":";
    append_json_number(out, e.length);
    out += ",\"metric\":";
    append_metric_json(out, e.metric);
    out += ',';
    append_request_id(out, e.request_id);
    out += '}';
  }
  void operator()(const TrialProgress& e) const {
    out += "{\"event\":\"trial_progress\",";
    append_request_id(out, e.request_id);
    out += ",\"units\":";
    append_json_number(out, e.units);
    out += '}';
  }
  void operator()(const TrialExitedEarly& e) const {
    out += "{\"event\":\"trial_exited_early\",\"reason\":";
    append_json_string(out, to_string(e.reason));
    out += ',';
    append_request_id(out, e.request_id);
    out += '}';
  }
  void operator()(const TrialClosed& e) const {
    out += "{\"event\":\"trial_closed\",";
    append_request_id(out, e.request_id);
    out += '}';
  }
};

struct OperationWriter {
  std::string& out;
  void operator()(const Create& op) const {
    out += '{';
    if (op.checkpoint) {
      out += "\"checkpoint\":\"";
      op.checkpoint->append_to(out);
      out += "\",";
    }
    out += "\"hparams\":";
    append_json(out, op.hparams);
    out += ',';
    append_request_id(out, op.request_id);
    out += ",\"trial_seed\":";
    append_json_number(out, std::uint64_t{op.trial_seed});
    out += ",\"type\":\"create\"}";
  }
  void operator()(const ValidateAfter& op) const {
    out += "{\"length\":";
    append_json_number(out, op.length);
    out += ',';
    append_request_id(out, op.request_id);
    out += ",\"type\":\"validate_after\"}";
  }
  void operator()(const Close& op) const {
    out += '{';
    append_request_id(out, op.request_id);
    out += ",\"type\":\"close\"}";
  }
  void operator()(const Shutdown& op) const {
    out += "{\"cancel\":";
    out += op.cancel ? "true" : "false";
    out += ",\"failure\":";
    out += op.failure ? "true" : "false";
    out += ",\"type\":\"shutdown\"}";
  }
};

}  // namespace

void append_event_json(std::string& out, const Event& event) {
  std::visit(EventWriter{out}, event);
}

void append_operation_json(std::string& out, const Operation& op) {
  std::visit(OperationWriter{out}, op);
}

void append_operations_answer(std::string& out, const std::vector<Operation>& ops) {
  out += "{\"operations\":[";
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (k > 0) out += ',';
    append_operation_json(out, ops[k]);
  }
  out += "]}";
}

}  // namespace hpsearch
