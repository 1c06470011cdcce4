// The experiment page's chart data (charts.hpp).
#include "ui/charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <set>

#include "hpsearch/samplers/rank_correlation.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::ui {

using nlohmann::json;

json metric_json(double value) {
  return std::isfinite(value) ? json(value) : metric_to_json(value);
}

namespace {

constexpr std::size_t kMaxCategories = 10;

}  // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 3 || x.size() != y.size()) return 0;
  return rank_correlation(x, y);
}

double correlation_ratio(const std::vector<std::string>& category, const std::vector<double>& y) {
  if (y.size() < 3 || category.size() != y.size()) return 0;
  const double n = static_cast<double>(y.size());
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / n;
  std::map<std::string, std::pair<double, double>> groups;  // sum, count
  double total = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    auto& g = groups[category[i]];
    g.first += y[i];
    g.second += 1;
    total += (y[i] - mean) * (y[i] - mean);
  }
  if (total <= 0) return 0;
  double between = 0;
  for (const auto& [name, g] : groups) {
    const double m = g.first / g.second;
    between += g.second * (m - mean) * (m - mean);
  }
  return std::sqrt(between / total);
}

namespace {

using IdOf = std::function<json(const TrialView&)>;

/// What the charts below share: the trials with a finite best validation, best first (ties by
/// trial number), and the hyperparameters that vary (numeric: every value a number).
struct Ranking {
  const ExperimentView& view;
  const IdOf& id_of;
  std::vector<std::uint32_t> ranked;  // indices into view.trials()
  std::map<std::string, bool> numeric;

  [[nodiscard]] double best_of(std::uint32_t i) const {
    const TrialView& t = view.trials()[i];
    return t.validations[*t.best].metric;
  }
};

Ranking rank_trials(const ExperimentView& view, const IdOf& id_of) {
  Ranking r{view, id_of, {}, {}};
  const std::vector<TrialView>& trials = view.trials();
  for (const TrialView& t : trials)
    if (t.best && std::isfinite(t.validations[*t.best].metric)) r.ranked.push_back(t.index - 1);
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [&](std::uint32_t a, std::uint32_t b) {
    return view.better(r.best_of(a), r.best_of(b));
  });
  // Top-level names; one that never varies (a const) is left out: it explains nothing and
  // would be a flat axis.
  std::map<std::string, json> first_value;
  std::set<std::string> varies;
  for (const TrialView& t : trials) {
    if (!t.hparams.is_object()) continue;
    for (const auto& [name, value] : t.hparams.items()) {
      const auto [it, added] = r.numeric.emplace(name, value.is_number());
      if (!added) it->second = it->second && value.is_number();
      const auto [first, new_name] = first_value.emplace(name, value);
      if (!new_name && first->second != value) varies.insert(name);
    }
  }
  std::erase_if(r.numeric, [&](const auto& entry) { return !varies.contains(entry.first); });
  return r;
}

json best_so_far_json(const Ranking& r) {
  json best = json::array();
  for (const BestPoint& p : r.view.best_so_far())
    best.push_back({p.at, metric_json(p.metric), r.id_of(r.view.trials()[p.trial - 1])});
  return best;
}

/// The best trials' learning curves.
json curves_json(const Ranking& r) {
  json curves = json::array();
  for (std::size_t i = 0; i < r.ranked.size() && i < kMaxCurves; ++i) {
    const TrialView& t = r.view.trials()[r.ranked[i]];
    json points = json::array();
    for (const ValidationPoint& v : t.validations)
      points.push_back({v.length, metric_json(v.metric)});
    curves.push_back({{"id", r.id_of(t)}, {"trial", t.index}, {"points", std::move(points)}});
  }
  return curves;
}

