#include "hpsearch/searcher/operation.hpp"

#include <string>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {

struct OperationToJson {
  nlohmann::json operator()(const Create& op) const {
    nlohmann::json j{{"type", "create"},
                     {"request_id", op.request_id.to_string()},
                     {"trial_seed", op.trial_seed},
                     {"hparams", op.hparams}};
    // Omitted for a fresh start, so every answer written before the field existed is unchanged.
    if (op.checkpoint) j["checkpoint"] = op.checkpoint->to_string();
    return j;
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
    throw ProtocolError(type + " operation: request_id must be a UUID string, got " + value.dump());
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

void to_json(nlohmann::json& j, const Operation& op) {
  j = std::visit(OperationToJson{}, op);
}

nlohmann::json operation_to_json(const Operation& op, bool explain) {
  nlohmann::json j = std::visit(OperationToJson{}, op);
  if (!explain) return j;
  const std::optional<Explanation>* explanation = nullptr;
  if (const auto* validate = std::get_if<ValidateAfter>(&op)) explanation = &validate->explanation;
  if (const auto* close = std::get_if<Close>(&op)) explanation = &close->explanation;
  if (explanation != nullptr && explanation->has_value()) {
    j["explain"] = explanation_to_json(**explanation);
  }
  return j;
}

nlohmann::json explanation_to_json(const Explanation& e) {
  using Reason = Explanation::Reason;
  const std::string where =
      "rung " + std::to_string(e.rung) + " (length " + std::to_string(e.length) + ")";
  const std::string ranked =
      "ranked " + std::to_string(e.rank) + " of " + std::to_string(e.rung_size) + " at " + where;
  const std::string top = "the top " + std::to_string(e.cutoff);
  std::string reason;
  std::string text;
  switch (e.reason) {
    case Reason::kPromoted:
      reason = "promoted";
      text = ranked + "; " + top + " are promoted";
      break;
    case Reason::kContinued:
      reason = "continued";
      text = ranked + "; " + top + " continue";
      break;
    case Reason::kStopped:
      reason = "stopped";
      text = ranked + "; only " + top + " continue";
      break;
    case Reason::kNotPromoted:
      reason = "not_promoted";
      text = ranked + "; the rung is settled and " + top + " were promoted";
      break;
    case Reason::kFinished:
      reason = "finished";
      text = "reached the top " + where;
      break;
    case Reason::kInvalidHyperparameters:
      reason = "invalid_hyperparameters";
      text = "the trial reported invalid hyperparameters";
      break;
  }
  nlohmann::json j{{"reason", reason}, {"rung", e.rung}, {"length", e.length}, {"text", text}};
  if (e.reason != Reason::kInvalidHyperparameters) j["metric"] = metric_to_json(e.metric);
  if (e.rank > 0) {
    j["rank"] = e.rank;
    j["of"] = e.rung_size;
    j["cutoff"] = e.cutoff;
  }
  return j;
}

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
    Create create{id_field(j, type), static_cast<std::uint32_t>(seed), hparams};
    // Optional: null or absent is a fresh start, else the parent's request id.
    if (j.contains("checkpoint") && !j.at("checkpoint").is_null()) {
      const nlohmann::json& parent = j.at("checkpoint");
      std::optional<RequestId> id;
      if (parent.is_string()) id = RequestId::parse(parent.get_ref<const std::string&>());
      if (!id) {
        throw ProtocolError(
            "create operation: checkpoint must be null or the parent trial's request id (a "
            "UUID string), got " +
            parent.dump());
      }
      create.checkpoint = *id;
    }
    op = std::move(create);
  } else if (type == "validate_after") {
    op = ValidateAfter{id_field(j, type), unsigned_field(j, "length", type), std::nullopt};
  } else if (type == "close") {
    op = Close{id_field(j, type), std::nullopt};
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
