"""Unit tests of determined.pytorch (the Trial API), all in one interpreter (importing torch is
the slow part). Oracles are derived by hand in the comments.

    /usr/bin/python3 tests/trial_api/trial_api_test.py SOURCE_DIR
"""
import json
import os
import pathlib
import sys
import tempfile
import unittest

source = pathlib.Path(sys.argv.pop(1)).resolve()
sys.path.insert(0, str(source / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
for variable in [v for v in os.environ if v.startswith("HPSEARCH_")]:
    del os.environ[variable]  # off-cluster: these tests never talk to a runner
work = pathlib.Path(tempfile.mkdtemp(prefix="trial-api-unit-"))
os.environ["HOME"] = str(work)  # det.core.init()'s local checkpoints land here, not in a real home

import torch  # noqa: E402
import torch.utils.data as data  # noqa: E402

import determined as det  # noqa: E402
from determined import pytorch  # noqa: E402
from determined.pytorch import _lr_scheduler  # noqa: E402
import onevar_trial  # noqa: E402
import rich_trial  # noqa: E402


def train_locally(trial_class, hparams, length, config=None, aggregation_frequency=1, **fit):
    config = dict(config or {})
    config.setdefault("checkpoint_storage", {"type": "shared_fs", "host_path": str(work / "checkpoints")})
    with pytorch.init(hparams=hparams, exp_conf=config, aggregation_frequency=aggregation_frequency) as context:
        trial = trial_class(context)
        pytorch.Trainer(trial, context).fit(max_length=length, **fit)
    return trial


def latest_checkpoint():
    directories = sorted((work / "checkpoints").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    return directories[-1]


class OneVariableSGD(unittest.TestCase):
    # Batch of x values X (y = 2x), loss mean((w x - 2x)^2): dL/dw = 2 (w - 2) mean(x^2).
    # With batches of 2 from x = 1..8: mean(x^2) = 2.5, 12.5, 30.5, 56.5.

    def test_three_batches(self):
        # w1 = 0 - 0.01 * 2(0-2)*2.5 = 0.1; w2 = 0.1 + 0.01*2*1.9*12.5 = 0.575;
        # w3 = 0.575 + 0.01*2*1.425*30.5 = 1.44425
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3))
        self.assertAlmostEqual(trial.model.weight.item(), 1.44425, places=5)

    def test_epoch_wraps_around(self):
        # Epoch(1) of 4 batches, then Batch(5) more is the first batch again (repeat): after the
        # epoch w4 = w3 + 0.01*2*(2-w3)*56.5 = 1.44425 + 1.13*0.55575 = 2.0722475; batch 5 is
        # x = 1, 2 again: w5 = w4 + 0.01*2*(2-w4)*2.5 = 2.0722475 - 0.05*0.0722475 = 2.068635125.
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Epoch(1))
        self.assertAlmostEqual(trial.model.weight.item(), 2.0722475, places=5)
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(5))
        self.assertAlmostEqual(trial.model.weight.item(), 2.068635125, places=5)

    def test_aggregation_averages_gradients(self):
        # aggregation_frequency 2: one step after batches 1 and 2, on (g1 + g2) / 2 with both
        # gradients at w = 0: (2(-2)2.5 + 2(-2)12.5) / 2 = -30, so w = 0.01 * 30 = 0.3.
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(2),
                              aggregation_frequency=2)
        self.assertAlmostEqual(trial.model.weight.item(), 0.3, places=6)
        # An odd batch count leaves the third batch's gradient accumulated, not applied.
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3),
                              aggregation_frequency=2)
        self.assertAlmostEqual(trial.model.weight.item(), 0.3, places=6)

    def test_training_metrics_of_any_kind(self):
        # Numbers are averaged over the batches; arrays and None stay per batch only.
        seen = {}

        class Capture(pytorch.PyTorchCallback):
            def on_training_workload_end(self, avg_metrics, batch_metrics):
                seen.update(avg=avg_metrics, batches=batch_metrics)

        class Odd(onevar_trial.OneVarTrial):
            def build_callbacks(self):
                return {"capture": Capture()}

            def train_batch(self, batch, epoch_idx, batch_idx):
                metrics = super().train_batch(batch, epoch_idx, batch_idx)
                return dict(metrics, scale=None, output=self.model(batch[0]), index=batch_idx)
        train_locally(Odd, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(2))
        self.assertEqual(sorted(seen["avg"]), ["index", "loss", "w"])
        self.assertEqual(seen["avg"]["index"], 0.5)
        # loss: (2 - 0)^2 * 2.5 = 10 and (2 - 0.1)^2 * 12.5 = 45.125: mean 27.5625.
        self.assertAlmostEqual(seen["avg"]["loss"], 27.5625, places=4)
        self.assertEqual(seen["batches"][1]["output"].shape, (2, 1))

    def test_aggregation_without_averaging(self):
        # average_aggregated_gradients: false steps on the sum g1 + g2 = -60: w = 0.6.
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(2),
                              config={"optimizations": {"average_aggregated_gradients": False}},
                              aggregation_frequency=2)
        self.assertAlmostEqual(trial.model.weight.item(), 0.6, places=6)

    def test_checkpoint_policies_and_step_zero_validation(self):
        # Validating every batch for 3 batches: "best" (off-cluster, nothing to beat yet: every
        # validation is the best so far) and "all" checkpoint at 1, 2 and 3; "none" only at the
        # end (3). step_zero_validation adds a validation at 0, before training.
        def steps(policy, **fit):
            before = set((work / "checkpoints").iterdir()) if (work / "checkpoints").exists() else set()
            seen = []

            class Capture(pytorch.PyTorchCallback):
                def on_validation_end(self, metrics):
                    seen.append(round(metrics["w"], 6))

            class Watched(onevar_trial.OneVarTrial):
                def build_callbacks(self):
                    return {"capture": Capture()}
            train_locally(Watched, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3),
                          config={"searcher": {"metric": "val_loss"}}, validation_period=pytorch.Batch(1),
                          checkpoint_policy=policy, **fit)
            new = set((work / "checkpoints").iterdir()) - before
            return sorted(pytorch_state(p)["batches_trained"] for p in new), seen
        self.assertEqual(steps("best"), ([1, 2, 3], [0.1, 0.575, 1.44425]))
        self.assertEqual(steps("all")[0], [1, 2, 3])
        self.assertEqual(steps("none")[0], [3])
        self.assertEqual(steps("none", step_zero_validation=True)[1], [0.0, 0.1, 0.575, 1.44425])

    def test_records_unit(self):
        # 7 records at 2 per batch: Batch(7 // 2) = 3 batches, w = 1.44425 as above.
        self.assertEqual(pytorch.TrainUnit._from_values(records=7, global_batch_size=2), pytorch.Batch(3))
        self.assertEqual(pytorch.TrainUnit._from_values(records=1, global_batch_size=2), pytorch.Batch(1))
        # The searcher's units: a bare integer (no unit) counts batches.
        self.assertEqual(pytorch.TrainUnit._from_searcher_unit(5, None), pytorch.Batch(5))
        self.assertEqual(pytorch.TrainUnit._from_searcher_unit(5, det.core.Unit.EPOCHS), pytorch.Epoch(5))
        self.assertEqual(pytorch.TrainUnit._from_searcher_unit(9, det.core.Unit.RECORDS, 4), pytorch.Batch(2))
        with self.assertRaisesRegex(ValueError, "min_validation_period: exactly one"):
            pytorch.TrainUnit._from_values(batches=1, epochs=1, field="min_validation_period")


