#include "hpsearch/samplers/gp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "draws.hpp"
#include "gp_model.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/state_fields.hpp"
#include "model_common.hpp"

namespace hpsearch {

namespace sampler_detail {
/// The factor of the last proposal's data, extended while the data only grows. Not state: a
/// copy or a restored sampler starts without it and rebuilds the same bits.
struct GpCache {
  std::uint64_t length = 0;
  std::uint64_t fits = 0;
  std::vector<std::uint32_t> trials;  // data order
  GrowingCholesky factor;
};
}  // namespace sampler_detail

using sampler_detail::GpCache;
using sampler_detail::GpHyper;
using sampler_detail::Kernel;
using sampler_detail::RngBits;

namespace {

// Candidate search: local moves around the best observations, then refinement rounds around
// the best candidates with shrinking steps.
constexpr std::size_t kLocalCentres = 5;
constexpr std::size_t kLocalMoves = 16;
constexpr double kLocalStep = 0.1;
constexpr std::size_t kRefineCentres = 4;
constexpr std::size_t kRefineMoves = 8;
constexpr int kRefineRounds = 3;
constexpr int kFitEvaluations = 40;

// Standardised outputs: infinite metrics clamp to the finite range, then (v - mean) / sd.
bool standardise(const std::vector<Observed>& data, std::vector<double>& y) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Observed& o : data) {
    if (std::isfinite(o.metric)) {
      lo = std::min(lo, o.metric);
      hi = std::max(hi, o.metric);
    }
  }
  if (!std::isfinite(lo)) return false;
  y.clear();
  double sum = 0;
  for (const Observed& o : data) {
    y.push_back(std::clamp(o.metric, lo, hi));
    sum += y.back();
  }
  const double mean = sum / static_cast<double>(y.size());
  double squares = 0;
  for (const double v : y) squares += (v - mean) * (v - mean);
  double sd = std::sqrt(squares / static_cast<double>(y.size()));
  if (!(sd > 1e-12)) sd = 1;
  for (double& v : y) v = (v - mean) / sd;
  return true;
}

// The fitting subset: the best half and the most recent rest, at most `cap`, in data order.
std::vector<std::size_t> fit_subset(const std::vector<double>& y, std::size_t cap) {
  std::vector<std::size_t> all(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) all[i] = i;
  if (y.size() <= cap) return all;
  std::vector<std::size_t> ranked = all;
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  std::vector<unsigned char> chosen(y.size(), 0);
  for (std::size_t i = 0; i < cap / 2; ++i) chosen[ranked[i]] = 1;
  std::size_t count = cap / 2;
  for (std::size_t i = y.size(); i-- > 0 && count < cap;) {
    if (chosen[i] == 0) {
      chosen[i] = 1;
      ++count;
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (chosen[i] != 0) out.push_back(i);
  }
  return out;
}

GpHyper hyper_of(const std::vector<double>& log_lengthscale, double log_signal, double log_noise) {
  GpHyper h;
  h.log_lengthscale = log_lengthscale;
  h.log_signal = log_signal;
  h.log_noise = log_noise;
  return h;
}

// The posterior over candidates, given the factor of the model's points and its weights.
class Posterior {
 public:
  Posterior(const Kernel& kernel, const std::vector<const double*>& points,
            const sampler_detail::GrowingCholesky& factor, const std::vector<double>& alpha)
      : kernel_(kernel), points_(points), l_(factor.dense()), alpha_(alpha) {}

  // log EI over `best` for each candidate (rows of `candidates`, d values each).
  void log_ei(const std::vector<double>& candidates, std::size_t d, double best,
              std::vector<double>& out) const {
    const auto n = static_cast<Eigen::Index>(points_.size());
    const auto m = static_cast<Eigen::Index>(candidates.size() / d);
    Eigen::MatrixXd k_star(n, m);
    for (Eigen::Index c = 0; c < m; ++c) {
      const double* x = candidates.data() + static_cast<std::size_t>(c) * d;
      for (Eigen::Index i = 0; i < n; ++i) k_star(i, c) = kernel_(points_[static_cast<std::size_t>(i)], x);
    }
    const Eigen::Map<const Eigen::VectorXd> alpha(alpha_.data(), n);
    const Eigen::VectorXd mean = k_star.transpose() * alpha;
    const Eigen::MatrixXd v = l_.triangularView<Eigen::Lower>().solve(k_star);
    out.resize(static_cast<std::size_t>(m));
    for (Eigen::Index c = 0; c < m; ++c) {
      const double variance = kernel_.signal() - v.col(c).squaredNorm();
      out[static_cast<std::size_t>(c)] = sampler_detail::log_expected_improvement(
          best, mean[c], std::sqrt(std::max(variance, 1e-12)));
    }
  }

 private:
  const Kernel& kernel_;
  const std::vector<const double*>& points_;
  Eigen::MatrixXd l_;
  const std::vector<double>& alpha_;
};

// A move from `centre`: numeric coordinates by a truncated Gaussian step, each categorical
// coordinate redrawn with probability 1/4.
void local_move(const SpaceEncoding& encoding, RngBits& bits, const double* centre, double step,
                double* out) {
  const auto& dims = encoding.dimensions();
  for (std::size_t j = 0; j < dims.size(); ++j) {
    if (dims[j].kind == EncodedDimension::Kind::kCategorical) {
      out[j] = sampler_detail::uniform01(bits) < 0.25 ? sampler_detail::uniform01(bits) : centre[j];
    } else {
      out[j] = sampler_detail::truncated_normal01(bits, centre[j], step);
    }
  }
  encoding.snap(std::span<double>(out, dims.size()));
}

}  // namespace

