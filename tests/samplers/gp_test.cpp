#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "gp_model.hpp"
#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/random_sampler.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "support/sampler_drive.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;
using namespace hpsearch::sampler_detail;

namespace {

std::vector<EncodedDimension> continuous(std::size_t d) {
  return SpaceEncoding(cube(static_cast<int>(d))).dimensions();
}
}  // namespace

TEST_CASE("gp model: the grown Cholesky factor is Eigen's, and grown equals rebuilt bit for bit") {
  const std::vector<EncodedDimension> dims = continuous(2);
  GpHyper h = default_hyper(2);
  const Kernel kernel(dims, h);
  std::vector<std::vector<double>> x;
  Rng rng(4);
  for (int i = 0; i < 30; ++i) x.push_back({rng.unit_interval(), rng.unit_interval()});
  Eigen::MatrixXd k(30, 30);
  for (int i = 0; i < 30; ++i) {
    for (int j = 0; j < 30; ++j) {
      k(i, j) =
          kernel(x[static_cast<std::size_t>(i)].data(), x[static_cast<std::size_t>(j)].data()) +
          (i == j ? kernel.noise() : 0);
    }
  }
  const Eigen::MatrixXd expected = Eigen::LLT<Eigen::MatrixXd>(k).matrixL();
  GrowingCholesky grown;
  const auto append = [&](GrowingCholesky& f, std::size_t i) {
    std::vector<double> row;
    for (std::size_t j = 0; j < f.size(); ++j) row.push_back(kernel(x[j].data(), x[i].data()));
    f.append(row, kernel.signal() + kernel.noise());
  };
  for (std::size_t i = 0; i < 10; ++i) append(grown, i);
  // A few fantasy rows, dropped again, as a proposal does.
  for (std::size_t i = 25; i < 28; ++i) append(grown, i);
  grown.truncate(10);
  for (std::size_t i = 10; i < 30; ++i) append(grown, i);
  GrowingCholesky rebuilt;
  for (std::size_t i = 0; i < 30; ++i) append(rebuilt, i);
  CHECK(grown.dense() == rebuilt.dense());
  CHECK((grown.dense() - expected).cwiseAbs().maxCoeff() < 1e-10);
  // Solves: L L^T a = b.
  std::vector<double> b(30);
  for (std::size_t i = 0; i < 30; ++i) b[i] = std::sin(static_cast<double>(i));
  std::vector<double> a = b;
  grown.solve_lower(a);
  grown.solve_upper(a);
  const Eigen::VectorXd check = k * Eigen::Map<Eigen::VectorXd>(a.data(), 30);
  for (std::size_t i = 0; i < 30; ++i)
    CHECK(check[static_cast<Eigen::Index>(i)] == doctest::Approx(b[i]).epsilon(1e-8));
}

TEST_CASE("gp model: Matern-5/2 values by hand, and labels compare equal or not") {
  CHECK(matern52(0) == 1);
  // r = 1: (1 + sqrt5 + 5/3) exp(-sqrt5).
  CHECK(matern52(1) ==
        doctest::Approx((1 + std::sqrt(5.0) + 5.0 / 3.0) * std::exp(-std::sqrt(5.0))));
  const SpaceEncoding e(space({{"c", categorical({"a", "b", "c"})}, {"x", double_hp(0, 1)}}));
  GpHyper h = default_hyper(2);
  h.log_lengthscale = {0.0, 0.0};  // unit lengthscales
  const Kernel kernel(e.dimensions(), h);
  const double a[] = {0.5 / 3, 0.2};
  const double b[] = {2.5 / 3, 0.2};  // another label, same x: r = 1
  const double c[] = {0.5 / 3, 0.5};  // same label, x 0.3 apart: r = 0.3
  CHECK(kernel(a, b) == doctest::Approx(matern52(1)));
  CHECK(kernel(a, c) == doctest::Approx(matern52(0.3)));
}

TEST_CASE("gp model: log expected improvement") {
  // Closed form where it is well conditioned: EI = s (z Phi(z) + phi(z)).
  const auto plain = [](double best, double mean, double sd) {
    const double z = (best - mean) / sd;
    const double phi = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    return sd * (z * cdf + phi);
  };
  CHECK(std::exp(log_expected_improvement(0, 0, 1)) == doctest::Approx(plain(0, 0, 1)));
  CHECK(std::exp(log_expected_improvement(1, -0.5, 0.3)) == doctest::Approx(plain(1, -0.5, 0.3)));
  CHECK(std::exp(log_expected_improvement(0, 1.5, 0.5)) ==
        doctest::Approx(plain(0, 1.5, 0.5)).epsilon(1e-6));
  // Far in the tail the plain formula underflows, the log form still orders candidates.
  CHECK(plain(0, 50, 1) == 0);
  CHECK(log_expected_improvement(0, 50, 1) > log_expected_improvement(0, 60, 1));
  CHECK(std::isfinite(log_expected_improvement(0, 60, 1)));
  // Continuous across the switch to the asymptotic form at z = -6.
  CHECK(log_expected_improvement(0, 5.999999, 1) ==
        doctest::Approx(log_expected_improvement(0, 6.000001, 1)).epsilon(1e-3));
}

