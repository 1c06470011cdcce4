"""Test fixtures: the random and ASHA search methods of Determined's e2e tests
(e2e_tests/tests/fixtures/custom_searcher/searchers.py, Determined 0.37), rewritten here with the
same behaviour (operations, counts, progress, saved state) for hpsearch's determined.searcher.
Left out: the fixtures' injected exceptions (their fault tests; tests/runner/custom_searcher_test.py
kills the method's process instead). Hyperparameters are drawn from a seeded generator so that a
run is repeatable."""
import dataclasses
import json
import logging
import pathlib
import pickle
import random
import sys
import uuid
from typing import Any, Dict, List, Set

from determined import searcher


def _trial(request_id: uuid.UUID, hparams: Dict[str, Any], length: int, close: bool) -> List[searcher.Operation]:
    ops: List[searcher.Operation] = [searcher.Create(request_id=request_id, hparams=hparams, checkpoint=None),
                                     searcher.ValidateAfter(request_id=request_id, length=length)]
    if close:
        ops.append(searcher.Close(request_id=request_id))
    return ops


class RandomSearchMethod(searcher.SearchMethod):
    """max_trials trials, each trained to max_length, at most max_concurrent_trials at a time
    (0: all at once); a trial with invalid hyperparameters is replaced; Shutdown once the last
    trial closes."""

    def __init__(self, max_trials: int, max_concurrent_trials: int, max_length: int, seed: int = 0) -> None:
        self.max_trials = max_trials
        self.max_concurrent_trials = max_concurrent_trials
        self.max_length = max_length
        self.created_trials = 0
        self.pending_trials = 0
        self.closed_trials = 0
        self.rng = random.Random(seed)

    def sample_params(self) -> Dict[str, int]:
        return {"increment_by": self.rng.randint(1, 20)}

    def _new_trial(self) -> List[searcher.Operation]:
        self.created_trials += 1
        self.pending_trials += 1
        return _trial(uuid.uuid4(), self.sample_params(), self.max_length, close=True)

    def initial_operations(self, _: searcher.SearcherState) -> List[searcher.Operation]:
        count = self.max_trials
        if self.max_concurrent_trials > 0:
            count = min(count, self.max_concurrent_trials)
        ops: List[searcher.Operation] = []
        for _i in range(count):
            ops += self._new_trial()
        return ops

    def on_trial_created(self, _: searcher.SearcherState, __: uuid.UUID) -> List[searcher.Operation]:
        return []

    def on_validation_completed(self, _: searcher.SearcherState, __: uuid.UUID, ___: Any,
                                ____: int) -> List[searcher.Operation]:
        return []

    def on_trial_closed(self, _: searcher.SearcherState, __: uuid.UUID) -> List[searcher.Operation]:
        self.pending_trials -= 1
        self.closed_trials += 1
        if self.created_trials < self.max_trials:
            return self._new_trial()
        if self.pending_trials == 0:
            return [searcher.Shutdown()]
        return []

    def on_trial_exited_early(self, _: searcher.SearcherState, __: uuid.UUID,
                              exited_reason: searcher.ExitedReason) -> List[searcher.Operation]:
        self.pending_trials -= 1
        if exited_reason == searcher.ExitedReason.INVALID_HP:
            # A replacement, not counted as a new trial.
            self.pending_trials += 1
            return _trial(uuid.uuid4(), self.sample_params(), self.max_length, close=True)
        self.closed_trials += 1
        return []

    def progress(self, searcher_state: searcher.SearcherState) -> float:
        done = sum(self.max_length if r in searcher_state.trials_closed else units
                   for r, units in searcher_state.trial_progress.items())
        return done / (self.max_length * self.max_trials)

    def save_method_state(self, path: pathlib.Path) -> None:
        state = {"max_trials": self.max_trials, "max_concurrent_trials": self.max_concurrent_trials,
                 "max_length": self.max_length, "created_trials": self.created_trials,
                 "pending_trials": self.pending_trials, "closed_trials": self.closed_trials,
                 "rng": self.rng.getstate()}
        path.joinpath("method_state").write_text(json.dumps(state))

    def load_method_state(self, path: pathlib.Path) -> None:
        state = json.loads(path.joinpath("method_state").read_text())
        for key in ("max_trials", "max_concurrent_trials", "max_length", "created_trials", "pending_trials",
                    "closed_trials"):
            setattr(self, key, state[key])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))


