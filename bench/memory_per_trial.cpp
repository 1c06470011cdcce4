// Peak memory per trial: plays one whole search of n trials in this process and reports the
// growth of the peak resident set (getrusage) over the empty searcher, divided by n. One
// search per process, so nothing else inflates the peak. Usage:
//   memory_per_trial random|async_halving|adaptive_asha N   -> one JSON line
#include <sys/resource.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "hpsearch/config/catalog.hpp"
#include "play.hpp"

namespace {
long peak_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace hpsearch;
  if (argc != 3) {
    std::cerr << "usage: memory_per_trial random|async_halving|adaptive_asha N\n";
    return 2;
  }
  const std::string method = argv[1];
  const std::uint64_t trials = std::strtoull(argv[2], nullptr, 10);
  MethodConfig config;
  if (method == "random") {
    config = RandomConfig{.max_length = 100, .max_trials = trials, .max_concurrent_trials = 16};
  } else if (method == "async_halving") {
    config = AshaConfig{.max_length = 100'000,
                        .max_trials = trials,
                        .num_rungs = 5,
                        .divisor = 4,
                        .max_concurrent_trials = 16};
  } else if (method == "adaptive_asha") {
    config = AdaptiveAshaConfig{.max_length = 100'000, .max_trials = trials};
  } else {
    std::cerr << "unknown method '" << method << "'\n";
    return 2;
  }
  const HyperparameterSpace space({{"lr", LogHp{-5, -1, 10, std::nullopt}},
                                   {"momentum", DoubleHp{0.5, 0.99, std::nullopt}},
                                   {"layers", IntHp{1, 8, std::nullopt}}});
  Searcher searcher = make_searcher(config, space, 1);
  const long before = peak_kib();
  boost::random::mt19937 rng(7);
  boost::random::uniform_real_distribution<double> metric(0, 1);
  const std::uint64_t created = bench::play(searcher, [&] { return metric(rng); });
  const long after = peak_kib();
  const double per_trial =
      static_cast<double>(after - before) * 1024.0 / static_cast<double>(created);
  std::printf(
      "{\"method\":\"%s\",\"trials\":%llu,\"peak_before_kib\":%ld,\"peak_after_kib\":%ld,"
      "\"bytes_per_trial\":%.1f}\n",
      method.c_str(), static_cast<unsigned long long>(created), before, after, per_trial);
  return 0;
}
