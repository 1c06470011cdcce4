#pragma once
/// \file
/// RequestId: the 16-byte identity of a trial request (a UUIDv4 drawn from the search RNG).

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace hpsearch {

/// A trial's request id: 16 raw bytes, shown as a lowercase canonical UUID string only at the
/// JSON boundary. Ordering compares the raw bytes lexicographically (Determined's
/// `RequestID.Before`), which is what deterministic tie-breaks use.
struct RequestId {
  std::array<std::uint8_t, 16> bytes{};

  /// Lowercase canonical form, e.g. `ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8`.
  [[nodiscard]] std::string to_string() const;
  /// The same 36 characters, appended to `out` (the journal's writer, without a string apiece).
  void append_to(std::string& out) const;

  /// Parses the canonical 8-4-4-4-12 hexadecimal form (either case); nullopt otherwise.
  [[nodiscard]] static std::optional<RequestId> parse(std::string_view text);

  friend auto operator<=>(const RequestId&, const RequestId&) = default;
  /// Two 64-bit comparisons (the defaulted form calls memcmp, which hash lookups feel).
  friend bool operator==(const RequestId& a, const RequestId& b) {
    std::uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    std::memcpy(&a0, a.bytes.data(), 8);
    std::memcpy(&a1, a.bytes.data() + 8, 8);
    std::memcpy(&b0, b.bytes.data(), 8);
    std::memcpy(&b1, b.bytes.data() + 8, 8);
    return a0 == b0 && a1 == b1;
  }
};

/// Hash for unordered lookups (never used where iteration order matters).
struct RequestIdHash {
  std::size_t operator()(const RequestId& id) const noexcept;
};

}  // namespace hpsearch
