#include "hpsearch/searcher/space_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch {
namespace {

using Kind = EncodedDimension::Kind;

// A log coordinate may land a hair outside [0, 1] after pow and log; this much is rounding.
constexpr double kLogTolerance = 1e-9;

double clamp01(double u) {
  return std::clamp(u, 0.0, 1.0);
}

// The cell of u among `levels` equal cells of [0, 1].
double cell(double u, double levels) {
  return std::min(std::floor(clamp01(u) * levels), levels - 1);
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

[[noreturn]] void misfit(const EncodedDimension& d, const nlohmann::json& value,
                         const std::string& expected) {
  throw std::invalid_argument("hyperparameter " + d.name() + ": " + shown(value) +
                              " is not in the space (expected " + expected + ")");
}

std::string interval(double lo, double hi) {
  std::ostringstream text;
  text << "a number in [" << lo << ", " << hi << "]";
  return text.str();
}

struct LeafDimension {
  const std::vector<std::string>& route;
  std::vector<EncodedDimension>& out;

  void operator()(const ConstHp&) const {}
  void operator()(const HyperparameterSpace&) const {}
  void operator()(const IntHp& hp) const {
    // Unsigned span: maxval - minval + 1 may exceed int64 (and is then inexact in double,
    // which only blurs the cells of a range wider than 2^53).
    const std::uint64_t span =
        static_cast<std::uint64_t>(hp.maxval) - static_cast<std::uint64_t>(hp.minval);
    out.push_back({route, Kind::kInteger, static_cast<double>(span) + 1.0, hp});
  }
  void operator()(const DoubleHp& hp) const { out.push_back({route, Kind::kContinuous, 0, hp}); }
  void operator()(const LogHp& hp) const { out.push_back({route, Kind::kContinuous, 0, hp}); }
  void operator()(const CategoricalHp& hp) const {
    HPSEARCH_ASSERT(!hp.values.empty(), "cannot encode an empty categorical");
    out.push_back({route, Kind::kCategorical, static_cast<double>(hp.values.size()), hp});
  }
};

// The coordinate of one value.
struct Encoder {
  const EncodedDimension& d;
  const nlohmann::json& value;

  double operator()(const IntHp& hp) const {
    if (!value.is_number_integer()) misfit(d, value, "an integer");
    const bool in_range =
        value.is_number_unsigned()
            ? hp.maxval >= 0 && value.get<std::uint64_t>() <= static_cast<std::uint64_t>(hp.maxval)
            : value.get<std::int64_t>() >= hp.minval && value.get<std::int64_t>() <= hp.maxval;
    if (!in_range) {
      misfit(
          d, value,
          "an integer in [" + std::to_string(hp.minval) + ", " + std::to_string(hp.maxval) + "]");
    }
    // Two's-complement arithmetic gives the offset from minval for any int64 pair.
    const std::uint64_t raw = value.is_number_unsigned()
                                  ? value.get<std::uint64_t>()
                                  : static_cast<std::uint64_t>(value.get<std::int64_t>());
    const std::uint64_t offset = raw - static_cast<std::uint64_t>(hp.minval);
    return (static_cast<double>(offset) + 0.5) / d.levels;
  }
  double operator()(const DoubleHp& hp) const {
    if (!value.is_number()) misfit(d, value, interval(hp.minval, hp.maxval));
    const double v = value.get<double>();
    if (!(v >= hp.minval && v <= hp.maxval)) misfit(d, value, interval(hp.minval, hp.maxval));
    return clamp01((v - hp.minval) / (hp.maxval - hp.minval));
  }
  double operator()(const LogHp& hp) const {
    const double log_base = std::log(hp.base);
    const double lo = std::pow(hp.base, hp.minval);
    const double hi = std::pow(hp.base, hp.maxval);
    const std::string expected = interval(std::min(lo, hi), std::max(lo, hi));
    if (!value.is_number()) misfit(d, value, expected);
    const double v = value.get<double>();
    if (!(v > 0)) misfit(d, value, expected);
    if (log_base == 0) return 0.5;  // base 1: every value is 1, any coordinate decodes to it
    const double u = (std::log(v) / log_base - hp.minval) / (hp.maxval - hp.minval);
    if (!(u >= -kLogTolerance && u <= 1 + kLogTolerance)) misfit(d, value, expected);
    return clamp01(u);
  }
  double operator()(const CategoricalHp& hp) const {
    const auto it = std::find(hp.values.begin(), hp.values.end(), value);
    if (it == hp.values.end()) {
      nlohmann::json listed(hp.values);
      misfit(d, value, "one of " + shown(listed));
    }
    return (static_cast<double>(it - hp.values.begin()) + 0.5) / d.levels;
  }
};

// The value at one coordinate.
struct Decoder {
  const EncodedDimension& d;
  double u;

  nlohmann::json operator()(const IntHp& hp) const {
    const auto offset = static_cast<std::uint64_t>(cell(u, d.levels));
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(hp.minval) + offset);
  }
  nlohmann::json operator()(const DoubleHp& hp) const {
    return hp.minval + clamp01(u) * (hp.maxval - hp.minval);
  }
  nlohmann::json operator()(const LogHp& hp) const {
    return std::pow(hp.base, hp.minval + clamp01(u) * (hp.maxval - hp.minval));
  }
  nlohmann::json operator()(const CategoricalHp& hp) const {
    return hp.values[static_cast<std::size_t>(cell(u, d.levels))];
  }
};

}  // namespace

