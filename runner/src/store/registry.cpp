#include "store/registry.hpp"

#include <algorithm>
#include <fstream>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

std::string ModelRef::text() const {
  return id ? std::to_string(*id) : "'" + name + "'";
}

Registry::Registry(const fs::path& root)
    : directory_(root / "models"), lock_(root, RegistryLock::kWait, /*create=*/true) {}

std::vector<nlohmann::json> Registry::all() const {
  std::vector<nlohmann::json> models;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, error)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    nlohmann::json model = parse_json_or_discarded(in);
    if (model.is_discarded() || !model.is_object() || !model.contains("id") ||
        !model["id"].is_number_unsigned()) {
      throw StoreError("the model registry's " + entry.path().string() +
                       " is damaged (not a model record)");
    }
    models.push_back(std::move(model));
  }
  std::sort(models.begin(), models.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["id"].get<std::uint64_t>() < b["id"].get<std::uint64_t>();
  });
  return models;
}

nlohmann::json Registry::find(const ModelRef& ref) const {
  for (nlohmann::json& model : all()) {
    if (ref.id ? model["id"].get<std::uint64_t>() == *ref.id
               : model.value("name", std::string()) == ref.name)
      return model;
  }
  throw StoreError("model " + ref.text() + " not found in " + directory_.string());
}

nlohmann::json Registry::create(const std::string& name, const std::string& description,
                                const nlohmann::json& metadata, const nlohmann::json& labels,
                                const std::string& user) {
  if (name.empty()) throw StoreError("model name: expected a non-empty name, got ''");
  for (const nlohmann::json& model : all()) {
    if (model.value("name", std::string()) == name)
      throw StoreError("model '" + name + "' already exists");
  }
  std::uint64_t id = 1;
  if (std::ifstream in(directory_ / "next_id"); in && !(in >> id)) {
    throw StoreError("the model registry's " + (directory_ / "next_id").string() +
                     " is damaged (not a number)");
  }
  write_file_atomically(directory_ / "next_id", std::to_string(id + 1) + '\n');
  nlohmann::json model{{"id", id},
                       {"name", name},
                       {"description", description},
                       {"metadata", metadata},
                       {"labels", labels},
                       {"archived", false},
                       {"username", user},
                       {"creation_time", utc_now()},
                       {"versions", nlohmann::json::array()}};
  save(model);
  return model;
}

void Registry::save(nlohmann::json& model) const {
  model["last_updated_time"] = utc_now();
  write_file_atomically(file(model), model.dump(2) + '\n');
}

void Registry::remove(const nlohmann::json& model) const {
  fs::remove(file(model));
}

fs::path Registry::file(const nlohmann::json& model) const {
  return directory_ / (std::to_string(model["id"].get<std::uint64_t>()) + ".json");
}

}  // namespace hpsearch::store
