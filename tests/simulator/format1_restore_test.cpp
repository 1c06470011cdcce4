// Snapshots written before samplers (format 1) still restore: sessions recorded with main's
// build at 7da3efd (tests/golden/format1/record.py) are cut by a snapshot; this build restores
// it and must answer the rest of the session exactly as that build did.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/drive.hpp"

using namespace hpsearch;

namespace {
std::filesystem::path format1_dir() {
  return std::filesystem::path(HPSEARCH_SOURCE_DIR) / "tests" / "golden" / "format1";
}

nlohmann::json recorded(const std::string& name) {
  std::ifstream in(format1_dir() / name);
  return nlohmann::json::parse(in);
}

Searcher searcher_for(const nlohmann::json& session, const SamplerConfig* sampler = nullptr) {
  ExperimentConfig config = load_config(format1_dir() / session.at("config").get<std::string>());
  if (sampler != nullptr) config.searcher.sampler = *sampler;
  return make_searcher(config.searcher, config.hyperparameters, 0);
}

void replay_after_restore(const std::string& name) {
  const nlohmann::json session = recorded(name);
  REQUIRE(session.at("snapshot").at("format_version") == 1);
  Searcher searcher = searcher_for(session);
  const nlohmann::json restore{{"event", "restore"}, {"snapshot", session.at("snapshot")}};
  REQUIRE(drive_line(searcher, restore.dump()) == nlohmann::json{{"restored", true}});
  std::size_t step = 0;
  for (const nlohmann::json& entry : session.at("after")) {
    INFO(name << " event " << step++ << ": " << entry.at("event").dump());
    CHECK(drive_line(searcher, entry.at("event").dump(),
                     DriveOptions{.explain = true, .limits = {}}) == entry.at("answer"));
  }
  // From then on it writes format 2, which restores into a fresh searcher unchanged.
  const nlohmann::json now = searcher.snapshot();
  CHECK(now.at("format_version") == 2);
  Searcher again = searcher_for(session);
  again.restore(now);
  CHECK(again.snapshot() == now);
}
}  // namespace

TEST_CASE("format 1: adaptive_asha, larger is better, continues as the old build did") {
  replay_after_restore("adaptive_larger.json");
}

TEST_CASE("format 1: grid continues as the old build did") {
  replay_after_restore("grid.json");
}

TEST_CASE("format 1: a direction that disagrees with the config is refused") {
  nlohmann::json session = recorded("adaptive_larger.json");
  ExperimentConfig config = load_config(format1_dir() / "adaptive_larger.yaml");
  config.searcher.smaller_is_better = true;
  Searcher searcher = make_searcher(config.searcher, config.hyperparameters, 0);
  const nlohmann::json before = searcher.snapshot();
  CHECK_THROWS_WITH_AS(searcher.restore(session.at("snapshot")),
                       "search_method_state.smaller_is_better: the snapshot was taken with false "
                       "but the config says true",
                       ProtocolError);
  CHECK(searcher.snapshot() == before);
}

TEST_CASE("format 1: a sampler that learns cannot start from a snapshot without its state") {
  const nlohmann::json session = recorded("adaptive_larger.json");
  const SamplerConfig tpe = TpeConfig{};
  Searcher searcher = searcher_for(session, &tpe);
  CHECK_THROWS_WITH_AS(searcher.restore(session.at("snapshot")),
                       "snapshot: format_version 1 has no sampler state; it restores only with a "
                       "sampler that learns nothing (random or grid), but the config's sampler "
                       "is \"tpe\"",
                       ProtocolError);
  CHECK_FALSE(searcher.started());
}
