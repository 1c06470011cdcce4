#include "journaled_searcher.hpp"

#include "hpsearch/runner/experiment.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch::runner_detail {

std::vector<Operation> JournaledSearcher::initial_operations() {
  std::vector<Operation> ops = searcher_.initial_operations();
  record({{"event", "initial_operations"}}, ops, {});
  return ops;
}

std::vector<Operation> JournaledSearcher::handle(const Event& event, const nlohmann::json& metrics) {
  std::vector<Operation> ops = searcher_.handle(event);
  record(nlohmann::json(event), ops, metrics);
  return ops;
}

void JournaledSearcher::record(const nlohmann::json& in, const std::vector<Operation>& ops,
                               const nlohmann::json& metrics) {
  nlohmann::json entry{{"seq", seq_++}, {"in", in}, {"out", operations_answer(ops)}};
  if (!metrics.is_null()) entry["metrics"] = metrics;
  journal_->append(entry);
}

void JournaledSearcher::append_runner_record(const char* kind, nlohmann::json body) {
  journal_->append({{"seq", seq_++}, {kind, std::move(body)}});
}

void JournaledSearcher::restore(const nlohmann::json& snapshot, std::uint64_t seq) {
  searcher_.restore(snapshot);
  seq_ = snapshot_seq_ = seq;
}

ReplayedRecord JournaledSearcher::replay(const nlohmann::json& record) {
  const std::uint64_t seq = record.at("seq").get<std::uint64_t>();
  if (seq != seq_) {
    throw RunnerError("journal record " + std::to_string(seq) + " follows record " +
                      std::to_string(seq_ - 1) + ": records are missing");
  }
  ++seq_;
  ReplayedRecord replayed;
  if (!record.contains("in")) {
    for (const auto& [key, value] : record.items()) {
      if (key == "seq") continue;
      replayed.runner_kind = key;
      replayed.runner_body = value;
    }
    return replayed;
  }
  const nlohmann::json& in = record.at("in");
  if (in.at("event") == "initial_operations") {
    replayed.operations = searcher_.initial_operations();
  } else {
    replayed.event = event_from_json(in);
    replayed.operations = searcher_.handle(*replayed.event);
  }
  const nlohmann::json answer = operations_answer(replayed.operations);
  if (answer != record.at("out")) {
    throw RunnerError("journal record " + std::to_string(seq) + " (" + json_line(in) +
                      "): the searcher now answers " + json_line(answer) +
                      " but the journal recorded " + json_line(record.at("out")) +
                      "; the config, seed or hpsearch version differ from the run's, so it "
                      "cannot be resumed");
  }
  replayed.metrics = record.value("metrics", nlohmann::json());
  return replayed;
}

}  // namespace hpsearch::runner_detail
