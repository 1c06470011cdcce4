"""Checkpoints in local checkpoint storage: one directory per storage id (a UUID) holding the
files and metadata.json. The runner learns of every checkpoint stored (so the trial restarts
from its latest one) and deletes those the config's save policies do not keep."""

import contextlib
import enum
import json
import os
import pathlib
import shutil
import uuid

from determined import util


class DownloadMode(enum.Enum):
    LocalWorkersShareDownload = "LOCAL_WORKERS_SHARE_DOWNLOAD"
    NoSharedDownload = "NO_SHARED_DOWNLOAD"


_METADATA = "metadata.json"


def _copy(src, dst, selector):
    src = pathlib.Path(src)
    for path in sorted(src.rglob("*")):
        relative = path.relative_to(src).as_posix()
        if path.is_dir() or (selector is not None and not selector(relative)):
            continue
        target = pathlib.Path(dst) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


class CheckpointContext:
    def __init__(self, dist, storage, channel=None):
        self._dist = dist
        self._storage = pathlib.Path(storage)
        self._channel = channel

    def _path(self, storage_id):
        path = pathlib.Path(storage_id)
        return path if path.is_absolute() else self._storage / str(storage_id)

    def _stored(self, storage_id, metadata):
        metadata = util.make_plain(dict(metadata or {}))
        with open(self._path(storage_id) / _METADATA, "w", encoding="utf-8") as f:
            json.dump(metadata, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        if self._channel is not None:
            self._channel.send({"type": "checkpoint", "storage_id": storage_id,
                                "steps_completed": metadata.get("steps_completed"), "metadata": metadata})

    def _record(self, storage_id, metadata, shard):
        """Records a finished checkpoint: sharded, the chief merges every rank's metadata and
        every rank returns once it is recorded."""
        if not shard:
            self._stored(storage_id, metadata)
            return
        all_metadata = self._dist.gather(metadata)
        if self._dist.rank == 0:
            merged = {}
            for m in all_metadata:
                merged.update(m or {})
            self._stored(storage_id, merged)
        self._dist.broadcast(None)

    def _new_id(self, shard):
        storage_id = str(uuid.uuid4()) if self._dist.rank == 0 else None
        return self._dist.broadcast(storage_id) if shard else storage_id

    @contextlib.contextmanager
    def store_path(self, metadata=None, *, shard=False):
        """A new checkpoint directory to save into: yields (path, storage_id). The checkpoint
        is recorded when the block ends without an exception."""
        if metadata is None or "steps_completed" not in metadata:
            raise ValueError("metadata must include a 'steps_completed' key")
        if not shard and self._dist.rank != 0:
            raise RuntimeError("only the chief (rank 0) may call store_path(shard=False)")
        storage_id = self._new_id(shard)
        path = self._path(storage_id)
        path.mkdir(parents=True, exist_ok=True)
        yield path, storage_id
        self._record(storage_id, metadata, shard)

    def upload(self, ckpt_dir, metadata=None, *, shard=False, selector=None):
        """Copies ckpt_dir (or, sharded, every rank's) into a new checkpoint; its storage id."""
        if not shard and self._dist.rank != 0:
            raise RuntimeError("only the chief (rank 0) may call upload(shard=False)")
        storage_id = self._new_id(shard)
        path = self._path(storage_id)
        path.mkdir(parents=True, exist_ok=True)
        if ckpt_dir is not None:
            _copy(ckpt_dir, path, selector)
        self._record(storage_id, metadata, shard)
        return storage_id

    def download(self, storage_id, ckpt_dir, download_mode=DownloadMode.LocalWorkersShareDownload, *,
                 selector=None):
        """Copies a checkpoint's files into ckpt_dir (created if need be)."""
        source = self._path(storage_id)
        if not source.is_dir():
            raise FileNotFoundError(f"no checkpoint {storage_id} in {self._storage}")
        pathlib.Path(ckpt_dir).mkdir(parents=True, exist_ok=True)
        _copy(source, ckpt_dir, lambda p: p != _METADATA and (selector is None or selector(p)))

    @contextlib.contextmanager
    def restore_path(self, storage_id, download_mode=DownloadMode.LocalWorkersShareDownload, *, selector=None):
        """The checkpoint's directory (storage is local: nothing to download or clean up)."""
        path = self._path(storage_id)
        if not path.is_dir():
            raise FileNotFoundError(f"no checkpoint {storage_id} in {self._storage}")
        yield path

    def get_metadata(self, storage_id):
        path = self._path(storage_id) / _METADATA
        if not path.exists():
            return {}
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def delete(self, storage_id):
        if self._channel is not None:
            # The runner is told first and answers a sync request before the files go: it reads
            # this trial's lines in order, so the answer means it has taken the checkpoint's own
            # report (which it checks against the files) and this deletion. Removing the files
            # first raced with a runner that had not yet read that report.
            self._channel.send({"type": "checkpoint_deleted", "storage_id": str(storage_id)})
            self._channel.request("sync")
        shutil.rmtree(self._path(storage_id), ignore_errors=True)
