// PBT (spec 3.10) with hand-derived oracles. Which trials close, which are cloned from whom,
// the lengths and the order of operations are derived by hand below from the spec's rules;
// the random values (request ids, seeds, sampled and explored hyperparameters) come from
// tests/golden/pbt/population4.json, which tests/golden/pbt/derive.py derives from the spec's
// draw rules with numpy's RandomState as Determined's generator (no hpsearch code), and, for
// the explore step alone, from numpy's well-known seed-0 stream.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "hpsearch/config/config.hpp"
#include "hpsearch/methods/pbt.hpp"
#include "hpsearch/searcher/go_math.hpp"
#include "support/golden.hpp"
#include "support/ops.hpp"
#include "support/random_driver.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {

std::string pbt_yaml(const std::string& direction, const std::string& fields) {
  return R"(hyperparameters:
  a: {type: int, minval: 1, maxval: 10}
  x: {type: double, minval: 0, maxval: 1}
searcher:
  name: pbt
  metric: loss
)" + direction +
         fields;
}

const std::string kFields = R"(  population_size: 4
  num_rounds: 3
  length_per_round: 10
  replace_function: {truncate_fraction: 0.5}
  explore_function: {resample_probability: 0.5, perturb_factor: 0.2}
)";

struct GoldenTrial {
  RequestId id;
  std::uint32_t seed = 0;
  nlohmann::json hparams;
  std::optional<std::uint32_t> parent;
};

std::vector<GoldenTrial> golden_population4() {
  std::ifstream in(std::filesystem::path(HPSEARCH_SOURCE_DIR) / "tests" / "golden" / "pbt" /
                   "population4.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  REQUIRE(j.at("seed") == 7);
  std::vector<GoldenTrial> out;
  for (const nlohmann::json& t : j.at("trials")) {
    GoldenTrial g;
    g.id = *RequestId::parse(t.at("request_id").get<std::string>());
    g.seed = t.at("trial_seed").get<std::uint32_t>();
    g.hparams = t.at("hparams");
    if (!t.at("parent").is_null()) g.parent = t.at("parent").get<std::uint32_t>();
    out.push_back(g);
  }
  REQUIRE(out.size() == 8);
  return out;
}

Operation create(const GoldenTrial& t, const std::vector<GoldenTrial>& all) {
  Create c{t.id, t.seed, t.hparams};
  if (t.parent) c.checkpoint = all[*t.parent].id;
  return c;
}

// Operations compared without the dense index (not part of the protocol).
std::vector<nlohmann::json> protocol(const std::vector<Operation>& ops) {
  std::vector<nlohmann::json> out;
  for (const Operation& op : ops) out.push_back(nlohmann::json(op));
  return out;
}

void check_ops(const std::vector<Operation>& got, const std::vector<Operation>& expected) {
  CHECK(protocol(got) == protocol(expected));
}

}  // namespace

