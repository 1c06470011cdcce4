#pragma once
/// \file
/// ObservationStore: what a model-based sampler knows about the search, fed in O(log L) per
/// event (L the number of distinct lengths, a handful of rungs), and the capped data sets its
/// models are fitted on.

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <vector>

namespace hpsearch {

/// One observation as a model reads it.
struct Observed {
  std::uint32_t trial = 0;
  double metric = 0;       ///< canonical: smaller is better
  std::uint64_t order = 0; ///< position among the observations at its length (ties, recency)
  friend bool operator==(const Observed&, const Observed&) = default;
};

/// Every trial's point in the unit cube, every observation grouped by length, and which trials
/// are training now (pending) toward which length.
///
/// The model data at a length is capped (`cap`, at least 2): the `cap / 2` best observations
/// plus the most recent ones up to `cap` in all, the whole set while it fits. The best are kept
/// in a sorted list of at most cap / 2 entries, updated per observation in O(cap), so a data
/// set costs O(cap log cap) to assemble however many trials the search has seen. Reasoning:
/// the best observations locate the optimum, the recent ones are where the model has been
/// sampling, and old mediocre ones carry the least information per unit of fitting cost.
class ObservationStore {
 public:
  ObservationStore() = default;
  ObservationStore(std::size_t dimensions, std::size_t cap);

  [[nodiscard]] std::size_t dimensions() const { return dimensions_; }
  [[nodiscard]] std::size_t cap() const { return cap_; }

  /// Records the point of a newly proposed trial. Trials come in creation order, but a
  /// sampler may skip none: precondition `trial == trials()`.
  void add_trial(std::uint32_t trial, std::span<const double> point);
  [[nodiscard]] std::size_t trials() const { return last_observed_.size(); }
  [[nodiscard]] std::span<const double> point(std::uint32_t trial) const;

  /// The trial trains toward `length` now. Unknown trials are ignored.
  void on_pending(std::uint32_t trial, std::uint64_t length);
  /// The trial reported `metric` (NaN is stored as +infinity) at `length`; it is no longer
  /// pending. Unknown trials are ignored.
  void observe(std::uint32_t trial, std::uint64_t length, double metric);
  /// The trial trains no more.
  void on_finished(std::uint32_t trial);

  /// Observations at `length` so far (0 if none).
  [[nodiscard]] std::uint64_t count(std::uint64_t length) const;
  /// The largest length with at least `minimum` observations, if any.
  [[nodiscard]] std::optional<std::uint64_t> model_length(std::uint64_t minimum) const;
  /// The capped data set at `length`, in observation order (so that a set that only grew
  /// extends the previous one).
  void data(std::uint64_t length, std::vector<Observed>& out) const;
  /// Trials training now that have not reported at `length` or beyond, by trial index.
  void pending_below(std::uint64_t length, std::vector<std::uint32_t>& out) const;

  /// `{"points": [[...], ...], "observations": [[length, [[trial, metric], ...]], ...],
  /// "pending": [[trial, length], ...]}`; metrics as metric_to_json.
  [[nodiscard]] nlohmann::json to_json() const;
  /// Rebuilds a store (of this dimension and cap) from to_json's form. Throws ProtocolError
  /// naming the field that is malformed.
  void restore(const nlohmann::json& state);

  friend bool operator==(const ObservationStore&, const ObservationStore&) = default;

 private:
  static constexpr std::uint32_t kNotPending = 0xffffffffU;

  struct Level {
    std::vector<Observed> all;           // observation order
    std::vector<std::uint32_t> best;     // indexes into all, best first, at most cap / 2
    friend bool operator==(const Level&, const Level&) = default;
  };

  void insert_best(Level& level, std::uint32_t index) const;

  std::size_t dimensions_ = 0;
  std::size_t cap_ = 2;
  std::vector<double> points_;                  // trial-major
  std::vector<std::uint64_t> last_observed_;    // per trial, 0 if never
  std::vector<std::uint64_t> pending_length_;   // per trial
  std::vector<std::uint32_t> pending_slot_;     // per trial, index into pending_ or kNotPending
  std::vector<std::uint32_t> pending_;          // trials training now
  std::map<std::uint64_t, Level> levels_;
};

}  // namespace hpsearch
