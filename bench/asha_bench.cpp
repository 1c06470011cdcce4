// ASHA's cost per trial as searches grow: adaptive ASHA (the default user config) and
// async_halving against the sorted-vector reference, and the rung structure alone.
#include <benchmark/benchmark.h>

#include <optional>

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <vector>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/methods/rung.hpp"
#include "play.hpp"
#include "support/reference_asha.hpp"

namespace {
using namespace hpsearch;

template <class S>
void run_search(benchmark::State& state, const std::function<S()>& make) {
  std::optional<S> searcher;
  for (auto _ : state) {
    state.PauseTiming();
    searcher.emplace(make());
    boost::random::mt19937 rng(7);
    boost::random::uniform_real_distribution<double> metric(0, 1);
    state.ResumeTiming();
    benchmark::DoNotOptimize(bench::play(*searcher, [&] { return metric(rng); }));
    state.PauseTiming();
    searcher.reset();  // freeing is not part of the search
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// adaptive_asha with Determined's defaults (standard mode, divisor 4, max_rungs 5, 16 at once).
void BM_AdaptiveAsha_Search(benchmark::State& state) {
  const AdaptiveAshaConfig config{.max_length = 100'000,
                                  .max_trials = static_cast<std::uint64_t>(state.range(0))};
  run_search<Searcher>(state,
                       [&] { return make_searcher(config, bench::two_hyperparameters(), 1); });
}
BENCHMARK(BM_AdaptiveAsha_Search)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

AshaConfig asha_config(benchmark::State& state) {
  return AshaConfig{.max_length = 100'000,
                    .max_trials = static_cast<std::uint64_t>(state.range(0)),
                    .num_rungs = 5,
                    .divisor = 4,
                    .max_concurrent_trials = 16};
}

void BM_Asha_Search(benchmark::State& state) {
  const AshaConfig config = asha_config(state);
  run_search<Searcher>(state,
                       [&] { return make_searcher(config, bench::two_hyperparameters(), 1); });
}
BENCHMARK(BM_Asha_Search)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

// The same search with the reference: sorted-vector rungs and full close-out rescans.
void BM_Asha_ReferenceSearch(benchmark::State& state) {
  const AshaConfig config = asha_config(state);
  using Reference = BasicSearcher<testing::ReferenceAsha, RandomSampler>;
  run_search<Reference>(state, [&] {
    return Reference(testing::ReferenceAsha(config), RandomSampler(bench::two_hyperparameters()),
                     1);
  });
}
BENCHMARK(BM_Asha_ReferenceSearch)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

// The rung alone: n inserts with a rank query each, random metrics.
void BM_Rung_InsertRank(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    Rung rung(TiePolicy::kNewcomerAfter);
    boost::random::mt19937 rng(3);
    boost::random::uniform_real_distribution<double> metric(0, 1);
    for (std::size_t i = 0; i < n; ++i) {
      const double m = metric(rng);
      benchmark::DoNotOptimize(rung.rank_of(rung.newcomer_key(m)));
      rung.insert(static_cast<std::uint32_t>(i), m, false);
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Rung_InsertRank)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_Rung_SortedVectorInsertRank(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  struct Entry {
    double metric;
    std::uint32_t trial;
    bool promoted;
  };
  for (auto _ : state) {
    std::vector<Entry> rung;
    boost::random::mt19937 rng(3);
    boost::random::uniform_real_distribution<double> metric(0, 1);
    for (std::size_t i = 0; i < n; ++i) {
      const double m = metric(rng);
      const auto at = std::upper_bound(rung.begin(), rung.end(), m,
                                       [](double v, const Entry& e) { return v < e.metric; });
      benchmark::DoNotOptimize(at - rung.begin());
      rung.insert(at, Entry{m, static_cast<std::uint32_t>(i), false});
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Rung_SortedVectorInsertRank)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