TEST_CASE("pbt: a population of 4 over 3 rounds, hand-derived (both directions)") {
  const std::vector<GoldenTrial> g = golden_population4();
  for (const bool smaller : {true, false}) {
    INFO("smaller_is_better " << smaller);
    const ExperimentConfig config =
        parse_config(pbt_yaml(smaller ? "" : "  smaller_is_better: false\n", kFields), "pbt.yaml");
    Searcher s = make_searcher(config.searcher, config.hyperparameters, 7);
    // A metric as reported: larger is better flips the sign, so the ranking is the same.
    const auto m = [&](double canonical) { return smaller ? canonical : -canonical; };
    const auto validate = [&](std::uint32_t t, double metric, std::uint64_t length) {
      return s.handle(ValidationCompleted{g[t].id, m(metric), length});
    };
    const auto created = [&](std::uint32_t t) { CHECK(s.handle(TrialCreated{g[t].id}).empty()); };
    const auto closed = [&](std::uint32_t t) { return s.handle(TrialClosed{g[t].id}); };

    // Initial: 4 x (Create, ValidateAfter(10)), sampled in creation order.
    check_ops(
        s.initial_operations(),
        {create(g[0], g), ValidateAfter{g[0].id, 10}, create(g[1], g), ValidateAfter{g[1].id, 10},
         create(g[2], g), ValidateAfter{g[2].id, 10}, create(g[3], g), ValidateAfter{g[3].id, 10}});
    for (std::uint32_t t = 0; t < 4; ++t) created(t);

    // Round 1: t0 0.4, t1 0.1, t2 0.3, t3 0.2. Nothing until all 4 have reported. Ranked
    // t1, t3, t2, t0; k = int(0.5 x 4) = 2: close the last two (t2, then t0), clone the
    // first two (t1 -> t4, t3 -> t5, each trained 10 from its parent's checkpoint), continue
    // the first P - k = 2 to 2 x 10.
    CHECK(validate(0, 0.4, 10).empty());
    CHECK(validate(1, 0.1, 10).empty());
    CHECK(validate(2, 0.3, 10).empty());
    REQUIRE(g[4].parent == 1u);
    REQUIRE(g[5].parent == 3u);
    check_ops(validate(3, 0.2, 10),
              {Close{g[2].id}, Close{g[0].id}, create(g[4], g), ValidateAfter{g[4].id, 10},
               create(g[5], g), ValidateAfter{g[5].id, 10}, ValidateAfter{g[1].id, 20},
               ValidateAfter{g[3].id, 20}});
    CHECK(s.progress() == doctest::Approx(1.0 / 3));
    CHECK(closed(2).empty());
    CHECK(closed(0).empty());
    created(4);
    created(5);

    // Round 2: t1 0.15, t3 0.05, t4 0.25, t5 0.02. Ranked t5, t3, t1, t4: close t1, t4;
    // clone t5 -> t6 and t3 -> t7; continue t5 (its second round: 20) and t3 (third: 30).
    CHECK(validate(1, 0.15, 20).empty());
    CHECK(validate(3, 0.05, 20).empty());
    CHECK(validate(4, 0.25, 10).empty());
    REQUIRE(g[6].parent == 5u);
    REQUIRE(g[7].parent == 3u);
    check_ops(validate(5, 0.02, 10),
              {Close{g[1].id}, Close{g[4].id}, create(g[6], g), ValidateAfter{g[6].id, 10},
               create(g[7], g), ValidateAfter{g[7].id, 10}, ValidateAfter{g[5].id, 20},
               ValidateAfter{g[3].id, 30}});
    CHECK(closed(1).empty());
    CHECK(closed(4).empty());
    created(6);
    created(7);

    // Round 3, the last: t5 0.01, t3 0.03, t6 0.5, t7 0.04: close all four, ranked
    // (t5, t3, t7, t6); the last close ends the search.
    CHECK(validate(5, 0.01, 20).empty());
    CHECK(validate(3, 0.03, 30).empty());
    CHECK(validate(6, 0.5, 10).empty());
    check_ops(validate(7, 0.04, 10),
              {Close{g[5].id}, Close{g[3].id}, Close{g[7].id}, Close{g[6].id}});
    CHECK(s.progress() == 1.0);
    CHECK(closed(5).empty());
    CHECK(closed(3).empty());
    CHECK(closed(7).empty());
    check_ops(closed(6), {Shutdown{}});
  }
}