class Hooks(unittest.TestCase):
    def test_callbacks_positions_and_stop_request(self):
        calls = []

        class Recorder(pytorch.PyTorchCallback):
            def __getattribute__(self, name):
                attribute = object.__getattribute__(self, name)
                if name.startswith("on_"):
                    def record(*args, **kwargs):
                        calls.append(name)
                        return attribute(*args, **kwargs)
                    return record
                return attribute

        positions = []

        class Watched(onevar_trial.OneVarTrial):
            def build_callbacks(self):
                return {"recorder": Recorder()}

            def train_batch(self, batch, epoch_idx, batch_idx):
                c = self.context
                positions.append((batch_idx, epoch_idx, c.current_train_batch(), c.current_train_epoch(),
                                  c.is_epoch_start(), c.is_epoch_end()))
                if batch_idx == 5:
                    c.set_stop_requested(True)
                return super().train_batch(batch, epoch_idx, batch_idx)

        # 4 batches per epoch; a stop requested in batch 6 ends training at the next boundary
        # (reporting every 3 batches: after batch 6) instead of max_length 12, with a checkpoint.
        train_locally(Watched, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(12),
                      reporting_period=pytorch.Batch(3), validation_period=pytorch.Batch(3))
        self.assertEqual(positions, [(0, 0, 0, 0, True, False), (1, 0, 1, 0, False, False),
                                     (2, 0, 2, 0, False, False), (3, 0, 3, 0, False, True),
                                     (4, 1, 4, 1, True, False), (5, 1, 5, 1, False, False)])
        self.assertEqual(calls[:2], ["on_trial_startup", "on_training_start"])
        self.assertEqual(calls[-1], "on_trial_shutdown")
        first_validation = calls.index("on_validation_start")
        self.assertEqual(calls[2:first_validation], ["on_training_epoch_start", "on_training_workload_end"])
        self.assertEqual(calls[first_validation:first_validation + 4],
                         ["on_validation_start", "on_validation_epoch_start", "on_validation_epoch_end",
                          "on_validation_end"])
        self.assertIn("on_training_epoch_end", calls)
        # The checkpoint after the stop: save start, write end, upload end, in that order.
        tail = calls[calls.index("on_checkpoint_save_start"):]
        self.assertEqual([c for c in tail if c.startswith("on_checkpoint")],
                         ["on_checkpoint_save_start", "on_checkpoint_end", "on_checkpoint_write_end",
                          "on_checkpoint_upload_end"])
        state = pytorch_state(latest_checkpoint())
        self.assertEqual(state["batches_trained"], 6)
        # Resuming from it calls on_checkpoint_load_start with the loaded state_dict.pth.
        calls.clear()
        train_locally(Watched, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(7),
                      latest_checkpoint=str(latest_checkpoint()))
        self.assertEqual(calls[:3], ["on_trial_startup", "on_checkpoint_load_start", "on_training_start"])


