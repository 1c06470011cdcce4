#include "engine/custom_search.hpp"

#include <cmath>
#include <string>

#include "hpsearch/searcher/errors.hpp"

namespace hpsearch::runner_detail {

nlohmann::json custom_post_to_json(const CustomPost& post) {
  nlohmann::json operations = nlohmann::json::array();
  for (const Operation& op : post.operations) operations.push_back(op);
  return {{"event", "custom_operations"},
          {"post", post.name},
          {"triggered_by", post.triggered_by},
          {"operations", std::move(operations)},
          {"progress", post.progress ? nlohmann::json(*post.progress) : nlohmann::json(nullptr)}};
}

bool is_custom_post(const nlohmann::json& in) {
  return in.is_object() && in.contains("event") && in.at("event") == "custom_operations";
}

CustomPost custom_post_from_json(const nlohmann::json& j, std::uint64_t next_trial) {
  if (!is_custom_post(j)) {
    throw ProtocolError(
        "custom_operations: expected an object with \"event\": "
        "\"custom_operations\", got " +
        j.dump());
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "event" && key != "post" && key != "triggered_by" && key != "operations" &&
        key != "progress") {
      throw ProtocolError("custom_operations: unknown field '" + key +
                          "' (expected post, triggered_by, operations, progress)");
    }
  }
  CustomPost post;
  if (const auto name = j.find("post"); name != j.end()) {
    if (!name->is_string()) {
      throw ProtocolError("custom_operations: post must be a string (its name), got " +
                          name->dump());
    }
    post.name = name->get<std::string>();
  }
  const auto id = j.find("triggered_by");
  if (id == j.end() || !id->is_number_unsigned()) {
    throw ProtocolError(
        "custom_operations: triggered_by must be the id of the event the operations answer "
        "(an integer >= 1), got " +
        (id == j.end() ? std::string("nothing") : id->dump()));
  }
  post.triggered_by = id->get<std::uint64_t>();
  const auto operations = j.find("operations");
  if (operations == j.end() || !operations->is_array()) {
    throw ProtocolError("custom_operations: operations must be a list, got " +
                        (operations == j.end() ? std::string("nothing") : operations->dump()));
  }
  for (std::size_t k = 0; k < operations->size(); ++k) {
    Operation op;
    try {
      op = (*operations)[k].get<Operation>();
    } catch (const ProtocolError& e) {
      throw ProtocolError("custom_operations: operations[" + std::to_string(k) + "]: " + e.what());
    }
    if (auto* create = std::get_if<Create>(&op)) {
      create->trial_index = static_cast<std::uint32_t>(next_trial++);
    }
    post.operations.push_back(std::move(op));
  }
  const auto progress = j.find("progress");
  if (progress != j.end() && !progress->is_null()) {
    if (!progress->is_number() || !std::isfinite(progress->get<double>()) ||
        progress->get<double>() < 0) {
      throw ProtocolError("custom_operations: progress must be a number >= 0 (1 is done), got " +
                          progress->dump());
    }
    post.progress = progress->get<double>();
  }
  return post;
}

std::vector<Operation> CustomSearch::initial_operations() {
  if (started_) throw ProtocolError("initial_operations: the search has already started");
  started_ = true;
  enqueue({{"event", "initial_operations"}});
  return {};
}

std::vector<Operation> CustomSearch::handle(const Event& event) {
  const TrialBook::Checked checked = book_.admit(event, started_);
  if (checked.disposition == TrialBook::Disposition::kIgnore) return {};
  if (std::holds_alternative<TrialExitedEarly>(event) ||
      std::holds_alternative<TrialClosed>(event)) {
    finished_.insert(request_id_of(event));
  }
  enqueue(nlohmann::json(event));
  return {};
}

std::vector<Operation> CustomSearch::post(const CustomPost& post) {
  const std::uint64_t first = event_count_ - queue_.size() + 1;  // the oldest queued event's id
  if (queue_.empty() || post.triggered_by < first || post.triggered_by > event_count_) {
    throw ProtocolError("custom_operations: event " + std::to_string(post.triggered_by) +
                        " not found (the queue holds " +
                        (queue_.empty() ? std::string("no event")
                                        : "events " + std::to_string(first) + " to " +
                                              std::to_string(event_count_)) +
                        "; an event is dropped once operations for it or a later one are posted)");
  }
  // A close for a trial that already exited or closed is dropped: the method may answer an
  // exit with one (Determined's e2e ASHA fixture does), after the runner has closed the trial.
  std::vector<Operation> ops;
  for (const Operation& op : post.operations) {
    if (const auto* close = std::get_if<Close>(&op);
        close && finished_.contains(close->request_id)) {
      continue;
    }
    ops.push_back(op);
  }
  book_.check_operations(ops);  // throws before anything changes
  queue_.erase(queue_.begin(),
               queue_.begin() + static_cast<std::ptrdiff_t>(post.triggered_by - first + 1));
  book_.record(ops);
  if (post.progress) progress_ = *post.progress;
  last_post_ = post.name;
  return ops;
}

nlohmann::json CustomSearch::events() const {
  nlohmann::json list = nlohmann::json::array();
  for (const nlohmann::json& event : queue_) list.push_back(event);
  return list;
}

void CustomSearch::enqueue(nlohmann::json event) {
  event["id"] = ++event_count_;
  queue_.push_back(std::move(event));
}

nlohmann::json CustomSearch::snapshot() const {
  return {{"search_method_type", "custom_search"},
          {"started", started_},
          {"searcher_state", book_},
          {"events", events()},
          {"event_count", event_count_},
          {"progress", progress_},
          {"last_post", last_post_}};
}

void CustomSearch::restore(const nlohmann::json& snapshot) {
  try {
    if (!snapshot.is_object() || snapshot.value("search_method_type", "") != "custom_search") {
      throw ProtocolError(
          "snapshot: search_method_type must be \"custom_search\" for a custom searcher");
    }
    TrialBook book = snapshot.at("searcher_state").get<TrialBook>();
    std::deque<nlohmann::json> queue;
    const std::uint64_t count = snapshot.at("event_count").get<std::uint64_t>();
    const nlohmann::json& events = snapshot.at("events");
    if (!events.is_array() || events.size() > count) {
      throw ProtocolError("snapshot: events must be a list of at most event_count events");
    }
    std::uint64_t id = count - events.size();
    for (const nlohmann::json& event : events) {
      if (!event.is_object() || event.value("id", std::uint64_t{0}) != ++id) {
        throw ProtocolError("snapshot: events must have the consecutive ids up to event_count");
      }
      queue.push_back(event);
    }
    // The trials that exited or closed, as the book records them.
    std::unordered_set<RequestId, RequestIdHash> finished;
    for (const nlohmann::json& t : snapshot.at("searcher_state").at("trials")) {
      if (t.at("closed").get<bool>() || !t.at("exit").is_null()) {
        finished.insert(*RequestId::parse(t.at("request_id").get<std::string>()));
      }
    }
    const bool started = snapshot.at("started").get<bool>();
    const double progress = snapshot.at("progress").get<double>();
    std::string last_post = snapshot.at("last_post").get<std::string>();
    book_ = std::move(book);
    queue_ = std::move(queue);
    finished_ = std::move(finished);
    event_count_ = count;
    progress_ = progress;
    last_post_ = std::move(last_post);
    started_ = started;
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError(std::string("snapshot of the custom searcher: ") + e.what());
  }
}

}  // namespace hpsearch::runner_detail
