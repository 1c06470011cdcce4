// `searcher-run ls [--json]`: every experiment in the store, one line each.
#include <iomanip>
#include <ostream>
#include <sstream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"
#include "store/store_reads.hpp"

namespace hpsearch::store {
namespace {

// Six significant digits: the full value is in `describe`.
std::string best(const nlohmann::json& metric) {
  if (!metric.is_number()) return text_of(metric);
  std::ostringstream text;
  text << std::setprecision(6) << metric.get<double>();
  return text.str();
}

int list_experiments(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  nlohmann::json all = nlohmann::json::array();
  for (const std::uint64_t id : store.ids()) {
    nlohmann::json j = describe_json(store, id);
    if (j["experiment"].is_object()) {
      // The list keeps the summary: the trials are what `describe` is for.
      nlohmann::json& e = j["experiment"];
      j["trials"] = e["trials"].size();
      j["progress"] = e.value("progress", 0.0);
      j["best_metric"] = e.contains("best") ? e["best"]["metric"] : nlohmann::json(nullptr);
    } else if (!j["damaged"].empty()) {
      j["trials"] = nullptr;  // unknown: the record of them is damaged (describe says which)
      j["progress"] = nullptr;
      j["best_metric"] = nullptr;
    } else {
      j["trials"] = 0;
      j["progress"] = 0.0;
      j["best_metric"] = nullptr;
    }
    j.erase("experiment");
    j.erase("trial_index");
    j.erase("experiment_config");
    all.push_back(std::move(j));
  }
  if (parsed.flag("--json")) {
    out << all.dump() << '\n';
    return cli::kExitOk;
  }
  out << "ID    STATE              TRIALS  PROGRESS  BEST          STARTED               NAME\n";
  for (const nlohmann::json& j : all) {
    std::ostringstream progress;
    if (j["progress"].is_number())
      progress << std::fixed << std::setprecision(1) << 100 * j["progress"].get<double>() << '%';
    else
      progress << '?';
    // A damaged record is said in the state column: "ERROR" or "COMPLETED, 0 trials" would be
    // a guess.
    const std::string state =
        j["state"].get<std::string>() + (j["damaged"].empty() ? "" : " (DAMAGED)");
    out << std::left << std::setw(4) << j["id"].dump() << "  " << std::setw(17) << state << "  "
        << std::setw(6) << (j["trials"].is_null() ? "?" : j["trials"].dump()) << "  "
        << std::setw(8) << progress.str() << "  " << std::setw(12) << best(j["best_metric"]) << "  "
        << std::setw(20) << text_of(j["started"]) << "  " << text_of(j["name"]) << std::right
        << '\n';
  }
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& ls_command() {
  static const runner_cli::Command command{
      "ls [--json]", "every experiment: id, state, trials, best metric",
      "Lists every experiment of the store: its id, state, number of trials, progress, best\n"
      "searcher metric (six significant digits; `describe` has it in full), start time and name.\n"
      "An experiment whose store record does not parse shows (DAMAGED) after its state and ?\n"
      "for what the damaged record held (`describe` names the file).\n",
      cli::OptionSet("ls")
          .flag("--json",
                "print a JSON array: describe --json's fields for each, its trials\n"
                "summed up in trials, progress and best_metric (null when damaged)")
          .flag("--help", "this text"),
      list_experiments};
  return command;
}

}  // namespace hpsearch::store
