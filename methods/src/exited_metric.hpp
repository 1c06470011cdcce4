#pragma once
// What an early-exited trial reports in Determined's ASHA and PBT (MaxFloat64, never negated):
// it ranks last.

#include <limits>

namespace hpsearch::method_detail {

inline constexpr double kExitedMetric = std::numeric_limits<double>::max();

}  // namespace hpsearch::method_detail
