"""The Python module hpsearch (python/hpsearch), tested as a notebook or a master would use it.

The oracle is `searcher-sim`: the module and the program run the same library calls, so the
same search played through hpsearch.Searcher and through `searcher-sim drive` must give the
same answers, and hpsearch.run/compare/preview must return what `searcher-sim run/compare/
preview --json` print. Run by ctest (tests/CMakeLists.txt) with SEARCHER_SIM and
HPSEARCH_SOURCE_DIR set and the build tree's python/ on PYTHONPATH.
"""
import json
import math
import os
import pathlib
import random
import subprocess
import unittest

import hpsearch

SIM = os.environ["SEARCHER_SIM"]
SOURCE = pathlib.Path(os.environ["HPSEARCH_SOURCE_DIR"])
ASHA = SOURCE / "tests/capi/capi.yaml"              # ASHA with promotions, TPE, larger is better
HARTMANN = SOURCE / "examples/asha_hartmann6.yaml"
RANDOM_HARTMANN = SOURCE / "examples/random_hartmann6.yaml"
# In the sanitized build the interpreter runs with the sanitizer runtime preloaded; searcher-sim
# carries its own, so it runs without the preload.
SIM_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def sim_json(*args):
    out = subprocess.run([SIM, *map(str, args), "--json"], check=True, capture_output=True, text=True, env=SIM_ENV)
    return json.loads(out.stdout)


def play(searcher, events_out, seed=1, restart_at=None, make=None):
    """Plays a whole search FIFO with random metrics and some refused lines; records every
    event fed and every answer. With restart_at, moves to a fresh searcher (make()) restored
    from a snapshot after that many events. Returns the searcher that finished."""
    rng = random.Random(seed)
    answers = []

    def feed(event):
        events_out.append(event)
        try:
            answer = searcher.feed(event)
        except hpsearch.ProtocolError as e:
            answer = {"error": str(e)}
        answers.append(answer)
        return answer

    pending = list(feed({"event": "initial_operations"})["operations"])
    while pending:
        if restart_at is not None and len(events_out) >= restart_at:
            state = json.loads(json.dumps(searcher.snapshot()))  # as a master would store it
            searcher = make()
            searcher.restore(state)
            restart_at = None
        op = pending.pop(0)
        rid = op.get("request_id")
        if op["type"] == "create":
            pending += feed({"event": "trial_created", "request_id": rid})["operations"]
            feed({"event": "trial_closed", "request_id": "not-an-id"})  # refused, no change
        elif op["type"] == "validate_after":
            feed({"event": "trial_progress", "request_id": rid, "units": op["length"] / 2})
            pending += feed({"event": "validation_completed", "request_id": rid,
                             "metric": rng.random(), "length": op["length"]})["operations"]
            feed({"event": "progress"})
        elif op["type"] == "close":
            pending += feed({"event": "trial_closed", "request_id": rid})["operations"]
    return searcher, answers


