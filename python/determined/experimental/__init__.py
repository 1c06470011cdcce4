"""Determined's Python SDK over hpsearch's local experiment store: ``from determined.experimental
import client`` (docs/sdk.md)."""

from determined.experimental import client
from determined.experimental.client import (Checkpoint, Determined, ExperimentReference, Model,
                                            ModelVersion, TrialReference)

__all__ = ["Checkpoint", "Determined", "ExperimentReference", "Model", "ModelVersion",
           "TrialReference", "client"]
