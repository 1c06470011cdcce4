#include "hpsearch/searcher/request_id.hpp"

#include <cstring>

namespace hpsearch {
namespace {
constexpr char kHexDigits[] = "0123456789abcdef";

bool is_dash_position(std::size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string RequestId::to_string() const {
  std::string text;
  append_to(text);
  return text;
}

void RequestId::append_to(std::string& out) const {
  char text[36];
  std::size_t at = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
    text[at++] = kHexDigits[bytes[i] >> 4];
    text[at++] = kHexDigits[bytes[i] & 0x0fU];
  }
  out.append(text, sizeof text);
}

std::optional<RequestId> RequestId::parse(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  RequestId id;
  std::size_t nibble = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_dash_position(i)) {
      if (text[i] != '-') return std::nullopt;
      continue;
    }
    const int value = hex_value(text[i]);
    if (value < 0) return std::nullopt;
    std::uint8_t& byte = id.bytes[nibble / 2];
    byte = static_cast<std::uint8_t>(nibble % 2 == 0 ? value << 4 : byte | value);
    ++nibble;
  }
  return id;
}

std::size_t RequestIdHash::operator()(const RequestId& id) const noexcept {
  // The bytes are uniformly random (they come from MT19937), so folding two words is enough.
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  std::memcpy(&low, id.bytes.data(), 8);
  std::memcpy(&high, id.bytes.data() + 8, 8);
  return static_cast<std::size_t>(low ^ (high * 0x9e3779b97f4a7c15ULL));
}

}  // namespace hpsearch
