#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

Create sample_create(SearchContext& ctx) {
  // Determined evaluates the sample first (it is an argument of NewCreate), then the id, then
  // the seed; the draw order is part of the seed -> trials contract.
  nlohmann::json hparams = ctx.sampler.propose(ctx.rng, ctx.next_trial);
  return make_create(ctx, std::move(hparams), std::nullopt);
}

Create make_create(SearchContext& ctx, nlohmann::json hparams,
                   std::optional<RequestId> checkpoint) {
  Create create;
  create.hparams = std::move(hparams);
  create.request_id = ctx.rng.request_id();
  create.trial_seed = ctx.rng.trial_seed();
  create.checkpoint = checkpoint;
  create.trial_index = ctx.next_trial++;
  return create;
}

void append_full_trial(std::vector<Operation>& ops, Create create, std::uint64_t length) {
  const RequestId id = create.request_id;
  ops.emplace_back(std::move(create));
  ops.emplace_back(ValidateAfter{id, length});
  ops.emplace_back(Close{id});
}

}  // namespace hpsearch
