#include "hpsearch/plot/svg_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace hpsearch::plot {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

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

Canvas::Canvas(std::ostream& out, std::string title, std::string x_label, std::string y_label)
    : out_(out),
      title_(std::move(title)),
      x_label_(std::move(x_label)),
      y_label_(std::move(y_label)) {}

void Canvas::set_ranges(double x0, double x1, double y0, double y1) {
  if (!(x1 > x0)) x1 = x0 + 1;
  const double pad = y1 > y0 ? 0.05 * (y1 - y0) : std::max(std::abs(y0) * 0.05, 1e-9);
  y0 -= pad;
  y1 += pad;
  x0_ = x0, x1_ = x1, y0_ = y0, y1_ = y1;
}

double Canvas::px(double x) const {
  return kLeft + (x - x0_) / (x1_ - x0_) * (kWidth - kLeft - kRight);
}
double Canvas::py(double y) const {
  return kTop + (y1_ - y) / (y1_ - y0_) * (kHeight - kTop - kBottom);
}

void Canvas::begin() {
  out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
       << kHeight << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
       << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
       << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
       << "<text x=\"" << kWidth / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
       << escaped(title_) << "</text>\n";
}

void Canvas::axes(bool y_ticks) {
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
    out_ << "<text x=\"" << px(t) << "\" y=\"" << bottom + 16 << "\" text-anchor=\"middle\">"
         << number(t) << "</text>\n";
  }
  if (y_ticks) {
    for (const double t : ticks(y0_, y1_)) {
      out_ << "<text x=\"" << kLeft - 6 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">"
           << number(t) << "</text>\n";
    }
  }
  out_ << "<text x=\"" << (kLeft + right) / 2 << "\" y=\"" << kHeight - 12
       << "\" text-anchor=\"middle\">" << escaped(x_label_) << "</text>\n"
       << "<text transform=\"translate(16," << (kTop + bottom) / 2
       << ") rotate(-90)\" text-anchor=\"middle\">" << escaped(y_label_) << "</text>\n"
       << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << right - kLeft
       << "\" height=\"" << bottom - kTop << "\" fill=\"none\" stroke=\"#333\"/>\n</g>\n";
}

void Canvas::step_line(const std::vector<std::pair<double, double>>& points, const char* colour) {
  if (points.empty()) return;
  out_ << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i > 0) out_ << px(points[i].first) << ',' << py(points[i - 1].second) << ' ';
    out_ << px(points[i].first) << ',' << py(points[i].second) << ' ';
  }
  out_ << px(x1_) << ',' << py(points.back().second) << "\"/>\n";
}

void Canvas::band(const std::vector<double>& xs, const std::vector<double>& lower,
                  const std::vector<double>& upper, const char* colour) {
  if (xs.empty()) return;
  out_ << "<polygon fill=\"" << colour << "\" fill-opacity=\"0.2\" stroke=\"none\" points=\"";
  for (std::size_t i = 0; i < xs.size(); ++i) out_ << px(xs[i]) << ',' << py(upper[i]) << ' ';
  for (std::size_t i = xs.size(); i-- > 0;) out_ << px(xs[i]) << ',' << py(lower[i]) << ' ';
  out_ << "\"/>\n";
}

void Canvas::line(const std::vector<double>& xs, const std::vector<double>& ys,
                  const char* colour) {
  if (xs.empty()) return;
  out_ << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
  for (std::size_t i = 0; i < xs.size(); ++i) out_ << px(xs[i]) << ',' << py(ys[i]) << ' ';
  out_ << "\"/>\n";
}

void Canvas::dots(const std::vector<double>& xs, const std::vector<double>& ys,
                  const char* colour) {
  for (std::size_t i = 0; i < xs.size(); ++i) {
    out_ << "<circle cx=\"" << px(xs[i]) << "\" cy=\"" << py(ys[i]) << "\" r=\"3\" fill=\""
         << colour << "\"/>\n";
  }
}

void Canvas::legend(const std::vector<std::pair<std::string, std::string>>& entries) {
  double y = kTop + 10;
  for (const auto& [label, colour] : entries) {
    const double x = kWidth - kRight + 14;
    out_ << "<rect x=\"" << x << "\" y=\"" << y - 9 << "\" width=\"14\" height=\"10\" fill=\""
         << colour << "\"/>\n<text x=\"" << x + 20 << "\" y=\"" << y << "\">" << escaped(label)
         << "</text>\n";
    y += 18;
  }
}

void Canvas::note(const std::string& text) {
  out_ << "<text x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kHeight / 2
       << "\" text-anchor=\"middle\" fill=\"#666\">" << escaped(text) << "</text>\n";
}

void Canvas::end() {
  out_ << "</svg>\n";
}

}  // namespace hpsearch::plot
