// hpsearch's side of the overhead comparison, in-process: the searcher configured as the
// Python driver configures it, played FIFO with random metrics. Usage:
//   peer_inprocess async_halving|adaptive_asha N REPETITIONS   -> one JSON line
// with the median microseconds per trial over the repetitions, in CPU time of this thread (as
// bench/peers/drivers.py measures the Python sides), so a machine shared with other work does
// not inflate it.
#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "../play.hpp"
#include "hpsearch/config/catalog.hpp"

namespace {

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hpsearch;
  if (argc != 4) {
    std::cerr << "usage: peer_inprocess async_halving|adaptive_asha N REPETITIONS\n";
    return 2;
  }
  const std::string method = argv[1];
  const std::uint64_t trials = std::strtoull(argv[2], nullptr, 10);
  const int repetitions = std::atoi(argv[3]);
  // 27 units of training per trial at most, rungs at 1, 3, 9, 27 (divisor 3), as Optuna's
  // pruners with 27 steps and reduction factor 3.
  MethodConfig config;
  if (method == "async_halving") {
    config = AshaConfig{.max_length = 27,
                        .max_trials = trials,
                        .num_rungs = 4,
                        .divisor = 3,
                        .max_concurrent_trials = 1};
  } else if (method == "adaptive_asha") {
    config = AdaptiveAshaConfig{
        .max_length = 27, .max_trials = trials, .divisor = 3, .max_concurrent_trials = 1};
  } else {
    std::cerr << "unknown method '" << method << "'\n";
    return 2;
  }
  const HyperparameterSpace space({{"x", DoubleHp{0, 1, std::nullopt}}});
  std::vector<double> per_trial;
  for (int r = 0; r < repetitions; ++r) {
    Searcher searcher = make_searcher(config, space, static_cast<std::uint32_t>(r));
    boost::random::mt19937 rng(static_cast<std::uint32_t>(r));
    boost::random::uniform_real_distribution<double> metric(0, 1);
    const double start = thread_cpu_seconds();
    const std::uint64_t created = bench::play(searcher, [&] { return metric(rng); });
    const double seconds = thread_cpu_seconds() - start;
    per_trial.push_back(seconds * 1e6 / static_cast<double>(created));
  }
  std::sort(per_trial.begin(), per_trial.end());
  std::printf("{\"method\":\"%s\",\"trials\":%llu,\"us_per_trial\":%.3f}\n", method.c_str(),
              static_cast<unsigned long long>(trials), per_trial[per_trial.size() / 2]);
  return 0;
}