def pytorch_state(checkpoint):
    import pickle
    with open(checkpoint / "trial_state.pkl", "rb") as f:
        return pickle.load(f)


class Sampling(unittest.TestCase):
    def batches(self, sampler, n):
        iterator = iter(sampler)
        return [next(iterator) for _ in range(n)]

    def test_shard_repeat_skip(self):
        # Base: [0,1] [2,3] [4,5] [6,7] [8,9], repeated: positions 0..9 are b0..b4 b0..b4.
        # Rank 1 of 2 takes the odd positions: b1 b3 b0 b2 b4 b1 ...; skipping 2 of its own
        # batches leaves b0 b2 b4 b1.
        base = data.BatchSampler(data.SequentialSampler(range(10)), 2, False)
        sampler = pytorch.adapt_batch_sampler(base, repeat=True, skip=2, num_replicas=2, rank=1)
        self.assertEqual(self.batches(sampler, 4), [[0, 1], [4, 5], [8, 9], [2, 3]])
        rank0 = pytorch.adapt_batch_sampler(base, repeat=True, num_replicas=2, rank=0)
        self.assertEqual(self.batches(rank0, 3), [[0, 1], [4, 5], [8, 9]])

    def test_lengths(self):
        # 5 batches over 2 ranks: rank 0 gets 3 (positions 0, 2, 4), rank 1 gets 2, but both
        # report 3 so that they agree on where an epoch ends (Determined's rule).
        base = data.BatchSampler(data.SequentialSampler(range(10)), 2, False)
        self.assertEqual(len(pytorch.samplers.DistributedBatchSampler(base, 2, 0)), 3)
        self.assertEqual(len(pytorch.samplers.DistributedBatchSampler(base, 2, 1)), 3)
        self.assertEqual(len(list(pytorch.samplers.DistributedBatchSampler(base, 2, 1))), 2)
        # Skipping keeps the epoch length (epochs count from the start of training).
        self.assertEqual(len(pytorch.adapt_batch_sampler(base, repeat=True, skip=3)), 5)

    def test_data_loader_shards_like_the_sampler(self):
        loader = pytorch.DataLoader(torch.arange(10), batch_size=2)
        self.assertEqual(len(loader), 5)
        torch_loader = loader.get_data_loader(repeat=False, num_replicas=2, rank=1)
        self.assertEqual([b.tolist() for b in torch_loader], [[2, 3], [6, 7]])

    def test_iterable_dataset_refused(self):
        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        with self.assertRaisesRegex(ValueError, "map-style"):
            pytorch.DataLoader(Stream())

    def test_data_length(self):
        self.assertEqual(pytorch.data_length({"x": torch.zeros(7, 2)}), 7)
        self.assertEqual(pytorch.data_length((torch.zeros(3), torch.zeros(3))), 3)


    def test_record_samplers_resume(self):
        # A user-built pipeline (shuffle by seed, repeat, shard, batch, skip): skipping k batches
        # gives the same stream as the unskipped one from its k-th batch on.
        S = pytorch.samplers

        def pipeline(skip):
            sampler = S.ReproducibleShuffleSampler(data.SequentialSampler(range(12)), seed=5)
            sampler = S.DistributedSampler(S.RepeatSampler(sampler), num_workers=2, rank=1)
            return S.SkipBatchSampler(data.BatchSampler(sampler, 2, drop_last=False), skip)
        whole = self.batches(pipeline(0), 10)
        self.assertEqual(self.batches(pipeline(4), 6), whole[4:])
        # Rank 1 of 2 takes every other record of each pass: 6 of 12, all distinct, in 3 batches.
        first_pass = [i for b in whole[:3] for i in b]
        self.assertEqual(len(set(first_pass)), 6)
        self.assertEqual(len(S.DistributedSampler(range(5), 2, 1)), 3)


