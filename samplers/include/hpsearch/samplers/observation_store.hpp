#pragma once
/// \file
/// ObservationStore: what a model-based sampler knows about the search, fed in O(log L) per
/// event (L the number of distinct lengths, a handful of rungs), and the capped sets of trials
/// its models are fitted on.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace hpsearch {

/// Every trial's point in the unit cube, every observation, and which trials are training now
/// (pending) toward which length.
///
/// Models rank trials over all lengths at once: a trial that reached a longer length ranks
/// before one that stopped shorter (the scheduler promoted it over its rivals), then by its
/// metric at the longest length it reached, then by when it was first observed. Under ASHA
/// the best trials are those of the highest rung, exactly BOHB's choice of data, while the
/// trials stopped early still tell the model where not to look; with one length (random
/// search) it is the plain ranking by metric.
///
/// A model sees at most `cap` trials (at least 2): the `cap / 2` leaders of that ranking and
/// an even spread over the rest in observation order, or every observed trial while they fit.
/// Each length keeps its best `cap / 2` in a sorted list, updated per observation in O(cap),
/// so a set costs O(L cap log cap) to assemble however many trials the search has seen.
/// Reasoning: the leaders locate the optimum; the spread is a fair picture of everything tried
/// (not of the last region the model sampled); old mediocre trials carry the least
/// information per unit of fitting cost.
class ObservationStore {
 public:
  ObservationStore() = default;
  /// `categorical` marks the coordinates that hold a categorical's cell (empty: none): two
  /// points that differ there are never the same configuration (see repeat_radius).
  ObservationStore(std::size_t dimensions, std::size_t cap,
                   std::vector<std::uint8_t> categorical = {});

  [[nodiscard]] std::size_t dimensions() const { return dimensions_; }
  [[nodiscard]] std::size_t cap() const { return cap_; }

  /// Records the point of a newly proposed trial, and whether a model proposed it (else it was
  /// a random proposal). Precondition: `trial == trials()` (trials arrive in creation order).
  void add_trial(std::uint32_t trial, std::span<const double> point, bool modelled = false);
  /// Whether a model proposed the trial.
  [[nodiscard]] bool modelled(std::uint32_t trial) const { return modelled_[trial] != 0; }
  /// Trials comparable for the exploration guard: those created since the first modelled one
  /// (model-made and random ones interleaved, so of a like age). Counts of those observed.
  [[nodiscard]] bool comparable(std::uint32_t trial) const { return trial >= first_modelled_; }
  [[nodiscard]] std::size_t comparable_modelled() const { return comparable_counts_[1]; }
  [[nodiscard]] std::size_t comparable_random() const { return comparable_counts_[0]; }
  /// Whether the trial's first observation repeated, bit for bit, a metric another trial had
  /// reported at the same length: most likely the same configuration again (a table's row, a
  /// discrete space's point), which tells a model nothing new.
  [[nodiscard]] bool repeated(std::uint32_t trial) const { return repeated_[trial] != 0; }
  /// Comparable model-made trials whose first observation was a repeat.
  [[nodiscard]] std::size_t comparable_modelled_repeats() const { return modelled_repeats_; }
  /// How close two configurations must be to give the same result, learned from repeats: the
  /// median distance between a repeat's point and the point of the trial that first reported
  /// its metric (Euclidean over the non-categorical coordinates; a repeat whose categoricals
  /// differ is a coincidence of values, not counted). 0 until kMinRepeats repeats were seen,
  /// and always 0 where no result repeats (continuous objectives). O(1).
  [[nodiscard]] double repeat_radius() const;
  /// Whether point `a` lies within `radius` of point `b` in repeat_radius's distance.
  [[nodiscard]] bool within(std::span<const double> a, std::span<const double> b,
                            double radius) const;
  [[nodiscard]] std::size_t trials() const { return last_length_.size(); }
  [[nodiscard]] std::span<const double> point(std::uint32_t trial) const;

  /// The trial trains toward `length` now. Unknown trials are ignored.
  void on_pending(std::uint32_t trial, std::uint64_t length);
  /// The trial reported `metric` (canonical: smaller is better; NaN is stored as +infinity)
  /// after `length` units; it is no longer pending. Unknown trials are ignored.
  void observe(std::uint32_t trial, std::uint64_t length, double metric);
  /// The trial trains no more.
  void on_finished(std::uint32_t trial);

  /// Trials with at least one observation.
  [[nodiscard]] std::size_t observed_trials() const { return observed_.size(); }
  /// Whether a trial has reported anything yet.
  [[nodiscard]] bool observed(std::uint32_t trial) const { return last_length_[trial] > 0; }
  /// The longest length a trial has reported at (0 before its first report).
  [[nodiscard]] std::uint64_t reached(std::uint32_t trial) const { return last_length_[trial]; }
  /// Whether trial a ranks before trial b (both observed): longer length reached first, then
  /// smaller metric there, then earlier first observation.
  [[nodiscard]] bool ranks_before(std::uint32_t a, std::uint32_t b) const;

  /// Up to `count` observed trials, best first by the ranking above.
  void leaders(std::size_t count, std::vector<std::uint32_t>& out) const;
  /// Up to `count` observed trials spread evenly over observation order (every k-th).
  void spread(std::size_t count, std::vector<std::uint32_t>& out) const;
  /// The capped set a model is fitted on (see the class comment), in order of first
  /// observation, so that a set that only grew extends the previous one.
  void model_trials(std::vector<std::uint32_t>& out) const;
  /// Trials training now, by trial index.
  void pending(std::vector<std::uint32_t>& out) const;
  /// The length a pending trial trains toward.
  [[nodiscard]] std::uint64_t pending_length(std::uint32_t trial) const {
    return pending_length_[trial];
  }

