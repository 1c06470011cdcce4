#pragma once
/// \file
/// Go's `math.Log`, `math.Exp` and `math.Pow`, bit for bit as Determined's master computes
/// them on amd64 (Go's assembly `Log` and `Exp`, the latter on its AVX2+FMA path, which every
/// x86-64 server since 2013 takes; Go's portable `Pow` on top of them). Determined draws log
/// hyperparameters, grid log axes, ASHA rung lengths and adaptive ASHA's bracket sizes with
/// these functions; the C library's results differ in the last bits often enough to change
/// samples and rung counts (`int(Log(243)/Log(3))` is 5 in Go and 4 with glibc).
///
/// Use them only where Determined computes with Go; elsewhere (workloads, plots) the C
/// library's correctly rounded functions are the better choice. Checked against 9,920 values
/// recorded from Go (tests/golden/determined/go-math.jsonl).

namespace hpsearch::go {

/// `math.Log(x)`: natural logarithm. Log(+Inf) = +Inf, Log(0) = -Inf, Log(x < 0) = NaN,
/// Log(NaN) = NaN.
[[nodiscard]] double log(double x);

/// `math.Exp(x)`: e^x. Exp(+Inf) = +Inf, Exp(NaN) = NaN; results below the normal range are 0
/// and above it +Inf (as Go's amd64 code does, with no subnormal results).
[[nodiscard]] double exp(double x);

/// `math.Pow(x, y)`: integer powers by repeated squaring, the fractional part of y through
/// Exp(yf * Log(x)), with Go's special cases (IEEE 754-2008 section 9.2.1).
[[nodiscard]] double pow(double x, double y);

}  // namespace hpsearch::go
