#include "hpsearch/simulator/reports.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hpsearch {
namespace {

nlohmann::json quartiles_json(const Quartiles& q) {
  const auto value = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nullptr;
  };
  return {{"q1", value(q.q1)}, {"median", value(q.median)}, {"q3", value(q.q3)}, {"runs", q.runs}};
}

// A workload with no inputs: preview metrics come from RunOptions::metric instead.
class PreviewWorkload final : public Workload {
 public:
  std::string_view name() const override { return "preview"; }
  std::vector<WorkloadParameter> parameters() const override { return {}; }
  double value(const std::vector<double>&, double) const override { return 0; }
  double cost(double z) const override { return z; }
  std::optional<double> optimum() const override { return std::nullopt; }
};

}  // namespace

std::uint32_t search_seed(const ExperimentConfig& config, std::optional<std::uint32_t> seed) {
  return seed ? *seed : config.experiment_seed.value_or(0);
}

RunSummary run_config(const ExperimentConfig& config, std::uint32_t seed, const Workload& workload,
                      RunOptions options) {
  check_simulated_length(config.searcher);
  check_workload_parameters(workload, config.hyperparameters);
  options.smaller_is_better = config.searcher.smaller_is_better;
  if (!options.faults.max_restarts_fixed) options.faults.max_restarts = config.max_restarts;
  Searcher searcher = make_searcher(config.searcher, config.hyperparameters, seed);
  RunSummary summary = run_simulation(searcher, workload, config.hyperparameters,
                                      config.searcher.max_length.units, options);
  const SamplerChoice choice =
      choose_sampler(config.searcher.sampler, config.searcher.method, config.hyperparameters);
  if (!choice.reason.empty()) {
    summary.sampler_choice = choice;
    summary.sampler_switch_trial = sampler_switch_trial(choice, searcher.sampler());
  }
  return summary;
}

nlohmann::json run_json(const RunSummary& summary, std::uint32_t seed, const Workload& workload,
                        std::uint64_t workers) {
  nlohmann::json json = summary.to_json();
  json["seed"] = seed;
  json["workload"] = std::string(workload.name());
  json["workers"] = workers;
  return json;
}

nlohmann::json compare_json(const CompareResult& result, const Workload& workload,
                            std::uint64_t workers) {
  nlohmann::json json{{"workload", std::string(workload.name())},
                      {"workers", workers},
                      {"seeds", result.seeds},
                      {"regret", result.regret},
                      {"times", result.times}};
  for (const ConfigComparison& c : result.configs) {
    nlohmann::json at = nlohmann::json::array();
    for (const Quartiles& q : c.at_times) at.push_back(quartiles_json(q));
    json["configs"].push_back(
        {{"name", c.name}, {"at_times", at}, {"time_to_target", quartiles_json(c.time_to_target)}});
  }
  if (result.target) json["target"] = *result.target;
  return json;
}

PreviewResult preview_config(const ExperimentConfig& config, std::uint32_t seed,
                             const PreviewOptions& preview) {
  check_simulated_length(config.searcher);
  Searcher searcher = make_searcher(config.searcher, config.hyperparameters, seed);
  // A grid search trains every point once to max_length whatever the metrics and the order
  // (spec 3.4), so its preview is known from the grid's size: a grid of 10^12 points is
  // previewed without playing 10^12 trials. A trace needs every step, so it plays them.
  const auto* grid = std::get_if<GridSearch>(&searcher.method().variant());
  if (grid != nullptr && preview.trace == nullptr) return grid_preview(*grid);
  return simulate(searcher, preview);
}

WorkerPreview preview_on_workers(const ExperimentConfig& config, std::uint32_t seed,
                                 const PreviewOptions& preview, RunOptions options) {
  check_simulated_length(config.searcher);
  boost::random::mt19937 metric_rng(preview.seed);
  options.metric = [&](std::uint64_t trial, double) -> double {
    switch (preview.metric) {
      case PreviewMetric::kConstant:
        return 1.0;
      case PreviewMetric::kRandom:
        return boost::random::uniform_01<double>()(metric_rng);
      case PreviewMetric::kTrialId:
        break;
    }
    return static_cast<double>(trial + 1);
  };
  options.timeline = true;
  options.smaller_is_better = true;  // report the preview metric as it is
  options.trace = preview.trace;
  if (!options.faults.max_restarts_fixed) options.faults.max_restarts = config.max_restarts;
  Searcher searcher = make_searcher(config.searcher, config.hyperparameters, seed);
  const PreviewWorkload workload;
  WorkerPreview out;
  out.workers = options.workers;
  out.summary = run_simulation(searcher, workload, HyperparameterSpace{},
                               config.searcher.max_length.units, options);
  for (const TrialRecord& t : out.summary.timeline.trials) out.result.add_trial(t.lengths);
  out.result.trials = out.summary.timeline.trials.size();
  out.result.shutdown = out.summary.shutdown;
  out.result.progress = searcher.progress();
  return out;
}

nlohmann::json preview_json(const PreviewResult& result, const ExperimentConfig& config,
                            std::uint32_t seed, const WorkerPreview* on_workers) {
  const SearcherSettings& searcher = config.searcher;
  nlohmann::json j = result.to_json();
  j["seed"] = seed;
  j["searcher"] = method_name(searcher.method);
  j["sampler"] = sampler_name(searcher.sampler);
  const SamplerChoice choice =
      choose_sampler(searcher.sampler, searcher.method, config.hyperparameters);
  if (!choice.reason.empty()) j["sampler_choice"] = sampler_choice_json(choice);
  if (const std::string caution = sampler_caution(choice, searcher.method); !caution.empty())
    j["sampler_caution"] = caution;
  if (on_workers != nullptr) {
    const RunSummary& s = on_workers->summary;
    j["workers"] = {{"workers", on_workers->workers}, {"wall_time", s.wall_time},
                    {"utilisation", s.utilisation},   {"training_units", s.training_units},
                    {"crashes", s.crashes},           {"errored_trials", s.errored_trials}};
  }
  return j;
}

}  // namespace hpsearch