class SearcherTest(unittest.TestCase):
    def test_answers_equal_searcher_sim_drive(self):
        events = []
        make = lambda: hpsearch.Searcher(ASHA, seed=11)
        searcher, answers = play(make(), events, restart_at=60, make=make)
        self.assertEqual(searcher.progress, 1.0)
        self.assertTrue(any(a.get("operations") and a["operations"][-1]["type"] == "shutdown"
                            for a in answers))
        self.assertTrue(any("error" in a for a in answers))
        lines = "".join(json.dumps(e) + "\n" for e in events)
        out = subprocess.run([SIM, "drive", "--config", ASHA, "--seed", "11"], input=lines,
                             check=True, capture_output=True, text=True, env=SIM_ENV).stdout
        self.assertEqual([json.loads(line) for line in out.splitlines()], answers)

    def test_pbt_clones_carry_their_parent_as_drive_does(self):
        # PBT's clones: creates with "checkpoint" (the parent's request id), across a restore.
        pbt = SOURCE / "examples/learning_curves_pbt.yaml"
        events = []
        make = lambda: hpsearch.Searcher(pbt, seed=4)
        searcher, answers = play(make(), events, restart_at=40, make=make)
        self.assertEqual(searcher.progress, 1.0)
        creates = [op for a in answers for op in a.get("operations", []) if op["type"] == "create"]
        ids = [op["request_id"] for op in creates]
        clones = [op for op in creates if "checkpoint" in op]
        self.assertEqual(len(creates), 8 + 3 * 2)  # 8 members, 2 clones after each of 3 rounds
        self.assertEqual(len(clones), 6)
        self.assertTrue(all(ids.index(op["checkpoint"]) < ids.index(op["request_id"]) for op in clones))
        lines = "".join(json.dumps(e) + "\n" for e in events)
        out = subprocess.run([SIM, "drive", "--config", pbt, "--seed", "4"], input=lines,
                             check=True, capture_output=True, text=True, env=SIM_ENV).stdout
        self.assertEqual([json.loads(line) for line in out.splitlines()], answers)

    def test_typed_calls_and_snapshot_equal_drive(self):
        s = hpsearch.Searcher(ASHA, seed=5)
        ops = s.initial_operations()
        creates = [op for op in ops if op["type"] == "create"]
        self.assertEqual(len(creates), 4)  # max_concurrent_trials
        self.assertEqual(s.trial_created(creates[0]["request_id"]), [])
        length = next(op["length"] for op in ops if op["type"] == "validate_after")
        self.assertEqual(s.trial_progress(creates[0]["request_id"], 50), [])
        after = s.validation_completed(creates[0]["request_id"], 0.5, length)
        lines = [{"event": "initial_operations"},
                 {"event": "trial_created", "request_id": creates[0]["request_id"]},
                 {"event": "trial_progress", "request_id": creates[0]["request_id"], "units": 50},
                 {"event": "validation_completed", "request_id": creates[0]["request_id"],
                  "metric": 0.5, "length": length},
                 {"event": "snapshot"}, {"event": "progress"}]
        out = subprocess.run([SIM, "drive", "--config", ASHA, "--seed", "5"],
                             input="".join(json.dumps(e) + "\n" for e in lines),
                             check=True, capture_output=True, text=True, env=SIM_ENV).stdout.splitlines()
        self.assertEqual(json.loads(out[3])["operations"], after)
        self.assertEqual(json.loads(out[4])["snapshot"], s.snapshot())
        self.assertEqual(json.loads(out[5])["progress"], s.progress)
        self.assertGreater(s.progress, 0)

    def test_config_as_text_dict_and_path_give_one_search(self):
        text = ASHA.read_text()
        as_dict = {  # tests/capi/capi.yaml, written out
            "hyperparameters": {
                "learning_rate": {"type": "log", "minval": -5, "maxval": -1, "base": 10},
                "layers": {"type": "int", "minval": 1, "maxval": 8},
                "activation": {"type": "categorical", "vals": ["relu", "tanh"]}},
            "searcher": {"name": "async_halving", "metric": "accuracy", "smaller_is_better": False,
                         "sampler": {"name": "tpe"}, "num_rungs": 3, "divisor": 3, "max_trials": 30,
                         "max_concurrent_trials": 4, "max_length": {"batches": 900}}}
        by_path = hpsearch.Searcher(ASHA, seed=2).initial_operations()
        self.assertEqual(hpsearch.Searcher(text, seed=2).initial_operations(), by_path)
        self.assertEqual(hpsearch.Searcher(as_dict, seed=2).initial_operations(), by_path)
        self.assertNotEqual(hpsearch.Searcher(ASHA, seed=3).initial_operations(), by_path)

    def test_refused_event_raises_and_changes_nothing(self):
        s = hpsearch.Searcher(ASHA, seed=1)
        s.initial_operations()
        before = json.dumps(s.snapshot())
        with self.assertRaisesRegex(hpsearch.ProtocolError,
                                    r'^trial_closed: request_id must be a UUID string .*got "x"$'):
            s.trial_closed("x")
        with self.assertRaisesRegex(hpsearch.ProtocolError, r"^unknown event 'frobnicate'"):
            s.feed({"event": "frobnicate"})
        with self.assertRaisesRegex(ValueError, r"expected a JSON value .*got <object"):
            s.feed({"event": "trial_created", "request_id": object()})
        with self.assertRaisesRegex(hpsearch.ProtocolError, r"initial_operations"):
            s.initial_operations()  # a second time is refused
        self.assertEqual(json.dumps(s.snapshot()), before)

    def test_deep_nesting_is_refused_not_a_crash(self):
        # Issue 25: a list nested 60,000 deep overflowed the C++ stack (SIGSEGV) on the way
        # into the library. Built in a loop: json.loads would stop it at Python's own limit.
        s = hpsearch.Searcher(ASHA, seed=1)
        s.initial_operations()
        before = json.dumps(s.snapshot())
        deep = []
        for _ in range(60000):
            deep = [deep]
        with self.assertRaisesRegex(hpsearch.ProtocolError,
                                    r"^expected a JSON value nested at most 128 levels deep"):
            s.feed({"event": "restore", "snapshot": deep})
        with self.assertRaisesRegex(hpsearch.ProtocolError, r"nested at most 128 levels deep"):
            s.restore({"x": deep})
        # 128 levels in all (the event object is the first) is within the limit: refused for
        # what it says, not for its depth.
        at_limit = []
        for _ in range(126):
            at_limit = [at_limit]
        with self.assertRaises(hpsearch.ProtocolError) as caught:
            s.feed({"event": "restore", "snapshot": at_limit})
        self.assertNotIn("nested", str(caught.exception))
        self.assertEqual(json.dumps(s.snapshot()), before)

    def test_bad_snapshot_is_refused_state_unchanged(self):
        s = hpsearch.Searcher(ASHA, seed=1)
        s.initial_operations()
        state = s.snapshot()
        before = json.dumps(state)
        state["format_version"] = 99
        with self.assertRaisesRegex(hpsearch.ProtocolError, r"format_version 99 is not supported"):
            s.restore(state)
        self.assertEqual(json.dumps(s.snapshot()), before)

    def test_bad_config_raises_config_error_with_place(self):
        with self.assertRaises(hpsearch.ConfigError) as caught:
            hpsearch.Searcher(ASHA.read_text().replace("max_trials: 30", "max_trials: -5"))
        self.assertRegex(str(caught.exception), r"^config:15:15: searcher.max_trials: must be an integer >= 1, got -5$")
        self.assertIsInstance(caught.exception, ValueError)
        with self.assertRaisesRegex(hpsearch.ConfigError, "nope.yaml"):
            hpsearch.Searcher(pathlib.Path("nope.yaml"))
        with self.assertRaisesRegex(TypeError, "config: expected a path"):
            hpsearch.Searcher(42)

    def test_explain(self):
        s = hpsearch.Searcher(ASHA, seed=4, explain=True)
        events = []
        _, answers = play(s, events, seed=4)
        explained = [op["explain"] for a in answers for op in a.get("operations", []) if "explain" in op]
        self.assertTrue(explained)
        self.assertTrue(all("rung" in e and "text" in e for e in explained))


