#include "hpsearch/simulator/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <vector>

namespace hpsearch {
namespace {

constexpr double kWidth = 860;
constexpr double kHeight = 460;
constexpr double kLeft = 80;
constexpr double kRight = 190;  // room for the legend
constexpr double kTop = 40;
constexpr double kBottom = 50;

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Tick positions at 1, 2 or 5 times a power of ten, at most about 7 of them.
std::vector<double> ticks(double lo, double hi) {
  const double range = hi - lo;
  if (!(range > 0)) return {lo};
  const double base = std::pow(10.0, std::floor(std::log10(range / 7)));
  double step = base;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * base;
    if (range / step <= 7) break;
  }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return out;
}

// A plot area with linear axes, drawn into an SVG document.
class Canvas {
 public:
  Canvas(std::ostream& out, const std::string& title, const std::string& x_label,
         const std::string& y_label)
      : out_(out), title_(title), x_label_(x_label), y_label_(y_label) {}

  void set_ranges(double x0, double x1, double y0, double y1) {
    if (!(x1 > x0)) x1 = x0 + 1;
    // A margin of 5% so lines on the extremes stay visible.
    const double pad = y1 > y0 ? 0.05 * (y1 - y0) : std::max(std::abs(y0) * 0.05, 1e-9);
    y0 -= pad;
    y1 += pad;
    x0_ = x0, x1_ = x1, y0_ = y0, y1_ = y1;
  }
  double px(double x) const { return kLeft + (x - x0_) / (x1_ - x0_) * (kWidth - kLeft - kRight); }
  double py(double y) const { return kTop + (y1_ - y) / (y1_ - y0_) * (kHeight - kTop - kBottom); }

  void begin() {
    out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
         << kHeight << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
         << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
         << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
         << "<text x=\"" << kWidth / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
         << escaped(title_) << "</text>\n";
  }

  void axes(bool y_ticks = true) {
    const double bottom = kHeight - kBottom;
    const double right = kWidth - kRight;
    out_ << "<g stroke=\"#ccc\">\n";
    for (const double t : ticks(x0_, x1_)) {
      out_ << "<line x1=\"" << px(t) << "\" y1=\"" << kTop << "\" x2=\"" << px(t) << "\" y2=\""
           << bottom << "\"/>\n";
    }
    if (y_ticks) {
      for (const double t : ticks(y0_, y1_)) {
        out_ << "<line x1=\"" << kLeft << "\" y1=\"" << py(t) << "\" x2=\"" << right << "\" y2=\""
             << py(t) << "\"/>\n";
      }
    }
    out_ << "</g>\n<g>\n";
    for (const double t : ticks(x0_, x1_)) {
      out_ << "<text x=\"" << px(t) << "\" y=\"" << bottom + 16
           << "\" text-anchor=\"middle\">" << number(t) << "</text>\n";
    }
    if (y_ticks) {
      for (const double t : ticks(y0_, y1_)) {
        out_ << "<text x=\"" << kLeft - 6 << "\" y=\"" << py(t) + 4
             << "\" text-anchor=\"end\">" << number(t) << "</text>\n";
      }
    }
    out_ << "<text x=\"" << (kLeft + right) / 2 << "\" y=\"" << kHeight - 12
         << "\" text-anchor=\"middle\">" << escaped(x_label_) << "</text>\n"
         << "<text transform=\"translate(16," << (kTop + bottom) / 2
         << ") rotate(-90)\" text-anchor=\"middle\">" << escaped(y_label_) << "</text>\n"
         << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << right - kLeft
         << "\" height=\"" << bottom - kTop << "\" fill=\"none\" stroke=\"#333\"/>\n</g>\n";
  }

  // A step line through the points (value holds until the next point), extended to x1.
  void step_line(const std::vector<std::pair<double, double>>& points, const char* colour) {
    if (points.empty()) return;
    out_ << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i > 0) out_ << px(points[i].first) << ',' << py(points[i - 1].second) << ' ';
      out_ << px(points[i].first) << ',' << py(points[i].second) << ' ';
    }
    out_ << px(x1_) << ',' << py(points.back().second) << "\"/>\n";
  }

  void band(const std::vector<double>& xs, const std::vector<double>& lower,
            const std::vector<double>& upper, const char* colour) {
    if (xs.empty()) return;
    out_ << "<polygon fill=\"" << colour << "\" fill-opacity=\"0.2\" stroke=\"none\" points=\"";
    for (std::size_t i = 0; i < xs.size(); ++i) out_ << px(xs[i]) << ',' << py(upper[i]) << ' ';
    for (std::size_t i = xs.size(); i-- > 0;) out_ << px(xs[i]) << ',' << py(lower[i]) << ' ';
    out_ << "\"/>\n";
  }

  void line(const std::vector<double>& xs, const std::vector<double>& ys, const char* colour) {
    if (xs.empty()) return;
    out_ << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
    for (std::size_t i = 0; i < xs.size(); ++i) out_ << px(xs[i]) << ',' << py(ys[i]) << ' ';
    out_ << "\"/>\n";
  }

  void legend(const std::vector<std::pair<std::string, std::string>>& entries) {
    double y = kTop + 10;
    for (const auto& [label, colour] : entries) {
      const double x = kWidth - kRight + 14;
      out_ << "<rect x=\"" << x << "\" y=\"" << y - 9 << "\" width=\"14\" height=\"10\" fill=\""
           << colour << "\"/>\n<text x=\"" << x + 20 << "\" y=\"" << y << "\">" << escaped(label)
           << "</text>\n";
      y += 18;
    }
  }

  void note(const std::string& text) {
    out_ << "<text x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kHeight / 2
         << "\" text-anchor=\"middle\" fill=\"#666\">" << escaped(text) << "</text>\n";
  }

  void end() { out_ << "</svg>\n"; }

  std::ostream& out() { return out_; }

 private:
  std::ostream& out_;
  std::string title_, x_label_, y_label_;
  double x0_ = 0, x1_ = 1, y0_ = 0, y1_ = 1;
};

const char* outcome_colour(TrialOutcome outcome) {
  switch (outcome) {
    case TrialOutcome::kCompleted: return "#2ca02c";
    case TrialOutcome::kStopped: return "#9ecae1";
    case TrialOutcome::kErrored: return "#d62728";
    case TrialOutcome::kUnfinished: break;
  }
  return "#fdd835";
}

}  // namespace

void write_best_so_far_svg(const RunSummary& summary, std::optional<double> optimum,
                           const std::string& title, std::ostream& out) {
  Canvas canvas(out, title, "virtual time (s)",
                optimum ? "regret of the best trial at max_length" : "best metric at max_length");
  std::vector<std::pair<double, double>> points;
  for (const auto& [time, best] : summary.best_so_far) points.emplace_back(time, best - optimum.value_or(0.0));
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
