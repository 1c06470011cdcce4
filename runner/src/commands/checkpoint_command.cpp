// `searcher-run checkpoint UUID [--json] [--delete]`: a checkpoint of the store by its id, and
// its deletion. A checkpoint is named by its id only (never a path): a directory of its own in
// an experiment's checkpoint storage, so nothing outside a checkpoint storage is ever deleted.
#include <filesystem>
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

void delete_checkpoint(const Store& store, const StoredCheckpoint& found) {
  const Status status = store.status(found.experiment_id);
  if (status.alive) {
    throw StoreError("checkpoint " + found.uuid + ": experiment " +
                     std::to_string(found.experiment_id) + " is " + status.state +
                     "; pause or kill it before deleting its checkpoints");
  }
  const RegistryLock lock(store.root());  // no version is registered meanwhile
  for (const RegisteredVersion& v : registered_versions(store.root())) {
    if (v.checkpoint_uuid == found.uuid) {
      throw StoreError("checkpoint " + found.uuid + " is version " + v.version.dump() +
                       " of model '" + v.model +
                       "' in the model registry and cannot be deleted; delete the model first");
    }
  }
  fs::remove_all(found.directory);
}

int show_checkpoint(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const StoredCheckpoint found = store.find_checkpoint(parsed.argument("UUID"));
  if (parsed.flag("--delete")) {
    delete_checkpoint(store, found);
    out << "checkpoint " << printable(found.uuid) << " deleted\n";
  } else if (parsed.flag("--json")) {
    out << nlohmann::json{{"uuid", found.uuid},
                          {"experiment_id", found.experiment_id},
                          {"storage", found.storage.string()},
                          {"directory", found.directory.string()}}
               .dump()
        << '\n';
  } else {
    out << "checkpoint " << printable(found.uuid) << ": experiment " << found.experiment_id << ", "
        << printable(found.directory.string()) << '\n';
  }
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& checkpoint_command() {
  static const runner_cli::Command command{
      "checkpoint UUID [--json] [--delete]", "a checkpoint by its id: where it is; delete it",
      "Finds checkpoint UUID (the plain name a trial reported: never a path) in the checkpoint\n"
      "storage of the store's experiments and shows its experiment and directory. --delete\n"
      "removes it: refused while its experiment runs, and while it is a version of a model in\n"
      "the model registry (checked under the registry's lock).\n",
      cli::OptionSet("checkpoint")
          .argument("UUID", "the checkpoint's id (its storage_id)")
          .flag("--json", "print {\"uuid\", \"experiment_id\", \"storage\", \"directory\"}")
          .flag("--delete", "delete the checkpoint's files")
          .flag("--help", "this text"),
      show_checkpoint};
  return command;
}

}  // namespace hpsearch::store
