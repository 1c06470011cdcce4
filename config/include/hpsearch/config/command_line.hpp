#pragma once
/// \file
/// Values given on a command line, read strictly: the whole text must be the number (no
/// trailing characters, no sign on unsigned values). The programs word their own errors.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hpsearch {

/// A finite number ("1.5", "2e3"); nullopt for anything else.
[[nodiscard]] std::optional<double> parse_finite_number(std::string_view text);

/// An unsigned integer in [low, high]; nullopt for anything else.
[[nodiscard]] std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t low,
                                                          std::uint64_t high);

/// A bad command line: the programs print it with a pointer to their help and exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An integer option in [low, high]. Throws UsageError "OPTION: must be an integer between
/// LOW and HIGH, got 'TEXT'".
[[nodiscard]] std::uint64_t parse_count(const std::string& option, const std::string& text,
                                        std::uint64_t low, std::uint64_t high);

/// A number option >= 0. Throws UsageError "OPTION: must be a number >= 0, got 'TEXT'".
[[nodiscard]] double parse_nonnegative(const std::string& option, const std::string& text);

}  // namespace hpsearch
