// The cost per trial of ASHA driven from Python in-process (the hpsearch module), beside
// Optuna's SuccessiveHalvingPruner and HyperbandPruner, in one run: the interpreter is embedded
// here and runs bench/peers/drivers.py, the drivers the peers harness (bench/peers/peers.py)
// runs too. One iteration is a whole search of N trials, one at a time, objective free; the
// time is manual (the driver's own clock around the search, study and searcher built before),
// and `us_per_trial` divides it by N. Optuna's cost grows with N (its pruners read every trial
// of the study), so its runs at 8,000 trials take minutes: `--benchmark_filter=/1000$` for a
// quick look, Optuna needs Debian's python3-optuna.
#include <benchmark/benchmark.h>
#include <pybind11/embed.h>

#include <cstdint>
#include <string>

namespace py = pybind11;

namespace {

// The interpreter is started once and never finalized: finalizing it at exit, after Optuna (and
// SQLAlchemy) were imported, crashed the process once all results were written.
py::module_& drivers() {
  static py::module_* module = [] {
    py::initialize_interpreter();
    py::module_ sys = py::module_::import("sys");
    // The build tree's hpsearch package, and drivers.py.
    sys.attr("path").attr("insert")(0, HPSEARCH_PYTHON_BUILD_DIR);
    sys.attr("path").attr("insert")(0, HPSEARCH_PEERS_DIR);
    return new py::module_(py::module_::import("drivers"));
  }();
  return *module;
}

// Runs `function(N, name)` of drivers.py once per iteration.
void play(benchmark::State& state, const char* function, const char* name) {
  py::module_& module = drivers();
  const auto trials = state.range(0);
  double seconds = 0;
  for (auto _ : state) {
    const double search = module.attr(function)(trials, name).cast<double>();
    state.SetIterationTime(search);
    seconds += search;
  }
  state.SetItemsProcessed(state.iterations() * trials);
  state.counters["us_per_trial"] = seconds * 1e6 / static_cast<double>(state.iterations() * trials);
}

void BM_Python_HpsearchAsyncHalving(benchmark::State& state) {
  play(state, "hpsearch_python_seconds", "async_halving");
}
void BM_Python_HpsearchAdaptiveAsha(benchmark::State& state) {
  play(state, "hpsearch_python_seconds", "adaptive_asha");
}
void BM_Python_OptunaSuccessiveHalving(benchmark::State& state) {
  play(state, "optuna_seconds", "successive_halving");
}
void BM_Python_OptunaHyperband(benchmark::State& state) {
  play(state, "optuna_seconds", "hyperband");
}

}  // namespace

BENCHMARK(BM_Python_HpsearchAsyncHalving)
    ->Arg(1000)
    ->Arg(8000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Python_HpsearchAdaptiveAsha)
    ->Arg(1000)
    ->Arg(8000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
// One search per repetition: at 8,000 trials one Optuna search takes about a minute.
BENCHMARK(BM_Python_OptunaSuccessiveHalving)
    ->Arg(1000)
    ->Arg(8000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Python_OptunaHyperband)
    ->Arg(1000)
    ->Arg(8000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