@dataclasses.dataclass
class TrialMetric:
    request_id: uuid.UUID
    metric: float
    promoted: bool = False


@dataclasses.dataclass
class Rung:
    units_needed: int
    idx: int
    metrics: List[TrialMetric] = dataclasses.field(default_factory=list)
    outstanding_trials: int = 0

    def promotions_async(self, request_id: uuid.UUID, metric: float, divisor: int) -> List[uuid.UUID]:
        """Ranks the new metric (after its equals) and says who is promoted: the new trial if it
        ranks in the top len // divisor, else the trial that just entered the top, if any."""
        before = len(self.metrics) // divisor
        after = (len(self.metrics) + 1) // divisor
        index = sum(1 for m in self.metrics if m.metric <= metric)  # the list is sorted
        promote_now = index < after
        self.metrics.insert(index, TrialMetric(request_id, metric, promote_now))
        if promote_now:
            return [request_id]
        if after != before and not self.metrics[before].promoted:
            self.metrics[before].promoted = True
            return [self.metrics[before].request_id]
        return []


class ASHASearchMethodState:
    def __init__(self, max_length: int, max_trials: int, num_rungs: int, divisor: int,
                 max_concurrent_trials: int = 0) -> None:
        self.max_length = max_length
        self.max_trials = max_trials
        self.num_rungs = num_rungs
        self.divisor = divisor
        self.max_concurrent_trials = max_concurrent_trials
        self.is_smaller_better = True
        self.rungs: List[Rung] = []
        self.trial_rungs: Dict[uuid.UUID, int] = {}
        self.pending_trials = 0
        self.completed_trials = 0
        self.invalid_trials = 0
        self.early_exit_trials: Set[uuid.UUID] = set()
        self.closed_trials: Set[uuid.UUID] = set()
        # Rung i needs max_length / divisor^(rungs - i - 1) more units than rung i - 1 (at least 1).
        units = 0
        for idx in range(num_rungs):
            units += max(int(max_length / pow(divisor, float(num_rungs - idx - 1))), 1)
            self.rungs.append(Rung(units, idx))


