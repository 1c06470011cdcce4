#include "hpsearch/searcher/rng.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {
namespace {
constexpr std::size_t kStateWords = 624;
constexpr std::uint64_t kMax32 = 0xffffffffULL;

// Smallest all-ones mask that covers `limit`.
std::uint64_t covering_mask(std::uint64_t limit) {
  std::uint64_t mask = limit;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  return mask;
}
}  // namespace

Rng::Rng(std::uint32_t seed) : engine_(seed) {}

std::uint32_t Rng::bits32() {
  return static_cast<std::uint32_t>(engine_());
}

std::uint64_t Rng::bits64() {
  const std::uint64_t high = bits32();
  return (high << 32) | bits32();
}

std::uint64_t Rng::bits_limit(std::uint64_t limit) {
  if (limit == 0) return 0;
  const std::uint64_t mask = covering_mask(limit);
  for (;;) {
    const std::uint64_t value = limit <= kMax32 ? (bits32() & mask) : (bits64() & mask);
    if (value <= limit) return value;
  }
}

std::uint64_t Rng::below(std::uint64_t n) {
  return bits_limit(n - 1);
}  // n == 0 wraps, as in Go

std::int64_t Rng::int64(std::int64_t lo, std::int64_t hi) {
  HPSEARCH_ASSERT(lo < hi, "Rng::int64 needs lo < hi");
  // The span is computed in unsigned arithmetic so that the full int64 range cannot overflow.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + bits_limit(span - 1));
}

double Rng::unit_interval() {
  const std::uint32_t high = bits32() >> 5;
  const std::uint32_t low = bits32() >> 6;
  return (static_cast<double>(high) * 67108864.0 + static_cast<double>(low)) / 9007199254740992.0;
}

double Rng::uniform(double lo, double hi) {
  HPSEARCH_ASSERT(lo < hi, "Rng::uniform needs lo < hi");
  return lo + (hi - lo) * unit_interval();
}

RequestId Rng::request_id() {
  RequestId id;
  for (std::size_t word = 0; word < 4; ++word) {
    const std::uint32_t bits = bits32();
    for (std::size_t byte = 0; byte < 4; ++byte) {
      id.bytes[word * 4 + byte] = static_cast<std::uint8_t>(bits >> (8 * byte));
    }
  }
  id.bytes[6] = static_cast<std::uint8_t>((id.bytes[6] & 0x0fU) | 0x40U);
  id.bytes[8] = static_cast<std::uint8_t>((id.bytes[8] & 0x3fU) | 0x80U);
  return id;
}

std::uint32_t Rng::trial_seed() {
  return static_cast<std::uint32_t>(bits_limit(0x7fffffffULL));
}

void to_json(nlohmann::json& j, const Rng& rng) {
  // Boost prints the 624 most recent state words, rewinding when it is inside a block; that is
  // exactly numpy's key at pos 624, so the snapshot never needs another position.
  std::ostringstream out;
  out << rng.engine_;
  std::istringstream in(out.str());
  nlohmann::json key = nlohmann::json::array();
  for (std::size_t i = 0; i < kStateWords; ++i) {
    std::uint32_t word = 0;
    in >> word;
    key.push_back(word);
  }
  j = nlohmann::json{{"key", std::move(key)}, {"pos", kStateWords}};
}

void from_json(const nlohmann::json& j, Rng& rng) {
  if (!j.is_object() || !j.contains("key") || !j.contains("pos")) {
    throw ProtocolError("rng: expected an object {\"key\": [624 integers], \"pos\": 624}");
  }
  const nlohmann::json& key = j.at("key");
  const nlohmann::json& pos = j.at("pos");
  if (!pos.is_number_unsigned() || pos.get<std::uint64_t>() != kStateWords) {
    throw ProtocolError(
        "rng.pos: must be 624 (hpsearch snapshots store the state at a block "
        "boundary), got " +
        pos.dump());
  }
  if (!key.is_array() || key.size() != kStateWords) {
    throw ProtocolError("rng.key: must be an array of 624 integers in [0, 4294967295]");
  }
  std::ostringstream words;
  for (std::size_t i = 0; i < kStateWords; ++i) {
    const nlohmann::json& word = key[i];
    if (!word.is_number_unsigned() || word.get<std::uint64_t>() > kMax32) {
      throw ProtocolError("rng.key[" + std::to_string(i) +
                          "]: must be an integer in [0, 4294967295], got " + word.dump());
    }
    words << (i == 0 ? "" : " ") << word.get<std::uint64_t>();
  }
  std::istringstream in(words.str());
  in >> rng.engine_;
}

}  // namespace hpsearch
