"""Batch samplers that make a DataLoader Determined's: repeated for training, sharded across the
slots of a trial, and skipping the batches trained before a resume.

Sharding hands each rank every ``num_replicas``-th batch starting at its rank; skipping counts
batches *after* sharding (a rank skips the batches it trained itself), so a trial resumed at
batch B of each rank sees exactly the batches an uninterrupted one would have."""

import torch.utils.data


class RepeatBatchSampler(torch.utils.data.BatchSampler):
    """Goes through the wrapped batch sampler again and again; its length is one pass."""

    def __init__(self, batch_sampler):
        self.batch_sampler = batch_sampler

    def __len__(self):
        return len(self.batch_sampler)

    def __iter__(self):
        while True:
            yield from self.batch_sampler


class DistributedBatchSampler(torch.utils.data.BatchSampler):
    """Batch i of the wrapped sampler goes to rank i % num_replicas."""

    def __init__(self, batch_sampler, num_replicas, rank):
        if num_replicas < 1:
            raise ValueError(f"num_replicas must be positive, got {num_replicas}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"rank must be in [0, {num_replicas}), got {rank}")
        self.batch_sampler = batch_sampler
        self.num_replicas = num_replicas
        self.rank = rank

    def __len__(self):
        total = len(self.batch_sampler)
        return total // self.num_replicas + int(total % self.num_replicas > self.rank)

    def __iter__(self):
        for i, batch in enumerate(self.batch_sampler):
            if i % self.num_replicas == self.rank:
                yield batch


class SkipBatchSampler(torch.utils.data.BatchSampler):
    """Drops the first ``skip`` batches of the wrapped sampler. Its length stays the wrapped
    sampler's, so that epoch boundaries are counted from the start of training, not from the
    resume (Determined's behaviour)."""

    def __init__(self, batch_sampler, skip):
        self.batch_sampler = batch_sampler
        self.skip = skip

    def __len__(self):
        return len(self.batch_sampler)

    def __iter__(self):
        iterator = iter(self.batch_sampler)
        for _ in range(self.skip):
            try:
                next(iterator)
            except StopIteration:
                return
        yield from iterator
