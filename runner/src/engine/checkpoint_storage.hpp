#pragma once
// Private to runner/: where an experiment's checkpoints go, from its config's checkpoint_storage.

#include <filesystem>
#include <nlohmann/json.hpp>

namespace hpsearch::runner_detail {

/// The checkpoint storage directory the config's `checkpoint_storage` names, as Determined's
/// shared_fs takes it: `host_path` (absolute) joined with `storage_path` (relative to host_path,
/// or an absolute path inside it; absent: host_path itself). Without a `type` (only the save
/// policy, or no section): `fallback`. Any other type (s3, gcs, azure, directory) throws
/// RunnerSetupError naming the field, the value and what is supported.
[[nodiscard]] std::filesystem::path checkpoint_storage_directory(
    const nlohmann::json& document, const std::filesystem::path& fallback);

}  // namespace hpsearch::runner_detail