  /// The lengths observed, longest first.
  void lengths(std::vector<std::uint64_t>& out) const;
  /// Observations at `length` (0 if none).
  [[nodiscard]] std::size_t observations_at(std::uint64_t length) const;
  /// Up to `count` distinct trials, best first by their metric at `length` (then earlier first
  /// observation); at most `cap / 2`, the best a length keeps.
  void leaders_at(std::uint64_t length, std::size_t count, std::vector<std::uint32_t>& out) const;
  /// The trial's latest metric at `length`, if it reported one there. Walks the trial's own
  /// observations from the latest back and stops below `length` (a trial's lengths grow), so
  /// it costs the trial's observations at `length` and longer, not the search's.
  [[nodiscard]] std::optional<double> metric_at(std::uint32_t trial, std::uint64_t length) const;
  /// Pairs (metric at `shorter`, metric at `longer`) of the trials among the latest `cap`
  /// observations at `longer` that also reported at `shorter`, each trial once (its latest
  /// observation at each length): the data to measure how well the shorter length ranks trials
  /// as the longer one does. O(cap log cap + cap w), w a trial's observations at `shorter` and
  /// longer.
  void paired_metrics(std::uint64_t shorter, std::uint64_t longer, std::vector<double>& at_shorter,
                      std::vector<double>& at_longer) const;

  /// One observation as a model reads it.
  struct Observed {
    std::uint32_t trial = 0;
    std::uint64_t length = 0;
    double metric = 0;
    std::uint64_t order = 0;  ///< position among all observations
    friend bool operator==(const Observed&, const Observed&) = default;
  };
  /// Observations so far.
  [[nodiscard]] std::size_t observations() const { return history_.size(); }
  /// The longest length observed (0 if none).
  [[nodiscard]] std::uint64_t longest_length() const {
    return levels_.empty() ? 0 : levels_.rbegin()->first;
  }
  /// The capped set of observations a model is fitted on: all while they fit the cap, else
  /// the `cap / 2` best (longest length first, then smallest metric) and an even spread of the
  /// rest; in the order they came, so that a set that only grew extends the previous one.
  void model_observations(std::vector<Observed>& out) const;

  /// `{"points": [[...], ...], "observations": [[trial, length, metric], ...],
  /// "pending": [[trial, length], ...], "modelled": [trial, ...]}`: observations in the order
  /// they came, metrics as metric_to_json; "modelled" lists the trials a model proposed
  /// (absent in states written before the exploration guard: none).
  [[nodiscard]] nlohmann::json to_json() const;
  /// Rebuilds a store (of this dimension and cap) from to_json's form. Throws ProtocolError
  /// naming the field that is malformed.
  void restore(const nlohmann::json& state);

  friend bool operator==(const ObservationStore&, const ObservationStore&) = default;

 private:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  struct Entry {
    std::uint32_t trial = 0;
    double metric = 0;
    std::uint64_t order = 0;  // position in history_
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  struct Level {
    std::vector<Entry> all;                   // observation order
    std::vector<std::uint32_t> best;          // indexes into all, best first, at most cap / 2
    std::map<double, std::uint32_t> metrics;  // each metric reported here: its first trial
    friend bool operator==(const Level&, const Level&) = default;
  };
  struct Observation {
    std::uint32_t trial = 0;
    std::uint64_t length = 0;
    double metric = 0;
    friend bool operator==(const Observation&, const Observation&) = default;
  };

  void insert_best(Level& level, std::uint32_t index) const;
  [[nodiscard]] double distance(std::span<const double> a, std::span<const double> b) const;
  void add_repeat_distance(double distance);

  static constexpr std::size_t kMinRepeats = 3;

  std::size_t dimensions_ = 0;
  std::size_t cap_ = 2;
  std::vector<double> points_;                 // trial-major
  std::vector<std::uint64_t> last_length_;     // per trial: longest length reported, 0 if none
  std::vector<double> last_metric_;            // per trial: the metric there
  std::vector<std::uint32_t> first_seen_;      // per trial: position in observed_, or kNone
  std::vector<std::uint32_t> observed_;        // trials in order of first observation
  std::vector<std::uint32_t> pending_slot_;    // per trial: index into pending_, or kNone
  std::vector<std::uint64_t> pending_length_;  // per trial, while pending
  std::vector<std::uint32_t> pending_;         // trials training now
  std::vector<Observation> history_;           // every observation, in order (snapshots)
  std::vector<std::uint32_t> previous_;        // per observation: the trial's previous, or kNone
  std::vector<std::uint32_t> latest_;          // per trial: its latest observation, or kNone
  std::map<std::uint64_t, Level> levels_;
  std::vector<std::uint8_t> modelled_;                  // per trial: 1 if a model proposed it
  std::uint32_t first_modelled_ = kNone;                // the first model-made trial
  std::array<std::size_t, 2> comparable_counts_{0, 0};  // observed comparable: random, modelled
  std::vector<std::uint8_t> repeated_;                  // per trial: first observation a repeat
  std::size_t modelled_repeats_ = 0;                    // comparable model-made repeats
  std::vector<std::uint8_t> categorical_;               // per coordinate: 1 if categorical
  // Repeat distances split at the median (a running median in O(log n) per repeat): every
  // value of `lower_` <= every value of `upper_`, and lower_ holds the extra one if odd.
  std::multiset<double> lower_;
  std::multiset<double> upper_;
};

}  // namespace hpsearch
