"""Training lengths and periods: ``Batch(n)`` and ``Epoch(n)`` (an int is a period; a container
of ints is a schedule), and their conversion from the searcher's units."""

import collections.abc
import sys

from determined import core


class TrainUnit:
    def __init__(self, value):
        if not isinstance(value, (int, collections.abc.Container)) or isinstance(value, bool):
            raise TypeError(f"{type(self).__name__}() takes an int or a container of ints, got {value!r}")
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"

    def __eq__(self, other):
        return type(self) is type(other) and self.value == other.value

    def should_stop(self, step_num):
        """True at step_num (batches or epochs completed) for a period dividing it or a schedule
        holding it; a period below 1 means every step."""
        if isinstance(self.value, int):
            if self.value < 1:
                return True
            return step_num != 0 and step_num % self.value == 0
        return step_num in self.value

    @staticmethod
    def _from_searcher_unit(length, unit, global_batch_size=None):
        if unit == core.Unit.EPOCHS:
            return Epoch(length)
        if unit == core.Unit.RECORDS:
            if not global_batch_size:
                raise ValueError("searcher lengths in records need hyperparameters.global_batch_size")
            return Batch._from_records(length, global_batch_size)
        return Batch(length)  # batches, or a bare integer

    @staticmethod
    def _from_values(batches=None, records=None, epochs=None, global_batch_size=None, field="length"):
        """A config length ({batches: N}, {records: N} or {epochs: N}); N < 1 means never."""
        if sum(v is not None for v in (batches, records, epochs)) != 1:
            raise ValueError(f"{field}: exactly one of batches, records, epochs must be given, got "
                             f"batches={batches} records={records} epochs={epochs}")
        if batches is not None:
            return Batch(batches if batches >= 1 else sys.maxsize)
        if records is not None:
            if not global_batch_size:
                raise ValueError(f"{field}: a length in records needs hyperparameters.global_batch_size")
            return Batch._from_records(records, global_batch_size) if records >= 1 else Batch(sys.maxsize)
        return Epoch(epochs if epochs >= 1 else sys.maxsize)

    def _to_searcher_unit(self):
        return core.Unit.BATCHES if isinstance(self, Batch) else core.Unit.EPOCHS


class Batch(TrainUnit):
    @staticmethod
    def _from_records(records, global_batch_size):
        return Batch(max(records // global_batch_size, 1))


class Epoch(TrainUnit):
    pass