GpSampler::GpSampler(const HyperparameterSpace& space, const GpConfig& config)
    : space_(space),
      encoding_(space),
      config_(config),
      store_(encoding_.size(), config.model.max_observations),
      cache_(std::make_unique<GpCache>()) {}

GpSampler::GpSampler(const GpSampler& other)
    : space_(other.space_),
      encoding_(other.encoding_),
      config_(other.config_),
      store_(other.store_),
      fit_(other.fit_),
      fits_(other.fits_),
      cache_(std::make_unique<GpCache>()) {}

GpSampler& GpSampler::operator=(const GpSampler& other) {
  if (this != &other) *this = GpSampler(other);
  return *this;
}

GpSampler::GpSampler(GpSampler&&) noexcept = default;
GpSampler& GpSampler::operator=(GpSampler&&) noexcept = default;
GpSampler::~GpSampler() = default;

bool operator==(const GpSampler& a, const GpSampler& b) {
  return a.space_ == b.space_ && a.config_ == b.config_ && a.store_ == b.store_ &&
         a.fit_ == b.fit_ && a.fits_ == b.fits_;
}

nlohmann::json GpSampler::propose(Rng& rng, std::uint32_t trial) {
  std::vector<double> point(encoding_.size());
  if (!model_point(rng, point)) {
    nlohmann::json hparams = sample(space_, rng);
    encoding_.encode(hparams, point);
    store_.add_trial(trial, point);
    return hparams;
  }
  store_.add_trial(trial, point);
  return encoding_.decode(point);
}

