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
  std::uint64_t fits = 0;
  std::uint64_t longest = 0;        // the longest length when built (it sets the fidelities)
  std::vector<std::uint64_t> rows;  // the observations factored, by position in the history
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

// The model's outputs: metrics centred on their median and scaled by their spread (the
// interquartile range, as a normal's sd), the bad tail above 2 compressed logarithmically
// (a few diverged or terrible trials must not flatten the model where the good ones are),
// infinite metrics clamped to the finite range; then standardised.
std::vector<double> warp(const std::vector<double>& metrics) {
  std::vector<double> finite;
  for (const double m : metrics) {
    if (std::isfinite(m)) finite.push_back(m);
  }
  std::vector<double> y(metrics.size(), 0.0);
  if (finite.empty()) return y;
  std::sort(finite.begin(), finite.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(finite.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, finite.size() - 1);
    return finite[lo] + (pos - static_cast<double>(lo)) * (finite[hi] - finite[lo]);
  };
  const double median = at(0.5);
  double scale = (at(0.75) - at(0.25)) / 1.349;
  if (!(scale > 0)) scale = finite.back() - finite.front();
  if (!(scale > 0)) scale = 1;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const double z = (std::clamp(metrics[i], finite.front(), finite.back()) - median) / scale;
    y[i] = z > 2 ? 2 + std::log1p(z - 2) : z;
  }
  double mean = 0;
  for (const double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double squares = 0;
  for (const double v : y) squares += (v - mean) * (v - mean);
  double sd = std::sqrt(squares / static_cast<double>(y.size()));
  if (!(sd > 1e-12)) sd = 1;
  for (double& v : y) v = (v - mean) / sd;
  return y;
}

