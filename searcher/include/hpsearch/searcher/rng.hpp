#pragma once
/// \file
/// Rng: the single random stream of a search, bit-exact with Determined's `nprand` (a clone of
/// numpy's legacy RandomState), so a seed gives the same request ids, trial seeds and samples.

#include <boost/random/mersenne_twister.hpp>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch {

/// MT19937 (32-bit) plus the draws of spec section 1. Copyable; equal when the future streams
/// are equal. Deterministic: no draw reads anything but the state.
class Rng {
 public:
  /// Seeds as numpy's `RandomState(seed)` does.
  explicit Rng(std::uint32_t seed = 0);

  /// The next 32 tempered bits.
  std::uint32_t bits32();
  /// `(bits32() << 32) | bits32()`: the first draw is the high word.
  std::uint64_t bits64();
  /// A value in [0, limit] by masking and rejection; `limit == 0` draws nothing.
  std::uint64_t bits_limit(std::uint64_t limit);
  /// Go's `Intn(n)`: a value in [0, n). `n == 0` is a full 64-bit draw, as in Determined.
  std::uint64_t below(std::uint64_t n);
  /// A value in [lo, hi). Precondition: lo < hi.
  std::int64_t int64(std::int64_t lo, std::int64_t hi);
  /// A double in [0, 1) from 53 random bits (two draws, the first gives the high 27 bits).
  double unit_interval();
  /// `lo + (hi - lo) * unit_interval()`. Precondition: lo < hi.
  double uniform(double lo, double hi);
  /// A UUIDv4 from 16 little-endian bytes (four draws), version and variant bits set.
  RequestId request_id();
  /// A trial seed in [0, 2^31): one draw masked to 31 bits.
  std::uint32_t trial_seed();

  friend bool operator==(const Rng&, const Rng&) = default;

  /// `{"key":[624 words],"pos":624}`: numpy's state form, always normalised to pos 624.
  friend void to_json(nlohmann::json& j, const Rng& rng);
  /// Reads the form above. Throws ProtocolError if it is malformed or pos is not 624.
  friend void from_json(const nlohmann::json& j, Rng& rng);

 private:
  boost::random::mt19937 engine_;
};

}  // namespace hpsearch