bool GpSampler::model_point(Rng& rng, std::vector<double>& point) {
  RngBits bits(rng);
  const std::optional<std::uint64_t> length =
      sampler_detail::length_to_model(config_.model, store_, bits);
  if (!length) return false;
  const std::size_t d = encoding_.size();
  const auto& dims = encoding_.dimensions();
  std::vector<Observed> data;
  store_.data(*length, data);
  std::vector<double> y;
  if (!standardise(data, y)) return false;
  const std::size_t n = data.size();

  // Hyperparameters: refit when the modelled length changed or its data grew enough.
  const std::uint64_t count = store_.count(*length);
  if (!fit_ || fit_->length != *length ||
      static_cast<double>(count) >= config_.refit_growth * static_cast<double>(fit_->observations)) {
    const std::vector<std::size_t> subset =
        fit_subset(y, static_cast<std::size_t>(std::max<std::uint64_t>(config_.fit_observations, 2)));
    sampler_detail::PointMatrix x(static_cast<Eigen::Index>(subset.size()), static_cast<Eigen::Index>(d));
    Eigen::VectorXd ys(static_cast<Eigen::Index>(subset.size()));
    for (std::size_t i = 0; i < subset.size(); ++i) {
      const std::span<const double> p = store_.point(data[subset[i]].trial);
      for (std::size_t j = 0; j < d; ++j) x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = p[j];
      ys[static_cast<Eigen::Index>(i)] = y[subset[i]];
    }
    const GpHyper start = fit_ ? hyper_of(fit_->log_lengthscale, fit_->log_signal, fit_->log_noise)
                               : sampler_detail::default_hyper(d);
    const GpHyper h = sampler_detail::fit_hyperparameters(dims, x, ys, start, kFitEvaluations);
    fit_ = Fit{*length, count, h.log_lengthscale, h.log_signal, h.log_noise};
    ++fits_;
  }
  const Kernel kernel(dims, hyper_of(fit_->log_lengthscale, fit_->log_signal, fit_->log_noise));

  // The factor: extended by the new observations when the data only grew, else rebuilt.
  GpCache& cache = *cache_;
  const bool extends = cache.length == *length && cache.fits == fits_ &&
                       cache.trials.size() <= n &&
                       std::equal(cache.trials.begin(), cache.trials.end(), data.begin(),
                                  [](std::uint32_t t, const Observed& o) { return t == o.trial; });
  if (!extends) {
    cache.factor.clear();
    cache.trials.clear();
    cache.length = *length;
    cache.fits = fits_;
  }
  cache.factor.truncate(cache.trials.size());  // drop the last proposal's fantasies
  std::vector<const double*> points;
  for (const Observed& o : data) points.push_back(store_.point(o.trial).data());
  std::vector<double> k_row;
  const auto append = [&](const double* x) {
    k_row.clear();
    for (std::size_t i = 0; i < cache.factor.size(); ++i) k_row.push_back(kernel(points[i], x));
    cache.factor.append(k_row, kernel.signal() + kernel.noise());
  };
  for (std::size_t i = cache.trials.size(); i < n; ++i) {
    append(points[i]);
    cache.trials.push_back(data[i].trial);
  }

  std::vector<double> alpha = y;
  cache.factor.solve_lower(alpha);
  cache.factor.solve_upper(alpha);

  // Fantasies: each trial training now, observed at the mean the real data predict there.
  std::vector<std::uint32_t> pending;
  store_.pending_below(*length, pending);
  std::vector<double> y_all = y;
  for (const std::uint32_t trial : pending) {
    const double* x = store_.point(trial).data();
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += kernel(points[i], x) * alpha[i];
    y_all.push_back(mean);
  }
  for (const std::uint32_t trial : pending) {
    points.push_back(store_.point(trial).data());
    append(points.back());
  }
  if (!pending.empty()) {
    alpha = y_all;
    cache.factor.solve_lower(alpha);
    cache.factor.solve_upper(alpha);
  }
  const double best = *std::min_element(y.begin(), y.end());
  const Posterior posterior(kernel, points, cache.factor, alpha);

  // Candidates: random points, then local moves around the best observations.
  std::vector<double> candidates;
  const std::size_t random = static_cast<std::size_t>(std::max<std::uint64_t>(config_.model.candidates, 1));
  candidates.resize(random * d);
  for (double& u : candidates) u = sampler_detail::uniform01(bits);
  for (std::size_t c = 0; c < random; ++c) encoding_.snap(std::span<double>(candidates.data() + c * d, d));
  std::vector<std::size_t> ranked(n);
  for (std::size_t i = 0; i < n; ++i) ranked[i] = i;
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  for (std::size_t r = 0; r < std::min(kLocalCentres, n); ++r) {
    for (std::size_t m = 0; m < kLocalMoves; ++m) {
      candidates.resize(candidates.size() + d);
      local_move(encoding_, bits, points[ranked[r]], kLocalStep, candidates.data() + candidates.size() - d);
    }
  }
  std::vector<double> scores;
  posterior.log_ei(candidates, d, best, scores);

  // Refinement: around the best few, smaller and smaller moves; a move replaces its centre
  // when it scores higher.
  std::vector<std::size_t> order(scores.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  const std::size_t centres = std::min(kRefineCentres, order.size());
  std::vector<double> centre(centres * d);
  std::vector<double> centre_score(centres);
  for (std::size_t c = 0; c < centres; ++c) {
    std::copy_n(candidates.data() + order[c] * d, d, centre.data() + c * d);
    centre_score[c] = scores[order[c]];
  }
  double step = kLocalStep / 2;
  std::vector<double> moves(centres * kRefineMoves * d);
  std::vector<double> move_scores;
  for (int round = 0; round < kRefineRounds; ++round, step /= 2) {
    for (std::size_t c = 0; c < centres; ++c) {
      for (std::size_t m = 0; m < kRefineMoves; ++m) {
        local_move(encoding_, bits, centre.data() + c * d, step, moves.data() + (c * kRefineMoves + m) * d);
      }
    }
    posterior.log_ei(moves, d, best, move_scores);
    for (std::size_t c = 0; c < centres; ++c) {
      for (std::size_t m = 0; m < kRefineMoves; ++m) {
        const std::size_t at = c * kRefineMoves + m;
        if (move_scores[at] > centre_score[c]) {
          centre_score[c] = move_scores[at];
          std::copy_n(moves.data() + at * d, d, centre.data() + c * d);
        }
      }
    }
  }
  std::size_t winner = 0;
  for (std::size_t c = 1; c < centres; ++c) {
    if (centre_score[c] > centre_score[winner]) winner = c;
  }
  point.assign(centre.data() + winner * d, centre.data() + (winner + 1) * d);
  cache.factor.truncate(n);
  return true;
}

nlohmann::json GpSampler::kernel_state() const {
  if (!fit_) return nullptr;
  return {{"length", fit_->length},
          {"observations", fit_->observations},
          {"log_lengthscales", fit_->log_lengthscale},
          {"log_signal", fit_->log_signal},
          {"log_noise", fit_->log_noise},
          {"fits", fits_}};
}

nlohmann::json GpSampler::state() const {
  nlohmann::json options = sampler_detail::options_json(config_.model);
  options["fit_observations"] = config_.fit_observations;
  options["refit_growth"] = config_.refit_growth;
  return {{"sampler_type", "gp"},
          {"options", std::move(options)},
          {"store", store_.to_json()},
          {"kernel", kernel_state()}};
}

void GpSampler::restore_state(const nlohmann::json& state) {
  state_fields::expect_type(state, "sampler_state", "sampler_type", "gp", "sampler");
  GpSampler fresh(space_, config_);
  state_fields::expect_config(state, "sampler_state", "options", fresh.state().at("options"));
  fresh.store_.restore(state.at("store"));
  const nlohmann::json& kernel = state.at("kernel");
  if (!kernel.is_null()) {
    Fit fit;
    fit.length = kernel.at("length").get<std::uint64_t>();
    fit.observations = kernel.at("observations").get<std::uint64_t>();
    fit.log_lengthscale = kernel.at("log_lengthscales").get<std::vector<double>>();
    fit.log_signal = kernel.at("log_signal").get<double>();
    fit.log_noise = kernel.at("log_noise").get<double>();
    if (fit.log_lengthscale.size() != encoding_.size()) {
      throw ProtocolError("sampler_state.kernel.log_lengthscales: expected " +
                          std::to_string(encoding_.size()) + " values, got " +
                          std::to_string(fit.log_lengthscale.size()));
    }
    fresh.fit_ = std::move(fit);
    fresh.fits_ = state_fields::read_count(kernel, "sampler_state.kernel", "fits");
  }
  *this = std::move(fresh);
}

}  // namespace hpsearch