class SchedulerSteps(unittest.TestCase):
    Mode = pytorch.LRScheduler.StepMode

    def total(self, mode, frequency, batches, aggregation, epoch_len):
        return sum(_lr_scheduler.batches_to_step(mode, frequency, b, aggregation, epoch_len) for b in range(batches))

    def test_step_counts(self):
        # Every batch: 12 batches -> 12 steps; frequency 5 -> batches 5 and 10 -> 2.
        self.assertEqual(self.total(self.Mode.STEP_EVERY_BATCH, 1, 12, 1, 4), 12)
        self.assertEqual(self.total(self.Mode.STEP_EVERY_BATCH, 5, 12, 1, 4), 2)
        # Aggregation 3: the optimizer steps after batches 3, 6, 9, 12; every batch up to then
        # counts, so still 12 steps (taken 3 at a time).
        self.assertEqual(self.total(self.Mode.STEP_EVERY_BATCH, 1, 12, 3, 4), 12)
        self.assertEqual(self.total(self.Mode.STEP_EVERY_OPTIMIZER_STEP, 1, 12, 3, 4), 4)
        # Every epoch of 4 batches: after batches 4, 8, 12 -> 3; frequency 2 -> epochs 2 -> 1.
        self.assertEqual(self.total(self.Mode.STEP_EVERY_EPOCH, 1, 12, 1, 4), 3)
        self.assertEqual(self.total(self.Mode.STEP_EVERY_EPOCH, 2, 12, 1, 4), 1)
        self.assertEqual(self.total(self.Mode.MANUAL_STEP, 1, 12, 1, 4), 0)


class Reducers(unittest.TestCase):
    def test_evaluation_reducer_and_metric_reducer(self):
        class Summing(onevar_trial.OneVarTrial):
            def __init__(self, context):
                super().__init__(context)
                self.count = context.wrap_reducer(CountRecords(), name="records")

            def evaluate_batch(self, batch):
                x, y = batch
                self.count.update(len(x))
                return {"x_sum": x.sum(), "x_max": x.max(), "x_mean": x.mean()}

            def evaluation_reducer(self):
                return {"x_sum": pytorch.Reducer.SUM, "x_max": pytorch.Reducer.MAX}

        class CountRecords(pytorch.MetricReducer):
            def reset(self):
                self.n = 0

            def update(self, n):
                self.n += n

            def per_slot_reduce(self):
                return self.n

            def cross_slot_reduce(self, per_slot):
                return sum(per_slot)

        seen = {}

        class Capture(pytorch.PyTorchCallback):
            def on_validation_end(self, metrics):
                seen.update(metrics)

        Summing.build_callbacks = lambda self: {"capture": Capture()}
        train_locally(Summing, {"lr": 0.0, "global_batch_size": 2}, pytorch.Batch(1))
        # x = 1..8 in batches of 2: sum 36, max 8, mean of batch means 4.5, 8 records.
        self.assertEqual(float(seen["x_sum"]), 36.0)
        self.assertEqual(float(seen["x_max"]), 8.0)
        self.assertAlmostEqual(float(seen["x_mean"]), 4.5)
        self.assertEqual(seen["records"], 8)


    def test_function_and_class_reducers_over_training_and_validation(self):
        # Determined's one-variable fixture style: records (1, 1); each batch updates a reducer
        # with (label sum, batch index) (index None in validation: the count of updates so far).
        # Training 5 batches of 4: sum of 4 * idx over idx 0..4 = 40. Validation: 16 batches
        # of 4 from 64 records, indices counted 0..15: 4 * 120 = 480.
        def triangle(updates):
            return sum((idx if idx is not None else n) * label_sum for n, (label_sum, idx) in enumerate(updates))

        class Triangle(pytorch.MetricReducer):
            def reset(self):
                self.sum, self.count = 0, 0

            def update(self, label_sum, idx):
                self.sum += label_sum * (idx if idx is not None else self.count)
                self.count += 1

            def per_slot_reduce(self):
                return self.sum

            def cross_slot_reduce(self, per_slot):
                return sum(per_slot)

        seen = {}

        class Capture(pytorch.PyTorchCallback):
            def on_training_workload_end(self, avg_metrics, batch_metrics):
                seen["training"] = avg_metrics

            def on_validation_end(self, metrics):
                seen["validation"] = metrics

        class Ones(onevar_trial.OneVarTrial):
            def __init__(self, context):
                super().__init__(context)
                self.cls_reducer = context.wrap_reducer(Triangle(), name="cls_reducer")
                self.fn_reducer = context.wrap_reducer(triangle, name="fn_reducer")

            def _data(self):
                return data.TensorDataset(torch.ones(64, 1), torch.ones(64, 1))

            def build_callbacks(self):
                return {"capture": Capture()}

            def train_batch(self, batch, epoch_idx, batch_idx):
                self.cls_reducer.update(int(batch[1].sum()), batch_idx)
                self.fn_reducer.update((int(batch[1].sum()), batch_idx))
                return super().train_batch(batch, epoch_idx, batch_idx)

            def evaluate_batch(self, batch):
                self.cls_reducer.update(int(batch[1].sum()), None)
                self.fn_reducer.update((int(batch[1].sum()), None))
                return super().evaluate_batch(batch)

        train_locally(Ones, {"lr": 0.001, "global_batch_size": 4}, pytorch.Batch(5))
        self.assertEqual((seen["training"]["cls_reducer"], seen["training"]["fn_reducer"]), (40, 40))
        self.assertEqual((seen["validation"]["cls_reducer"], seen["validation"]["fn_reducer"]), (480, 480))


