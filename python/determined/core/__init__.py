"""``det.core``: the Core API (see the reference in docs/runner.md for what is supported)."""

from determined.core._checkpoint import CheckpointContext, DownloadMode
from determined.core._context import Context, ProfilerContext, TensorboardMode, init
from determined.core._distributed import DistributedContext, DummyDistributedContext
from determined.core._preempt import PreemptContext, PreemptMode
from determined.core._searcher import SearcherContext, SearcherMode, SearcherOperation, Unit
from determined.core._train import EarlyExitReason, TrainContext

__all__ = ["CheckpointContext", "Context", "DistributedContext", "DownloadMode", "DummyDistributedContext",
           "EarlyExitReason", "PreemptContext", "PreemptMode", "ProfilerContext", "SearcherContext",
           "SearcherMode", "SearcherOperation", "TensorboardMode", "TrainContext", "Unit", "init"]