TEST_CASE("pbt: an early exit ranks last and is neither closed nor cloned (Determined's case)") {
  // Determined's pbt_test "early exit -- smaller is better": P = 2, 4 rounds, k = 1.
  // t0 0.5 beats t1 0.6 -> t1 closed, t0 cloned (t2) and continued; t0 then exits early
  // (the worst): dropped without a Close, t2 0.1 cloned (t3) and continued; t3 0.2 loses:
  // closed, t2 cloned (t4); final round: t2 and t4 closed. t2 validates at 10, 20 and 30
  // (three rounds), t0 once before its exit, the others once each.
  const ExperimentConfig config = parse_config(pbt_yaml("", R"(  population_size: 2
  num_rounds: 4
  length_per_round: 10
  replace_function: {truncate_fraction: 0.5}
  explore_function: {resample_probability: 0, perturb_factor: 0}
)"),
                                               "pbt.yaml");
  Searcher s = make_searcher(config.searcher, config.hyperparameters, 0);
  std::vector<RequestId> ids;
  const auto take = [&](const std::vector<Operation>& ops) {
    for (const Create& c : all_of_type<Create>(ops)) {
      ids.push_back(c.request_id);
      CHECK(s.handle(TrialCreated{c.request_id}).empty());
    }
    return ops;
  };
  take(s.initial_operations());
  REQUIRE(ids.size() == 2);
  CHECK(s.handle(ValidationCompleted{ids[0], 0.5, 10}).empty());
  std::vector<Operation> ops = take(s.handle(ValidationCompleted{ids[1], 0.6, 10}));
  REQUIRE(ids.size() == 3);
  check_ops(ops, {Close{ids[1]},
                  Create{ids[2], only_create(ops).trial_seed, only_create(ops).hparams, ids[0]},
                  ValidateAfter{ids[2], 10}, ValidateAfter{ids[0], 20}});
  // Perturb factor 0 and no resampling: the clone keeps its parent's values.
  CHECK(only_create(ops).hparams == nlohmann::json(s.method().state()["trials"][0]["hparams"]));
  CHECK(s.handle(TrialClosed{ids[1]}).empty());
  CHECK(s.handle(TrialExitedEarly{ids[0], ExitedReason::kErrored}).empty());
  CHECK(s.handle(TrialClosed{ids[0]}).empty());
  ops = take(s.handle(ValidationCompleted{ids[2], 0.1, 10}));
  REQUIRE(ids.size() == 4);
  check_ops(ops, {Create{ids[3], only_create(ops).trial_seed, only_create(ops).hparams, ids[2]},
                  ValidateAfter{ids[3], 10}, ValidateAfter{ids[2], 20}});
  CHECK(s.handle(ValidationCompleted{ids[3], 0.2, 10}).empty());
  ops = take(s.handle(ValidationCompleted{ids[2], 0.1, 20}));
  REQUIRE(ids.size() == 5);
  check_ops(ops, {Close{ids[3]},
                  Create{ids[4], only_create(ops).trial_seed, only_create(ops).hparams, ids[2]},
                  ValidateAfter{ids[4], 10}, ValidateAfter{ids[2], 30}});
  CHECK(s.handle(TrialClosed{ids[3]}).empty());
  CHECK(s.handle(ValidationCompleted{ids[2], 0.1, 30}).empty());
  check_ops(s.handle(ValidationCompleted{ids[4], 0.3, 10}), {Close{ids[2]}, Close{ids[4]}});
  CHECK(s.handle(TrialClosed{ids[2]}).empty());
  check_ops(s.handle(TrialClosed{ids[4]}), {Shutdown{}});
}

TEST_CASE("pbt: ties rank by request id bytes") {
  // All four report the same metric: the ranking is the request ids' byte order.
  const ExperimentConfig config = parse_config(pbt_yaml("", kFields), "pbt.yaml");
  Searcher s = make_searcher(config.searcher, config.hyperparameters, 7);
  const std::vector<GoldenTrial> g = golden_population4();
  s.initial_operations();
  for (std::uint32_t t = 0; t < 4; ++t) CHECK(s.handle(TrialCreated{g[t].id}).empty());
  // Byte order of the golden ids (derive.py): t2 44.., t0 43.. -> 43 < 44 < 48 < fa:
  // t0 (43963b70), t2 (4404e2ad), t1 (486e4980), t3 (fae8c349).
  for (std::uint32_t t = 0; t < 3; ++t) {
    CHECK(s.handle(ValidationCompleted{g[t].id, 1.0, 10}).empty());
  }
  const std::vector<Operation> ops = s.handle(ValidationCompleted{g[3].id, 1.0, 10});
  const auto closes = all_of_type<Close>(ops);
  REQUIRE(closes.size() == 2);
  CHECK(closes[0].request_id == g[1].id);
  CHECK(closes[1].request_id == g[3].id);
  const auto creates = all_of_type<Create>(ops);
  REQUIRE(creates.size() == 2);
  CHECK(creates[0].checkpoint == g[0].id);
  CHECK(creates[1].checkpoint == g[2].id);
}