class Resume(unittest.TestCase):
    def test_resume_is_bit_identical(self):
        hparams = {"lr": 0.05, "global_batch_size": 8}
        # 12 batches per epoch; stop at 17 (mid-epoch, mid-StepLR period), resume to 30. The
        # uninterrupted run validates at 17 too: making the validation loader's iterator draws
        # from torch's RNG (as in Determined), so a search's trials validate where they pause.
        whole = train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(30), validation_period=pytorch.Batch(17))
        train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(17))
        checkpoint = latest_checkpoint()
        state = torch.load(checkpoint / "state_dict.pth")
        self.assertEqual(sorted(state), ["callbacks", "lr_schedulers_state_dict", "models_state_dict",
                                         "optimizers_state_dict", "rng_state"])
        # Determined's three RNG states, and hpsearch's: the states as the pass in progress (the
        # second epoch, from batch 12) and any later one begun (none: no workers) began.
        self.assertEqual(sorted(state["rng_state"]), ["cpu_rng_state", "np_rng_state", "pass_start_rng_state",
                                                      "random_rng_state"])
        self.assertEqual([p["pass"] for p in state["rng_state"]["pass_start_rng_state"]], [1])
        load_data = json.loads((checkpoint / "load_data.json").read_text())
        self.assertEqual(load_data["trial_type"], "PyTorchTrial")
        self.assertEqual(load_data["hparams"], hparams)
        resumed = train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(30), latest_checkpoint=str(checkpoint))
        for (name, a), b in zip(whole.model.state_dict().items(), resumed.model.state_dict().values()):
            self.assertTrue(torch.equal(a, b), name)
        for a, b in zip(whole.opt.state_dict()["state"].values(), resumed.opt.state_dict()["state"].values()):
            self.assertTrue(torch.equal(a["momentum_buffer"], b["momentum_buffer"]))
        self.assertEqual(whole.sched.state_dict(), resumed.sched.state_dict())
        # 30 batches of 12 per epoch: 2 epochs ended; a training workload ends at each boundary
        # (the validation at 17, the end at 30): 2 in both, the resumed one counting its first
        # from the checkpoint.
        self.assertEqual(resumed.counter.epochs, 2)
        self.assertEqual((whole.counter.workloads, resumed.counter.workloads), (2, 2))
        # Without the checkpoint the same 13 batches from scratch differ (the test can fail).
        fresh = train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(13))
        self.assertFalse(torch.equal(fresh.model[0].weight, whole.model[0].weight))

    def test_shuffled_resume_is_bit_identical(self):
        # shuffle=True without a generator: torch's RandomSampler draws each epoch's order from
        # torch's global RNG as the epoch begins (12 batches of 8 per epoch). Stopped at the epoch
        # boundary 24 and mid-epoch at 17, resumed to 36: the skipped epochs must not shift the
        # restored RNG, and the epoch in progress must get the order it had. Both runs validate
        # every `stop` batches, where the interrupted one stopped (a validation draws from the RNG).
        # Also with a generator built in build_training_data_loader (each epoch the next order of
        # its stream, which the skip replays from the generator's seed).
        # And with two loader workers stopped at 22, near an epoch's end: the workers' prefetch
        # (2 x 2 batches ahead) has begun the next epoch's order before the checkpoint, from the
        # RNG state of that moment, which the resume must give it again.
        for hparams, stop in [({"lr": 0.05, "global_batch_size": 8, "shuffle": True}, stop) for stop in (24, 17)] + \
                [({"lr": 0.05, "global_batch_size": 8, "shuffle": True, "generator_seed": 7}, 17),
                 ({"lr": 0.05, "global_batch_size": 8, "shuffle": True, "num_workers": 2}, 22)]:
            with self.subTest(stop=stop, generator="generator_seed" in hparams, workers="num_workers" in hparams):
                whole = train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(36),
                                      validation_period=pytorch.Batch(stop))
                train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(stop))
                checkpoint = latest_checkpoint()
                resumed = train_locally(rich_trial.RichTrial, hparams, pytorch.Batch(36),
                                        validation_period=pytorch.Batch(stop), latest_checkpoint=str(checkpoint))
                for (name, a), b in zip(whole.model.state_dict().items(), resumed.model.state_dict().values()):
                    self.assertTrue(torch.equal(a, b), name)
                for a, b in zip(whole.opt.state_dict()["state"].values(), resumed.opt.state_dict()["state"].values()):
                    self.assertTrue(torch.equal(a["momentum_buffer"], b["momentum_buffer"]))
                self.assertEqual(resumed.counter.epochs, 3)
        # The shuffle is in effect (the test can fail): the same run in order ends elsewhere.
        in_order = train_locally(rich_trial.RichTrial, dict(hparams, shuffle=False, generator_seed=None, num_workers=0),
                                 pytorch.Batch(36), validation_period=pytorch.Batch(stop))
        self.assertFalse(torch.equal(in_order.model[0].weight, whole.model[0].weight))

    def test_load_trial_from_checkpoint_path(self):
        train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3))
        checkpoint = latest_checkpoint()
        trial = pytorch.load_trial_from_checkpoint_path(str(checkpoint), trial_class=onevar_trial.OneVarTrial)
        self.assertAlmostEqual(trial.model.weight.item(), 1.44425, places=5)
        self.assertIsInstance(trial.context, pytorch.CheckpointLoadContext)
        self.assertEqual(trial.context.get_hparam("lr"), 0.01)

    def test_old_checkpoint_with_metadata_json(self):
        # Determined <= 0.17.7: model_state_dict (one model) and metadata.json with the config.
        old = work / "old-checkpoint"
        (old / "code").mkdir(parents=True)
        (old / "code" / "model_def.py").write_text((pathlib.Path(__file__).parent / "onevar_trial.py").read_text())
        torch.save({"model_state_dict": {"weight": torch.tensor([[1.5]])}, "optimizer_state_dict": {}},
                   old / "state_dict.pth")
        (old / "metadata.json").write_text(json.dumps({
            "framework": "torch-1.4.0", "experiment_config": {"entrypoint": "model_def:OneVarTrial"},
            "hparams": {"lr": 0.5, "global_batch_size": 2}}))
        trial = pytorch.load_trial_from_checkpoint_path(str(old))
        self.assertEqual(trial.model.weight.item(), 1.5)
        self.assertEqual(type(trial).__module__, "model_def")

    def test_resume_from_a_workload_sequencer_checkpoint(self):
        # Determined 0.17-0.21 kept the loop's counters in workload_sequencer.pkl. From w = 1 at
        # batch 6 (x = 1..8 in batches of 2, 4 per epoch) the next batches are x = (5, 6) and
        # (7, 8): w7 = 1 + 0.01 * 2 * 1 * 30.5 = 1.61, w8 = 1.61 + 0.01 * 2 * 0.39 * 56.5 = 2.0507.
        old = work / "wlsq-checkpoint"
        old.mkdir()
        model = torch.nn.Linear(1, 1, bias=False)
        with torch.no_grad():
            model.weight.fill_(1.0)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        torch.save({"models_state_dict": [model.state_dict()], "optimizers_state_dict": [optimizer.state_dict()],
                    "lr_schedulers_state_dict": [], "callbacks": {}}, old / "state_dict.pth")
        import pickle
        with open(old / "workload_sequencer.pkl", "wb") as f:
            pickle.dump({"trial_id": 0, "last_ckpt": 6, "step_id": 2, "last_val": 6, "steps_completed": 6}, f)
        trial = train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(8),
                              latest_checkpoint=str(old))
        self.assertAlmostEqual(trial.model.weight.item(), 2.0507, places=5)
        state = pytorch_state(latest_checkpoint())
        self.assertEqual((state["batches_trained"], state["epochs_trained"]), (8, 2))

    def test_relaunch_after_the_last_validation_validates_again(self):
        # A checkpoint taken after the operation's validation: relaunched for the same length,
        # the trial trains nothing and answers the operation with a new validation of w3.
        train_locally(onevar_trial.OneVarTrial, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3))
        seen = []

        class Capture(pytorch.PyTorchCallback):
            def on_validation_end(self, metrics):
                seen.append(metrics["w"])

        class Watched(onevar_trial.OneVarTrial):
            def build_callbacks(self):
                return {"capture": Capture()}

            def train_batch(self, batch, epoch_idx, batch_idx):
                raise AssertionError("nothing is left to train")
        train_locally(Watched, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3),
                      latest_checkpoint=str(latest_checkpoint()))
        self.assertEqual(len(seen), 1)
        self.assertAlmostEqual(seen[0], 1.44425, places=5)

    def test_build_model_trial_and_ddp_prefix(self):
        # A pre-0.12 trial (build_model()) gives back its bare model; a DistributedDataParallel
        # model's "module." prefix is stripped.
        old = work / "build-model-checkpoint"
        (old / "code").mkdir(parents=True)
        (old / "code" / "old_def.py").write_text(
            "import torch\nfrom determined import pytorch\n\n"
            "class OldTrial(pytorch.PyTorchTrial):\n"
            "    def __init__(self, context):\n        self.context = context\n"
            "    def build_model(self):\n        return torch.nn.Linear(1, 1, bias=False)\n"
            "    train_batch = build_training_data_loader = build_validation_data_loader = None\n")
        torch.save({"models_state_dict": [{"module.weight": torch.tensor([[2.5]])}]}, old / "state_dict.pth")
        (old / "metadata.json").write_text(json.dumps({
            "torch_version": "1.4.0", "experiment_config": {"entrypoint": "old_def:OldTrial"}, "hparams": {}}))
        model = pytorch.load_trial_from_checkpoint_path(str(old))
        self.assertIsInstance(model, torch.nn.Linear)
        self.assertEqual(model.weight.item(), 2.5)

    def test_two_checkpoints_with_one_module_name(self):
        # Two old checkpoints whose code/ both hold a model_def with different trials: each
        # loads its own (a weight of 1.5, then a second class that doubles the loaded weight).
        for name, extra in (("first", ""), ("second", "\n\nclass OneVarTrial(OneVarTrial):\n    DOUBLED = True\n")):
            old = work / f"{name}-checkpoint"
            (old / "code").mkdir(parents=True)
            (old / "code" / "model_def.py").write_text(
                (pathlib.Path(__file__).parent / "onevar_trial.py").read_text() + extra)
            torch.save({"model_state_dict": {"weight": torch.tensor([[1.5]])}}, old / "state_dict.pth")
            (old / "metadata.json").write_text(json.dumps({
                "framework": "torch-1.4.0", "experiment_config": {"entrypoint": "model_def:OneVarTrial"},
                "hparams": {"lr": 0.5, "global_batch_size": 2}}))
        first = pytorch.load_trial_from_checkpoint_path(str(work / "first-checkpoint"))
        second = pytorch.load_trial_from_checkpoint_path(str(work / "second-checkpoint"))
        self.assertFalse(hasattr(first, "DOUBLED"))
        self.assertTrue(second.DOUBLED)

    def test_no_load_data(self):
        empty = work / "empty-checkpoint"
        empty.mkdir()
        with self.assertRaisesRegex(AssertionError, "neither load_data.json nor metadata.json"):
            pytorch.load_trial_from_checkpoint_path(str(empty))