class SimulatorTest(unittest.TestCase):
    def test_run_equals_searcher_sim_run(self):
        options = dict(seconds_per_unit=0.5, startup=3.0, crash_rate=0.001, noise_seed=7)
        got = hpsearch.run(HARTMANN, "mf-hartmann6", workers=4, seed=2, **options)
        want = sim_json("run", "--config", HARTMANN, "--workload", "mf-hartmann6", "--workers", 4,
                        "--seed", 2, "--seconds-per-unit", 0.5, "--startup", 3, "--crash-rate",
                        0.001, "--noise-seed", 7)
        self.assertEqual(got, want)
        self.assertEqual(got["workers"], 4)
        self.assertTrue(math.isfinite(got["best_metric"]))
        # The config as text: the same run.
        self.assertEqual(hpsearch.run(HARTMANN.read_text(), "mf-hartmann6", workers=4, seed=2, **options),
                         got)

    def test_compare_equals_searcher_sim_compare(self):
        got = hpsearch.compare([HARTMANN, RANDOM_HARTMANN], "mf-hartmann6", workers=2, seeds=3,
                               times=[50, 200.5], target=-2.5, workload_cost=True)
        want = sim_json("compare", "--configs", HARTMANN, RANDOM_HARTMANN, "--workload", "mf-hartmann6",
                        "--workers", 2, "--seeds", 3, "--times", "50,200.5", "--target", -2.5,
                        "--workload-cost")
        self.assertEqual(got, want)
        self.assertEqual([c["name"] for c in got["configs"]], ["asha_hartmann6.yaml", "random_hartmann6.yaml"])
        named = hpsearch.compare([HARTMANN.read_text()], "mf-hartmann6", seeds=2, names=["asha"])
        self.assertEqual(named["configs"][0]["name"], "asha")

    def test_preview_equals_searcher_sim_preview(self):
        self.assertEqual(hpsearch.preview(ASHA, seed=3, order="random", metric="trial-id", metric_seed=9),
                         sim_json("preview", "--config", ASHA, "--seed", 3, "--order", "random",
                                  "--metric", "trial-id", "--metric-seed", 9))
        got = hpsearch.preview(ASHA, workers=3, startup=2.0)
        self.assertEqual(got, sim_json("preview", "--config", ASHA, "--workers", 3, "--startup", 2))
        self.assertEqual(got["trials"], 30)
        self.assertEqual(sum(got["results"].values()), 30)
        self.assertEqual(got["workers"]["workers"], 3)

    def test_a_config_without_max_length_is_not_simulated(self):
        # Determined 0.38's form: each trial's script decides how long; the simulator refuses it
        # as searcher-sim does, and the in-process Searcher serves it with the nominal length 1.
        config = {"searcher": {"name": "random", "metric": "loss", "max_trials": 2},
                  "hyperparameters": {"x": {"type": "double", "minval": 0, "maxval": 1}}}
        for call in (lambda: hpsearch.run(config, "counting-ones-1", workers=1),
                     lambda: hpsearch.preview(config),
                     lambda: hpsearch.compare([config], "counting-ones-1", workers=1)):
            with self.assertRaisesRegex(ValueError, r"searcher.max_length: not given"):
                call()
        ops = hpsearch.Searcher(config, seed=0).initial_operations()
        self.assertEqual([op["length"] for op in ops if op["type"] == "validate_after"], [1, 1])

    def test_bad_options_name_the_flag(self):
        with self.assertRaisesRegex(hpsearch.UsageError, r"^--workers: must be an integer .* got '0'$"):
            hpsearch.run(HARTMANN, "mf-hartmann6", workers=0)
        with self.assertRaisesRegex(hpsearch.UsageError, r"^--startup: must be a number >= 0, got '-1.0'$"):
            hpsearch.run(HARTMANN, "mf-hartmann6", startup=-1.0)
        with self.assertRaisesRegex(hpsearch.UsageError, r"^unknown option '--colour'"):
            hpsearch.run(HARTMANN, "mf-hartmann6", colour=1)
        with self.assertRaisesRegex(ValueError, r"unknown workload 'nope'"):
            hpsearch.run(HARTMANN, "nope")
        with self.assertRaisesRegex(ValueError, r"hyperparameters"):
            hpsearch.run(ASHA, "mf-hartmann6")  # the config's inputs are not the workload's
        with self.assertRaisesRegex(hpsearch.UsageError, r"^--order: not with --workers"):
            hpsearch.preview(ASHA, workers=2, order="random")
        with self.assertRaisesRegex(TypeError, r"^run: out is the program's"):
            hpsearch.run(HARTMANN, "mf-hartmann6", out="/tmp/x")
        with self.assertRaisesRegex(TypeError, r"^preview: trace is the program's"):
            hpsearch.preview(ASHA, trace="/tmp/x")
        with self.assertRaisesRegex(ValueError, r"names: expected one per config \(2\), got 1"):
            hpsearch.compare([HARTMANN, HARTMANN], "mf-hartmann6", names=["a"])


if __name__ == "__main__":
    unittest.main()