TEST_CASE("gp model: the fitted lengthscales tell a relevant input from an irrelevant one") {
  // y depends on x0 only; 40 points.
  const std::vector<EncodedDimension> dims = continuous(2);
  Rng rng(9);
  PointMatrix x(40, 2);
  Eigen::VectorXd y(40);
  for (Eigen::Index i = 0; i < 40; ++i) {
    x(i, 0) = rng.unit_interval();
    x(i, 1) = rng.unit_interval();
    y[i] = std::sin(6 * x(i, 0));
  }
  y = (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean());
  const GpHyper fitted = fit_hyperparameters(dims, x, y, default_hyper(2), 60);
  INFO("lengthscales " << std::exp(fitted.log_lengthscale[0]) << ", "
                       << std::exp(fitted.log_lengthscale[1]));
  CHECK(fitted.log_lengthscale[1] > fitted.log_lengthscale[0] + 1);
  CHECK(std::exp(fitted.log_noise) < 0.01);  // the data are noise-free
}

TEST_CASE("gp: before a length has enough observations, Determined's random draws") {
  const HyperparameterSpace hps = cube(2);
  GpSampler gp(hps, GpConfig{});
  const RandomSampler random(hps);
  Rng a(2);
  Rng b(2);
  for (std::uint32_t t = 0; t < 4; ++t) {
    const nlohmann::json h = gp.propose(a, t);
    CHECK(h == random.propose(b, t));
    gp.observe(t, 1, sphere(h));
  }
  CHECK(a == b);
  CHECK(gp.kernel_state().is_null());
}

TEST_CASE("gp: finds better configurations than random search on a sphere (5 seeds)") {
  // 60 sequential trials in 4 dimensions, the best of each run. Random search's median best is
  // near 0.048 (as in the tpe test: 1 - (1 - 4.93 t^2)^60 = 1/2 at t = 0.048).
  std::vector<double> gp_best;
  std::vector<double> random_best;
  for (std::uint32_t seed = 0; seed < 5; ++seed) {
    GpSampler gp(cube(4), GpConfig{});
    RandomSampler random(cube(4));
    const std::vector<double> g = drive_sequential(gp, seed, 60, sphere);
    const std::vector<double> r = drive_sequential(random, seed, 60, sphere);
    gp_best.push_back(*std::min_element(g.begin(), g.end()));
    random_best.push_back(*std::min_element(r.begin(), r.end()));
  }
  INFO("gp median best " << median(gp_best) << ", random median best " << median(random_best));
  CHECK(median(gp_best) < median(random_best) / 20);
}

TEST_CASE("gp: restore mid-search continues with exactly the uninterrupted proposals") {
  // The uninterrupted sampler grows its factor row by row; the restored one rebuilds it at
  // once. Both must propose the same bits, with pending trials (fantasies) in play.
  const auto play = [](GpSampler& gp, Rng& rng, std::uint32_t from, std::uint32_t to) {
    std::vector<nlohmann::json> out;
    for (std::uint32_t t = from; t < to; ++t) {
      out.push_back(gp.propose(rng, t));
      gp.on_pending(t, 1);
      // Two trials in flight: each proposal reports the one before it.
      if (t > 0) {
        gp.observe(t - 1, 1, sphere(out.size() >= 2 ? out[out.size() - 2] : out.back()));
      }
    }
    return out;
  };
  for (std::uint32_t seed = 0; seed < 3; ++seed) {
    INFO("seed " << seed);
    GpSampler whole(cube(3), GpConfig{});
    Rng rng_whole(seed);
    std::vector<nlohmann::json> a = play(whole, rng_whole, 0, 20);
    const std::vector<nlohmann::json> a2 = play(whole, rng_whole, 20, 40);
    a.insert(a.end(), a2.begin(), a2.end());

    GpSampler first(cube(3), GpConfig{});
    Rng rng_first(seed);
    std::vector<nlohmann::json> b = play(first, rng_first, 0, 20);
    GpSampler restored(cube(3), GpConfig{});
    restored.restore_state(first.state());
    CHECK(restored == first);
    CHECK(restored.state() == first.state());
    const std::vector<nlohmann::json> b2 = play(restored, rng_first, 20, 40);
    b.insert(b.end(), b2.begin(), b2.end());
    CHECK(a == b);
    CHECK(whole.state() == restored.state());
  }
}

TEST_CASE("gp: refits only when the data grew by refit_growth") {
  GpConfig config;
  config.model.random_fraction = 0;
  GpSampler gp(cube(2), config);
  (void)drive_sequential(gp, 1, 4, sphere);
  CHECK(gp.kernel_state().is_null());  // 4 observations: min_observations is 2 + 2 = 4 ...
  Rng rng(8);
  // ... so the fifth proposal fits on 4 observations; fits then at 5 (>= 1.25 * 4), 7, 9, 12.
  std::vector<std::uint64_t> fits;
  for (std::uint32_t t = 4; t < 12; ++t) {
    const nlohmann::json h = gp.propose(rng, t);
    fits.push_back(gp.kernel_state()["fits"].get<std::uint64_t>());
    gp.observe(t, 1, sphere(h));
  }
  // Observations before each proposal: 4 5 6 7 8 9 10 11.
  CHECK(fits == std::vector<std::uint64_t>{1, 2, 2, 3, 3, 4, 4, 4});
}

