// `searcher-run model ACTION ...`: the model registry (store/registry.hpp), for the Python SDK's
// Model and ModelVersion and for people: list, create, describe, register-version, update,
// delete. Every action holds the registry's lock, so a registration and the save policy's or a
// deletion's check of what is registered never interleave.
#include <cstdint>
#include <limits>
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "store/registry.hpp"
#include "store/store.hpp"

namespace hpsearch::store {
namespace {

/// The model --id or --name names (exactly one of them).
ModelRef model_ref(const cli::Args& args) {
  if (args.has("--id") == args.has("--name"))
    throw UsageError("model " + args.argument("ACTION") + ": give --id N or --name NAME");
  if (args.has("--name")) return ModelRef{std::nullopt, *args.value("--name")};
  return ModelRef{args.count("--id", 1, std::numeric_limits<std::uint64_t>::max()), ""};
}

void print_model(std::ostream& out, const nlohmann::json& model, bool json) {
  if (json) {
    out << model.dump() << '\n';
    return;
  }
  out << "model " << model["id"].dump() << " " << printable(model.value("name", "")) << ": "
      << model.value("versions", nlohmann::json::array()).size() << " version(s)"
      << (model.value("archived", false) ? ", archived" : "") << '\n';
}

nlohmann::json register_version(const Store& store, Registry& registry, nlohmann::json& model,
                                const std::string& uuid) {
  // Under the registry's lock, which deleting a checkpoint or an experiment takes too.
  const StoredCheckpoint checkpoint = store.find_checkpoint(uuid);
  nlohmann::json& versions = model["versions"];
  if (!versions.is_array()) versions = nlohmann::json::array();
  const std::uint64_t number =
      versions.empty() ? 1 : versions.back().value("version", std::uint64_t{0}) + 1;
  nlohmann::json version{{"version", number},
                         {"checkpoint_uuid", checkpoint.uuid},
                         {"experiment_id", checkpoint.experiment_id},
                         {"creation_time", utc_now()}};
  versions.push_back(version);
  registry.save(model);
  return version;
}

void update(const cli::Args& args, nlohmann::json& model) {
  if (args.flag("--archive") && args.flag("--unarchive"))
    throw UsageError("model update: --archive and --unarchive exclude each other");
  nlohmann::json& metadata = model["metadata"];
  if (!metadata.is_object()) metadata = nlohmann::json::object();
  metadata.update(json_option(args, "--add-metadata", true));
  for (const nlohmann::json& key : json_option(args, "--remove-metadata", false))
    metadata.erase(key.get<std::string>());
  if (args.has("--labels")) model["labels"] = json_option(args, "--labels", false);
  if (args.has("--description")) model["description"] = *args.value("--description");
  if (args.flag("--archive")) model["archived"] = true;
  if (args.flag("--unarchive")) model["archived"] = false;
}

int run_model(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const std::string action = args.argument("ACTION");
  const bool json = args.flag("--json");
  Registry registry(store.root());
  if (action == "list") {
    nlohmann::json all = nlohmann::json::array();
    for (const nlohmann::json& model : registry.all()) {
      if (json) {
        all.push_back(model);
      } else {
        print_model(out, model, false);
      }
    }
    if (json) out << all.dump() << '\n';
  } else if (action == "create") {
    print_model(
        out,
        registry.create(args.required("--name"), args.value("--description").value_or(""),
                        json_option(args, "--metadata", true), json_option(args, "--labels", false),
                        args.value("--user").value_or("determined")),
        json);
  } else if (action == "describe") {
    print_model(out, registry.find(model_ref(args)), json);
  } else if (action == "register-version") {
    nlohmann::json model = registry.find(model_ref(args));
    const nlohmann::json version =
        register_version(store, registry, model, args.required("--checkpoint"));
    out << (json ? version.dump()
                 : "version " + version["version"].dump() + " of model " +
                       printable(model.value("name", "")))
        << '\n';
  } else if (action == "update") {
    nlohmann::json model = registry.find(model_ref(args));
    update(args, model);
    registry.save(model);
    print_model(out, model, json);
  } else if (action == "delete") {
    const nlohmann::json model = registry.find(model_ref(args));
    registry.remove(model);
    out << "model " << model["id"].dump() << " deleted\n";
  } else {
    throw UsageError(
        "model ACTION: must be one of list, create, describe, register-version, "
        "update, delete, got '" +
        action + "'");
  }
  return cli::kExitOk;
}

}  // namespace

nlohmann::json json_option(const cli::Args& args, const std::string& name, bool object) {
  const std::optional<std::string> text = args.value(name);
  if (!text) return object ? nlohmann::json::object() : nlohmann::json::array();
  const nlohmann::json value = parse_json_or_discarded(*text);
  bool ok = object ? value.is_object() : value.is_array();
  if (ok && !object) {
    for (const nlohmann::json& item : value) ok = ok && item.is_string();
  }
  if (value.is_discarded() || !ok) {
    throw UsageError(name + ": expected " + (object ? "a JSON object" : "a JSON array of strings") +
                     ", got '" + *text + "'");
  }
  return value;
}

const runner_cli::Command& model_command() {
  static const runner_cli::Command command{
      "model ACTION [--id N | --name NAME] [options] [--json]",
      "the model registry: list, create, describe, register-version, update, delete",
      "The store's model registry (ROOT/models), changed under its lock:\n"
      "  list                                  every model, by id\n"
      "  create --name NAME [--description T] [--metadata OBJ] [--labels ARR] [--user U]\n"
      "  describe --id N | --name NAME         the model with its versions\n"
      "  register-version (--id|--name) --checkpoint UUID\n"
      "                                        a new version: a checkpoint of the store\n"
      "  update (--id|--name) [--add-metadata OBJ] [--remove-metadata ARR] [--labels ARR]\n"
      "         [--description T] [--archive | --unarchive]\n"
      "  delete --id N | --name NAME           the model (its checkpoints are kept)\n"
      "OBJ is a JSON object, ARR a JSON array of strings. With --json each action prints the\n"
      "model's record (list: an array of them; register-version: the version's).\n",
      cli::OptionSet("model")
          .argument("ACTION", "list, create, describe, register-version, update or delete")
          .value("--id", "N", "the model's id")
          .value("--name", "NAME", "the model's name")
          .value("--description", "TEXT", "the model's description")
          .value("--metadata", "OBJ", "create: the model's metadata (a JSON object)")
          .value("--labels", "ARR", "the model's labels (a JSON array of strings)")
          .value("--user", "NAME", "create: who owns it (default: determined)")
          .value("--checkpoint", "UUID", "register-version: the checkpoint's id")
          .value("--add-metadata", "OBJ", "update: keys to set in the metadata")
          .value("--remove-metadata", "ARR", "update: keys to remove from the metadata")
          .flag("--archive", "update: archive the model")
          .flag("--unarchive", "update: unarchive the model")
          .flag("--json", "print the record as JSON")
          .flag("--help", "this text"),
      run_model};
  return command;
}

}  // namespace hpsearch::store
