#include "hpsearch/searcher/operation.hpp"

#include <string>

#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {
namespace {

struct OperationToJson {
  nlohmann::json operator()(const Create& op) const {
    return {{"type", "create"},
            {"request_id", op.request_id.to_string()},
            {"trial_seed", op.trial_seed},
            {"hparams", op.hparams}};
  }
  nlohmann::json operator()(const ValidateAfter& op) const {
    return {{"type", "validate_after"},
            {"request_id", op.request_id.to_string()},
            {"length", op.length}};
  }
  nlohmann::json operator()(const Close& op) const {
    return {{"type", "close"}, {"request_id", op.request_id.to_string()}};
  }
  nlohmann::json operator()(const Shutdown& op) const {
    return {{"type", "shutdown"}, {"cancel", op.cancel}, {"failure", op.failure}};
  }
};

const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& type) {
  if (!j.contains(name)) {
    throw ProtocolError(type + " operation: missing field '" + name + "'");
  }
  return j.at(name);
}

RequestId id_field(const nlohmann::json& j, const std::string& type) {
  const nlohmann::json& value = field(j, "request_id", type);
  std::optional<RequestId> id;
  if (value.is_string()) id = RequestId::parse(value.get_ref<const std::string&>());
  if (!id) {
    throw ProtocolError(type + " operation: request_id must be a UUID string, got " +
                        value.dump());
  }
  return *id;
}

std::uint64_t unsigned_field(const nlohmann::json& j, const char* name, const std::string& type) {
  const nlohmann::json& value = field(j, name, type);
  if (!value.is_number_unsigned()) {
    throw ProtocolError(type + " operation: " + name + " must be a non-negative integer, got " +
                        value.dump());
  }
  return value.get<std::uint64_t>();
}

bool bool_field(const nlohmann::json& j, const char* name, const std::string& type) {
  const nlohmann::json& value = field(j, name, type);
  if (!value.is_boolean()) {
    throw ProtocolError(type + " operation: " + name + " must be true or false, got " +
                        value.dump());
  }
  return value.get<bool>();
}

}  // namespace

void to_json(nlohmann::json& j, const Operation& op) { j = std::visit(OperationToJson{}, op); }

void from_json(const nlohmann::json& j, Operation& op) {
  if (!j.is_object() || !j.contains("type") || !j.at("type").is_string()) {
    throw ProtocolError("operation: expected an object with a string field 'type', got " +
                        j.dump());
  }
  const std::string type = j.at("type").get<std::string>();
  if (type == "create") {
    const std::uint64_t seed = unsigned_field(j, "trial_seed", type);
    if (seed > 0xffffffffULL) {
      throw ProtocolError("create operation: trial_seed must fit in 32 bits, got " +
                          std::to_string(seed));
    }
    const nlohmann::json& hparams = field(j, "hparams", type);
    if (!hparams.is_object()) {
      throw ProtocolError("create operation: hparams must be an object, got " + hparams.dump());
    }
    op = Create{id_field(j, type), static_cast<std::uint32_t>(seed), hparams};
  } else if (type == "validate_after") {
    op = ValidateAfter{id_field(j, type), unsigned_field(j, "length", type)};
  } else if (type == "close") {
    op = Close{id_field(j, type)};
  } else if (type == "shutdown") {
    op = Shutdown{bool_field(j, "cancel", type), bool_field(j, "failure", type)};
  } else {
    throw ProtocolError("operation: unknown type '" + type +
                        "' (expected create, validate_after, close or shutdown)");
  }
}

const RequestId* request_id_of(const Operation& op) {
  if (const auto* create = std::get_if<Create>(&op)) return &create->request_id;
  if (const auto* validate = std::get_if<ValidateAfter>(&op)) return &validate->request_id;
  if (const auto* close = std::get_if<Close>(&op)) return &close->request_id;
  return nullptr;
}

}  // namespace hpsearch
