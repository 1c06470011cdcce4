#include "engine/journaled_searcher.hpp"

#include "hpsearch/runner/errors.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch::runner_detail {

std::vector<Operation> JournaledSearcher::initial_operations() {
  std::vector<Operation> ops =
      custom_ ? custom_->initial_operations() : searcher_->initial_operations();
  begin_record();
  line_ += "{\"event\":\"initial_operations\"}";
  record(ops, {});
  return ops;
}

std::vector<Operation> JournaledSearcher::handle(const Event& event,
                                                 const nlohmann::json& metrics) {
  std::vector<Operation> ops = custom_ ? custom_->handle(event) : searcher_->handle(event);
  begin_record();
  append_event_json(line_, event);
  record(ops, metrics);
  return ops;
}

std::vector<Operation> JournaledSearcher::post(const CustomPost& post) {
  if (!custom_) throw ProtocolError("operations are posted only to a custom searcher");
  std::vector<Operation> ops = custom_->post(post);
  begin_record();
  append_json(line_, custom_post_to_json(post));
  record(ops, {});
  return ops;
}

void JournaledSearcher::begin_record() {
  // {"at": when, "in": ...: the keys in std::map's order, as json_line writes them. "at"
  // (journal_time) is for the web UI's best so far over time; replay ignores it.
  line_ = "{\"at\":";
  append_json_number(line_, journal_time());
  line_ += ",\"in\":";
}

void JournaledSearcher::record(const std::vector<Operation>& ops, const nlohmann::json& metrics) {
  if (!metrics.is_null()) {
    line_ += ",\"metrics\":";
    append_json(line_, metrics);
  }
  line_ += ",\"out\":";
  append_operations_answer(line_, ops);
  line_ += ",\"seq\":";
  append_json_number(line_, seq_++);
  line_ += '}';
  journal_->append_text(line_);
}

void JournaledSearcher::append_runner_record(const char* kind, nlohmann::json body, bool sync) {
  std::string text;
  append_json(text, body);
  append_runner_record_text(kind, text, sync);
}

void JournaledSearcher::append_runner_record_text(std::string_view kind, std::string_view body,
                                                  bool sync) {
  // {"seq":N, kind: body} as json_line writes it: the two keys in std::map's order.
  std::string seq = "\"seq\":";
  append_json_number(seq, seq_++);
  line_ = "{";
  if (kind < std::string_view("seq")) {
    append_json_string(line_, kind);
    line_ += ':';
    line_ += body;
    line_ += ',';
    line_ += seq;
  } else {
    line_ += seq;
    line_ += ',';
    append_json_string(line_, kind);
    line_ += ':';
    line_ += body;
  }
  line_ += '}';
  journal_->append_text(line_, sync);
}

void JournaledSearcher::restore(const nlohmann::json& snapshot, std::uint64_t seq) {
  if (custom_) {
    custom_->restore(snapshot);
  } else {
    searcher_->restore(snapshot);
  }
  seq_ = snapshot_seq_ = seq;
}

namespace {

// A record or part of one in a message: short, whatever the journal holds.
std::string shown(const nlohmann::json& value) {
  std::string text = json_line(value);
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

}  // namespace

std::uint64_t JournaledSearcher::replay_journal(
    const JournalContents& journal, const std::string& name,
    const std::function<void(const ReplayedRecord&)>& apply) {
  if (seq_ > journal.records.size()) {
    throw RunnerError("journal '" + name + "' has " + std::to_string(journal.records.size()) +
                      " records, but the snapshot was taken after record " + std::to_string(seq_) +
                      ": records are missing");
  }
  std::uint64_t replayed = 0;
  for (std::uint64_t k = 0; k < journal.records.size(); ++k) {
    const nlohmann::json& record = journal.records[k];
    const std::string where = "journal '" + name + "' line " + std::to_string(k + 1) + ": ";
    const auto seq = record.find("seq");
    if (seq == record.end() || !seq->is_number_unsigned() || seq->get<std::uint64_t>() != k) {
      throw RunnerError(where + "'seq' must be " + std::to_string(k) + ", got " +
                        (seq == record.end() ? std::string("none") : shown(*seq)) +
                        ": records are missing, repeated or out of order");
    }
    if (k < seq_) continue;  // before the snapshot
    try {
      apply(replay(record));
    } catch (const RunnerError& e) {
      throw RunnerError(where + e.what());
    } catch (const nlohmann::json::exception&) {
      throw RunnerError(where +
                        "the record's fields are not what the runner writes: " + shown(record));
    }
    ++replayed;
  }
  return replayed;
}

ReplayedRecord JournaledSearcher::replay(const nlohmann::json& record) {
  ++seq_;
  ReplayedRecord replayed;
  if (!record.contains("in")) {
    if (record.size() != 2) {
      throw RunnerError("a runner record has 'seq' and one other field, got " + shown(record));
    }
    for (const auto& [key, value] : record.items()) {
      if (key == "seq") continue;
      replayed.runner_kind = key;
      replayed.runner_body = value;
    }
    return replayed;
  }
  const nlohmann::json& in = record.at("in");
  const auto out = record.find("out");
  if (out == record.end())
    throw RunnerError("a searcher record without the answer ('out'): " + shown(record));
  try {
    if (in == nlohmann::json{{"event", "initial_operations"}}) {
      replayed.operations =
          custom_ ? custom_->initial_operations() : searcher_->initial_operations();
    } else if (custom_ && is_custom_post(in)) {
      replayed.operations = custom_->post(custom_post_from_json(in, custom_->trials_requested()));
    } else {
      replayed.event = event_from_json(in);
      replayed.operations =
          custom_ ? custom_->handle(*replayed.event) : searcher_->handle(*replayed.event);
    }
  } catch (const ProtocolError& e) {
    throw RunnerError("the searcher refuses the record's event " + shown(in) + ": " + e.what());
  }
  const nlohmann::json answer = operations_answer(replayed.operations);
  if (answer != *out) {
    throw RunnerError(
        "the searcher now answers " + shown(answer) + " to " + shown(in) +
        " but the journal recorded " + shown(*out) +
        "; the config, seed or hpsearch version differ from the run's, or the journal "
        "was damaged, so it cannot be resumed");
  }
  replayed.metrics = record.value("metrics", nlohmann::json());
  return replayed;
}

}  // namespace hpsearch::runner_detail
