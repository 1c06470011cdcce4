#include "hpsearch/config/command_line.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace hpsearch {

std::optional<double> parse_finite_number(std::string_view text) {
  // std::from_chars for double is in GCC 12's library, but rejects a leading '+'; strtod's
  // forms are what users type.
  const std::string copy(text);
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy.front()))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t low,
                                            std::uint64_t high) {
  std::uint64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() ||
      value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

std::uint64_t parse_count(const std::string& option, const std::string& text, std::uint64_t low,
                          std::uint64_t high) {
  const std::optional<std::uint64_t> value = parse_unsigned(text, low, high);
  if (!value) {
    throw UsageError(option + ": must be an integer between " + std::to_string(low) + " and " +
                     std::to_string(high) + ", got '" + text + "'");
  }
  return *value;
}

double parse_nonnegative(const std::string& option, const std::string& text) {
  const std::optional<double> value = parse_finite_number(text);
  if (!value || *value < 0)
    throw UsageError(option + ": must be a number >= 0, got '" + text + "'");
  return *value;
}

}  // namespace hpsearch
