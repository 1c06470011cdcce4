// Expectations: spec 4.3 and the grid tests listed in spec 7.2 (7 to 13) and 7.3.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>

#include "hpsearch/searcher/grid.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
std::vector<nlohmann::json> all_points(const Grid& grid) {
  std::vector<nlohmann::json> points;
  for (std::uint64_t i = 0; i < grid.size(); ++i) points.push_back(grid.point(i));
  return points;
}

std::vector<nlohmann::json> axis_values(const HyperparameterSpace& hps) {
  const Grid grid(hps);
  REQUIRE(grid.axes().size() == 1);
  std::vector<nlohmann::json> values;
  for (std::uint64_t j = 0; j < grid.axes()[0].size; ++j) values.push_back(grid.axes()[0].value(j));
  return values;
}

using Values = std::vector<nlohmann::json>;
}  // namespace

TEST_CASE("grid: sizes are products of the axis counts (TestGridFunctionality)") {
  CHECK(Grid(double_axes({1})).size() == 1);
  CHECK(Grid(double_axes({4})).size() == 4);
  CHECK(Grid(double_axes({1, 4})).size() == 4);
  CHECK(Grid(double_axes({3, 4})).size() == 12);
  CHECK(Grid(double_axes({2, 3, 4})).size() == 24);
  CHECK(Grid(double_axes({2, 2, 3, 3, 4, 5})).size() == 720);
}

TEST_CASE("grid: axis lengths per type (TestHyperparameterGridMethod)") {
  CHECK(Grid(space({{"x", double_hp(0, 2, 5)}})).size() == 5);
  CHECK(Grid(space({{"x", int_hp(0, 20, 7)}})).size() == 7);
  CHECK(Grid(space({{"x", log_hp(-3, -2, 10, 2)}})).size() == 2);
  CHECK(Grid(space({{"x", categorical({1, 2, 3})}})).size() == 3);
  CHECK(Grid(space({{"x", ConstHp{3}}})).size() == 1);
}

TEST_CASE("grid: int axis values round half away from zero") {
  CHECK(axis_values(space({{"x", int_hp(0, 20, 3)}})) == Values{0, 10, 20});
  CHECK(axis_values(space({{"x", int_hp(0, 10, 3)}})) == Values{0, 5, 10});
  CHECK(axis_values(space({{"x", int_hp(0, 4, 5)}})) == Values{0, 1, 2, 3, 4});
  CHECK(axis_values(space({{"x", int_hp(-4, -2, 3)}})) == Values{-4, -3, -2});
  CHECK(axis_values(space({{"x", int_hp(0, 10, 4)}})) == Values{0, 3, 7, 10});
  CHECK(axis_values(space({{"x", int_hp(7, 11, 2)}})) == Values{7, 11});
  CHECK(axis_values(space({{"x", int_hp(0, 3, 1)}})) == Values{2});
  // More values asked than integers exist: every integer once.
  CHECK(axis_values(space({{"x", int_hp(0, 2, 10)}})) == Values{0, 1, 2});
}

TEST_CASE("grid: double and log axes include both ends") {
  CHECK(axis_values(space({{"x", double_hp(-1, 1, 3)}})) == Values{-1.0, 0.0, 1.0});
  CHECK(axis_values(space({{"x", double_hp(13, 17, 2)}})) == Values{13.0, 17.0});
  CHECK(axis_values(space({{"x", double_hp(0.1, 0.5, 1)}})) == Values{0.3});
  CHECK(axis_values(space({{"x", log_hp(1, 2, 10, 2)}})) == Values{10.0, 100.0});
  const Values small = axis_values(space({{"x", log_hp(-5, -3, 10, 3)}}));
  REQUIRE(small.size() == 3);
  CHECK(small[0].get<double>() == doctest::Approx(1e-5).epsilon(1e-12));
  CHECK(small[1].get<double>() == doctest::Approx(1e-4).epsilon(1e-12));
  CHECK(small[2].get<double>() == doctest::Approx(1e-3).epsilon(1e-12));
}