/// The sample for parallel coordinates and scatter plots: every validated trial, or the best
/// quarter of the budget and an even stride over the rest (deterministic).
json points_json(const Ranking& r) {
  std::vector<std::uint32_t> shown;
  if (r.ranked.size() <= kMaxChartTrials) {
    shown = r.ranked;
  } else {
    const std::size_t top = kMaxChartTrials / 4;
    shown.assign(r.ranked.begin(), r.ranked.begin() + static_cast<std::ptrdiff_t>(top));
    const std::size_t rest = r.ranked.size() - top;
    const std::size_t want = kMaxChartTrials - top;
    for (std::size_t k = 0; k < want; ++k) shown.push_back(r.ranked[top + k * rest / want]);
  }
  json ids = json::array(), metric = json::array(), length = json::array(), states = json::array();
  json hp = json::object();
  for (const auto& [name, is_number] : r.numeric) hp[name] = json::array();
  for (const std::uint32_t i : shown) {
    const TrialView& t = r.view.trials()[i];
    ids.push_back(r.id_of(t));
    metric.push_back(r.best_of(i));
    length.push_back(t.validations.back().length);
    states.push_back(t.state);
    for (const auto& [name, is_number] : r.numeric) {
      const auto found = t.hparams.find(name);
      json value = found == t.hparams.end() ? json(nullptr) : *found;
      if (!is_number && !value.is_string() && !value.is_null()) value = value.dump();
      hp[name].push_back(std::move(value));
    }
  }
  return {{"ids", std::move(ids)},       {"metric", std::move(metric)},
          {"length", std::move(length)}, {"state", std::move(states)},
          {"hp", std::move(hp)},         {"shown", shown.size()}};
}

/// Importance: over every validated trial, not the sample.
json importance_json(const Ranking& r) {
  json importance = json::array();
  for (const auto& [name, is_number] : r.numeric) {
    std::vector<double> x, y;
    std::vector<std::string> category;
    for (const std::uint32_t i : r.ranked) {
      const TrialView& t = r.view.trials()[i];
      const auto found = t.hparams.find(name);
      if (found == t.hparams.end()) continue;
      y.push_back(r.best_of(i));
      if (is_number)
        x.push_back(found->get<double>());
      else
        category.push_back(found->dump());
    }
    // A number that takes few values (a grid's, a small int range) is a category: a rank
    // correlation misses a metric that is best in the middle, eta does not. Few: at most 10,
    // and at least two trials each on average (else each group is one trial and eta is 1).
    if (is_number) {
      const std::set<double> distinct(x.begin(), x.end());
      if (distinct.size() <= std::min<std::size_t>(kMaxCategories, x.size() / 2)) {
        for (const double v : x) category.push_back(json(v).dump());
      }
    }
    const double value =
        category.empty() ? std::abs(spearman(x, y)) : correlation_ratio(category, ranks(y));
    importance.push_back({{"name", name}, {"importance", value}});
  }
  return {{"method",
           "rank correlation with the trial's best searcher metric over every validated trial: "
           "|Spearman's rho| for a numeric hyperparameter, the correlation ratio eta of the "
           "metric's ranks for a categorical one or a number taking at most 10 values (at least "
           "2 trials each): 0 no relation, 1 the metric's order follows it"},
          {"trials", r.ranked.size()},
          {"values", std::move(importance)}};
}

const char* clock_name(Clock clock) {
  switch (clock) {
    case Clock::kVirtualSeconds:
      return "virtual seconds";
    case Clock::kSeconds:
      return "seconds";
    case Clock::kRecordNumber:
      break;
  }
  return "journal record";
}

