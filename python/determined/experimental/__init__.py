"""Determined's Python SDK over hpsearch's local experiment store: ``from determined.experimental
import client`` (docs/sdk.md); and the Trial API's local and test modes (``create``,
``test_one_batch``: docs/trial-api.md)."""

from determined.experimental import client
from determined.experimental._native import create, test_one_batch
from determined.experimental.client import (Checkpoint, Determined, Experiment, ExperimentReference, Model,
                                            ModelVersion, Trial, TrialReference)

__all__ = ["Checkpoint", "Determined", "Experiment", "ExperimentReference", "Model", "ModelVersion",
           "Trial", "TrialReference", "client", "create", "test_one_batch"]
