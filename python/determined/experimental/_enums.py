"""Determined's enums of ``determined.experimental.client`` (re-exported there)."""

import enum

# ---- enums (Determined's member names; values: docs/sdk.md) ----------------------------------

class ExperimentState(enum.Enum):
    """Determined's experiment states; the store reports ACTIVE, STOPPING_CANCELED, PAUSED,
    COMPLETED, CANCELED and ERROR (the others are a master's stages)."""
    UNSPECIFIED = "UNSPECIFIED"
    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    STOPPING_COMPLETED = "STOPPING_COMPLETED"
    STOPPING_CANCELED = "STOPPING_CANCELED"
    STOPPING_ERROR = "STOPPING_ERROR"
    COMPLETED = "COMPLETED"
    CANCELED = "CANCELED"
    ERROR = "ERROR"
    DELETED = "DELETED"
    DELETING = "DELETING"
    DELETE_FAILED = "DELETE_FAILED"
    STOPPING_KILLED = "STOPPING_KILLED"
    QUEUED = "QUEUED"
    PULLING = "PULLING"
    STARTING = "STARTING"
    RUNNING = "RUNNING"


class TrialState(enum.Enum):
    """Determined's trial states; the store reports ACTIVE, PAUSED, CANCELED, COMPLETED, ERROR."""
    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    STOPPING_CANCELED = "STOPPING_CANCELED"
    STOPPING_KILLED = "STOPPING_KILLED"
    STOPPING_COMPLETED = "STOPPING_COMPLETED"
    STOPPING_ERROR = "STOPPING_ERROR"
    CANCELED = "CANCELED"
    COMPLETED = "COMPLETED"
    ERROR = "ERROR"
    QUEUED = "QUEUED"
    PULLING = "PULLING"
    STARTING = "STARTING"
    RUNNING = "RUNNING"


class CheckpointState(enum.Enum):
    UNSPECIFIED = "UNSPECIFIED"
    ACTIVE = "ACTIVE"
    COMPLETED = "COMPLETED"
    ERROR = "ERROR"
    DELETED = "DELETED"
    PARTIALLY_DELETED = "PARTIALLY_DELETED"


class DownloadMode(enum.Enum):
    AUTO = "AUTO"
    DIRECT = "DIRECT"
    MASTER = "MASTER"


class TrialSortBy(enum.Enum):
    UNSPECIFIED = 0
    ID = 1
    START_TIME = 4
    END_TIME = 5
    STATE = 6
    SEARCHER_METRIC = 8
    BATCHES_PROCESSED = 7


class TrialOrderBy(enum.Enum):
    UNSPECIFIED = 0
    ASCENDING = 1
    ASC = 1
    DESCENDING = 2
    DESC = 2


#: Determined's ``client.OrderBy`` (ASC/ASCENDING, DESC/DESCENDING): the trial order is the same enum.
OrderBy = TrialOrderBy


class CheckpointSortBy(enum.Enum):
    """What ``list_checkpoints`` sorts by (or a validation metric's name, as a string)."""
    UUID = "UUID"
    TRIAL_ID = "TRIAL_ID"
    BATCH_NUMBER = "BATCH_NUMBER"
    END_TIME = "END_TIME"
    STATE = "STATE"
    SEARCHER_METRIC = "SEARCHER_METRIC"


class ExperimentSortBy(enum.Enum):
    """What ``list_experiments`` sorts by: the fields the store has."""
    UNSPECIFIED = 0
    ID = 1
    DESCRIPTION = 2
    START_TIME = 4
    END_TIME = 5
    STATE = 6
    NUM_TRIALS = 8
    PROGRESS = 9
    NAME = 11


class ModelSortBy(enum.Enum):
    UNSPECIFIED = 0
    NAME = 1
    DESCRIPTION = 2
    CREATION_TIME = 4
    LAST_UPDATED_TIME = 5
    NUM_VERSIONS = 6


class ModelOrderBy(enum.Enum):
    UNSPECIFIED = 0
    ASCENDING = 1
    ASC = 1
    DESCENDING = 2
    DESC = 2


# The states wait() returns; PAUSED makes it raise, as Determined's does.
_TERMINAL = {ExperimentState.COMPLETED, ExperimentState.CANCELED, ExperimentState.ERROR, ExperimentState.DELETED}

# experiment.json's trial outcomes as Determined's trial states.
_TRIAL_STATES = {"running": TrialState.ACTIVE, "waiting": TrialState.ACTIVE, "paused": TrialState.PAUSED,
                 "completed": TrialState.COMPLETED, "stopped": TrialState.COMPLETED,
                 "user_requested_stop": TrialState.COMPLETED, "invalid_hp": TrialState.COMPLETED,
                 "errored": TrialState.ERROR, "user_canceled": TrialState.CANCELED}
# The state of a trial that has not ended, by its experiment's state (once the runner is gone).
_UNFINISHED_TRIAL_STATES = {"PAUSED": TrialState.PAUSED, "CANCELED": TrialState.CANCELED,
                            "ERROR": TrialState.ERROR}
