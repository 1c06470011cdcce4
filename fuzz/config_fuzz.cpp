// Fuzz target: experiment configs, YAML and JSON (hpsearch::parse_config).
//
// Input: the config text (the seeds are the examples, in both forms).
//
// Contract: parse_config either throws ConfigError, whose message is one printable line (no
// control characters) that starts with the source name (and line:column where there is one)
// and contains the dotted path it reports, or returns a
// config that runs: the searcher it describes is built, starts, and accepts a few dozen events
// a well-behaved master sends, and every hyperparameter value it creates is finite JSON. An
// accepted config is UTF-8 throughout: its document can be written as JSON (config.json).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "hpsearch/config/config.hpp"
#include "hpsearch/simulator/drive.hpp"
#include "support/fuzz_support.hpp"
#include "support/master.hpp"

namespace {

using hpsearch::fuzz::broken;

constexpr const char* kSource = "fuzz.yaml";
constexpr std::uint64_t kMaxInitialTrials = 64;  // larger searches are parsed, not played

// How many trials the search can have running at once (an upper bound of what
// initial_operations creates).
std::uint64_t concurrent_trials(const hpsearch::Searcher& searcher) {
  const nlohmann::json state = searcher.method().state();
  std::uint64_t total = std::numeric_limits<std::uint64_t>::max();
  for (const char* key : {"max_trials", "grid_size"}) {
    if (state.contains(key)) total = state.at(key).get<std::uint64_t>();
  }
  std::uint64_t concurrent = 0;
  if (state.contains("max_concurrent_trials")) {
    concurrent = state.at("max_concurrent_trials").get<std::uint64_t>();
  }
  return concurrent == 0 ? total : std::min(total, concurrent);
}

bool all_finite(const nlohmann::json& value) {
  if (value.is_number_float()) return std::isfinite(value.get<double>());
  if (value.is_structured()) {
    for (const nlohmann::json& item : value) {
      if (!all_finite(item)) return false;
    }
  }
  return true;
}

void check_runs(const hpsearch::ExperimentConfig& config, std::string_view text) {
  hpsearch::Searcher searcher = hpsearch::make_searcher(config.searcher, config.hyperparameters, 0);
  if (concurrent_trials(searcher) > kMaxInitialTrials) return;
  hpsearch::fuzz::Choices choices(text);
  for (int step = 0; step < 48; ++step) {
    const std::optional<std::string> line = hpsearch::fuzz::allowed_line(searcher, choices);
    if (!line) return;
    const nlohmann::json answer = hpsearch::drive_line(searcher, *line);
    if (answer.contains("error")) {
      broken("a searcher from a valid config refused an allowed event",
             std::string(text) + "\nline:   " + *line + "\nanswer: " + answer.dump());
    }
    for (const nlohmann::json& op : answer.at("operations")) {
      if (op.contains("hparams") && !all_finite(op.at("hparams"))) {
        broken("a valid config gave a trial a non-finite hyperparameter",
               std::string(text) + "\nop: " + op.dump());
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hpsearch::fuzz::as_text(data, size);
  hpsearch::ExperimentConfig config;
  try {
    config = hpsearch::parse_config(text, kSource);
  } catch (const hpsearch::ConfigError& e) {
    const std::string message = e.what();
    if (!message.starts_with(kSource))
      broken("a config error does not start with the source", message);
    const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
    if (std::any_of(message.begin(), message.end(), control)) {
      broken("a config error holds control characters", message);
    }
    // A path with control characters is shown escaped.
    if (std::none_of(e.path().begin(), e.path().end(), control) &&
        message.find(e.path()) == std::string::npos) {
      broken("a config error does not name the path it reports", message + "\npath: " + e.path());
    }
    return 0;
  }
  // searcher-run writes the document as config.json and the trials' hyperparameters as JSON,
  // with the JSON library's strict dump, which throws on bytes that are not UTF-8.
  try {
    (void)config.document.dump();
  } catch (const nlohmann::json::exception& e) {
    broken("an accepted config cannot be written as JSON", e.what());
  }
  check_runs(config, text);
  return 0;
}