TEST_CASE("pbt: explore, hand-derived from numpy's seed-0 stream") {
  // numpy.random.RandomState(0).random_sample(): 0.5488, 0.7152, 0.6028, 0.5449, 0.4237,
  // 0.6459, 0.4376, 0.8918, 0.9637, 0.3834 (Determined's UnitInterval, spec 1.1). Each
  // hyperparameter in name order draws u1 (resample if < r) then u2 (decrease if < 0.5):
  // cat (0.5488, 0.7152 up), const (0.6028, 0.5449 up), double (0.4237, 0.6459 up),
  // int (0.4376, 0.8918 up), log (0.9637, 0.3834 down). Determined's TestPBTExplore space.
  const HyperparameterSpace space(std::vector<NamedHyperparameter>{
      {"cat", CategoricalHp{{0, 1, 2, 3, 4, 5, 6}}},
      {"const", ConstHp{"val"}},
      {"double", DoubleHp{0, 100, std::nullopt}},
      {"int", IntHp{0, 100, std::nullopt}},
      {"log", LogHp{-4, -2, 10, std::nullopt}},
  });
  const nlohmann::json sample{
      {"cat", 3}, {"const", "val"}, {"double", 50.0}, {"int", 50}, {"log", 0.001}};
  SUBCASE("no resampling, no perturbing: unchanged") {
    Rng rng(0);
    CHECK(pbt_explore(sample, space, PbtConfig{}, rng) == sample);
  }
  SUBCASE("perturb 0.5: double 50 x 1.5, int ceil(50 x 1.5), log 0.001 x 0.5") {
    Rng rng(0);
    const nlohmann::json out = pbt_explore(sample, space, PbtConfig{.perturb_factor = 0.5}, rng);
    CHECK(out == nlohmann::json{
                     {"cat", 3}, {"const", "val"}, {"double", 75.0}, {"int", 75}, {"log", 0.0005}});
  }
  SUBCASE("perturb 0.5 beyond the range: double 80 x 1.5 and int 90 x 1.5 clamp to 100") {
    Rng rng(0);
    nlohmann::json high = sample;
    high["double"] = 80.0;
    high["int"] = 90;
    high["log"] = 0.001;
    const nlohmann::json out = pbt_explore(high, space, PbtConfig{.perturb_factor = 0.5}, rng);
    CHECK(out ==
          nlohmann::json{
              {"cat", 3}, {"const", "val"}, {"double", 100.0}, {"int", 100}, {"log", 0.0005}});
  }
  SUBCASE("int decrease floors: 3 x 0.5 = 1.5 -> 1 (log's u2 0.3834 decreases too)") {
    const HyperparameterSpace one(
        std::vector<NamedHyperparameter>{{"cat", CategoricalHp{{0, 1}}},
                                         {"const", ConstHp{1}},
                                         {"double", ConstHp{1}},
                                         {"int", ConstHp{1}},
                                         {"log", IntHp{0, 100, std::nullopt}}});
    Rng rng(0);
    const nlohmann::json in{{"cat", 0}, {"const", 1}, {"double", 1}, {"int", 1}, {"log", 3}};
    const nlohmann::json out = pbt_explore(in, one, PbtConfig{.perturb_factor = 0.5}, rng);
    CHECK(out.at("log") == 1);
  }
  SUBCASE("resample probability 1: every value drawn anew after its u1") {
    // Raw Bits32 of seed 0 (spec 1.1): 2357136044, 2546248239 (u1 of cat), 3071714933 & 7 = 5
    // <= 6 -> cat = 5 (Intn(7)); const draws u1 only; double: u1, then 100 x UnitInterval =
    // 84.72517387841253; int: u1, then Intn(101) = 36; log: u1, then the exponent
    // -4 + 2 x UnitInterval = -3.886574045365114 and 10^that with Go's Pow. Values from the
    // same stream replayed in numpy (derive.py's GoRng).
    Rng rng(0);
    const nlohmann::json out =
        pbt_explore(sample, space, PbtConfig{.resample_probability = 1}, rng);
    CHECK(out.at("cat") == 5);
    CHECK(out.at("const") == "val");
    CHECK(out.at("double").get<double>() == 84.72517387841253);
    CHECK(out.at("int") == 36);
    CHECK(out.at("log").get<double>() == go::pow(10, -3.886574045365114));
  }
}

