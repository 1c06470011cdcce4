// Real Determined experiment configs (docs/benchmarks.md section 5) and the shipped examples.
#include <doctest/doctest.h>

#include <filesystem>

#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/grid.hpp"

using namespace hpsearch;

TEST_CASE("real configs: deepspeed gpt_neox grid (nested categoricals, legacy max_length)") {
  const ExperimentConfig c = parse_config(R"(hyperparameters:
  search_world_size: true
  deepspeed: true
  conf_dir: /gpt-neox/configs
  conf_file:
      - 2-7B.yml
      - determined_cluster.yml
  overwrite_values:
    fp16:
      fp16: true
      enabled: true
      loss_scale: 2
    log_interval: 10
    pipe_parallel_size:
      type:  categorical
      vals:
        - 1
        - 2
        - 4
    model_parallel_size:
      type:  categorical
      vals:
        - 1
        - 2
        - 4
    train_micro_batch_size_per_gpu:
      type:  categorical
      vals:
        - 2
        - 4
        - 8
    train_batch_size: 512
  wandb_group: null
  wandb_team: null
  user_script: null
  eval_tasks: null
searcher:
  name: grid
  metric: tflops
  smaller_is_better: false
  max_length:
    batches: 100
  max_concurrent_trials: 4
min_validation_period:
    batches: 10
)",
                                          "hp_search.yaml");
  const Grid grid(c.hyperparameters);
  CHECK(grid.size() == 27);
  const nlohmann::json first = grid.point(0);
  CHECK(first["conf_file"] == nlohmann::json({"2-7B.yml", "determined_cluster.yml"}));
  CHECK(first["overwrite_values"]["fp16"] ==
        nlohmann::json({{"fp16", true}, {"enabled", true}, {"loss_scale", 2}}));
  CHECK(first["overwrite_values"]["model_parallel_size"] == 1);
  CHECK(first["wandb_group"].is_null());
  CHECK(grid.point(26)["overwrite_values"]["train_micro_batch_size_per_gpu"] == 8);
  CHECK(std::get<GridConfig>(c.searcher.method).max_concurrent_trials == 4);
}

TEST_CASE("real configs: mnist adaptive search, v0.38 form") {
  const ExperimentConfig c = parse_config(R"(name: mnist_pytorch_adaptive_search
hyperparameters:
  learning_rate:
    type: double
    minval: .0001
    maxval: 1.0
  n_filters1:
    type: int
    minval: 8
    maxval: 64
searcher:
  name: adaptive_asha
  metric: validation_loss
  smaller_is_better: true
  max_trials: 16
  time_metric: batches
  max_time: 937  # 60,000 training images with batch size 64
entrypoint: python3 train.py --epochs 1
)",
                                          "adaptive.yaml");
  CHECK(c.searcher.max_length == Length{937, "batches"});
  CHECK(std::get<DoubleHp>(c.hyperparameters.entries()[0].value).minval == 0.0001);
  CHECK(c.entrypoint == nlohmann::json("python3 train.py --epochs 1"));
}

TEST_CASE("real configs: cifar10 adaptive (era 2: records_per_epoch, epochs)") {
  const ExperimentConfig c = parse_config(R"(hyperparameters:
  learning_rate:
    type: log
    minval: -5.0
    maxval: 1.0
    base: 10.0
  learning_rate_decay: 1e-6
  global_batch_size:
    type: int
    minval: 16
    maxval: 64
records_per_epoch: 50000
searcher:
  name: adaptive_asha
  metric: validation_error
  max_length:
    epochs: 32
  max_trials: 16
min_validation_period:
  epochs: 1
)",
                                          "adaptive.yaml");
  CHECK(c.searcher.max_length == Length{32, "epochs"});
  // Sorted: global_batch_size, learning_rate, learning_rate_decay. YAML 1.2 reads 1e-6 as a
  // number.
  CHECK(c.hyperparameters.entries()[2].name == "learning_rate_decay");
  CHECK(std::get<ConstHp>(c.hyperparameters.entries()[2].value).value == 1e-6);
}

TEST_CASE("real configs: darts adaptive with max_rungs and resources") {
  const ExperimentConfig c = parse_config(R"(resources:
  slots_per_trial: 1
  max_slots: 16
scheduling_unit: 100
records_per_epoch: 50000
min_checkpoint_period:
  epochs: 25
searcher:
  name: adaptive_asha
  metric: top1_accuracy
  smaller_is_better: false
  max_length:
    batches: 156200
  max_trials: 1000
  mode: aggressive
  max_rungs: 4
  max_concurrent_trials: 16
)",
                                          "adaptive.yaml");
  const auto& method = std::get<AdaptiveAshaConfig>(c.searcher.method);
  CHECK(method.mode == AdaptiveMode::kAggressive);
  CHECK(method.max_rungs == 4);
  CHECK(method.max_trials == 1000);
  CHECK_FALSE(c.searcher.smaller_is_better);
}

TEST_CASE("real configs: v0.38 single without max_length: the script decides how long") {
  const ExperimentConfig c = parse_config(R"(name: mnist_pytorch_const
hyperparameters:
  learning_rate: 1.0
searcher:
  name: single
  metric: validation_loss
  smaller_is_better: true
entrypoint: python3 train.py --epochs 1
)",
                                          "const.yaml");
  CHECK(c.searcher.trial_decides_length);
  CHECK(std::holds_alternative<SingleConfig>(c.searcher.method));
}

TEST_CASE("examples: every shipped example config loads") {
  const std::filesystem::path examples = std::filesystem::path(HPSEARCH_SOURCE_DIR) / "examples";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    CHECK_NOTHROW((void)load_config(entry.path()));
    ++loaded;
  }
  CHECK(loaded >= 5);
}
