#pragma once
/// \file
/// Outside text shown in a message.

#include <string>
#include <string_view>

namespace hpsearch {

/// `text` with its control characters as \xNN: a NUL would end what() early and an escape
/// sequence would reach the user's terminal, so that a message built from outside input is
/// always one whole, printable line.
[[nodiscard]] inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0x0fU];
  }
  return out;
}

}  // namespace hpsearch
