// `searcher-run checkpoint UUID [--json] [--delete]`: a checkpoint of the store by its id, and
// its deletion. A checkpoint is named by its id only (never a path): a directory of its own in
// an experiment's checkpoint storage, so nothing outside a checkpoint storage is ever deleted.
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
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

/// The checkpoint's metadata.json (what the trial saved with it; {} if it does not parse).
nlohmann::json metadata_of(const StoredCheckpoint& found) {
  std::ifstream in(found.directory / "metadata.json");
  nlohmann::json metadata = parse_json_or_discarded(in);
  return metadata.is_object() ? metadata : nlohmann::json::object();
}

/// When the checkpoint was stored (its directory's mtime, ISO 8601 UTC: shown, decides nothing).
std::string report_time(const StoredCheckpoint& found) {
  struct stat info {};
  if (::stat(found.directory.c_str(), &info) != 0) return {};
  std::tm tm{};
  ::gmtime_r(&info.st_mtime, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

/// --add-metadata / --remove-metadata: metadata.json rewritten whole (atomically).
nlohmann::json change_metadata(const cli::Args& parsed, const StoredCheckpoint& found) {
  nlohmann::json metadata = metadata_of(found);
  metadata.update(json_option(parsed, "--add-metadata", true));
  for (const nlohmann::json& key : json_option(parsed, "--remove-metadata", false))
    metadata.erase(key.get<std::string>());
  write_file_atomically(found.directory / "metadata.json", metadata.dump(2) + '\n');
  return metadata;
}

int show_checkpoint(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const StoredCheckpoint found = store.find_checkpoint(parsed.argument("UUID"));
  const bool changes = parsed.has("--add-metadata") || parsed.has("--remove-metadata");
  if (parsed.flag("--delete")) {
    if (changes) throw UsageError("checkpoint: --delete and a metadata change exclude each other");
    delete_checkpoint(store, found);
    out << "checkpoint " << printable(found.uuid) << " deleted\n";
  } else if (parsed.flag("--json") || changes) {
    const nlohmann::json metadata = changes ? change_metadata(parsed, found) : metadata_of(found);
    out << nlohmann::json{{"uuid", found.uuid},
                          {"experiment_id", found.experiment_id},
                          {"storage", found.storage.string()},
                          {"directory", found.directory.string()},
                          {"metadata", metadata},
                          {"report_time", report_time(found)}}
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
      "checkpoint UUID [--json] [--delete | --add-metadata OBJ | --remove-metadata ARR]",
      "a checkpoint by its id: where it is, its metadata; change that; delete it",
      "Finds checkpoint UUID (the plain name a trial reported: never a path) in the checkpoint\n"
      "storage of the store's experiments and shows its experiment and directory. --delete\n"
      "removes it: refused while its experiment runs, and while it is a version of a model in\n"
      "the model registry (checked under the registry's lock). --add-metadata sets keys of its\n"
      "metadata.json, --remove-metadata removes some; both print the --json form.\n",
      cli::OptionSet("checkpoint")
          .argument("UUID", "the checkpoint's id (its storage_id)")
          .flag("--json",
                "print {\"uuid\", \"experiment_id\", \"storage\", \"directory\", \"metadata\",\n"
                "\"report_time\"}")
          .value("--add-metadata", "OBJ", "keys to set in its metadata.json (a JSON object)")
          .value("--remove-metadata", "ARR", "keys to remove from it (a JSON array of strings)")
          .flag("--delete", "delete the checkpoint's files")
          .flag("--help", "this text"),
      show_checkpoint};
  return command;
}

}  // namespace hpsearch::store
