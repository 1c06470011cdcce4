// The web UI's API answering for a large experiment (docs/ui.md, "Scale"): a simulation of N
// trials (ASHA on MF-Branin, `searcher-sim run --out`), served as `searcher-run ui --dir` serves
// it, each request handled as the HTTP server hands it over (Api::handle, no socket: the
// socket's share is in the curl figures of docs/ui.md).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "ui/api.hpp"
#include "ui/charts.hpp"
#include "ui/experiment_view.hpp"

namespace {

namespace fs = std::filesystem;

/// The simulation's directory for `trials` trials, made once per size.
const fs::path& simulation(std::int64_t trials) {
  static std::map<std::int64_t, fs::path> made;
  fs::path& dir = made[trials];
  if (!dir.empty()) return dir;
  std::string base = (fs::temp_directory_path() / "hpsearch-ui-bench-XXXXXX").string();
  if (::mkdtemp(base.data()) == nullptr) throw std::runtime_error("mkdtemp");
  dir = base;
  std::ofstream(dir / "config.yaml")
      << "hyperparameters:\n"
         "  x1: {type: double, minval: -5, maxval: 10}\n"
         "  x2: {type: double, minval: 0, maxval: 15}\n"
         "searcher: {name: async_halving, metric: loss, num_rungs: 4, divisor: 3, max_trials: "
      << trials << ", max_length: 81, max_concurrent_trials: 16}\n";
  const std::string command =
      std::string(SEARCHER_SIM) + " run --config " + (dir / "config.yaml").string() +
      " --workload mf-branin --workers 16 --out " + (dir / "out").string() + " > /dev/null";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("searcher-sim run failed");
  return dir;
}

hpsearch::ui::Api& api(std::int64_t trials) {
  static std::map<std::int64_t, std::unique_ptr<hpsearch::ui::Api>> apis;
  auto& slot = apis[trials];
  if (!slot) {
    hpsearch::ui::ApiSettings settings;
    settings.run_directory = simulation(trials) / "out";
    settings.token = "bench";
    slot = std::make_unique<hpsearch::ui::Api>(std::move(settings));
  }
  return *slot;
}

void get(benchmark::State& state, const std::string& path,
         const std::map<std::string, std::string>& query = {}) {
  hpsearch::ui::Api& served = api(state.range(0));
  hpsearch::ui::Request request{"GET", path, query, "", ""};
  std::size_t bytes = 0;
  for (auto _ : state) {
    const hpsearch::ui::Response response = served.handle(request);
    if (response.status != 200) state.SkipWithError(response.body.c_str());
    bytes = response.body.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_UiApi_ListExperiments(benchmark::State& state) {
  get(state, "/api/v1/experiments");
}
void BM_UiApi_TrialsPage(benchmark::State& state) {
  get(state, "/api/v1/experiments/1/trials", {{"limit", "50"}});
}
void BM_UiApi_TrialsPageByBest(benchmark::State& state) {
  get(state, "/api/v1/experiments/1/trials", {{"limit", "50"}, {"sortBy", "best"}});
}
void BM_UiApi_TrialsPageByHyperparameter(benchmark::State& state) {
  get(state, "/api/v1/experiments/1/trials",
      {{"limit", "50"}, {"sortBy", "hp.x1"}, {"orderBy", "ORDER_BY_DESC"}});
}
void BM_UiApi_Charts(benchmark::State& state) {
  get(state, "/api/v1/experiments/1/charts");
}
void BM_UiApi_ChartsUnchanged(benchmark::State& state) {
  get(state, "/api/v1/experiments/1/charts", {{"since", "1"}});
}
void BM_UiApi_Trial(benchmark::State& state) {
  get(state, "/api/v1/trials/7");
}

/// What the charts cost to compute once the experiment changed (the answer above is cached per
/// version of the experiment).
void BM_UiCharts_Compute(benchmark::State& state) {
  hpsearch::ui::ExperimentView view(simulation(state.range(0)) / "out" / "trace.jsonl", fs::path(),
                                    true);
  view.refresh();
  for (auto _ : state) {
    nlohmann::json data = hpsearch::ui::chart_data(
        view, [](const hpsearch::ui::TrialView& t) { return nlohmann::json(t.index); });
    benchmark::DoNotOptimize(data);
  }
}

/// Reading the whole trace from scratch: what the server pays once, at start-up.
void BM_UiView_Load(benchmark::State& state) {
  const fs::path trace = simulation(state.range(0)) / "out" / "trace.jsonl";
  for (auto _ : state) {
    hpsearch::ui::ExperimentView view(trace, fs::path(), true);
    view.refresh();
    benchmark::DoNotOptimize(view.trials().size());
  }
}

}  // namespace

BENCHMARK(BM_UiApi_ListExperiments)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_TrialsPage)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_TrialsPageByBest)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_TrialsPageByHyperparameter)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_Charts)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_ChartsUnchanged)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiApi_Trial)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UiCharts_Compute)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UiView_Load)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
