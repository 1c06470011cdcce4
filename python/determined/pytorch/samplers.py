"""Batch samplers that make a DataLoader Determined's: repeated for training, sharded across the
slots of a trial, and skipping the batches trained before a resume.

Sharding hands each rank every ``num_replicas``-th batch starting at its rank; skipping counts
batches *after* sharding (a rank skips the batches it trained itself), so a trial resumed at
batch B of each rank sees exactly the batches an uninterrupted one would have.

A sampler may draw its order from the global RNGs when a pass begins (torch's RandomSampler
without a generator, which ``shuffle=True`` makes, draws each epoch's seed from torch's). So that
a resumed trial also sees the same order, the repeat notes the RNGs' state as each pass begins
(the trial's checkpoint keeps the last), a resume begins that pass again from it, and the skip
leaves the global RNGs as it found them."""

import numpy as np
import torch.utils.data

from determined.pytorch._rng import rng_state, set_rng_state


class RepeatBatchSampler(torch.utils.data.BatchSampler):
    """Goes through the wrapped batch sampler again and again; its length is one pass.

    ``begun_from(index)`` lists ``{"pass": i, "rng_state": the global RNGs' state just before
    pass i began}`` for the passes i >= index begun so far (of the last ``KEPT``): a loader with
    workers begins passes ahead of the batch being trained, each from the state of that moment,
    so a checkpoint keeps those of the pass that holds its next batch and of any begun after it.
    Given them as ``replay`` ({i: that form}), each such pass begins from its state instead (a
    resumed trial; the skip, then the checkpoint's own state, put the RNGs back)."""

    KEPT = 8

    def __init__(self, batch_sampler):
        self.batch_sampler = batch_sampler
        self.starts = {}
        self.replay = None

    def begun_from(self, index):
        return [self.starts[i] for i in sorted(self.starts) if i >= index]

    def __len__(self):
        return len(self.batch_sampler)

    def __iter__(self):
        index = 0
        while True:
            if self.replay is not None and index in self.replay:
                set_rng_state(self.replay[index]["rng_state"])
            self.starts[index] = {"pass": index, "rng_state": rng_state()}
            self.starts.pop(index - self.KEPT, None)
            yield from self.batch_sampler
            index += 1


class DistributedBatchSampler(torch.utils.data.BatchSampler):
    """Batch i of the wrapped sampler goes to rank i % num_replicas. Every rank reports the
    same length (one more than the shorter ranks get when the batches do not divide evenly), so
    that all ranks agree on where an epoch ends."""

    def __init__(self, batch_sampler, num_replicas, rank):
        if num_replicas < 1:
            raise ValueError(f"num_replicas must be positive, got {num_replicas}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank must be in [0, {num_replicas}), got {rank}")
        self.batch_sampler = batch_sampler
        self.num_replicas = num_replicas
        self.rank = rank

    def __len__(self):
        return -(-len(self.batch_sampler) // self.num_replicas)

    def __iter__(self):
        for i, batch in enumerate(self.batch_sampler):
            if i % self.num_replicas == self.rank:
                yield batch


class SkipBatchSampler(torch.utils.data.BatchSampler):
    """Drops the first ``skip`` batches of the wrapped sampler. Its length stays the wrapped
    sampler's, so that epoch boundaries are counted from the start of training, not from the
    resume (Determined's behaviour). The global RNGs are left as the skip found them: the draws
    of the skipped passes were made before the checkpoint that restored them (Determined's skip
    draws them again, so that there a shuffled resume does not continue the uninterrupted order)."""

    def __init__(self, batch_sampler, skip):
        self.batch_sampler = batch_sampler
        self.skip = skip

    def __len__(self):
        return len(self.batch_sampler)

    def __iter__(self):
        iterator = iter(self.batch_sampler)
        if self.skip > 0:
            saved = rng_state()
            try:
                for _ in range(self.skip):
                    next(iterator)
            except StopIteration:
                return
            finally:
                set_rng_state(saved)
        yield from iterator


def repeat_sampler(batch_sampler):
    """The RepeatBatchSampler under a chain of Determined's batch samplers, or None."""
    while batch_sampler is not None and not isinstance(batch_sampler, RepeatBatchSampler):
        batch_sampler = getattr(batch_sampler, "batch_sampler", None)
    return batch_sampler


# Record-level building blocks, for users who assemble their own torch DataLoader (and call
# context.experimental.disable_dataset_reproducibility_checks()).


class RepeatSampler(torch.utils.data.Sampler):
    """Goes through the wrapped sampler again and again; its length is one pass."""

    def __init__(self, sampler):
        self._sampler = sampler

    def __len__(self):
        return len(self._sampler)

    def __iter__(self):
        while True:
            yield from self._sampler


class DistributedSampler(torch.utils.data.Sampler):
    """Record i of the wrapped sampler goes to rank i % num_workers; every rank reports the
    same length (rounded up)."""

    def __init__(self, sampler, num_workers, rank):
        self._sampler = sampler
        self._num_workers = num_workers
        self._rank = rank

    def __len__(self):
        return -(-len(self._sampler) // self._num_workers)

    def __iter__(self):
        for i, index in enumerate(self._sampler):
            if i % self._num_workers == self._rank:
                yield index


class SkipSampler(torch.utils.data.Sampler):
    """Drops the first ``skip`` records of the wrapped sampler (skip before repeating)."""

    def __init__(self, sampler, skip):
        self._sampler = sampler
        self._skip = skip

    def __len__(self):
        return len(self._sampler)

    def __iter__(self):
        iterator = iter(self._sampler)
        for _ in range(self._skip):
            try:
                next(iterator)
            except StopIteration:
                return
        yield from iterator


class ReproducibleShuffleSampler(torch.utils.data.Sampler):
    """The wrapped sampler's indices in an order drawn from numpy's RandomState(seed): each pass
    draws the next permutation of that one stream (shuffle before skipping and repeating)."""

    def __init__(self, sampler, seed):
        self._sampler = sampler
        self._rng = np.random.RandomState(seed)

    def __len__(self):
        return len(self._sampler)

    def __iter__(self):
        indices = list(self._sampler)
        self._rng.shuffle(indices)
        return iter(indices)


class ReproducibleShuffleBatchSampler(ReproducibleShuffleSampler):
    """The same, shuffling whole batches of a batch sampler."""
