// Reference values: docs/benchmarks.md section 2.7 (recomputed there from the public
// implementations), to the 6 decimals given.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "hpsearch/simulator/workload.hpp"

using namespace hpsearch;

namespace {
const std::vector<double> kH3Opt{0.114614, 0.555649, 0.852547};
const std::vector<double> kH6Opt{0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573};

void check_close(double actual, double expected, double tolerance = 1e-6) {
  INFO("actual " << actual << ", expected " << expected);
  CHECK(std::abs(actual - expected) <= tolerance);
}
}  // namespace

TEST_CASE("workload: MF-Branin in both fidelity conventions") {
  const auto all = make_mf_branin(FidelityConvention::kAllCoefficients);
  const auto first = make_mf_branin(FidelityConvention::kFirstCoefficient);
  using std::numbers::pi;
  for (const auto& x : {std::vector<double>{-pi, 12.275}, std::vector<double>{pi, 2.275},
                        std::vector<double>{9.42478, 2.475}}) {
    check_close(all->value(x, 1), 0.397887);
  }
  check_close(all->value({pi, 2.275}, 0), 0.494312);
  check_close(all->value({pi, 2.275}, 0.5), 0.434493);
  check_close(first->value({pi, 2.275}, 0), 0.407628);
  check_close(first->value({pi, 2.275}, 0.5), 0.400323);
  check_close(first->value({pi, 2.275}, 1), 0.397887);
  check_close(all->cost(0.1), 0.0800, 5e-5);
  check_close(all->cost(0.5), 0.3859, 5e-5);
  check_close(all->cost(1), 1);
  CHECK(all->parameters().size() == 2);
  CHECK(all->parameters()[0].minval == -5);
}

TEST_CASE("workload: MF-Hartmann-3 and -6 at their optima") {
  const auto h3 = make_mf_hartmann(3, FidelityConvention::kAllCoefficients);
  const auto h6 = make_mf_hartmann(6, FidelityConvention::kAllCoefficients);
  check_close(h3->value(kH3Opt, 0), -3.705461);
  check_close(h3->value(kH3Opt, 0.5), -3.784120);
  check_close(h3->value(kH3Opt, 1), -3.862780);
  check_close(h6->value(kH6Opt, 0), -3.183847);
  check_close(h6->value(kH6Opt, 0.5), -3.253108);
  check_close(h6->value(kH6Opt, 1), -3.322368);
  const auto d3 = make_mf_hartmann(3, FidelityConvention::kFirstCoefficient);
  const auto d6 = make_mf_hartmann(6, FidelityConvention::kFirstCoefficient);
  check_close(d3->value(kH3Opt, 0), -3.862779);
  check_close(d6->value(kH6Opt, 0), -3.281434);
  check_close(d6->value(kH6Opt, 0.5), -3.301901);
  check_close(h3->cost(0.1), 0.1333, 5e-5);
  check_close(h3->cost(0.5), 0.3625, 5e-5);
  check_close(h6->cost(0.1), 0.1475, 5e-5);
  check_close(h6->cost(0.5), 0.4094, 5e-5);
  check_close(*h6->optimum(), -3.322368);
  CHECK_THROWS_AS((void)make_mf_hartmann(4, FidelityConvention::kAllCoefficients),
                  std::invalid_argument);
}

TEST_CASE("workload: mf-prior-bench Hartmann presets (integer fidelity 1..100)") {
  // Integer fidelity 1, 10 and 100 are z = 0, 9/99 and 1.
  const double z10 = 9.0 / 99.0;
  const auto check = [&](std::string_view preset, double at1, double at10, double at100) {
    INFO(preset);
    const auto w = make_prior_hartmann(preset);
    check_close(w->value(kH3Opt, 0), at1, 1e-5);
    check_close(w->value(kH3Opt, z10), at10, 1e-5);
    check_close(w->value(kH3Opt, 1), at100, 1e-5);
  };
  check("default", -3.07619, -3.46948, -3.86278);
  check("good", 0.07019, -1.89630, -3.86278);
  check("terrible", 2.42997, -0.71641, -3.86278);
  const auto w = make_prior_hartmann("default");
  check_close(w->cost(z10), 0.0595, 5e-5);
  check_close(w->cost(1), 1);
  CHECK_THROWS_WITH_AS((void)make_prior_hartmann("awful"),
                       "unknown mf-prior-bench preset 'awful' (presets: default, good, moderate, "
                       "bad, terrible)",
                       std::invalid_argument);
}