TEST_CASE("pbt: the fields are validated with precise errors") {
  const auto error = [](const std::string& fields) {
    try {
      (void)parse_config(pbt_yaml("", fields), "pbt.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string round = "  num_rounds: 3\n  length_per_round: 10\n";
  const std::string functions =
      "  replace_function: {truncate_fraction: 0.2}\n"
      "  explore_function: {resample_probability: 0.2, perturb_factor: 0.2}\n";
  CHECK(error("  population_size: 0\n" + round + functions).find("searcher.population_size") !=
        std::string::npos);
  CHECK(error("  population_size: 4\n  num_rounds: 0\n  length_per_round: 10\n" + functions)
            .find("searcher.num_rounds") != std::string::npos);
  CHECK(error("  population_size: 4\n  num_rounds: 2\n  length_per_round: 0\n" + functions)
            .find("searcher.length_per_round") != std::string::npos);
  const std::string truncate =
      error("  population_size: 4\n" + round +
            "  replace_function: {truncate_fraction: 0.6}\n"
            "  explore_function: {resample_probability: 0.2, perturb_factor: 0.2}\n");
  CHECK(truncate.find("searcher.replace_function.truncate_fraction") != std::string::npos);
  CHECK(truncate.find("must be a number in [0, 0.5], got 0.6") != std::string::npos);
  CHECK(error("  population_size: 4\n" + round +
              "  replace_function: {truncate_fraction: 0.2}\n"
              "  explore_function: {resample_probability: -0.1, perturb_factor: 0.2}\n")
            .find("searcher.explore_function.resample_probability: must be a number in [0, 1], "
                  "got -0.1") != std::string::npos);
  CHECK(
      error("  population_size: 4\n" + round +
            "  replace_function: {truncate_fraction: 0.2}\n"
            "  explore_function: {resample_probability: 0.2, perturb_factor: 1.1}\n")
          .find("searcher.explore_function.perturb_factor: must be a number in [0, 1], got 1.1") !=
      std::string::npos);
  CHECK(error("  population_size: 4\n" + round +
              "  explore_function: {resample_probability: 0.2, perturb_factor: 0.2}\n")
            .find("replace_function") != std::string::npos);
  CHECK(error("  population_size: 4\n" + round +
              "  replace_function: {truncate_fraction: 0.2, bogus: 1}\n"
              "  explore_function: {resample_probability: 0.2, perturb_factor: 0.2}\n")
            .find("bogus") != std::string::npos);
}

TEST_CASE("pbt: Determined 0.17's e2e fixture no_op/pbt.yaml loads") {
  // e2e_tests/tests/fixtures/no_op/pbt.yaml (Determined 0.17), its searcher section verbatim.
  const ExperimentConfig c = parse_config(R"(description: noop_pbt
hyperparameters:
  global_batch_size: 32
  metrics_progression: decreasing
  metrics_base:
    type: double
    minval: 0.5
    maxval: 0.9
  metrics_sigma: 0
searcher:
  name: pbt
  metric: validation_error
  population_size: 9
  length_per_round:
    batches: 600
  num_rounds: 3
  replace_function:
    truncate_fraction: 0.2
  explore_function:
    resample_probability: 0.2
    perturb_factor: 0.2
reproducibility:
  experiment_seed: 999
max_restarts: 0
entrypoint: model_def:NoOpTrial
)",
                                          "pbt.yaml");
  const auto& pbt = std::get<PbtConfig>(c.searcher.method);
  CHECK(pbt.population_size == 9);
  CHECK(pbt.num_rounds == 3);
  CHECK(pbt.length_per_round == 600);
  CHECK(pbt.truncate_fraction == 0.2);
  // The longest a trial trains: a member that survives all 3 rounds.
  CHECK(c.searcher.max_length.units == 1800);
  CHECK(c.searcher.max_length.unit == "batches");
}

TEST_CASE("pbt: the checkpoint field crosses the protocol both ways") {
  const RequestId parent = *RequestId::parse("43963b70-d3d0-4cfa-9703-35b96736a174");
  const RequestId child = *RequestId::parse("486e4980-59d1-4416-aef1-71122afa5b6b");
  Create c{child, 5, nlohmann::json{{"a", 1}}};
  const nlohmann::json fresh = Operation(c);
  CHECK_FALSE(fresh.contains("checkpoint"));  // answers without a parent are unchanged
  c.checkpoint = parent;
  const nlohmann::json warm = Operation(c);
  CHECK(warm.at("checkpoint") == "43963b70-d3d0-4cfa-9703-35b96736a174");
  CHECK(warm.get<Operation>() == Operation(c));
  nlohmann::json null_parent = fresh;
  null_parent["checkpoint"] = nullptr;
  CHECK(std::get<Create>(null_parent.get<Operation>()).checkpoint == std::nullopt);
  nlohmann::json bad = fresh;
  bad["checkpoint"] = 17;
  CHECK_THROWS_WITH_AS(
      (void)bad.get<Operation>(),
      "create operation: checkpoint must be null or the parent trial's request id (a UUID "
      "string), got 17",
      ProtocolError);
}

TEST_CASE("pbt: a NaN metric ranks last, after an early exit") {
  // Population 3, k = int(0.34 x 3) = 1: t0 reports NaN (a diverged trial: +infinity), t1
  // exits early (MaxFloat64), t2 reports 5. Ranked t2, t1, t0: t0 is closed, t2 cloned.
  const ExperimentConfig config = parse_config(pbt_yaml("", R"(  population_size: 3
  num_rounds: 2
  length_per_round: 10
  replace_function: {truncate_fraction: 0.34}
  explore_function: {resample_probability: 0, perturb_factor: 0}
)"),
                                               "pbt.yaml");
  Searcher s = make_searcher(config.searcher, config.hyperparameters, 0);
  std::vector<RequestId> ids;
  for (const Create& c : all_of_type<Create>(s.initial_operations())) {
    ids.push_back(c.request_id);
    CHECK(s.handle(TrialCreated{c.request_id}).empty());
  }
  REQUIRE(ids.size() == 3);
  CHECK(s.handle(ValidationCompleted{ids[0], std::nan(""), 10}).empty());
  CHECK(s.handle(TrialExitedEarly{ids[1], ExitedReason::kErrored}).empty());
  const std::vector<Operation> ops = s.handle(ValidationCompleted{ids[2], 5, 10});
  REQUIRE(all_of_type<Close>(ops).size() == 1);
  CHECK(all_of_type<Close>(ops)[0].request_id == ids[0]);
  CHECK(only_create(ops).checkpoint == ids[2]);
}

TEST_CASE("pbt: the grid sampler caps the population at the grid's size") {
  const ExperimentConfig config = parse_config(R"(hyperparameters:
  a: {type: int, minval: 1, maxval: 10, count: 3}
searcher:
  name: pbt
  metric: loss
  population_size: 8
  num_rounds: 2
  length_per_round: 10
  replace_function: {truncate_fraction: 0.5}
  explore_function: {resample_probability: 0, perturb_factor: 0.5}
  sampler: grid
)",
                                               "pbt.yaml");
  Searcher s = make_searcher(config.searcher, config.hyperparameters, 0);
  CHECK(all_of_type<Create>(s.initial_operations()).size() == 3);
}
