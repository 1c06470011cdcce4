#include "hpsearch/searcher/grid.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/go_math.hpp"

namespace hpsearch {
namespace {

std::uint64_t int_axis_size(const IntHp& hp) {
  const std::uint64_t span =
      static_cast<std::uint64_t>(hp.maxval) - static_cast<std::uint64_t>(hp.minval);
  const std::uint64_t count = hp.count.value_or(0);
  // min(count, maxval - minval + 1); the +1 cannot overflow a span below 2^64 - 1.
  return span == std::numeric_limits<std::uint64_t>::max() ? count : std::min(count, span + 1);
}

// Go computes `float64(i * (maxval - minval))` with an integer product; we do the same while
// it fits, and fall back to a double product only beyond int64 (where Go would wrap).
double int_offset(std::uint64_t i, const IntHp& hp) {
  const std::uint64_t span =
      static_cast<std::uint64_t>(hp.maxval) - static_cast<std::uint64_t>(hp.minval);
  std::uint64_t product = 0;
  if (!__builtin_mul_overflow(i, span, &product) &&
      product <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<double>(product);
  }
  return static_cast<double>(i) * static_cast<double>(span);
}

double int_midpoint(const IntHp& hp) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(hp.minval, hp.maxval, &sum)) return static_cast<double>(sum) / 2.0;
  return (static_cast<double>(hp.minval) + static_cast<double>(hp.maxval)) / 2.0;
}

// Evenly spaced including both ends: minval + (i * (maxval - minval)) / (count - 1).
double spaced(double minval, double maxval, std::uint64_t i, std::uint64_t count) {
  if (count == 1) return (minval + maxval) / 2.0;
  return minval + (static_cast<double>(i) * (maxval - minval)) / static_cast<double>(count - 1);
}

struct AxisValue {
  std::uint64_t j;
  std::uint64_t size;
  nlohmann::json operator()(const std::vector<nlohmann::json>& values) const { return values[j]; }
  nlohmann::json operator()(const IntHp& hp) const {
    if (size == 1) return static_cast<std::int64_t>(std::round(int_midpoint(hp)));
    const double value =
        static_cast<double>(hp.minval) + int_offset(j, hp) / static_cast<double>(size - 1);
    return static_cast<std::int64_t>(std::round(value));
  }
  nlohmann::json operator()(const DoubleHp& hp) const {
    return spaced(hp.minval, hp.maxval, j, size);
  }
  nlohmann::json operator()(const LogHp& hp) const {
    return go::pow(hp.base, spaced(hp.minval, hp.maxval, j, size));
  }
};

struct AxisBuilder {
  std::vector<Grid::Axis>& axes;
  std::vector<std::string>& route;

  void add(decltype(Grid::Axis::values) values, std::uint64_t size) const {
    axes.push_back(Grid::Axis{route, std::move(values), size});
  }
  void operator()(const ConstHp& hp) const { add(std::vector<nlohmann::json>{hp.value}, 1); }
  void operator()(const CategoricalHp& hp) const { add(hp.values, hp.values.size()); }
  void operator()(const IntHp& hp) const { add(hp, int_axis_size(hp)); }
  void operator()(const DoubleHp& hp) const { add(hp, hp.count.value_or(0)); }
  void operator()(const LogHp& hp) const { add(hp, hp.count.value_or(0)); }
  void operator()(const HyperparameterSpace& nested) const {
    // An empty nest keeps its place as `{}` (Determined v0.38 behaviour, PR #9966).
    if (nested.empty()) {
      add(std::vector<nlohmann::json>{nlohmann::json::object()}, 1);
      return;
    }
    visit_children(nested);
  }
  void visit_children(const HyperparameterSpace& space) const {
    for (const NamedHyperparameter& entry : space.entries()) {
      route.push_back(entry.name);
      std::visit(*this, entry.value);
      route.pop_back();
    }
  }
};

void set_at(nlohmann::json& object, const std::vector<std::string>& route, nlohmann::json value) {
  nlohmann::json* node = &object;
  for (const std::string& name : route) node = &(*node)[name];
  *node = std::move(value);
}

}  // namespace

nlohmann::json Grid::Axis::value(std::uint64_t j) const {
  HPSEARCH_ASSERT(j < size, "grid axis index out of range");
  return std::visit(AxisValue{j, size}, values);
}

Grid::Grid(const HyperparameterSpace& space) {
  std::vector<std::string> route;
  AxisBuilder{axes_, route}.visit_children(space);
  if (axes_.empty()) return;
  std::uint64_t size = 1;
  bool overflow = false;
  for (const Axis& axis : axes_) overflow |= __builtin_mul_overflow(size, axis.size, &size);
  if (overflow) {
    std::string sizes;
    for (const Axis& axis : axes_) {
      std::string name;
      for (const std::string& part : axis.route) name += (name.empty() ? "" : ".") + part;
      sizes += (sizes.empty() ? "" : " x ") + name + "=" + std::to_string(axis.size);
    }
    throw std::length_error("the grid has more than 18446744073709551615 points (" + sizes + ")");
  }
  size_ = size;
}

nlohmann::json Grid::point(std::uint64_t index) const {
  HPSEARCH_ASSERT(index < size_, "grid point index out of range");
  nlohmann::json point = nlohmann::json::object();
  // Mixed radix with the last axis fastest; write values first-axis-first so the JSON object
  // is built in a stable order.
  std::vector<std::uint64_t> digits(axes_.size());
  for (std::size_t k = axes_.size(); k-- > 0;) {
    digits[k] = index % axes_[k].size;
    index /= axes_[k].size;
  }
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    set_at(point, axes_[k].route, axes_[k].value(digits[k]));
  }
  return point;
}

}  // namespace hpsearch
