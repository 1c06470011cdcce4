#pragma once
// What the fuzz targets share: reading decisions off an input, and stopping loudly when a
// contract is broken. libFuzzer saves the input of any abort; the replay driver names it.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::fuzz {

/// Prints which contract was broken and the details, then aborts.
[[noreturn]] inline void broken(std::string_view contract, std::string_view detail) {
  std::cerr << "fuzz contract broken: " << contract << '\n' << detail << '\n';
  std::abort();
}

/// Small decisions read off bytes, front to back. After the last byte every decision is 0, so
/// any input is a complete recipe and a shorter one is a simpler recipe.
class Choices {
 public:
  explicit Choices(std::string_view bytes) : bytes_(bytes) {}

  /// A number in [0, n); n >= 1.
  [[nodiscard]] std::size_t below(std::size_t n) {
    if (pos_ >= bytes_.size()) return 0;
    return static_cast<unsigned char>(bytes_[pos_++]) % n;
  }
  [[nodiscard]] bool exhausted() const { return pos_ >= bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

/// Removes the first line from `text` and returns it, without its '\n'.
[[nodiscard]] inline std::string_view take_line(std::string_view& text) {
  const std::size_t end = text.find('\n');
  const std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

/// Whether an error message shows the JSON library's own wording ("[json.exception.type_error
/// ..."), which a user must never see. `input` is what the message may quote (the line, and its
/// strings decoded): a message is not blamed for echoing what the input itself held.
[[nodiscard]] inline bool leaks_json_internals(std::string_view message, std::string_view input) {
  constexpr std::string_view kMark = "[json.exception";
  return message.find(kMark) != std::string_view::npos &&
         input.find(kMark) == std::string_view::npos;
}

/// A JSON value's text with every string decoded (what a message may quote of it).
[[nodiscard]] inline std::string decoded(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// A line and, if it is JSON, its decoded text.
[[nodiscard]] inline std::string quotable(std::string_view line) {
  const nlohmann::json parsed = parse_json_or_discarded(line);
  return std::string(line) + '\n' + (parsed.is_discarded() ? "" : decoded(parsed));
}

/// The input as text.
[[nodiscard]] inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data),
          size};  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): bytes as chars
}

}  // namespace hpsearch::fuzz
