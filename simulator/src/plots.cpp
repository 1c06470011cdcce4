#include "hpsearch/simulator/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <vector>

#include "hpsearch/plot/svg_canvas.hpp"

namespace hpsearch {
namespace {

using namespace plot;  // the shared SVG canvas

const char* outcome_colour(TrialOutcome outcome) {
  switch (outcome) {
    case TrialOutcome::kCompleted:
      return "#2ca02c";
    case TrialOutcome::kStopped:
      return "#9ecae1";
    case TrialOutcome::kErrored:
      return "#d62728";
    case TrialOutcome::kUnfinished:
      break;
  }
  return "#fdd835";
}

}  // namespace

void write_best_so_far_svg(const RunSummary& summary, std::optional<double> optimum,
                           const std::string& title, std::ostream& out) {
  Canvas canvas(out, title, "virtual time (s)",
                optimum ? "regret of the best trial at max_length" : "best metric at max_length");
  std::vector<std::pair<double, double>> points;
  for (const auto& [time, best] : summary.best_so_far)
    points.emplace_back(time, best - optimum.value_or(0.0));
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& [time, value] : points) lo = std::min(lo, value), hi = std::max(hi, value);
  if (points.empty()) lo = 0, hi = 1;
  canvas.set_ranges(0, std::max(summary.wall_time, 1e-9), lo, hi);
  canvas.begin();
  canvas.axes();
  canvas.step_line(points, kPalette[0]);
  if (points.empty()) canvas.note("no trial reached max_length");
  canvas.end();
}

void write_worker_gantt_svg(const RunSummary& summary, std::uint64_t workers,
                            const std::string& title, std::ostream& out, std::size_t max_spans) {
  const Timeline& timeline = summary.timeline;
  Canvas canvas(out, title, "virtual time (s)", "worker");
  canvas.set_ranges(0, std::max(summary.wall_time, 1e-9), 0, static_cast<double>(workers));
  canvas.begin();
  canvas.axes(false);
  if (timeline.spans.size() > max_spans) {
    canvas.note(std::to_string(timeline.spans.size()) + " launches: too many to draw (limit " +
                std::to_string(max_spans) + ")");
  } else {
    const double row = canvas.py(0) - canvas.py(1);
    std::ostream& o = canvas.out();
    for (const WorkerSpan& span : timeline.spans) {
      const TrialRecord& trial = timeline.trials[span.trial];
      const double top = canvas.py(static_cast<double>(span.worker) + 1);
      o << "<rect x=\"" << canvas.px(span.start) << "\" y=\"" << top + row * 0.1 << "\" width=\""
        << std::max(canvas.px(span.end) - canvas.px(span.start), 0.5) << "\" height=\"" << row * 0.8
        << "\" fill=\"" << outcome_colour(trial.outcome) << '"'
        << (span.crashed ? " stroke=\"#000\" stroke-width=\"1.5\"" : "") << "><title>trial "
        << span.trial + 1 << ' ' << trial.id.to_string() << ", worker " << span.worker << ", "
        << number(span.start) << "-" << number(span.end) << " s, "
        << (span.crashed ? "crashed, " : "") << outcome_name(trial.outcome) << "</title></rect>\n";
    }
    if (workers <= 32) {
      for (std::uint64_t w = 0; w < workers; ++w) {
        o << "<text x=\"" << kLeft - 6 << "\" y=\"" << canvas.py(static_cast<double>(w) + 0.5) + 4
          << "\" text-anchor=\"end\">" << w << "</text>\n";
      }
    }
  }
  canvas.legend({{"completed", outcome_colour(TrialOutcome::kCompleted)},
                 {"stopped early", outcome_colour(TrialOutcome::kStopped)},
                 {"errored", outcome_colour(TrialOutcome::kErrored)},
                 {"unfinished", outcome_colour(TrialOutcome::kUnfinished)},
                 {"outline: crashed", "#000"}});
  canvas.end();
}

void write_rung_occupancy_svg(const RunSummary& summary, const std::string& title,
                              std::ostream& out) {
  std::map<std::uint64_t, std::vector<std::pair<double, double>>> per_length;
  for (const ValidationRecord& v : summary.timeline.validations) {
    auto& points = per_length[v.length];
    points.emplace_back(v.time, static_cast<double>(points.size() + 1));
  }
  // The 10 longest lengths at most, so the legend stays readable.
  while (per_length.size() > 10) per_length.erase(per_length.begin());
  double most = 1;
  for (const auto& [length, points] : per_length) most = std::max(most, points.back().second);
  Canvas canvas(out, title, "virtual time (s)", "trials validated at the length");
  canvas.set_ranges(0, std::max(summary.wall_time, 1e-9), 0, most);
  canvas.begin();
  canvas.axes();
  std::vector<std::pair<std::string, std::string>> legend;
  std::size_t colour = 0;
  for (auto& [length, points] : per_length) {
    points.insert(points.begin(), {0.0, 0.0});
    canvas.step_line(points, kPalette[colour % 10]);
    legend.emplace_back("length " + std::to_string(length), kPalette[colour % 10]);
    ++colour;
  }
  canvas.legend(legend);
  canvas.end();
}

void write_compare_svg(const CompareResult& result, const std::string& title, std::ostream& out) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const ConfigComparison& c : result.configs) {
    for (const Quartiles& q : c.curve) {
      if (q.median) lo = std::min(lo, *q.q1), hi = std::max(hi, *q.q3);
    }
  }
  if (!(hi >= lo)) lo = 0, hi = 1;
  Canvas canvas(out, title, "virtual time (s)",
                result.regret ? "regret: median and [q1, q3]" : "best metric: median and [q1, q3]");
  canvas.set_ranges(0, result.curve_times.empty() ? 1 : result.curve_times.back(), lo, hi);
  canvas.begin();
  canvas.axes();
  std::vector<std::pair<std::string, std::string>> legend;
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    const ConfigComparison& c = result.configs[i];
    const char* colour = kPalette[i % 10];
    std::vector<double> xs, q1, median, q3;
    for (std::size_t k = 0; k < c.curve.size(); ++k) {
      if (!c.curve[k].median) continue;
      xs.push_back(result.curve_times[k]);
      q1.push_back(*c.curve[k].q1);
      median.push_back(*c.curve[k].median);
      q3.push_back(*c.curve[k].q3);
    }
    canvas.band(xs, q1, q3, colour);
    canvas.line(xs, median, colour);
    legend.emplace_back(c.name, colour);
  }
  canvas.legend(legend);
  canvas.end();
}

}  // namespace hpsearch
