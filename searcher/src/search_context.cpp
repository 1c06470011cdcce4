#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

Create sample_create(SearchContext& ctx) {
  // Determined evaluates the sample first (it is an argument of NewCreate), then the id, then
  // the seed; the draw order is part of the seed -> trials contract.
  nlohmann::json hparams = sample(ctx.space, ctx.rng);
  return create_with(ctx.rng, std::move(hparams));
}

Create create_with(Rng& rng, nlohmann::json hparams) {
  Create create;
  create.hparams = std::move(hparams);
  create.request_id = rng.request_id();
  create.trial_seed = rng.trial_seed();
  return create;
}

}  // namespace hpsearch