class UserCode(unittest.TestCase):
    def test_code_directory_contents(self):
        from determined.pytorch import _trial
        source = work / "context"
        for relative in ("model_def.py", "lib/util.py", "data/big.csv", "weights.bin", "lib/__pycache__/x.pyc",
                         ".git/HEAD", "exp/journal.jsonl", "notes.txt"):
            (source / relative).parent.mkdir(parents=True, exist_ok=True)
            (source / relative).write_text("x")
        (source / ".detignore").write_text("# large things\ndata/\n*.bin\n")
        os.environ["HPSEARCH_CONFIG_JSON"] = str(source / "exp" / "config.json")
        try:
            kept = [relative for _, relative in _trial._user_code_files(source)]
        finally:
            del os.environ["HPSEARCH_CONFIG_JSON"]
        self.assertEqual(kept, ["model_def.py", "notes.txt", "lib/util.py"])
        # Over Determined's 96 MiB for a model definition: no code/ at all (a sparse file).
        with open(source / "huge.txt", "wb") as f:
            f.truncate(97 * 1024 * 1024)
        cwd = os.getcwd()
        os.chdir(source)
        try:
            _trial._write_user_code(work / "code-check")
        finally:
            os.chdir(cwd)
        self.assertFalse((work / "code-check" / "code").exists())


