#include <cmath>
#include <optional>

#include "hpsearch/searcher/go_math.hpp"
#include "parsers.hpp"

namespace hpsearch::config_detail {
namespace {

struct HpParser {
  const Reader& reader;
  SpaceUse use;

  std::optional<std::uint64_t> count(const Map& map) const {
    if (map.has("count") && !map.get("count").is_null()) {
      return read_count(reader, map.get("count"), map.path_of("count"), 1);
    }
    if (use == SpaceUse::kGrid) {
      reader.fail(map.node(), map.path(),
                  "grid search is in use but count was not provided (add count: N, the number "
                  "of grid values for this hyperparameter)");
    }
    return std::nullopt;
  }

  template <class Bound>
  void check_order(const Map& map, Bound minval, Bound maxval) const {
    if (!(minval < maxval)) {
      reader.fail(map.get("maxval"), map.path_of("maxval"),
                  "minval must be less than maxval, got minval " + map.get("minval").text() +
                      " and maxval " + map.get("maxval").text());
    }
  }

  // Finite bounds whose arithmetic is not finite would give trials an infinite value (JSON
  // null): Determined computes them as they are; we refuse them here, naming the field.
  // Sampling draws minval + u * (maxval - minval); a grid of `count` values computes
  // i * (maxval - minval) for i up to count - 1 (count matters to the grid sampler only).
  void check_span(const Map& map, double minval, double maxval,
                  const std::optional<std::uint64_t>& count) const {
    const std::string bounds = map.get("maxval").text() + " - " + map.get("minval").text();
    if (!std::isfinite(maxval - minval)) {
      reader.fail(
          map.get("maxval"), map.path_of("maxval"),
          "maxval - minval overflows a double (" + bounds + "): sampled values would be infinite");
    }
    if (use == SpaceUse::kGrid && count && *count > 1 &&
        !std::isfinite(static_cast<double>(*count - 1) * (maxval - minval))) {
      reader.fail(map.get("count"), map.path_of("count"),
                  "(count - 1) * (maxval - minval) overflows a double (" +
                      std::to_string(*count - 1) + " * (" + bounds +
                      ")): grid values would be infinite");
    }
  }

  // base**minval and base**maxval bound every value of a log hyperparameter (pow is monotonic
  // in the exponent); either one infinite means some trials would get infinity.
  void check_powers(const Map& map, const LogHp& hp) const {
    for (const char* field : {"minval", "maxval"}) {
      const double exponent = std::string(field) == "minval" ? hp.minval : hp.maxval;
      if (!std::isfinite(go::pow(hp.base, exponent))) {
        reader.fail(map.get(field), map.path_of(field),
                    std::string("base**") + field + " overflows a double (" +
                        map.get("base").text() + "**" + map.get(field).text() + ")");
      }
    }
  }

  Hyperparameter typed(const Node& node, const std::string& path) const {
    const Node& type_node = *node.find("type");
    const std::string type = type_node.is_scalar() ? type_node.text() : describe(type_node);
    const std::string owner = "of a hyperparameter of type '" + type + "'";
    if (type == "const") {
      const Map map(reader, node, path, {"type", "val"}, owner);
      return ConstHp{to_json(reader, map.require("val"), map.path_of("val"))};
    }
    if (type == "int") {
      const Map map(reader, node, path, {"type", "minval", "maxval", "count"}, owner);
      IntHp hp;
      hp.minval = read_int(reader, map.require("minval"), map.path_of("minval"));
      hp.maxval = read_int(reader, map.require("maxval"), map.path_of("maxval"));
      check_order(map, hp.minval, hp.maxval);
      hp.count = count(map);
      return hp;
    }
    if (type == "double") {
      const Map map(reader, node, path, {"type", "minval", "maxval", "count"}, owner);
      DoubleHp hp;
      hp.minval = read_number(reader, map.require("minval"), map.path_of("minval"));
      hp.maxval = read_number(reader, map.require("maxval"), map.path_of("maxval"));
      check_order(map, hp.minval, hp.maxval);
      hp.count = count(map);
      check_span(map, hp.minval, hp.maxval, hp.count);
      return hp;
    }
    if (type == "log") {
      const Map map(reader, node, path, {"type", "minval", "maxval", "base", "count"}, owner);
      LogHp hp;
      hp.minval = read_number(reader, map.require("minval"), map.path_of("minval"));
      hp.maxval = read_number(reader, map.require("maxval"), map.path_of("maxval"));
      hp.base = read_number(reader, map.require("base", " (the base of the exponent, e.g. 10)"),
                            map.path_of("base"));
      check_order(map, hp.minval, hp.maxval);
      if (hp.base <= 0) {
        reader.fail(map.get("base"), map.path_of("base"),
                    "must be a number > 0, got " + map.get("base").text());
      }
      hp.count = count(map);
      check_span(map, hp.minval, hp.maxval, hp.count);
      check_powers(map, hp);
      return hp;
    }
    if (type == "categorical") {
      const Map map(reader, node, path, {"type", "vals"}, owner);
      const Node& vals = map.require("vals", " (the list of values to choose from)");
      if (!vals.is_list()) {
        reader.fail(vals, map.path_of("vals"), "must be a list, got " + describe(vals));
      }
      CategoricalHp hp;
      for (std::size_t i = 0; i < vals.items().size(); ++i) {
        hp.values.push_back(
            to_json(reader, vals.items()[i], map.path_of("vals") + "[" + std::to_string(i) + "]"));
      }
      if (hp.values.empty() && use == SpaceUse::kSampled) {
        reader.fail(vals, map.path_of("vals"),
                    "must not be empty: this searcher samples hyperparameters and cannot "
                    "choose from an empty list");
      }
      return hp;
    }
    reader.fail(type_node, join_path(path, "type"),
                "must be one of 'const', 'int', 'double', 'log', 'categorical', got " +
                    describe(type_node));
  }

  HyperparameterSpace space(const Node& node, const std::string& path) const {
    std::vector<NamedHyperparameter> entries;
    for (const MapEntry& entry : map_entries(reader, node, path)) {
      const std::string child = join_path(path, entry.key);
      if (!entry.value.is_map()) {
        entries.push_back({entry.key, ConstHp{to_json(reader, entry.value, child)}});
      } else if (entry.value.find("type") != nullptr) {
        entries.push_back({entry.key, typed(entry.value, child)});
      } else {
        entries.push_back({entry.key, space(entry.value, child)});
      }
    }
    return HyperparameterSpace(std::move(entries));
  }
};

}  // namespace

HyperparameterSpace parse_hyperparameters(const Reader& reader, const Node& node,
                                          const std::string& path, SpaceUse use) {
  if (node.is_null()) return HyperparameterSpace();
  return HpParser{reader, use}.space(node, path);
}

}  // namespace hpsearch::config_detail
