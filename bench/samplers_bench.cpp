// What a proposal costs each sampler, by how many observations the search has: the sampler
// holds N observations of MF-Hartmann-6 (at one length) and 16 trials training, as with 16
// workers, then proposes one configuration. Setup (restoring the state, one observation more)
// is outside the timed region; so is a refit of the GP's kernel, measured on its own.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>

#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/random_sampler.hpp"
#include "hpsearch/samplers/tpe.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "hpsearch/simulator/workload.hpp"

namespace {
using namespace hpsearch;

constexpr std::uint32_t kPending = 16;

HyperparameterSpace hartmann_space() {
  std::vector<NamedHyperparameter> entries;
  for (int j = 0; j < 6; ++j) {
    std::string name = "x";
    name += std::to_string(j);
    entries.push_back({name, DoubleHp{0, 1, std::nullopt}});
  }
  return HyperparameterSpace(std::move(entries));
}

// A store state with `observations` random trials reported at length 1 and kPending more
// training (every other one from the tenth marked as a model's): the form
// ObservationStore::to_json writes. With `rungs`, as under ASHA with
// divisor 3: every third trial also reported at length 3, every ninth at 9, every 27th at 27
// (MF-Hartmann-6 at that share of its full length), so TPE's good group measures how the
// shorter lengths rank trials against the longer ones.
nlohmann::json store_state(std::uint32_t observations, bool rungs = false) {
  const std::unique_ptr<Workload> hartmann = make_workload("mf-hartmann6");
  Rng rng(7);
  nlohmann::json points = nlohmann::json::array();
  nlohmann::json reported = nlohmann::json::array();
  nlohmann::json pending = nlohmann::json::array();
  for (std::uint32_t t = 0; t < observations + kPending; ++t) {
    std::vector<double> x(6);
    for (double& v : x) v = rng.unit_interval();
    points.push_back(x);
    if (t < observations) {
      reported.push_back({t, 1, metric_to_json(hartmann->value(x, rungs ? 1.0 / 27 : 1.0))});
      for (std::uint32_t length = 3; rungs && length <= 27 && t % length == 0; length *= 3) {
        reported.push_back({t, length, metric_to_json(hartmann->value(x, length / 27.0))});
      }
    } else {
      pending.push_back({t, 1});
    }
  }
  // Every other trial from the tenth on proposed by a model, so that the exploration guard
  // has its evidence to weigh (docs/samplers.md).
  nlohmann::json modelled = nlohmann::json::array();
  for (std::uint32_t t = 10; t < observations + kPending; t += 2) modelled.push_back(t);
  return {
      {"points", points}, {"observations", reported}, {"pending", pending}, {"modelled", modelled}};
}

template <class S>
S prepared(const S& empty, const char* type, std::uint32_t observations, bool fitted,
           bool rungs = false) {
  S sampler = empty;
  nlohmann::json state = empty.state();
  state["sampler_type"] = type;
  state["store"] = store_state(observations, rungs);
  sampler.restore_state(state);
  if (fitted) {
    Rng rng(1);
    (void)sampler.propose(rng, observations + kPending);  // fits the model, if it has one
    sampler.on_finished(observations + kPending);
  }
  return sampler;
}

template <class S>
void propose(benchmark::State& state, const S& empty, const char* type, bool fitted,
             bool rungs = false) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const S ready = prepared(empty, type, n, fitted, rungs);
  const std::uint32_t next = n + kPending + (fitted ? 1 : 0);
  std::optional<S> sampler;
  Rng rng(3);
  for (auto _ : state) {
    state.PauseTiming();
    sampler.emplace(ready);
    state.ResumeTiming();
    benchmark::DoNotOptimize(sampler->propose(rng, next));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Sampler_RandomPropose(benchmark::State& state) {
  propose(state, RandomSampler(hartmann_space()), "random", false);
}
BENCHMARK(BM_Sampler_RandomPropose)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_Sampler_TpePropose(benchmark::State& state) {
  propose(state, TpeSampler(hartmann_space(), TpeConfig{}), "tpe", true);
}
BENCHMARK(BM_Sampler_TpePropose)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// The same trials, some also reported at longer lengths (store_state's rungs).
void BM_Sampler_TpeProposeRungs(benchmark::State& state) {
  propose(state, TpeSampler(hartmann_space(), TpeConfig{}), "tpe", true, true);
}
BENCHMARK(BM_Sampler_TpeProposeRungs)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

// Between refits: the kernel is fitted, the proposal conditions the GP and maximises EI.
void BM_Sampler_GpPropose(benchmark::State& state) {
  propose(state, GpSampler(hartmann_space(), GpConfig{}), "gp", true);
}
BENCHMARK(BM_Sampler_GpPropose)
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

// A proposal that refits the kernel first (once per refit_growth of the data).
void BM_Sampler_GpProposeWithRefit(benchmark::State& state) {
  propose(state, GpSampler(hartmann_space(), GpConfig{}), "gp", false);
}
BENCHMARK(BM_Sampler_GpProposeWithRefit)
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

// What feeding costs per event, by how many observations the sampler holds: a trial's
// validate_after (on_pending), its report (observe) and its close (on_finished), as the
// Searcher forwards them. No model work happens here; it must not grow with the search. Each
// pass over the trials reports them at a new, longer length (as promotions do).
template <class S>
void feed(benchmark::State& state, const S& empty, const char* type) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  S sampler = prepared(empty, type, n, false);
  std::uint64_t k = 0;
  for (auto _ : state) {
    const auto trial = static_cast<std::uint32_t>(k % n);
    const std::uint64_t length = 3 * (1 + k / n);
    sampler.on_pending(trial, length);
    sampler.observe(trial, length, -static_cast<double>(k % 97) / 97.0);
    sampler.on_finished(trial);
    ++k;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Sampler_TpeFeedTrial(benchmark::State& state) {
  feed(state, TpeSampler(hartmann_space(), TpeConfig{}), "tpe");
}
BENCHMARK(BM_Sampler_TpeFeedTrial)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_Sampler_GpFeedTrial(benchmark::State& state) {
  feed(state, GpSampler(hartmann_space(), GpConfig{}), "gp");
}
BENCHMARK(BM_Sampler_GpFeedTrial)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
