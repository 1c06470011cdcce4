#include "engine/trial_record.hpp"

#include <cmath>

#include "hpsearch/runner/errors.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::runner_detail {

nlohmann::json to_json(const Checkpoint& c) {
  nlohmann::json j{{"path", c.path}, {"length", c.length}};
  if (!c.storage_id.empty()) j["storage_id"] = c.storage_id;
  return j;
}

std::string checkpoint_record_json(const Checkpoint& c, const RequestId& trial) {
  // The keys in std::map's order, as json_line writes to_json(c) with "request_id" added.
  std::string text = "{\"length\":";
  append_json_number(text, c.length);
  text += ",\"path\":";
  append_json_string(text, c.path);
  text += ",\"request_id\":\"";
  trial.append_to(text);
  text += '"';
  if (!c.storage_id.empty()) {
    text += ",\"storage_id\":";
    append_json_string(text, c.storage_id);
  }
  text += '}';
  return text;
}

Checkpoint checkpoint_from_json(const nlohmann::json& j) {
  return Checkpoint{j.at("path").get<std::string>(), j.at("length").get<std::uint64_t>(),
                    j.value("storage_id", std::string())};
}

nlohmann::json to_json(const TrialRecord& t) {
  nlohmann::json stored = nlohmann::json::array();
  for (const Checkpoint& c : t.stored) stored.push_back(to_json(c));
  nlohmann::json validations = nlohmann::json::array();
  for (const Validation& v : t.validations) {
    validations.push_back(
        {{"length", v.length}, {"metric", metric_to_json(v.metric)}, {"metrics", v.metrics}});
  }
  nlohmann::json j{
      {"request_id", t.id.to_string()},
      {"trial_seed", t.trial_seed},
      {"hparams", t.hparams},
      {"created", t.created},
      {"target", t.target ? nlohmann::json(*t.target) : nullptr},
      {"close_requested", t.close_requested},
      {"closed", t.closed},
      {"exit_reason",
       t.exit_reason ? nlohmann::json(std::string(to_string(*t.exit_reason))) : nullptr},
      {"restarts", t.restarts},
      {"checkpoint", t.checkpoint ? to_json(*t.checkpoint) : nlohmann::json(nullptr)},
      {"stored_checkpoints", std::move(stored)},
      {"launches", t.launches},
      {"validations", std::move(validations)},
      {"last_failure", t.last_failure}};
  if (!t.job.empty()) j["job"] = {{"id", t.job}, {"token", t.job_token}};
  // Only clones carry these: snapshots of other searches are unchanged.
  if (t.parent) j["parent"] = t.parent->to_string();
  if (t.warm_start) j["warm_start"] = to_json(*t.warm_start);
  return j;
}

TrialRecord trial_record_from_json(const nlohmann::json& j) {
  TrialRecord t;
  const std::optional<RequestId> id = RequestId::parse(j.at("request_id").get<std::string>());
  if (!id) throw RunnerError("snapshot: bad request id " + j.at("request_id").dump());
  t.id = *id;
  t.trial_seed = j.at("trial_seed").get<std::uint64_t>();
  t.hparams = j.at("hparams");
  t.created = j.at("created").get<bool>();
  if (!j.at("target").is_null()) t.target = j.at("target").get<std::uint64_t>();
  t.close_requested = j.at("close_requested").get<bool>();
  t.closed = j.at("closed").get<bool>();
  if (!j.at("exit_reason").is_null())
    t.exit_reason = parse_exited_reason(j.at("exit_reason").get<std::string>());
  t.restarts = j.at("restarts").get<std::uint64_t>();
  if (!j.at("checkpoint").is_null()) t.checkpoint = checkpoint_from_json(j.at("checkpoint"));
  for (const nlohmann::json& c : j.value("stored_checkpoints", nlohmann::json::array())) {
    t.stored.push_back(checkpoint_from_json(c));
  }
  t.launches = j.value("launches", std::uint64_t{0});
  for (const nlohmann::json& v : j.at("validations")) {
    t.validations.push_back({v.at("length").get<std::uint64_t>(),
                             metric_from_json(v.at("metric")).value_or(std::nan("")),
                             v.at("metrics")});
  }
  t.last_failure = j.value("last_failure", nlohmann::json());
  if (j.contains("job")) {
    t.job = j.at("job").at("id").get<std::string>();
    t.job_token = j.at("job").at("token").get<std::string>();
  }
  // Absent in snapshots written before PBT: no parent.
  if (j.contains("parent")) {
    t.parent = RequestId::parse(j.at("parent").get<std::string>());
    if (!t.parent) throw RunnerError("snapshot: bad parent request id " + j.at("parent").dump());
  }
  if (j.contains("warm_start")) t.warm_start = checkpoint_from_json(j.at("warm_start"));
  return t;
}

}  // namespace hpsearch::runner_detail