class ImportFromPath(unittest.TestCase):
    def test_two_definitions_of_one_name(self):
        for value in (1, 2):
            code = work / f"code{value}"
            code.mkdir()
            (code / "model_def.py").write_text(f"VALUE = {value}\n")
        with det.import_from_path(work / "code1"):
            import model_def
            self.assertEqual(model_def.VALUE, 1)
        with det.import_from_path(work / "code2"):
            import model_def  # noqa: F811
            self.assertEqual(model_def.VALUE, 2)
        self.assertNotIn("model_def", sys.modules)
        # A model_def imported from elsewhere does not hide the checkpoint's own.
        sys.path.insert(0, str(work / "code1"))
        import model_def  # noqa: F811
        with det.import_from_path(work / "code2"):
            import model_def as inside
            self.assertEqual(inside.VALUE, 2)
        self.assertEqual(sys.modules["model_def"].VALUE, 1)
        sys.path.remove(str(work / "code1"))
        del sys.modules["model_def"]

    def test_entrypoint_specs(self):
        from determined import _import
        pkg = work / "mypkg"
        (pkg / "lib").mkdir(parents=True)
        (pkg / "__init__.py").write_text("class Top:\n    pass\n")
        (pkg / "lib" / "__init__.py").write_text("")
        (pkg / "lib" / "trial.py").write_text("class trial_classes:\n    class Nested:\n        pass\n")
        self.assertEqual(_import.load_object(":Top", pkg).__name__, "Top")
        self.assertEqual(_import.load_object("lib.trial:trial_classes.Nested", pkg).__name__, "Nested")
        with self.assertRaisesRegex(AttributeError, "has no 'Missing'"):
            _import.load_object("lib.trial:Missing", pkg)
        self.assertFalse(_import.is_entrypoint_spec("python3 train.py"))
        self.assertTrue(_import.is_entrypoint_spec("model_def:MyTrial"))


