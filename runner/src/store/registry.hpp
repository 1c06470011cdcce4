#pragma once
// The model registry of the store (docs/store.md): ROOT/models/ID.json, one per model (its
// versions inside), and ROOT/models/next_id; read and changed only here, under
// ROOT/models/lock (RegistryLock), which the runner's save policy and the deletion of a
// checkpoint or an experiment take too. `searcher-run model ...` (model_command.cpp) is its
// only interface: the Python SDK calls it and never opens these files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.hpp"

namespace hpsearch::store {

/// A model named by its id or by its name.
struct ModelRef {
  std::optional<std::uint64_t> id;
  std::string name;
  [[nodiscard]] std::string text() const;  ///< "1" or "'digits'", as errors name it
};

/// The registry, locked (waiting for the lock) for as long as this object lives.
class Registry {
 public:
  explicit Registry(const std::filesystem::path& root);

  /// Every model, by id.
  [[nodiscard]] std::vector<nlohmann::json> all() const;
  /// The model `ref` names; throws StoreError "model REF not found in DIR".
  [[nodiscard]] nlohmann::json find(const ModelRef& ref) const;
  /// A new model (the next id of next_id, never reused); a StoreError if the name is taken.
  nlohmann::json create(const std::string& name, const std::string& description,
                        const nlohmann::json& metadata, const nlohmann::json& labels,
                        const std::string& user);
  /// Writes `model` (atomically), its last_updated_time set to now.
  void save(nlohmann::json& model) const;
  /// Removes the model's file.
  void remove(const nlohmann::json& model) const;

 private:
  [[nodiscard]] std::filesystem::path file(const nlohmann::json& model) const;

  std::filesystem::path directory_;
  RegistryLock lock_;
};

}  // namespace hpsearch::store
