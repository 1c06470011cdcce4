#include "hpsearch/searcher/hyperparameters.hpp"

#include <algorithm>
#include <cmath>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/go_math.hpp"

namespace hpsearch {

HyperparameterSpace::HyperparameterSpace(std::vector<NamedHyperparameter> entries)
    : entries_(std::move(entries)) {
  std::sort(
      entries_.begin(), entries_.end(),
      [](const NamedHyperparameter& a, const NamedHyperparameter& b) { return a.name < b.name; });
}

bool operator==(const HyperparameterSpace& a, const HyperparameterSpace& b) {
  return a.entries_ == b.entries_;
}

namespace {
struct Sampler {
  Rng& rng;

  nlohmann::json operator()(const ConstHp& hp) const { return hp.value; }
  nlohmann::json operator()(const IntHp& hp) const {
    // Unsigned span: minval + below(maxval - minval + 1) without signed overflow.
    const std::uint64_t span =
        static_cast<std::uint64_t>(hp.maxval) - static_cast<std::uint64_t>(hp.minval);
    const std::uint64_t offset = rng.bits_limit(span);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(hp.minval) + offset);
  }
  nlohmann::json operator()(const DoubleHp& hp) const { return rng.uniform(hp.minval, hp.maxval); }
  nlohmann::json operator()(const LogHp& hp) const {
    return go::pow(hp.base, rng.uniform(hp.minval, hp.maxval));
  }
  nlohmann::json operator()(const CategoricalHp& hp) const {
    HPSEARCH_ASSERT(!hp.values.empty(), "cannot sample an empty categorical");
    return hp.values[rng.below(hp.values.size())];
  }
  nlohmann::json operator()(const HyperparameterSpace& space) const { return sample(space, rng); }
};
}  // namespace

nlohmann::json sample(const HyperparameterSpace& space, Rng& rng) {
  nlohmann::json out = nlohmann::json::object();
  for (const NamedHyperparameter& entry : space.entries()) {
    out[entry.name] = std::visit(Sampler{rng}, entry.value);
  }
  return out;
}

nlohmann::json sample_one(const Hyperparameter& hp, Rng& rng) {
  return std::visit(Sampler{rng}, hp);
}

}  // namespace hpsearch