class TestModes(unittest.TestCase):
    config = {"hyperparameters": {"lr": {"type": "const", "val": 0.01}, "global_batch_size": 2},
              "searcher": {"name": "single", "metric": "val_loss", "max_length": {"batches": 3}}}

    def test_test_one_batch(self):
        from determined.experimental import test_one_batch
        before = set((work / "checkpoints").glob("*")) if (work / "checkpoints").exists() else set()
        trial = test_one_batch(onevar_trial.OneVarTrial, self.config)
        # One batch: w1 = 0.1 (as above).
        self.assertAlmostEqual(trial.model.weight.item(), 0.1, places=6)
        after = set((work / "checkpoints").glob("*")) if (work / "checkpoints").exists() else set()
        self.assertEqual(before, after)

    def test_create_local(self):
        trial = det.experimental.create(onevar_trial.OneVarTrial, self.config, local=True, test=False)
        self.assertAlmostEqual(trial.model.weight.item(), 1.44425, places=5)
        with self.assertRaisesRegex(NotImplementedError, "det experiment create"):
            det.experimental.create(onevar_trial.OneVarTrial, self.config, local=False)

    def test_error_surfaces_with_traceback(self):
        class Broken(onevar_trial.OneVarTrial):
            def train_batch(self, batch, epoch_idx, batch_idx):
                raise ZeroDivisionError("inside train_batch")
        from determined.experimental import test_one_batch
        import traceback
        try:
            test_one_batch(Broken, self.config)
            self.fail("test_one_batch() did not raise")
        except ZeroDivisionError as e:
            frames = [f.name for f in traceback.extract_tb(e.__traceback__)]
        self.assertEqual(frames[-1], "train_batch")

    def test_missing_model_is_explained(self):
        class NoModel(onevar_trial.OneVarTrial):
            def __init__(self, context):
                self.context = context
        from determined.experimental import test_one_batch
        with self.assertRaisesRegex(det.errors.InvalidExperimentException, "wrap_model"):
            test_one_batch(NoModel, self.config)


class Validation(unittest.TestCase):
    def test_evaluate_full_dataset(self):
        seen = []

        class Full(onevar_trial.OneVarTrial):
            evaluate_batch = pytorch.PyTorchTrial.evaluate_batch

            def evaluate_full_dataset(self, data_loader):
                seen.append([x.flatten().tolist() for x, _ in data_loader])
                return {"records": sum(len(x) for x, _ in data_loader)}

        train_locally(Full, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(1))
        # The whole validation set, unsharded, in the trial's batches of 2.
        self.assertEqual(seen, [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]])

    def test_both_or_neither_evaluate_is_refused(self):
        class Neither(onevar_trial.OneVarTrial):
            evaluate_batch = pytorch.PyTorchTrial.evaluate_batch
        with self.assertRaisesRegex(det.errors.InvalidExperimentException, "exactly one of"):
            train_locally(Neither, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(1))

    def test_plain_torch_loader(self):
        class Plain(onevar_trial.OneVarTrial):
            def build_training_data_loader(self):
                return data.DataLoader(self._data(), batch_size=2)
        with self.assertRaisesRegex(RuntimeError, "disable_dataset_reproducibility_checks"):
            train_locally(Plain, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(1))

        class Allowed(Plain):
            def __init__(self, context):
                super().__init__(context)
                context.experimental.disable_dataset_reproducibility_checks()
        # A plain loader is used as it is: 4 batches, then it ends (the user repeats it).
        trial = train_locally(Allowed, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(3))
        self.assertAlmostEqual(trial.model.weight.item(), 1.44425, places=5)
        with self.assertRaisesRegex(RuntimeError, "must repeat"):
            train_locally(Allowed, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(5))


class Keras(unittest.TestCase):
    def test_keras_refuses_and_names_the_alternative(self):
        import importlib
        with self.assertRaisesRegex(ImportError, "PyTorchTrial"):
            importlib.import_module("determined.keras")
        with self.assertRaisesRegex(ImportError, "Core API"):
            importlib.import_module("determined.experimental.keras")


class Context(unittest.TestCase):
    def test_batch_sizes_and_hparams(self):
        with pytorch.init(hparams={"global_batch_size": 7, "lr": 1}) as context:
            self.assertEqual(context.get_per_slot_batch_size(), 7)
            self.assertEqual(context.get_global_batch_size(), 7)
            with self.assertRaisesRegex(ValueError, "'missing'"):
                context.get_hparam("missing")
            with self.assertRaisesRegex(RuntimeError, "apex"):
                context.configure_apex_amp()
            with self.assertRaisesRegex(RuntimeError, "tensorboard"):
                context.get_tensorboard_writer()
            with self.assertRaisesRegex(RuntimeError, "CUDA"):
                context.experimental.use_amp()

    def test_scaler_is_checkpointed(self):
        class Scaled(onevar_trial.OneVarTrial):
            def __init__(self, context):
                super().__init__(context)
                context.wrap_scaler(torch.cuda.amp.GradScaler(enabled=False))
        train_locally(Scaled, {"lr": 0.01, "global_batch_size": 2}, pytorch.Batch(1))
        self.assertIn("scaler_state_dict", torch.load(latest_checkpoint() / "state_dict.pth"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
