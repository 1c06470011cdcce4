#pragma once
/// \file
/// A plot area with linear axes, written as a standalone SVG document (plain text a browser
/// shows): the simulator's plots and the runner's learning curves draw with it.

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace hpsearch::plot {

inline constexpr double kWidth = 860;
inline constexpr double kHeight = 460;
inline constexpr double kLeft = 80;
inline constexpr double kRight = 190;  // room for the legend
inline constexpr double kTop = 40;
inline constexpr double kBottom = 50;

/// Ten distinguishable colours (matplotlib's tab10), for series i % 10.
inline constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/// A number as a tick label (4 significant digits).
[[nodiscard]] std::string number(double v);
/// Text with XML's special characters escaped.
[[nodiscard]] std::string escaped(const std::string& text);
/// Tick positions at 1, 2 or 5 times a power of ten, at most about 7 of them.
[[nodiscard]] std::vector<double> ticks(double lo, double hi);

/// Call set_ranges, begin, axes, then draw, then end.
class Canvas {
 public:
  Canvas(std::ostream& out, std::string title, std::string x_label, std::string y_label);

  /// The data ranges (y gets a 5% margin so lines on the extremes stay visible).
  void set_ranges(double x0, double x1, double y0, double y1);
  [[nodiscard]] double px(double x) const;
  [[nodiscard]] double py(double y) const;

  void begin();
  void axes(bool y_ticks = true);
  /// A step line through the points (value holds until the next point), extended to x1.
  void step_line(const std::vector<std::pair<double, double>>& points, const char* colour);
  void band(const std::vector<double>& xs, const std::vector<double>& lower,
            const std::vector<double>& upper, const char* colour);
  void line(const std::vector<double>& xs, const std::vector<double>& ys, const char* colour);
  /// Points drawn as small circles (single observations a line would hide).
  void dots(const std::vector<double>& xs, const std::vector<double>& ys, const char* colour);
  void legend(const std::vector<std::pair<std::string, std::string>>& entries);
  void note(const std::string& text);
  void end();

  std::ostream& out() { return out_; }

 private:
  std::ostream& out_;
  std::string title_, x_label_, y_label_;
  double x0_ = 0, x1_ = 1, y0_ = 0, y1_ = 1;
};

}  // namespace hpsearch::plot