/// The worker timeline: one lane per slot (a run) or worker (a simulation), each launch of a
/// trial a span on the lane it ran in, until its exit (or now, while it runs). The latest
/// kMaxChartLaunches launches, if there are more.
json worker_timeline_json(const Ranking& r) {
  const ExperimentView& view = r.view;
  const std::vector<Launch>& launches = view.launches();
  const std::size_t first =
      launches.size() > kMaxChartLaunches ? launches.size() - kMaxChartLaunches : 0;
  json spans = json::array();
  for (std::size_t k = first; k < launches.size(); ++k) {
    const Launch& l = launches[k];
    const TrialView& t = view.trials()[l.trial - 1];
    json span{{"id", r.id_of(t)},
              {"start", l.start},
              {"end", l.end.value_or(std::max(l.start, view.last_at()))},
              {"lane", l.place},
              {"state", t.state}};
    if (!l.end) span["running"] = true;
    if (l.crashed) span["crashed"] = true;
    spans.push_back(std::move(span));
  }
  return {{"kind", "workers"},           {"lanes", view.places()}, {"spans", std::move(spans)},
          {"launches", launches.size()}, {"shownFrom", first},     {"now", view.last_at()}};
}

/// Each trial from its creation to its close (or now), packed into lanes (the first lane free
/// at its start), so the lanes show how many trials were under way at once: for a log that
/// does not say where trials ran (a journal from before launches named their slot).
json trial_timeline_json(const Ranking& r) {
  const std::vector<TrialView>& trials = r.view.trials();
  std::priority_queue<std::pair<double, std::uint32_t>,
                      std::vector<std::pair<double, std::uint32_t>>, std::greater<>>
      busy;  // (end, lane)
  std::set<std::uint32_t> free_lanes;
  std::uint32_t lanes = 0;
  std::vector<std::uint32_t> lane(trials.size());
  for (const TrialView& t : trials) {  // in creation order: starts ascend
    while (!busy.empty() && busy.top().first <= t.created_at) {
      free_lanes.insert(busy.top().second);
      busy.pop();
    }
    std::uint32_t l = lanes;
    if (!free_lanes.empty()) {
      l = *free_lanes.begin();
      free_lanes.erase(free_lanes.begin());
    } else {
      ++lanes;
    }
    lane[t.index - 1] = l;
    busy.emplace(t.ended_at.value_or(r.view.last_at()), l);
  }
  json spans = json::array();
  const std::size_t stride =
      std::max<std::size_t>(1, (trials.size() + kMaxChartTrials - 1) / kMaxChartTrials);
  for (std::size_t i = 0; i < trials.size(); i += stride) {
    const TrialView& t = trials[i];
    spans.push_back({{"id", r.id_of(t)},
                     {"start", t.created_at},
                     {"end", t.ended_at.value_or(r.view.last_at())},
                     {"lane", lane[i]},
                     {"state", t.state}});
  }
  return {{"kind", "trials"},
          {"lanes", lanes},
          {"spans", std::move(spans)},
          {"stride", stride},
          {"now", r.view.last_at()}};
}

/// The worker timeline when the log says where every launch ran, else the trial timeline.
json timeline_json(const Ranking& r) {
  if (!r.view.launches().empty() && r.view.unplaced_launches() == 0) return worker_timeline_json(r);
  return trial_timeline_json(r);
}

}  // namespace

json chart_data(const ExperimentView& view, const IdOf& id_of) {
  const Ranking r = rank_trials(view, id_of);
  json rungs = json::array();
  for (const auto& [length, count] : view.trials_at_length())
    rungs.push_back({{"length", length}, {"validations", count}});
  json kinds = json::array();
  for (const auto& [name, is_number] : r.numeric)
    kinds.push_back({{"name", name}, {"type", is_number ? "numeric" : "categorical"}});
  return {{"smallerIsBetter", view.smaller_is_better()},
          {"totalTrials", view.trials().size()},
          {"validatedTrials", r.ranked.size()},
          {"bestSoFar", best_so_far_json(r)},
          {"rungs", std::move(rungs)},
          {"curves", curves_json(r)},
          {"points", points_json(r)},
          {"hparams", std::move(kinds)},
          {"importance", importance_json(r)},
          {"timeline", timeline_json(r)},
          {"timeUnit", clock_name(view.clock())}};
}

}  // namespace hpsearch::ui