TEST_CASE("gp: pending trials (fantasies) send parallel proposals elsewhere") {
  const HyperparameterSpace hps = cube(2);
  double with_fantasies = 0;
  double without = 0;
  for (std::uint32_t seed = 0; seed < 10; ++seed) {
    GpSampler fantasies(hps, GpConfig{});
    (void)drive_sequential(fantasies, seed, 12, sphere);
    Rng rng(seed + 100);
    for (std::uint32_t t = 12; t < 16; ++t) (void)fantasies.propose(rng, t);
    GpSampler plain = fantasies;
    for (std::uint32_t t = 12; t < 16; ++t) fantasies.on_pending(t, 1);
    const auto nearest = [](const GpSampler& s, const nlohmann::json& h) {
      return nearest_point(s, 12, 16, h);
    };
    Rng r1(seed + 1000);
    Rng r2(seed + 1000);
    with_fantasies += nearest(fantasies, fantasies.propose(r1, 16));
    without += nearest(plain, plain.propose(r2, 16));
  }
  INFO("with fantasies " << with_fantasies << ", without " << without);
  CHECK(with_fantasies > 2 * without);
}

TEST_CASE("gp: categorical, integer and nested hyperparameters") {
  // The best region is one label of three, one integer of eight and a tenth of a decade of
  // lr: a random trial lands there with probability 1/3 x 1/8 x 1/15 = 1/360.
  const HyperparameterSpace hps =
      space({{"opt", space({{"lr", log_hp(-4, -1, 10)}, {"kind", ConstHp{"adam"}}})},
             {"layers", int_hp(1, 8)},
             {"act", categorical({"relu", "tanh", "gelu"})}});
  const auto f = [](const nlohmann::json& h) {
    return std::abs(std::log10(h["opt"]["lr"].get<double>()) + 2.5) +
           std::abs(h["layers"].get<double>() - 3) + (h["act"] == "gelu" ? 0 : 1);
  };
  for (std::uint32_t seed = 0; seed < 3; ++seed) {
    INFO("seed " << seed);
    GpSampler gp(hps, GpConfig{});
    std::vector<nlohmann::json> proposals;
    const std::vector<double> values = drive_sequential(gp, seed, 40, f, &proposals);
    for (const nlohmann::json& h : proposals) {
      CHECK(h["opt"]["kind"] == "adam");
      CHECK(h["layers"].is_number_integer());
    }
    CHECK(*std::min_element(values.begin(), values.end()) < 0.1);
  }
}

TEST_CASE("gp: a state with the wrong kernel size is refused") {
  GpSampler gp(cube(2), GpConfig{});
  (void)drive_sequential(gp, 1, 8, sphere);
  nlohmann::json state = gp.state();
  state["kernel"]["log_lengthscales"] = {0.0, 0.0};
  GpSampler other(cube(2), GpConfig{});
  CHECK_THROWS_WITH_AS(other.restore_state(state),
                       "sampler_state.kernel.log_lengthscales: expected 3 values (one per "
                       "coordinate and the fidelity), got 2",
                       ProtocolError);
}

TEST_CASE("gp model: the marginal likelihood's gradient matches finite differences") {
  const SpaceEncoding e(
      space({{"c", categorical({"a", "b", "c"})}, {"x", double_hp(0, 1)}, {"z", double_hp(0, 1)}}));
  Rng rng(5);
  PointMatrix x(25, 3);
  Eigen::VectorXd y(25);
  for (Eigen::Index i = 0; i < 25; ++i) {
    x(i, 0) = (static_cast<double>(rng.below(3)) + 0.5) / 3;
    x(i, 1) = rng.unit_interval();
    x(i, 2) = rng.unit_interval();
    y[i] = std::sin(5 * x(i, 1)) + x(i, 0) * x(i, 2);
  }
  GpHyper h = default_hyper(3);
  h.log_lengthscale = {-0.3, -1.2, 0.4};
  h.log_signal = 0.2;
  h.log_noise = -4;
  Eigen::VectorXd g;
  const double f = negative_log_posterior(e.dimensions(), x, y, h, g);
  CHECK(std::isfinite(f));
  const auto at = [&](int k, double delta) {
    GpHyper moved = h;
    if (k < 3) moved.log_lengthscale[static_cast<std::size_t>(k)] += delta;
    if (k == 3) moved.log_signal += delta;
    if (k == 4) moved.log_noise += delta;
    Eigen::VectorXd unused;
    return negative_log_posterior(e.dimensions(), x, y, moved, unused);
  };
  for (int k = 0; k < 5; ++k) {
    INFO("parameter " << k);
    const double numeric = (at(k, 1e-5) - at(k, -1e-5)) / 2e-5;
    CHECK(g[k] == doctest::Approx(numeric).epsilon(1e-4));
  }
}
