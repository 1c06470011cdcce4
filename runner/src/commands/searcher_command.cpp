// `searcher-run searcher ID --events [--wait S]` and `searcher-run searcher ID --post JSON`: a
// custom search method's client (determined.searcher's LocalSearchRunner and
// RemoteSearchRunner) fetches the event queue of experiment ID and posts the operations it
// decided, through the files the experiment's runner reads and writes (engine/
// custom_exchange.hpp): no client touches them itself (docs/store.md: one owner).
#include <ostream>
#include <string>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "engine/custom_exchange.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "store/store.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

namespace {

// The experiment's run directory, once it is known to be a custom search.
fs::path custom_run_directory(const Store& store, std::uint64_t id) {
  const fs::path dir = store.directory(id);
  const ExperimentConfig config = load_config(dir / "experiment.yaml");
  if (!config.searcher.custom) {
    throw StoreError("experiment " + std::to_string(id) +
                     " is not a custom search (its searcher.name is not 'custom'): it has no "
                     "event queue");
  }
  return dir / "run";
}

// The run has ended (or never ran): nothing more will happen until it is activated.
bool settled(const nlohmann::json& events) {
  const std::string state = events.value("state", "");
  return state != "running" && state != "starting";
}

nlohmann::json events_answer(const Store& store, std::uint64_t id, const fs::path& run) {
  nlohmann::json events = runner_detail::read_custom_events(run);
  const Status status = store.status(id);
  events["alive"] = status.alive;
  events["experiment_state"] = status.state;
  return events;
}

int fetch_events(const Store& store, std::uint64_t id, const fs::path& run, const cli::Args& args,
                 std::ostream& out) {
  const std::uint64_t after = args.count("--after", 0, UINT64_MAX).value_or(0);
  const double wait = args.nonnegative("--wait").value_or(0);
  // Long poll: until an event newer than --after, the run's end, or --wait seconds.
  const auto newer = [&] {
    const nlohmann::json events = runner_detail::read_custom_events(run);
    if (settled(events)) return true;
    for (const nlohmann::json& event : events["events"]) {
      if (event.value("id", std::uint64_t{0}) > after) return true;
    }
    return !store.status(id).alive && fs::exists(runner_detail::custom_exchange_directory(run));
  };
  if (wait > 0) (void)wait_until(newer, wait);
  out << events_answer(store, id, run).dump() << '\n';
  return cli::kExitOk;
}

int post_operations(const Store& store, std::uint64_t id, const fs::path& run,
                    const std::string& text, const cli::Args& args, std::ostream& out) {
  nlohmann::json post = parse_json_or_discarded(text);
  if (!post.is_object()) {
    throw UsageError(
        "searcher: --post must be a JSON object {\"triggered_by\": N, "
        "\"operations\": [...], \"progress\": p}, got " +
        text.substr(0, 200));
  }
  post["event"] = "custom_operations";
  if (!fs::exists(runner_detail::custom_exchange_directory(run) / "inbox")) {
    throw StoreError("experiment " + std::to_string(id) +
                     "'s runner has not started serving its searcher yet");
  }
  const std::string name = runner_detail::send_custom_post(run, post);
  const double timeout = args.nonnegative("--timeout").value_or(600);
  nlohmann::json result;
  const bool answered = wait_until(
      [&] {
        result = runner_detail::take_custom_result(run, name);
        return !result.is_null() || !store.status(id).alive;
      },
      timeout);
  if (result.is_null()) result = runner_detail::take_custom_result(run, name);
  if (result.is_null()) {
    throw StoreError(
        "experiment " + std::to_string(id) + "'s runner " +
        (answered ? std::string("is not running") : "did not answer within the timeout") +
        ": the post waits in its inbox (" + name +
        ") and is applied once the runner reads it (searcher-run activate " + std::to_string(id) +
        " if it is not running)");
  }
  if (result.contains("error")) {
    throw StoreError("experiment " + std::to_string(id) +
                     " refused the operations: " + result["error"].get<std::string>());
  }
  out << result.dump() << '\n';
  return cli::kExitOk;
}

int run_searcher(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const std::uint64_t id = parse_experiment_id(args.argument("ID"));
  const bool events = args.flag("--events");
  const std::optional<std::string> post = args.value("--post");
  if (events == post.has_value()) {
    throw UsageError("searcher: give exactly one of --events and --post JSON");
  }
  const Store store(default_root());
  const fs::path run = custom_run_directory(store, id);
  return events ? fetch_events(store, id, run, args, out)
                : post_operations(store, id, run, *post, args, out);
}

}  // namespace

const runner_cli::Command& searcher_command() {
  static const runner_cli::Command command{
      "searcher ID (--events | --post JSON)",
      "a custom search's event queue, and the operations its\n"
      "method posts (what determined.searcher calls)",
      "For an experiment whose config says searcher: {name: custom}: --events prints its event\n"
      "queue as JSON, {\"events\": [{\"id\": N, \"event\": ...}, ...], \"state\": running,\n"
      "completed, failed or paused, \"alive\": is its runner running, \"experiment_state\"};\n"
      "with --wait S it waits up to S seconds for an event newer than --after N (or the run's\n"
      "end). --post sends the operations decided on event N, {\"triggered_by\": N, "
      "\"operations\":\n"
      "[...], \"progress\": p}, in the searcher protocol's form (docs/protocol.md), and waits\n"
      "for the runner to apply them; refused operations are an error naming them and why. See\n"
      "docs/custom-searcher.md.\n",
      cli::OptionSet("searcher")
          .add(runner_cli::experiment_id_argument())
          .flag("--events", "print the event queue")
          .value("--after", "N", "with --wait: wait for an event with an id above N (default 0)")
          .value("--wait", "S", "with --events: wait up to S seconds for news (default 0)")
          .value("--post", "JSON", "post the operations decided on an event")
          .value("--timeout", "S", "with --post: wait up to S seconds for the runner (default 600)")
          .flag("--json", "JSON output (the only form; accepted for symmetry)")
          .flag("--help", "this text"),
      run_searcher};
  return command;
}

}  // namespace hpsearch::store
