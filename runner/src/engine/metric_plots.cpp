#include "engine/metric_plots.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "hpsearch/plot/svg_canvas.hpp"
#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::runner_detail {
namespace {

namespace fs = std::filesystem;

struct Point {
  double steps = 0;
  double value = 0;
  double time = 0;
};

// One trial's reports: (group, metric name) -> points in report order. Lines that are not
// whole JSON (a torn last line) and values that are not finite numbers are left out.
using Series = std::map<std::pair<std::string, std::string>, std::vector<Point>>;

Series read_series(const fs::path& file) {
  Series series;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json report = parse_json_or_discarded(line, kDocumentLimits);
    if (report.is_discarded() || !report.is_object() || !report.contains("metrics")) continue;
    const double steps = report.value("steps_completed", 0.0);
    const double time = report.value("time", 0.0);
    for (const auto& [name, value] : report.at("metrics").items()) {
      const std::optional<double> number =
          value.is_boolean() ? std::nullopt : metric_from_json(value);
      if (!number || !std::isfinite(*number)) continue;
      series[{report.value("group", std::string()), name}].push_back({steps, *number, time});
    }
  }
  return series;
}

struct Range {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  void take(double x, double y) {
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  bool empty() const { return !(x1 >= x0); }
};

void lines_svg(const fs::path& path, const std::string& title, const std::string& x_label,
               const std::string& y_label,
               const std::vector<std::pair<std::string, std::vector<Point>>>& lines, bool legend) {
  Range range;
  for (const auto& [label, points] : lines) {
    for (const Point& p : points) range.take(p.steps, p.value);
  }
  std::ostringstream svg;
  plot::Canvas canvas(svg, title, x_label, y_label);
  if (range.empty()) range = Range{0, 1, 0, 1};
  canvas.set_ranges(std::min(range.x0, 0.0), range.x1, range.y0, range.y1);
  canvas.begin();
  canvas.axes();
  std::vector<std::pair<std::string, std::string>> entries;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const char* colour = plot::kPalette[k % 10];
    std::vector<double> xs, ys;
    for (const Point& p : lines[k].second) xs.push_back(p.steps), ys.push_back(p.value);
    canvas.line(xs, ys, colour);
    canvas.dots(xs, ys, colour);
    entries.emplace_back(lines[k].first, colour);
  }
  if (legend) canvas.legend(entries);
  if (lines.empty()) canvas.note("no metrics reported");
  canvas.end();
  write_file_atomically(path, svg.str());
}

void searcher_metric_svg(const fs::path& path, const std::string& metric, bool smaller_is_better,
                         const std::vector<Point>& validations) {
  std::vector<Point> sorted = validations;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Point& a, const Point& b) { return a.time < b.time; });
  const double start = sorted.empty() ? 0 : sorted.front().time;
  Range range;
  std::vector<double> xs, ys;
  std::vector<std::pair<double, double>> best;
  for (const Point& p : sorted) {
    xs.push_back(p.time - start), ys.push_back(p.value);
    range.take(p.time - start, p.value);
    const bool better = best.empty() || (smaller_is_better ? p.value < best.back().second
                                                           : p.value > best.back().second);
    if (better) best.emplace_back(p.time - start, p.value);
  }
  std::ostringstream svg;
  plot::Canvas canvas(
      svg, "searcher metric over time", "seconds since the first report",
      metric + (smaller_is_better ? " (smaller is better)" : " (larger is better)"));
  if (range.empty()) range = Range{0, 1, 0, 1};
  canvas.set_ranges(0, range.x1, range.y0, range.y1);
  canvas.begin();
  canvas.axes();
  canvas.dots(xs, ys, plot::kPalette[0]);
  canvas.step_line(best, plot::kPalette[1]);
  canvas.legend({{"each validation", plot::kPalette[0]}, {"best so far", plot::kPalette[1]}});
  if (sorted.empty()) canvas.note("no validation reported " + metric);
  canvas.end();
  write_file_atomically(path, svg.str());
}

}  // namespace

nlohmann::json write_metric_plots(const fs::path& directory,
                                  const std::vector<fs::path>& metrics_files,
                                  const std::string& metric, bool smaller_is_better) {
  fs::create_directories(directory);
  std::vector<std::pair<std::string, std::vector<Point>>> curves;
  std::vector<Point> validations;
  nlohmann::json trial_plots = nlohmann::json::array();
  for (std::size_t i = 0; i < metrics_files.size(); ++i) {
    const Series series = read_series(metrics_files[i]);
    const std::string trial = "trial " + std::to_string(i + 1);
    if (const auto found = series.find({"validation", metric}); found != series.end()) {
      curves.emplace_back(trial, found->second);
      validations.insert(validations.end(), found->second.begin(), found->second.end());
    }
    if (i >= kMaxTrialPlots || series.empty()) {
      trial_plots.push_back(nullptr);
      continue;
    }
    std::vector<std::pair<std::string, std::vector<Point>>> lines;
    for (const auto& [key, points] : series)
      lines.emplace_back(key.first + " " + key.second, points);
    const fs::path path = directory / ("trial-" + std::to_string(i + 1) + ".svg");
    lines_svg(path, trial + ": learning curves", "steps completed", "metric value", lines, true);
    trial_plots.push_back(path.string());
  }
  const fs::path curves_path = directory / "learning_curves.svg";
  lines_svg(curves_path, "learning curves: " + metric + " per trial", "steps completed", metric,
            curves, curves.size() <= 20);
  const fs::path metric_path = directory / "searcher_metric.svg";
  searcher_metric_svg(metric_path, metric, smaller_is_better, validations);
  return {{"learning_curves", curves_path.string()},
          {"searcher_metric", metric_path.string()},
          {"trials", std::move(trial_plots)}};
}

}  // namespace hpsearch::runner_detail
