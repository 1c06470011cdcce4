// Go's math.Log, math.Exp and math.Pow, checked bit for bit against 9,920 values recorded
// from Go (tests/golden/determined/go-math.jsonl).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hpsearch/searcher/go_math.hpp"
#include "support/golden.hpp"

using namespace hpsearch;
using hpsearch::testing::go_number;

namespace {
std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("go math: every recorded Pow, Log and rung count matches bit for bit") {
  const auto rows = hpsearch::testing::go_math_rows();
  REQUIRE(rows.size() == 9920);
  std::size_t pows = 0;
  std::size_t logs = 0;
  std::size_t rungs = 0;
  std::size_t glibc_pow_differs = 0;
  for (const nlohmann::json& row : rows) {
    INFO(row.dump());
    const std::string fn = row.at("fn");
    if (fn == "pow") {
      const double x = go_number(row["x"]);
      const double y = go_number(row["y"]);
      CHECK(bits(go::pow(x, y)) == bits(go_number(row["out"])));
      if (bits(std::pow(x, y)) != bits(go_number(row["out"]))) ++glibc_pow_differs;
      ++pows;
    } else if (fn == "log") {
      CHECK(bits(go::log(go_number(row["x"]))) == bits(go_number(row["out"])));
      ++logs;
    } else {
      REQUIRE(fn == "rungs");
      const double n = go_number(row["n"]);
      const double d = go_number(row["d"]);
      const auto expected = std::stoll(row["out"].get<std::string>());
      CHECK(static_cast<long long>(go::log(n) / go::log(d)) + 1 == expected);
      ++rungs;
    }
  }
  CHECK(pows == 6000);
  CHECK(logs == 3000);
  CHECK(rungs == 920);
  // The reason this file exists: the C library disagrees with Go on many of these.
  CHECK(glibc_pow_differs > 1000);
}

TEST_CASE("go math: the cases the issue named") {
  CHECK(static_cast<int>(go::log(243) / go::log(3)) == 5);  // glibc gives 4
  CHECK(go::pow(1.3, 3) == 2.1970000000000005);             // repeated squaring
  CHECK(static_cast<std::uint64_t>(2197.0 / go::pow(1.3, 3)) == 999);
}

TEST_CASE("go math: special cases as Go documents them") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  SUBCASE("pow") {
    CHECK(go::pow(nan, 0) == 1);
    CHECK(go::pow(1, nan) == 1);
    CHECK(go::pow(7, 1) == 7);
    CHECK(std::isnan(go::pow(nan, 2)));
    CHECK(std::isnan(go::pow(2, nan)));
    CHECK(go::pow(0.0, -3) == kInf);
    CHECK(go::pow(-0.0, -3) == -kInf);
    CHECK(go::pow(-0.0, -2) == kInf);
    CHECK(go::pow(0.0, -kInf) == kInf);
    CHECK(go::pow(-0.0, 3) == 0.0);
    CHECK(std::signbit(go::pow(-0.0, 3)));
    CHECK_FALSE(std::signbit(go::pow(-0.0, 2)));
    CHECK(go::pow(-1, kInf) == 1);
    CHECK(go::pow(2, kInf) == kInf);
    CHECK(go::pow(2, -kInf) == 0);
    CHECK(go::pow(0.5, kInf) == 0);
    CHECK(go::pow(0.5, -kInf) == kInf);
    CHECK(go::pow(kInf, 2) == kInf);
    CHECK(go::pow(kInf, -2) == 0);
    CHECK(go::pow(-kInf, 3) == -kInf);
    CHECK(go::pow(-kInf, -3) == 0);
    CHECK(std::isnan(go::pow(-8, 1.0 / 3)));
    CHECK(go::pow(-2, 3) == -8);
    CHECK(go::pow(4, 0.5) == 2);
    CHECK(go::pow(4, -0.5) == 0.5);
    CHECK(go::pow(10, 400) == kInf);
    CHECK(go::pow(10, -400) == 0);
    CHECK(go::pow(2, -1074) == std::numeric_limits<double>::denorm_min());
    CHECK(go::pow(-1, 1e300) == 1);
  }
  SUBCASE("log") {
    CHECK(go::log(kInf) == kInf);
    CHECK(go::log(0.0) == -kInf);
    CHECK(go::log(-0.0) == -kInf);
    CHECK(std::isnan(go::log(-1)));
    CHECK(std::isnan(go::log(nan)));
    CHECK(go::log(1) == 0);
  }
  SUBCASE("exp") {
    CHECK(go::exp(0) == 1);
    CHECK(go::exp(kInf) == kInf);
    CHECK(go::exp(-kInf) == 0);
    CHECK(std::isnan(go::exp(nan)));
    CHECK(go::exp(710) == kInf);
    CHECK(go::exp(-800) == 0);
    CHECK(go::exp(-1e300) == 0);
  }
}