TEST_CASE("workload: counting ones") {
  const auto w = make_counting_ones(4);
  REQUIRE(w->parameters().size() == 8);
  CHECK(w->parameters()[0].binary);
  CHECK_FALSE(w->parameters()[4].binary);
  CHECK(w->value(std::vector<double>(8, 1.0), 1) == -8);
  CHECK(*w->optimum() == -8);
  CHECK(w->value({1, 0, 1, 0, 0.5, 0.25, 0, 1}, 0.3) == -3.75);  // 1+1+0.5+0.25+1
}

TEST_CASE("workload: learning curves rise from their start, cross, and still inform") {
  const auto curves = make_learning_curves(4);
  CHECK(curves->name() == "learning-curves-4");
  CHECK(curves->parameters().size() == 4);
  CHECK_FALSE(curves->optimum().has_value());
  CHECK(curves->cost(0.25) == 0.25);
  // Configurations on a fixed lattice-like sweep of the unit cube.
  std::vector<std::vector<double>> configs;
  for (int i = 0; i < 120; ++i) {
    configs.push_back({std::fmod(i * 0.618034, 1.0), std::fmod(i * 0.414214, 1.0),
                       std::fmod(i * 0.732051, 1.0), std::fmod(i * 0.236068, 1.0)});
  }
  std::vector<double> early, final;
  for (const auto& x : configs) {
    // At epoch 1 every family equals the start value y0 in [0.05, 0.35]: error 1 - y0.
    const double start = curves->value(x, 0.01);
    CHECK(start >= 0.65);
    CHECK(start <= 0.95);
    CHECK(curves->value(x, 0.0) == start);  // t = max(1, 100 z)
    double previous = start;
    for (int step = 1; step <= 20; ++step) {
      const double v = curves->value(x, step / 20.0);
      CHECK(v <= previous + 1e-12);  // accuracy never falls
      CHECK(v >= 0.05);              // never past the highest asymptote, 0.95
      previous = v;
    }
    early.push_back(curves->value(x, 0.1));
    final.push_back(curves->value(x, 1.0));
  }
  // Pairs whose order at epoch 10 is reversed at epoch 100: some (early stopping can be
  // wrong), but a minority (the early ranking is informative).
  int pairs = 0;
  int crossed = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t j = i + 1; j < configs.size(); ++j) {
      ++pairs;
      crossed += (early[i] < early[j]) != (final[i] < final[j]) ? 1 : 0;
    }
  }
  const double fraction = static_cast<double>(crossed) / pairs;
  MESSAGE("learning curves: ", fraction * 100, "% of pairs cross between epochs 10 and 100");
  CHECK(fraction > 0.05);
  CHECK(fraction < 0.4);
  // A fixed instance: the same function every time; another instance differs.
  CHECK(make_learning_curves(4)->value(configs[3], 0.5) == curves->value(configs[3], 0.5));
  CHECK(make_learning_curves(4, 1)->value(configs[3], 0.5) != curves->value(configs[3], 0.5));
  CHECK_THROWS_AS((void)make_learning_curves(0), std::invalid_argument);
}

TEST_CASE("workload: each is called by the name it was asked for, and errors quote that name") {
  // Found by fuzzing (fuzz/workload_name_fuzz.cpp): the dragonfly forms and counting-ones-N
  // used to report "mf-branin" or "counting-ones" in summaries and messages.
  for (const char* name : {"mf-branin", "mf-branin-dragonfly", "mf-hartmann3", "mf-hartmann6",
                           "mf-hartmann3-dragonfly", "mf-hartmann6-dragonfly",
                           "prior-hartmann-good", "counting-ones-3", "learning-curves-2"}) {
    INFO(name);
    CHECK(make_workload(name)->name() == name);
  }
  CHECK_THROWS_WITH_AS((void)make_workload("prior-hartmann-best"),
                       "workload 'prior-hartmann-best': unknown mf-prior-bench preset 'best' "
                       "(presets: default, good, moderate, bad, terrible)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(
      (void)make_workload("learning-curves-101"),
      "workload 'learning-curves-101': learning-curves needs 1 to 100 inputs, got 101",
      std::invalid_argument);
  for (const char* unknown : {"counting-ones-0", "learning-curves-06"}) {
    CHECK_THROWS_WITH_AS(
        (void)make_workload(unknown),
        doctest::Contains(("unknown workload '" + std::string(unknown) + "' (workloads: ").c_str()),
        std::invalid_argument);
  }
}
