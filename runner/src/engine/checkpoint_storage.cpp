#include "engine/checkpoint_storage.hpp"

#include <optional>
#include <string>

#include "hpsearch/runner/errors.hpp"

namespace hpsearch::runner_detail {

namespace fs = std::filesystem;

fs::path checkpoint_storage_directory(const nlohmann::json& document, const fs::path& fallback) {
  if (!document.is_object() || !document.contains("checkpoint_storage") ||
      document["checkpoint_storage"].is_null()) {
    return fallback;
  }
  const nlohmann::json& storage = document["checkpoint_storage"];
  if (!storage.is_object()) {
    throw RunnerSetupError(
        "checkpoint_storage: must be a mapping (e.g. {type: shared_fs, host_path: /data}), got " +
        storage.dump());
  }
  if (!storage.contains("type") || storage["type"].is_null())
    return fallback;  // only the save policy
  const nlohmann::json& type = storage["type"];
  if (type != "shared_fs") {
    throw RunnerSetupError(
        "checkpoint_storage.type: " + type.dump() +
        " is not supported by searcher-run: checkpoints are files on this machine "
        "(use type: shared_fs with host_path, or leave checkpoint_storage.type out for the "
        "experiment's directory)");
  }
  const auto path_field = [&](const char* field) -> std::optional<fs::path> {
    if (!storage.contains(field) || storage[field].is_null()) return std::nullopt;
    if (!storage[field].is_string() || storage[field].get<std::string>().empty()) {
      throw RunnerSetupError(std::string("checkpoint_storage.") + field + ": must be a path, got " +
                             storage[field].dump());
    }
    return fs::path(storage[field].get<std::string>()).lexically_normal();
  };
  const std::optional<fs::path> host = path_field("host_path");
  if (!host || !host->is_absolute()) {
    throw RunnerSetupError(
        "checkpoint_storage.host_path: shared_fs needs an absolute host_path, got " +
        (storage.contains("host_path") ? storage["host_path"].dump() : std::string("nothing")));
  }
  const std::optional<fs::path> storage_path = path_field("storage_path");
  if (!storage_path) return *host;
  if (storage_path->is_relative()) {
    const fs::path joined = (*host / *storage_path).lexically_normal();
    if (joined.lexically_relative(*host).string().starts_with("..")) {
      throw RunnerSetupError("checkpoint_storage.storage_path: " + storage["storage_path"].dump() +
                             " leaves host_path " + host->string() +
                             ": it must be a directory under it");
    }
    return joined;
  }
  const fs::path inside = storage_path->lexically_relative(*host);
  if (inside.empty() || inside.string().starts_with("..")) {
    throw RunnerSetupError("checkpoint_storage.storage_path: " + storage["storage_path"].dump() +
                           " is not under host_path " + host->string() +
                           ": an absolute storage_path must contain host_path");
  }
  return *storage_path;
}

}  // namespace hpsearch::runner_detail