std::string EncodedDimension::name() const {
  std::string text;
  for (const std::string& part : route) text += (text.empty() ? "" : ".") + part;
  return text;
}

SpaceEncoding::SpaceEncoding(const HyperparameterSpace& space) : space_(space) {
  std::vector<std::string> route;
  flatten(space_, route);
}

void SpaceEncoding::flatten(const HyperparameterSpace& space, std::vector<std::string>& route) {
  for (const NamedHyperparameter& entry : space.entries()) {
    route.push_back(entry.name);
    if (const auto* nested = std::get_if<HyperparameterSpace>(&entry.value)) {
      flatten(*nested, route);
    } else {
      std::visit(LeafDimension{route, dimensions_}, entry.value);
    }
    route.pop_back();
  }
}

const nlohmann::json& SpaceEncoding::leaf(const nlohmann::json& hparams,
                                          const EncodedDimension& dimension) const {
  const nlohmann::json* at = &hparams;
  for (const std::string& name : dimension.route) {
    if (!at->is_object() || !at->contains(name)) {
      throw std::invalid_argument("hyperparameter " + dimension.name() + ": missing");
    }
    at = &(*at)[name];
  }
  return *at;
}

std::vector<double> SpaceEncoding::encode(const nlohmann::json& hparams) const {
  std::vector<double> point(dimensions_.size());
  encode(hparams, point);
  return point;
}

void SpaceEncoding::encode(const nlohmann::json& hparams, std::span<double> out) const {
  HPSEARCH_ASSERT(out.size() == dimensions_.size(), "encode: wrong output size");
  for (std::size_t i = 0; i < dimensions_.size(); ++i) {
    const EncodedDimension& d = dimensions_[i];
    out[i] = std::visit(Encoder{d, leaf(hparams, d)}, d.hp);
  }
}

nlohmann::json SpaceEncoding::decode_space(const HyperparameterSpace& space,
                                           std::span<const double> point, std::size_t& next) const {
  nlohmann::json out = nlohmann::json::object();
  for (const NamedHyperparameter& entry : space.entries()) {
    if (const auto* c = std::get_if<ConstHp>(&entry.value)) {
      out[entry.name] = c->value;
    } else if (const auto* nested = std::get_if<HyperparameterSpace>(&entry.value)) {
      out[entry.name] = decode_space(*nested, point, next);
    } else {
      const EncodedDimension& d = dimensions_[next];
      out[entry.name] = std::visit(Decoder{d, point[next]}, d.hp);
      ++next;
    }
  }
  return out;
}

nlohmann::json SpaceEncoding::decode(std::span<const double> point) const {
  HPSEARCH_ASSERT(point.size() == dimensions_.size(), "decode: wrong point size");
  std::size_t next = 0;
  return decode_space(space_, point, next);
}

void SpaceEncoding::snap(std::span<double> point) const {
  HPSEARCH_ASSERT(point.size() == dimensions_.size(), "snap: wrong point size");
  for (std::size_t i = 0; i < dimensions_.size(); ++i) {
    const EncodedDimension& d = dimensions_[i];
    point[i] = d.kind == Kind::kContinuous ? clamp01(point[i])
                                           : (cell(point[i], d.levels) + 0.5) / d.levels;
  }
}

std::size_t SpaceEncoding::category(const EncodedDimension& dimension, double u) {
  return static_cast<std::size_t>(cell(u, dimension.levels));
}

double SpaceEncoding::numeric(const nlohmann::json& hparams, std::size_t dimension) const {
  const EncodedDimension& d = dimensions_[dimension];
  const nlohmann::json& value = leaf(hparams, d);
  const double u = std::visit(Encoder{d, value}, d.hp);  // checks that the value fits
  if (d.kind == Kind::kCategorical) return static_cast<double>(category(d, u));
  return value.get<double>();
}

}  // namespace hpsearch
