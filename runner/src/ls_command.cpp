// `searcher-run ls [--json]`: every experiment in the store, one line each.
#include <iomanip>
#include <ostream>
#include <sstream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch::store {
namespace {

// Six significant digits: the full value is in `describe`.
std::string best(const nlohmann::json& metric) {
  if (!metric.is_number()) return text_of(metric);
  std::ostringstream text;
  text << std::setprecision(6) << metric.get<double>();
  return text.str();
}

}  // namespace

int ls_command(const std::vector<std::string>& args, std::ostream& out, std::ostream&, bool) {
  const runner_cli::Parsed parsed = runner_cli::parse(args, {}, {"--json"});
  if (!parsed.positional.empty()) throw UsageError("unexpected argument '" + parsed.positional.front() + "'");
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
    } else {
      j["trials"] = 0;
      j["progress"] = 0.0;
      j["best_metric"] = nullptr;
    }
    j.erase("experiment");
    all.push_back(std::move(j));
  }
  if (parsed.values.contains("--json")) {
    out << all.dump() << '\n';
    return 0;
  }
  out << "ID    STATE              TRIALS  PROGRESS  BEST          STARTED               NAME\n";
  for (const nlohmann::json& j : all) {
    std::ostringstream progress;
    progress << std::fixed << std::setprecision(1) << 100 * j["progress"].get<double>() << '%';
    out << std::left << std::setw(4) << j["id"].dump() << "  " << std::setw(17) << j["state"].get<std::string>() << "  "
        << std::setw(6) << j["trials"].dump() << "  " << std::setw(8) << progress.str() << "  " << std::setw(12)
        << best(j["best_metric"]) << "  " << std::setw(20) << text_of(j["started"]) << "  " << text_of(j["name"]) << std::right
        << '\n';
  }
  return 0;
}

}  // namespace hpsearch::store