TEST_CASE("grid: product order has the first axis slowest (TestGrid)") {
  const Grid grid(space({{"1", int_hp(0, 20, 3)}, {"2", int_hp(0, 10, 3)}}));
  std::vector<nlohmann::json> expected;
  for (int a : {0, 10, 20}) {
    for (int b : {0, 5, 10}) expected.push_back({{"1", a}, {"2", b}});
  }
  CHECK(all_points(grid) == expected);
}

TEST_CASE("grid: nested hyperparameters keep the same order (TestNestedGrid)") {
  const Grid grid(space({{"1", int_hp(0, 20, 3)}, {"2", space({{"3", int_hp(0, 10, 3)}})}}));
  std::vector<nlohmann::json> expected;
  for (int a : {0, 10, 20}) {
    for (int b : {0, 5, 10}) expected.push_back({{"1", a}, {"2", {{"3", b}}}});
  }
  CHECK(all_points(grid) == expected);
}

TEST_CASE("grid: deeper nesting gives every combination once (TestNestedGridFurther)") {
  const Grid grid(
      space({{"constant", ConstHp{2}},
             {"a", space({{"b", space({{"c1", categorical({3, 5})}, {"c2", int_hp(7, 11, 2)}})}})},
             {"f", double_hp(13, 17, 2)},
             {"l", log_hp(1, 2, 10, 2)}}));
  const auto points = all_points(grid);
  CHECK(points.size() == 16);
  std::set<std::string> distinct;
  for (const auto& p : points) distinct.insert(p.dump());
  CHECK(distinct.size() == 16);
  CHECK(distinct.contains(R"({"a":{"b":{"c1":3,"c2":7}},"constant":2,"f":13.0,"l":10.0})"));
  CHECK(distinct.contains(R"({"a":{"b":{"c1":5,"c2":11}},"constant":2,"f":17.0,"l":100.0})"));
}

TEST_CASE("grid: an empty nest is one axis with the value {} (Determined v0.38)") {
  const Grid grid(
      space({{"x", space({{"empty", HyperparameterSpace()}, {"full", categorical({1, 2, 3})}})}}));
  REQUIRE(grid.axes().size() == 2);
  CHECK(grid.axes()[0].route == std::vector<std::string>{"x", "empty"});
  CHECK(grid.size() == 3);
  CHECK(grid.point(2) == nlohmann::json::parse(R"({"x":{"empty":{},"full":3}})"));
}

TEST_CASE("grid: no hyperparameters or an empty categorical give zero points") {
  CHECK(Grid(HyperparameterSpace()).size() == 0);
  CHECK(Grid(space({{"a", int_hp(0, 4, 5)}, {"b", categorical({})}})).size() == 0);
}

TEST_CASE("grid: huge grids are counted exactly and never materialised") {
  // 10^6 x 10^6 x 10^6 = 10^18 points; point(i) is computed from i alone.
  const Grid grid(space({{"a", int_hp(0, 999'999, 1'000'000)},
                         {"b", int_hp(0, 999'999, 1'000'000)},
                         {"c", int_hp(0, 999'999, 1'000'000)}}));
  CHECK(grid.size() == 1'000'000'000'000'000'000ULL);
  CHECK(grid.point(grid.size() - 1) ==
        nlohmann::json({{"a", 999'999}, {"b", 999'999}, {"c", 999'999}}));
  CHECK(grid.point(1'000'001) == nlohmann::json({{"a", 0}, {"b", 1}, {"c", 1}}));
}

TEST_CASE("grid: a product beyond 64 bits is refused with every axis named") {
  CHECK_THROWS_WITH_AS(
      Grid(space({{"a", double_hp(0, 1, 1ULL << 40)}, {"b", double_hp(0, 1, 1ULL << 30)}})),
      "the grid has more than 18446744073709551615 points (a=1099511627776 x b=1073741824)",
      std::length_error);
}
