#include "hpsearch/searcher/go_math.hpp"

// This file reproduces Go's floating-point operation order exactly; the project compiles
// with -ffp-contract=off so that no compiler fuses a multiply and an add that Go does not.
// Where Go's amd64 code does fuse (the FMA path of Exp), std::fma says so explicitly.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hpsearch::go {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t kMantissaMask = 0x000FFFFFFFFFFFFFULL;

/// Go's isOddInt: an integral value whose low bit is set (Go converts through int64).
bool is_odd_int(double x) {
  if (std::fabs(x) >= 9007199254740992.0) return false;  // 2^53 and above are all even
  double integral = 0;
  const double fraction = std::modf(x, &integral);
  return fraction == 0 && (static_cast<std::int64_t>(integral) & 1) == 1;
}

}  // namespace

double log(double x) {
  // Go's amd64 assembly: the FreeBSD algorithm, with the argument split by bit operations
  // (so a subnormal x is not normalised first, as in Go on amd64).
  constexpr double kHalfSqrt2 = 7.07106781186547524401e-01;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kL1 = 6.666666666666735130e-01;
  constexpr double kL2 = 3.999999999940941908e-01;
  constexpr double kL3 = 2.857142874366239149e-01;
  constexpr double kL4 = 2.222219843214978396e-01;
  constexpr double kL5 = 1.818357216161805012e-01;
  constexpr double kL6 = 1.531383769920937332e-01;
  constexpr double kL7 = 1.479819860511658591e-01;

  const auto bits = std::bit_cast<std::uint64_t>(x);
  if ((bits & ~(1ULL << 63)) == 0) return -kInf;
  if (std::signbit(x)) return kNaN;
  if (std::isnan(x) || std::isinf(x)) return x;

  double f1 = std::bit_cast<double>((bits & kMantissaMask) | std::bit_cast<std::uint64_t>(0.5));
  double k = static_cast<double>(static_cast<int>((bits >> 52) & 0x7FF) - 0x3FE);
  if (f1 <= kHalfSqrt2) {  // Go compares "not less than" the other way round: <= here
    k -= 1;
    f1 *= 2;
  }
  const double f = f1 - 1;
  const double s = f / (2 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  const double t1 = s2 * (kL1 + s4 * (kL3 + s4 * (kL5 + s4 * kL7)));
  const double t2 = s4 * (kL2 + s4 * (kL4 + s4 * kL6));
  const double r = t1 + t2;
  const double hfsq = 0.5 * f * f;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);
}

double exp(double x) {
  // Go's amd64 assembly on its FMA path (after S. Shibata's method): x = k ln2 + r, then
  // e^(r/16) - 1 by a degree-8 Taylor polynomial, squared back four times as y(y + 2).
  constexpr double kLog2e = 1.4426950408889634073599246810018920;
  constexpr double kLn2Upper = 0.69314718055966295651160180568695068359375;
  constexpr double kLn2Lower = 0.28235290563031577122588448175013436025525412068e-12;
  constexpr double kOverflow = 7.09782712893384e+02;

  if (std::isnan(x) || x == kInf) return x;
  if (x == -kInf) return 0;
  if (x > kOverflow) return kInf;

  // CVTSD2SL: round to nearest even; out of range gives INT32_MIN, which underflows below.
  const double scaled = std::nearbyint(kLog2e * x);
  const auto k = scaled < -2147483648.0 ? std::numeric_limits<std::int32_t>::min()
                                        : static_cast<std::int32_t>(scaled);
  const double kd = k;
  double r = std::fma(-kd, kLn2Upper, x);
  r = std::fma(-kd, kLn2Lower, r);
  r *= 0.0625;
  double p = 2.4801587301587301587e-5;
  p = std::fma(p, r, 1.9841269841269841270e-4);
  p = std::fma(p, r, 1.3888888888888888889e-3);
  p = std::fma(p, r, 8.3333333333333333333e-3);
  p = std::fma(p, r, 4.1666666666666666667e-2);
  p = std::fma(p, r, 1.6666666666666666667e-1);
  p = std::fma(p, r, 0.5);
  p = std::fma(p, r, 1.0);
  double y = r * p;  // e^(r/16) - 1
  for (int i = 0; i < 3; ++i) y *= y + 2.0;
  y = std::fma(y, y + 2.0, 1.0);  // the fourth squaring, fused with the final + 1

  const std::int64_t biased = static_cast<std::int64_t>(k) + 0x3FF;
  if (biased <= 0) return 0;
  if (biased >= 0x7FF) return kInf;
  return y * std::bit_cast<double>(static_cast<std::uint64_t>(biased) << 52);
}

double pow(double x, double y) {
  if (y == 0 || x == 1) return 1;
  if (y == 1) return x;
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0) {
    if (y < 0) return std::signbit(x) && is_odd_int(y) ? -kInf : kInf;
    if (y > 0) return std::signbit(x) && is_odd_int(y) ? x : 0;
  }
  if (std::isinf(y)) {
    if (x == -1) return 1;
    return (std::fabs(x) < 1) == (y > 0) ? 0 : kInf;
  }
  if (std::isinf(x)) {
    if (x < 0) return pow(1 / x, -y);  // Pow(-0, -y)
    return y < 0 ? 0 : kInf;
  }
  if (y == 0.5) return std::sqrt(x);
  if (y == -0.5) return 1 / std::sqrt(x);

  double yi = 0;
  double yf = std::modf(std::fabs(y), &yi);
  if (yf != 0 && x < 0) return kNaN;
  if (yi >= 9223372036854775808.0) {  // a huge even integer: overflow or underflow
    if (x == -1) return 1;
    return (std::fabs(x) < 1) == (y > 0) ? 0 : kInf;
  }

  // The answer is a1 * 2^ae.
  double a1 = 1.0;
  std::int64_t ae = 0;
  if (yf != 0) {
    if (yf > 0.5) {
      yf -= 1;
      yi += 1;
    }
    a1 = exp(yf * log(x));
  }
  // Times x^yi by repeated squaring, keeping the powers of two apart in xe.
  int frexp_exponent = 0;
  double x1 = std::frexp(x, &frexp_exponent);
  std::int64_t xe = frexp_exponent;
  for (auto i = static_cast<std::int64_t>(yi); i != 0; i >>= 1) {
    if (xe < -(1 << 12) || (1 << 12) < xe) {
      ae += xe;  // certain overflow or underflow: ldexp gets it right
      break;
    }
    if ((i & 1) == 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe -= 1;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  // Go's Ldexp rounds once, as std::ldexp does; clamp the exponent so int cannot overflow.
  constexpr std::int64_t kFar = 1 << 16;
  return std::ldexp(a1, static_cast<int>(ae < -kFar ? -kFar : (ae > kFar ? kFar : ae)));
}

}  // namespace hpsearch::go