// The fitting subset, at most `cap` of the data: the best half and an even spread of the rest
// over data order; returned in data order. `by_rank` lists the data's indexes best first.
std::vector<std::size_t> fit_subset(const std::vector<std::size_t>& by_rank, std::size_t cap) {
  const std::size_t n = by_rank.size();
  std::vector<std::size_t> out;
  if (n <= cap) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::vector<unsigned char> chosen(n, 0);
  for (std::size_t r = 0; r < cap / 2; ++r) chosen[by_rank[r]] = 1;
  std::size_t count = cap / 2;
  const std::size_t spread = cap - count;
  for (std::size_t j = 0; j < spread && count < cap; ++j) {
    const std::size_t i = j * n / spread;
    if (chosen[i] == 0) {
      chosen[i] = 1;
      ++count;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (chosen[i] != 0) out.push_back(i);
  }
  return out;
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
      for (Eigen::Index i = 0; i < n; ++i)
        k_star(i, c) = kernel_(points_[static_cast<std::size_t>(i)], x);
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

namespace {
// The encoding's coordinates, then the fidelity (continuous in [0, 1]).
std::vector<EncodedDimension> with_fidelity(const SpaceEncoding& encoding) {
  std::vector<EncodedDimension> dims = encoding.dimensions();
  dims.push_back({{"(fidelity)"}, EncodedDimension::Kind::kContinuous, 0, DoubleHp{0, 1, {}}});
  return dims;
}
}  // namespace

GpSampler::GpSampler(const HyperparameterSpace& space, const GpConfig& config)
    : space_(space),
      encoding_(space),
      model_dims_(with_fidelity(encoding_)),
      config_(config),
      store_(encoding_.size(), config.model.max_observations,
             sampler_detail::categorical_mask(encoding_)),
      cache_(std::make_unique<GpCache>()) {}

GpSampler::GpSampler(const GpSampler& other)
    : space_(other.space_),
      encoding_(other.encoding_),
      model_dims_(other.model_dims_),
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

GpHyper GpSampler::Fit::hyper() const {
  GpHyper h;
  h.log_lengthscale = log_lengthscale;
  h.log_signal = log_signal;
  h.log_noise = log_noise;
  return h;
}

bool operator==(const GpSampler& a, const GpSampler& b) {
  return a.space_ == b.space_ && a.config_ == b.config_ && a.store_ == b.store_ &&
         a.fit_ == b.fit_ && a.fits_ == b.fits_;
}

nlohmann::json GpSampler::propose(Rng& rng, std::uint32_t trial) {
  return sampler_detail::propose_point(
      space_, encoding_, store_, rng, trial,
      [this](Rng& r, std::vector<double>& point) { return model_point(r, point); });
}

namespace sampler_detail {
// The model's data for one proposal: the capped observations, each a row (point, fidelity) ->
// warped metric, then the fantasies of the trials training now. The fidelity is
// log(length) / log(longest length observed), so 1 is the longest; the kernel learns how much
// shorter trainings tell about longer ones.
struct GpData {
  std::vector<ObservationStore::Observed> data;
  std::uint64_t longest = 0;
  std::vector<double> rows;           // n rows of e values
  std::vector<double> fantasy_rows;   // one row per pending trial
  std::vector<double> y;              // the data's warped metrics
  std::vector<const double*> points;  // the rows, then the fantasy rows

  [[nodiscard]] std::size_t n() const { return data.size(); }
  [[nodiscard]] double fidelity(std::uint64_t length) const {
    return longest <= 1 ? 1.0
                        : std::clamp(std::log(static_cast<double>(length)) /
                                         std::log(static_cast<double>(longest)),
                                     0.0, 1.0);
  }
};
}  // namespace sampler_detail

using sampler_detail::GpData;

namespace {

GpData model_data(const ObservationStore& store, std::size_t d) {
  const std::size_t e = d + 1;
  GpData m;
  store.model_observations(m.data);
  m.longest = store.longest_length();
  const std::size_t n = m.n();
  m.rows.resize(n * e);
  for (std::size_t i = 0; i < n; ++i) {
    const std::span<const double> p = store.point(m.data[i].trial);
    std::copy(p.begin(), p.end(), m.rows.begin() + static_cast<std::ptrdiff_t>(i * e));
    m.rows[i * e + d] = m.fidelity(m.data[i].length);
  }
  std::vector<double> metrics(n);
  for (std::size_t i = 0; i < n; ++i) metrics[i] = m.data[i].metric;
  m.y = warp(metrics);
  for (std::size_t i = 0; i < n; ++i) m.points.push_back(m.rows.data() + i * e);
  return m;
}

// The incumbents: the rows at the longest length, best first.
std::vector<std::size_t> incumbents(const GpData& m) {
  std::vector<std::size_t> top;
  for (std::size_t i = 0; i < m.n(); ++i) {
    if (m.data[i].length == m.longest) top.push_back(i);
  }
  std::stable_sort(top.begin(), top.end(),
                   [&](std::size_t a, std::size_t b) { return m.y[a] < m.y[b]; });
  return top;
}

// Candidates at the longest length: `random` random points, then local moves around the best
// observations there.
std::vector<double> first_candidates(const SpaceEncoding& encoding, RngBits& bits,
                                     std::size_t random, const GpData& m,
                                     const std::vector<std::size_t>& top) {
  const std::size_t d = encoding.size();
  const std::size_t e = d + 1;
  std::vector<double> candidates(random * e);
  for (std::size_t c = 0; c < random; ++c) {
    double* x = candidates.data() + c * e;
    for (std::size_t j = 0; j < d; ++j) x[j] = sampler_detail::uniform01(bits);
    encoding.snap(std::span<double>(x, d));
    x[d] = 1;
  }
  for (std::size_t r = 0; r < std::min(kLocalCentres, top.size()); ++r) {
    for (std::size_t move = 0; move < kLocalMoves; ++move) {
      candidates.resize(candidates.size() + e);
      double* x = candidates.data() + candidates.size() - e;
      local_move(encoding, bits, m.points[top[r]], kLocalStep, x);
      x[d] = 1;
    }
  }
  return candidates;
}

// Refinement: around the best few candidates, smaller and smaller moves; a move replaces its
// centre when it scores higher. The winner's row (e values).
std::vector<double> refine(const Posterior& posterior, const SpaceEncoding& encoding, RngBits& bits,
                           const std::vector<double>& candidates, const std::vector<double>& scores,
                           double best, const ObservationStore& store,
                           const std::vector<double>& known) {
  const std::size_t e = encoding.size() + 1;
  const std::size_t d = e - 1;
  std::vector<std::size_t> order(scores.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  const std::size_t centres = std::min(kRefineCentres, order.size());
  std::vector<double> centre(centres * e);
  std::vector<double> centre_score(centres);
  for (std::size_t c = 0; c < centres; ++c) {
    std::copy_n(candidates.data() + order[c] * e, e, centre.data() + c * e);
    centre_score[c] = scores[order[c]];
  }
  double step = kLocalStep / 2;
  std::vector<double> moves(centres * kRefineMoves * e);
  std::vector<double> move_scores;
  for (int round = 0; round < kRefineRounds; ++round, step /= 2) {
    for (std::size_t c = 0; c < centres; ++c) {
      for (std::size_t m = 0; m < kRefineMoves; ++m) {
        double* x = moves.data() + (c * kRefineMoves + m) * e;
        local_move(encoding, bits, centre.data() + c * e, step, x);
        x[d] = 1;
      }
    }
    posterior.log_ei(moves, e, best, move_scores);
    for (std::size_t c = 0; c < centres; ++c) {
      for (std::size_t m = 0; m < kRefineMoves; ++m) {
        const std::size_t at = c * kRefineMoves + m;
        if (move_scores[at] > centre_score[c] &&
            !sampler_detail::already_known(store, std::span<const double>(moves.data() + at * e, d),
                                           known)) {
          centre_score[c] = move_scores[at];
          std::copy_n(moves.data() + at * e, e, centre.data() + c * e);
        }
      }
    }
  }
  std::size_t winner = 0;
  for (std::size_t c = 1; c < centres; ++c) {
    if (centre_score[c] > centre_score[winner]) winner = c;
  }
  return {centre.data() + winner * e, centre.data() + (winner + 1) * e};
}

}  // namespace

// Hyperparameters: refit when the observations grew by refit_growth since the last fit.
void GpSampler::refit_if_grown(const GpData& m) {
  const std::size_t e = encoding_.size() + 1;
  const std::size_t n = m.n();
  const std::size_t observations = store_.observations();
  if (fit_ && static_cast<double>(observations) <
                  config_.refit_growth * static_cast<double>(fit_->observations)) {
    return;
  }
  std::vector<std::size_t> by_value(n);
  for (std::size_t i = 0; i < n; ++i) by_value[i] = i;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&](std::size_t a, std::size_t b) { return m.y[a] < m.y[b]; });
  const std::vector<std::size_t> subset = fit_subset(
      by_value, static_cast<std::size_t>(std::max<std::uint64_t>(config_.fit_observations, 2)));
  sampler_detail::PointMatrix x(static_cast<Eigen::Index>(subset.size()),
                                static_cast<Eigen::Index>(e));
  Eigen::VectorXd ys(static_cast<Eigen::Index>(subset.size()));
  for (std::size_t i = 0; i < subset.size(); ++i) {
    for (std::size_t j = 0; j < e; ++j) {
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = m.points[subset[i]][j];
    }
    ys[static_cast<Eigen::Index>(i)] = m.y[subset[i]];
  }
  const GpHyper start = fit_ ? fit_->hyper() : sampler_detail::default_hyper(e);
  const GpHyper h = sampler_detail::fit_hyperparameters(model_dims_, x, ys, start, kFitEvaluations);
  fit_ = Fit{observations, h.log_lengthscale, h.log_signal, h.log_noise};
  ++fits_;
}

// The factor: extended by the new observations when the set only grew (and the longest length
// is the same), else rebuilt; then the fantasies: each trial training now, observed at the
// length it trains toward with the mean the data predict there. The weights (alpha) of the
// data and the fantasies.
std::vector<double> GpSampler::factor_with_fantasies(const Kernel& kernel, GpData& m) {
  const std::size_t d = encoding_.size();
  const std::size_t e = d + 1;
  const std::size_t n = m.n();
  GpCache& cache = *cache_;
  const bool extends = cache.fits == fits_ && cache.longest == m.longest &&
                       cache.rows.size() <= n &&
                       std::equal(cache.rows.begin(), cache.rows.end(), m.data.begin(),
                                  [](std::uint64_t order, const ObservationStore::Observed& o) {
                                    return order == o.order;
                                  });
  if (!extends) {
    cache.factor.clear();
    cache.rows.clear();
    cache.fits = fits_;
    cache.longest = m.longest;
  }
  cache.factor.truncate(cache.rows.size());
  std::vector<double> k_row;
  const auto append = [&](const double* x) {
    k_row.clear();
    for (std::size_t i = 0; i < cache.factor.size(); ++i) k_row.push_back(kernel(m.points[i], x));
    cache.factor.append(k_row, kernel.signal() + kernel.noise());
  };
  for (std::size_t i = cache.rows.size(); i < n; ++i) {
    append(m.points[i]);
    cache.rows.push_back(m.data[i].order);
  }
  std::vector<double> alpha = m.y;
  cache.factor.solve_lower(alpha);
  cache.factor.solve_upper(alpha);

  std::vector<std::uint32_t> pending;
  store_.pending(pending);
  m.fantasy_rows.resize(pending.size() * e);
  std::vector<double> y_all = m.y;
  for (std::size_t f = 0; f < pending.size(); ++f) {
    const std::span<const double> p = store_.point(pending[f]);
    double* row = m.fantasy_rows.data() + f * e;
    std::copy(p.begin(), p.end(), row);
    row[d] = m.fidelity(store_.pending_length(pending[f]));
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += kernel(m.points[i], row) * alpha[i];
    y_all.push_back(mean);
  }
  for (std::size_t f = 0; f < pending.size(); ++f) {
    m.points.push_back(m.fantasy_rows.data() + f * e);
    append(m.points.back());
  }
  if (!pending.empty()) {
    alpha = y_all;
    cache.factor.solve_lower(alpha);
    cache.factor.solve_upper(alpha);
  }
  return alpha;
}

// One proposal from the model: the data, the kernel (refitted when the data grew enough), the
// factor with the fantasies, then expected improvement maximised over candidates at the
// longest length and refined around the best of them.
void GpSampler::record(std::uint32_t trial, const nlohmann::json& hparams) {
  sampler_detail::record_trial(encoding_, store_, trial, hparams);
}

bool GpSampler::model_point(Rng& rng, std::vector<double>& point) {
  RngBits bits(rng);
  const std::size_t d = encoding_.size();
  if (!sampler_detail::use_model(config_.model, store_, bits)) return false;
  const std::size_t e = d + 1;  // the point and the fidelity
  GpData m = model_data(store_, d);
  refit_if_grown(m);
  const Kernel kernel(model_dims_, fit_->hyper());
  const std::vector<double> alpha = factor_with_fantasies(kernel, m);
  const std::vector<std::size_t> top = incumbents(m);
  const double best = m.y[top.front()];  // the best warped value at the longest length
  const Posterior posterior(kernel, m.points, cache_->factor, alpha);
  const auto random =
      static_cast<std::size_t>(std::max<std::uint64_t>(config_.model.candidates, 1));
  const std::vector<double> candidates = first_candidates(encoding_, bits, random, m, top);
  std::vector<double> scores;
  posterior.log_ei(candidates, e, best, scores);
  // Candidates whose result the search most likely has (within the repeat radius of a known
  // trial) never win; if all are, the proposal is a random one.
  const std::vector<double> known = sampler_detail::known_points(store_);
  bool any = known.empty();
  for (std::size_t c = 0; !known.empty() && c < scores.size(); ++c) {
    if (sampler_detail::already_known(store_, std::span<const double>(candidates.data() + c * e, d),
                                      known)) {
      scores[c] = -std::numeric_limits<double>::infinity();
    } else {
      any = true;
    }
  }
  const std::vector<double> winner =
      refine(posterior, encoding_, bits, candidates, scores, best, store_, known);
  cache_->factor.truncate(m.n());
  if (!any) return false;
  point.assign(winner.begin(), winner.begin() + static_cast<std::ptrdiff_t>(d));
  return true;
}

nlohmann::json GpSampler::kernel_state() const {
  if (!fit_) return nullptr;
  return {{"observations", fit_->observations},
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
    fit.observations = kernel.at("observations").get<std::uint64_t>();
    fit.log_lengthscale = kernel.at("log_lengthscales").get<std::vector<double>>();
    fit.log_signal = kernel.at("log_signal").get<double>();
    fit.log_noise = kernel.at("log_noise").get<double>();
    if (fit.log_lengthscale.size() != model_dims_.size()) {
      throw ProtocolError("sampler_state.kernel.log_lengthscales: expected " +
                          std::to_string(model_dims_.size()) +
                          " values (one per coordinate and the fidelity), got " +
                          std::to_string(fit.log_lengthscale.size()));
    }
    fresh.fit_ = std::move(fit);
    fresh.fits_ = state_fields::read_count(kernel, "sampler_state.kernel", "fits");
  }
  *this = std::move(fresh);
}

}  // namespace hpsearch