class ASHASearchMethod(searcher.SearchMethod):
    """Asynchronous successive halving as the fixture writes it: max_trials trials; a trial
    promoted from rung i is asked for the difference of the rungs' units; trials not promoted
    are closed once the bottom rung holds every trial; Shutdown after the last close."""

    def __init__(self, max_length: int, max_trials: int, num_rungs: int, divisor: int,
                 max_concurrent_trials: int = 0) -> None:
        self.asha_search_state = ASHASearchMethodState(max_length, max_trials, num_rungs, divisor,
                                                       max_concurrent_trials)

    def sample_params(self) -> Dict[str, object]:
        s = self.asha_search_state
        return {"metrics_base": 0.05 * (len(s.trial_rungs) + 1), "metrics_progression": "constant",
                "increment_by": 10}

    def _create(self) -> List[searcher.Operation]:
        s = self.asha_search_state
        request_id = uuid.uuid4()
        ops = _trial(request_id, self.sample_params(), s.rungs[0].units_needed, close=False)
        s.trial_rungs[request_id] = 0
        return ops

    def initial_operations(self, _: searcher.SearcherState) -> List[searcher.Operation]:
        s = self.asha_search_state
        if s.max_concurrent_trials > 0:
            count = min(s.max_concurrent_trials, s.max_trials)
        else:
            count = max(1, min(int(pow(s.divisor, s.num_rungs - 1)), s.max_trials))
        ops: List[searcher.Operation] = []
        for _i in range(count):
            ops += self._create()
            s.pending_trials += 1
        return ops

    def on_trial_created(self, _: searcher.SearcherState, request_id: uuid.UUID) -> List[searcher.Operation]:
        s = self.asha_search_state
        s.rungs[0].outstanding_trials += 1
        s.trial_rungs[request_id] = 0
        return []

    def on_validation_completed(self, _: searcher.SearcherState, request_id: uuid.UUID, metric: Any,
                                __: int) -> List[searcher.Operation]:
        assert isinstance(metric, float)
        s = self.asha_search_state
        s.pending_trials -= 1
        if not s.is_smaller_better:
            metric *= -1
        return self.promote_async(request_id, metric)

    def on_trial_closed(self, _: searcher.SearcherState, request_id: uuid.UUID) -> List[searcher.Operation]:
        s = self.asha_search_state
        s.completed_trials += 1
        s.closed_trials.add(request_id)
        if s.pending_trials == 0 and s.completed_trials == s.max_trials:
            return [searcher.Shutdown()]
        return []

    def on_trial_exited_early(self, _: searcher.SearcherState, request_id: uuid.UUID,
                              exited_reason: searcher.ExitedReason) -> List[searcher.Operation]:
        s = self.asha_search_state
        s.pending_trials -= 1
        if exited_reason != searcher.ExitedReason.INVALID_HP:
            s.early_exit_trials.add(request_id)
            s.closed_trials.add(request_id)
            return self.promote_async(request_id, sys.float_info.max)
        # Invalid hyperparameters: the trial leaves every rung it reached and is replaced.
        s.early_exit_trials.add(request_id)
        s.closed_trials.add(request_id)
        s.invalid_trials += 1
        highest = s.trial_rungs[request_id]
        s.rungs[highest].outstanding_trials -= 1
        for rung in s.rungs[:highest + 1]:
            rung.metrics = [m for m in rung.metrics if m.request_id != request_id]
        ops: List[searcher.Operation] = [searcher.Close(request_id)]
        ops += self._create()
        s.pending_trials += 1
        return ops

    def promote_async(self, request_id: uuid.UUID, metric: float) -> List[searcher.Operation]:
        s = self.asha_search_state
        rung_idx = s.trial_rungs[request_id]
        rung = s.rungs[rung_idx]
        rung.outstanding_trials -= 1
        ops: List[searcher.Operation] = []
        promoted_any = False
        if rung_idx == s.num_rungs - 1:
            rung.metrics.append(TrialMetric(request_id, metric))
            if request_id not in s.early_exit_trials:
                ops.append(searcher.Close(request_id=request_id))
                s.closed_trials.add(request_id)
        else:
            next_rung = s.rungs[rung_idx + 1]
            for promoted in rung.promotions_async(request_id, metric, s.divisor):
                s.trial_rungs[promoted] = rung_idx + 1
                next_rung.outstanding_trials += 1
                if promoted in s.early_exit_trials:
                    return self.promote_async(promoted, sys.float_info.max)
                logging.info(f"Promoted {promoted}")
                ops.append(searcher.ValidateAfter(promoted, max(next_rung.units_needed - rung.units_needed, 1)))
                promoted_any = True
                s.pending_trials += 1
        if not promoted_any and len(s.trial_rungs) - s.invalid_trials < s.max_trials:
            s.pending_trials += 1
            ops += self._create()
        if len(s.rungs[0].metrics) == s.max_trials:
            ops += self._close_rungs()
        return ops

    def _close_rungs(self) -> List[searcher.Operation]:
        """Closes the trials not promoted, rung by rung, while no rung below has one outstanding."""
        s = self.asha_search_state
        ops: List[searcher.Operation] = []
        for rung in s.rungs:
            if rung.outstanding_trials > 0:
                break
            for m in rung.metrics:
                if not m.promoted and m.request_id not in s.closed_trials:
                    if m.request_id not in s.early_exit_trials:
                        ops.append(searcher.Close(m.request_id))
                        s.closed_trials.add(m.request_id)
        return ops

    def progress(self, _: searcher.SearcherState) -> float:
        s = self.asha_search_state
        ranked = len(s.rungs[0].metrics)
        progress = ranked / (1.2 * s.max_trials)
        if ranked == s.max_trials:
            progress = max((s.completed_trials - s.invalid_trials) / s.max_trials, progress)
        return progress

    def save_method_state(self, path: pathlib.Path) -> None:
        with path.joinpath("method_state").open("wb") as f:
            pickle.dump(self.asha_search_state, f)

    def load_method_state(self, path: pathlib.Path) -> None:
        with path.joinpath("method_state").open("rb") as f:
            self.asha_search_state = pickle.load(f)
