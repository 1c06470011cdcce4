// `searcher-run delete ID`: removes an experiment that is not running, with its checkpoints
// and its trial ids; refused while a checkpoint of it is a version in the model registry.
#include <fstream>
#include <ostream>
#include <set>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "store/store.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json j = parse_json_or_discarded(in);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

// The experiment's checkpoints: where they are stored (Store::checkpoint_storage, the one
// answer `checkpoint UUID` uses too) and their uuids in the runner's record.
struct Checkpoints {
  fs::path storage;
  std::set<std::string> uuids;
};

Checkpoints checkpoints_of(const Store& store, std::uint64_t id) {
  Checkpoints found{store.checkpoint_storage(id), {}};
  const nlohmann::json experiment = read_json(store.directory(id) / "run" / "experiment.json");
  if (!experiment.is_object()) return found;
  for (const nlohmann::json& t : experiment.value("trials", nlohmann::json::array())) {
    std::vector<nlohmann::json> listed =
        t.value("stored_checkpoints", std::vector<nlohmann::json>{});
    if (t.contains("checkpoint") && t["checkpoint"].is_object()) listed.push_back(t["checkpoint"]);
    for (const nlohmann::json& c : listed) {
      if (c.is_object() && c.contains("storage_id") && c["storage_id"].is_string() &&
          !c["storage_id"].get<std::string>().empty()) {
        found.uuids.insert(c["storage_id"].get<std::string>());
      }
    }
  }
  return found;
}

// Refuses, naming the model and version, if a registered version is a checkpoint of experiment
// `id` (recorded with its experiment id, or one of its checkpoint uuids), as Determined does.
void refuse_if_registered(const fs::path& root, std::uint64_t id, const Checkpoints& checkpoints) {
  for (const RegisteredVersion& v : registered_versions(root)) {
    const bool ours = v.experiment_id ? *v.experiment_id == id
                                      : checkpoints.uuids.contains(v.checkpoint_uuid) ||
                                            (!v.checkpoint_uuid.empty() &&
                                             fs::exists(checkpoints.storage / v.checkpoint_uuid));
    if (ours) {
      throw StoreError("experiment " + std::to_string(id) + ": its checkpoint " +
                       v.checkpoint_uuid + " is version " + v.version.dump() + " of model '" +
                       v.model +
                       "' in the model registry; delete that model (Model.delete()) before "
                       "deleting the experiment");
    }
  }
}

}  // namespace

namespace {

int delete_experiment(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.argument("ID"));
  const fs::path dir = store.directory(id);
  if (const Status status = store.status(id); status.alive) {
    throw StoreError("experiment " + std::to_string(id) + " is " + status.state +
                     ": pause or kill it before deleting it");
  }
  const RegistryLock lock(store.root());
  const Checkpoints checkpoints = checkpoints_of(store, id);
  refuse_if_registered(store.root(), id, checkpoints);
  // Renamed away first, so a half-finished removal never looks like an experiment.
  const fs::path doomed = store.root() / "experiments" / (".deleting-" + std::to_string(id));
  fs::rename(dir, doomed);
  store.forget_trials(id);
  // Checkpoints stored outside the experiment (checkpoint_storage shared_fs) go with it, as
  // Determined deletes an experiment's artifacts from its storage.
  // (Storage inside the experiment's directory was renamed with it: these paths are gone.)
  std::error_code ignored;
  for (const std::string& uuid : checkpoints.uuids)
    fs::remove_all(checkpoints.storage / uuid, ignored);
  fs::remove_all(doomed);
  out << "experiment " << id << " deleted\n";
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& delete_command() {
  static const runner_cli::Command command{
      "delete ID",
      "removes an experiment that is not running, and its\n"
      "checkpoints; refused while one is a model version",
      "Removes experiment ID from the store: its directory, checkpoints and trial ids. A running\n"
      "(ACTIVE) experiment is refused: pause or kill it first. So is one with a checkpoint\n"
      "registered as a model version: delete that model first.\n",
      cli::OptionSet("delete")
          .add(runner_cli::experiment_id_argument())
          .flag("--help", "this text"),
      delete_experiment};
  return command;
}

}  // namespace hpsearch::store
