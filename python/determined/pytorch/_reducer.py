"""Validation (and training) metrics reduced over batches and over the slots of a trial.

Default: every metric is averaged over all batches of all slots, each batch weighing the same.
``evaluation_reducer()`` may name another ``Reducer`` per metric; a ``MetricReducer`` wrapped
with ``context.wrap_reducer`` reduces on each slot (per_slot_reduce) and then across slots
(cross_slot_reduce, on the chief)."""

import abc
import enum

import numpy as np


class Reducer(enum.Enum):
    AVG = 1
    SUM = 2
    MAX = 3
    MIN = 4


_REDUCE = {Reducer.AVG: np.mean, Reducer.SUM: np.sum, Reducer.MAX: np.max, Reducer.MIN: np.min}


class MetricReducer(abc.ABC):
    @abc.abstractmethod
    def reset(self):
        pass

    @abc.abstractmethod
    def per_slot_reduce(self):
        pass

    @abc.abstractmethod
    def cross_slot_reduce(self, per_slot_metrics):
        pass


class _SimpleReducer(MetricReducer):
    """A function wrapped as a reducer: ``update(value)`` keeps each value; the function gets
    every slot's values in one list (Determined's behaviour for ``wrap_reducer(fn)``)."""

    def __init__(self, fn):
        self._fn = fn
        self.reset()

    def reset(self):
        self.updates = []

    def update(self, value):
        self.updates.append(value)

    def per_slot_reduce(self):
        return self.updates

    def cross_slot_reduce(self, per_slot_metrics):
        return self._fn([u for updates in per_slot_metrics for u in updates])


def reducers_for(evaluation_reducer, keys):
    """The Reducer of each metric name."""
    if isinstance(evaluation_reducer, Reducer):
        return {k: evaluation_reducer for k in keys}
    if isinstance(evaluation_reducer, dict):
        unknown = set(evaluation_reducer) - set(keys)
        if unknown:
            raise ValueError(f"evaluation_reducer() names metrics that evaluate_batch() does not return: "
                             f"{sorted(unknown)}")
        for name, reducer in evaluation_reducer.items():
            if not isinstance(reducer, Reducer):
                raise TypeError(f"evaluation_reducer()[{name!r}] must be a Reducer, got {reducer!r}")
        return {k: evaluation_reducer.get(k, Reducer.AVG) for k in keys}
    raise TypeError(f"evaluation_reducer() must return a Reducer or a dict of them, got {evaluation_reducer!r}")


def _plain_value(value):
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return value


def reduce_batch_metrics(dist, batch_metrics, reducers):
    """Every slot's batch metrics reduced on the chief (None elsewhere)."""
    keys = list(reducers)
    per_slot = {k: [_plain_value(m[k]) for m in batch_metrics] for k in keys}
    gathered = dist.gather(per_slot)
    if gathered is None:
        return None
    out = {}
    for k in keys:
        values = [v for slot in gathered for v in slot[k]]
        out[k] = _REDUCE[reducers[k]](np.stack([np.asarray(v) for v in values]), axis=0)
    return out


def average_training_metrics(dist, batch_metrics):
    """Each batch's training metrics averaged over the slots (Determined reports the mean of the
    slots' values batch by batch); every rank gets the result."""
    if dist.size == 1:
        return batch_metrics
    everyone = dist.allgather([{k: _plain_value(v) for k, v in m.items()} for m in batch_metrics])
    combined = []
    for i in range(len(batch_metrics)):
        batch = {}
        for k, value in everyone[0][i].items():
            values = [np.asarray(slot[i][k]) for slot in everyone]
            # Numbers (and arrays of them) are averaged; anything else is the chief's.
            batch[k] = np.mean(values, axis=0) if all(_numeric(v) for v in values) else value
        combined.append(batch)
    return combined


def _numeric(array):
    return array.dtype.kind in "biuf"


def mean_of_batches(batch_metrics):
    """avg_metrics: each metric's mean over the batches (numeric scalars only: arrays and other
    values stay in the batch metrics)."""
    out = {}
    for k in (batch_metrics[0].keys() if batch_metrics else []):
        values = [np.asarray(_plain_value(m[k])) for m in batch_metrics if k in m]
        if all(v.ndim == 0 and _numeric(v) for v in values):
            out[k] = float(np.mean(values))
    return out


class WrappedReducer:
    """A MetricReducer the context knows: reset at each workload, reduced at its end."""

    def __init__(self, reducer, name, for_training, for_validation):
        self.reducer = reducer
        self.name = name
        self.for_training = for_training
        self.for_validation = for_validation

    def reduce(self, dist):
        gathered = dist.gather(self.reducer.per_slot_reduce())
        if gathered is None:
            return {}
        value = self.reducer.cross_slot_reduce(gathered)
        if self.name is not None:
            return {self.name: value}
        if not isinstance(value, dict):
            raise TypeError("a MetricReducer wrapped without a name must return a dict of metrics from "
                            f"cross_slot_reduce(), got {type(value).__name__}")
        return value
