// `searcher-run describe ID [--json]`: an experiment's state, trials and best validation.
#include <iomanip>
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "store/store.hpp"
#include "store/store_reads.hpp"

namespace hpsearch::store {

std::string text_of(const nlohmann::json& value) {
  if (value.is_null()) return "-";
  return value.is_string() ? printable(value.get<std::string>()) : json_line(value);
}

std::string printable(const std::string& text) {
  constexpr const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {  // U+0080..U+009F in UTF-8
      const auto code = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[code >> 4];
      out += kHex[code & 15];
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

void print_human(const nlohmann::json& j, std::ostream& out) {
  out << "experiment " << j["id"] << (j["name"].is_string() ? " (" + text_of(j["name"]) + ")" : "")
      << ": " << j["state"].get<std::string>();
  if (!j["exit_code"].is_null()) out << " (exit code " << j["exit_code"] << ")";
  out << '\n';
  if (!j["reason"].get<std::string>().empty()) out << "  " << text_of(j["reason"]) << '\n';
  for (const nlohmann::json& file : j["damaged"]) {
    out << "  DAMAGED: " << text_of(file)
        << " does not parse (cut short or overwritten); what it recorded is not shown\n";
  }
  out << "  started " << text_of(j["started"]) << ", ended " << text_of(j["ended"])
      << ", experiment seed " << text_of(j["seed"]) << '\n'
      << "  directory " << text_of(j["directory"]) << " (log: experiment.log, runner: run/)\n";
  const nlohmann::json& e = j["experiment"];
  if (!e.is_object()) {
    out << "  no trial yet\n";
    return;
  }
  out << "  searcher metric " << text_of(e.value("metric", nlohmann::json(nullptr)))
      << (e.value("smaller_is_better", true) ? " (smaller is better)" : " (larger is better)")
      << ", progress " << std::fixed << std::setprecision(1) << 100 * e.value("progress", 0.0)
      << "%\n";
  if (e.contains("best")) {
    const nlohmann::json& b = e["best"];
    out << "  best: trial " << text_of(b.value("trial_id", nlohmann::json(nullptr))) << ", "
        << text_of(b["metric"]) << " at length " << b["length"] << ", hparams "
        << json_line(b["hparams"]) << '\n';
  }
  out << "  TRIAL_ID  INDEX  STATE            VALIDATIONS  LAST_METRIC  CHECKPOINT\n";
  for (const nlohmann::json& t : e["trials"]) {
    const nlohmann::json& validations = t["validations"];
    const nlohmann::json& checkpoint = t["checkpoint"];
    out << "  " << std::left << std::setw(8) << text_of(t["trial_id"]) << "  " << std::setw(5)
        << t["trial"].dump() << "  " << std::setw(15) << text_of(t["outcome"]) << "  "
        << std::setw(11) << validations.size() << "  " << std::setw(11)
        << (validations.empty() ? "-" : text_of(validations.back()["metric"])) << "  "
        << (checkpoint.is_object()
                ? printable(checkpoint.value("storage_id", checkpoint.value("path", std::string())))
                : "-")
        << std::right << '\n';
  }
}

int describe_experiment(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const nlohmann::json j = describe_json(store, parse_experiment_id(parsed.argument("ID")));
  if (parsed.flag("--json")) {
    out << j.dump() << '\n';
  } else {
    print_human(j, out);
  }
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& describe_command() {
  static const runner_cli::Command command{
      "describe ID [--json]", "its state, trials (with global trial ids) and best",
      "Shows experiment ID: its state (and why), times, directory, searcher metric, progress,\n"
      "best validation, and each trial with its global trial id, state, validations and latest\n"
      "checkpoint.\n",
      cli::OptionSet("describe")
          .add(runner_cli::experiment_id_argument())
          .flag("--json",
                "print everything as one JSON object (the store's record and the\n"
                "runner's experiment.json, each trial with its trial_id)")
          .flag("--help", "this text"),
      describe_experiment};
  return command;
}

}  // namespace hpsearch::store
