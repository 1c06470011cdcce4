"""``determined.pytorch.DataLoader``: the arguments of ``torch.utils.data.DataLoader``, kept until
the harness knows the trial's rank, its number of slots and how far it trained before, then made
into a torch DataLoader with Determined's batch samplers (samplers.py)."""

import logging

import torch
import torch.utils.data as data

from determined.pytorch import samplers

logger = logging.getLogger("determined.pytorch")

TorchData = object  # a tensor, or a dict/list/tuple of them (Determined's type alias)


class DataLoader:
    """Same arguments as torch.utils.data.DataLoader (map-style datasets only)."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False):
        if isinstance(dataset, data.IterableDataset):
            raise ValueError("determined.pytorch.DataLoader takes map-style datasets only: an "
                             "IterableDataset cannot be sharded, repeated or skipped by index. Return a "
                             "torch.utils.data.DataLoader instead and shard and skip it yourself "
                             "(context.experimental.disable_dataset_reproducibility_checks())")
        if batch_sampler is None and batch_size is None:
            raise ValueError("determined.pytorch.DataLoader: batch_size=None without a batch_sampler "
                             "is not supported")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
        if num_workers < 0:
            raise ValueError(f"num_workers must be non-negative, got {num_workers}")
        if sampler is None:
            sampler = (data.RandomSampler(dataset, generator=generator) if shuffle
                       else data.SequentialSampler(dataset))
        if batch_sampler is None:
            batch_sampler = data.BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers

    def get_data_loader(self, repeat=False, skip=0, num_replicas=1, rank=0):
        """The torch DataLoader for one rank: repeated, sharded and skipping ``skip`` of its own
        batches."""
        extra = {}
        if self.num_workers > 0:
            extra = {"prefetch_factor": self.prefetch_factor or 2,
                     "persistent_workers": self.persistent_workers}
        return data.DataLoader(
            self.dataset,
            batch_sampler=adapt_batch_sampler(self.batch_sampler, repeat, skip, num_replicas, rank),
            num_workers=self.num_workers, collate_fn=self.collate_fn, pin_memory=self.pin_memory,
            timeout=self.timeout, worker_init_fn=self.worker_init_fn,
            multiprocessing_context=self.multiprocessing_context, generator=self.generator, **extra)

    def __iter__(self):
        """Outside a trial it iterates like a plain DataLoader."""
        return iter(self.get_data_loader())

    def __len__(self):
        return len(self.batch_sampler)


def adapt_batch_sampler(batch_sampler, repeat=False, skip=0, num_replicas=1, rank=0):
    """Repeat, then shard, then skip (skipping counts the rank's own batches)."""
    if repeat:
        batch_sampler = samplers.RepeatBatchSampler(batch_sampler)
    if num_replicas > 1:
        batch_sampler = samplers.DistributedBatchSampler(batch_sampler, num_replicas, rank)
    if skip > 0:
        batch_sampler = samplers.SkipBatchSampler(batch_sampler, skip)
    return batch_sampler


def data_length(data_):
    """Records in a batch: the length of its first tensor (or array), as Determined counts them."""
    if isinstance(data_, torch.Tensor) or type(data_).__module__ == "numpy":
        return len(data_)
    if isinstance(data_, dict):
        if not data_:
            raise ValueError("a batch must hold at least one tensor: got an empty dict")
        return data_length(next(iter(data_.values())))
    if isinstance(data_, (list, tuple)):
        if not data_:
            raise ValueError(f"a batch must hold at least one tensor: got an empty {type(data_).__name__}")
        return data_length(data_[0])
    raise TypeError(f"cannot count the records of a batch of type {type(data_).__name__}")


def to_device(data_, device, warned_types=None):
    """Moves tensors (and numpy arrays, made tensors) in nested dicts/lists/tuples to ``device``."""
    warned_types = set() if warned_types is None else warned_types
    if isinstance(data_, dict):
        return {k: to_device(v, device, warned_types) for k, v in data_.items()}
    if isinstance(data_, list):
        return [to_device(v, device, warned_types) for v in data_]
    if isinstance(data_, tuple):
        return tuple(to_device(v, device, warned_types) for v in data_)
    if type(data_).__module__ == "numpy" and hasattr(data_, "dtype") and data_.dtype.kind in "fciub":
        return torch.from_numpy(data_).to(device)
    if hasattr(data_, "to") and callable(data_.to):
        return data_.to(device)
    if type(data_) not in warned_types:
        warned_types.add(type(data_))
        logger.warning(f"could not move a value of type {type(data_).__name__} to {device}")
    return data_
