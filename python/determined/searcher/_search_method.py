"""The search method's side of ``determined.searcher``: the state a runner keeps, the operations a
method returns and the :class:`SearchMethod` it subclasses, with Determined 0.37's names and
signatures (every handler gets the runner's :class:`SearcherState` first)."""

import enum
import json
import pathlib
import uuid
from typing import Any, Dict, List, Optional, Set, Tuple

STATE_FILE = "state"

#: The trial seed Determined's master gives every trial a custom searcher creates.
_CUSTOM_TRIAL_SEED = 42


class SearcherState:
    """What the runner knows of the search, for the method to read (never to change):

    - ``failures``: request ids of trials that errored,
    - ``trial_progress``: units trained per trial (a trial whose hyperparameters were invalid
      drops out),
    - ``trials_closed``, ``trials_created``: request ids,
    - ``last_event_id``: the last event handled; ``experiment_completed``; ``experiment_id``.
    """

    def __init__(self) -> None:
        self.failures: Set[uuid.UUID] = set()
        self.trial_progress: Dict[uuid.UUID, float] = {}
        self.trials_closed: Set[uuid.UUID] = set()
        self.trials_created: Set[uuid.UUID] = set()
        self.last_event_id = 0
        self.experiment_completed = False
        self.experiment_id: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"failures": sorted(str(f) for f in self.failures),
                "trialProgress": {str(k): v for k, v in self.trial_progress.items()},
                "trialsClosed": sorted(str(t) for t in self.trials_closed),
                "trialsCreated": sorted(str(t) for t in self.trials_created),
                "lastEventId": self.last_event_id,
                "experimentId": self.experiment_id,
                "experimentCompleted": self.experiment_completed}

    def from_dict(self, d: Dict[str, Any]) -> None:
        self.failures = {uuid.UUID(f) for f in d.get("failures", [])}
        self.trial_progress = {uuid.UUID(k): v for k, v in d.get("trialProgress", {}).items()}
        self.trials_closed = {uuid.UUID(t) for t in d.get("trialsClosed", [])}
        self.trials_created = {uuid.UUID(t) for t in d.get("trialsCreated", [])}
        self.last_event_id = d.get("lastEventId", 0)
        self.experiment_id = d.get("experimentId")
        self.experiment_completed = d.get("experimentCompleted", False)


class ExitedReason(enum.Enum):
    """Why a trial exited early, as a method sees it (Determined's three)."""
    ERRORED = "ERRORED"
    USER_CANCELED = "USER_CANCELED"
    INVALID_HP = "INVALID_HP"

    @classmethod
    def _from_event(cls, reason: str) -> "ExitedReason":
        """From the runner's reason (docs/protocol.md). Determined's mapping: an unspecified
        reason (an error) is ERRORED, a user's stop request is USER_CANCELED; hpsearch also
        maps its init_invalid_hp (INVALID_HP) and user_canceled (USER_CANCELED), which
        Determined's master never sent to a custom searcher."""
        mapped = {"errored": cls.ERRORED, "invalid_hp": cls.INVALID_HP, "init_invalid_hp": cls.INVALID_HP,
                  "user_requested_stop": cls.USER_CANCELED, "user_canceled": cls.USER_CANCELED}.get(reason)
        if mapped is None:
            raise RuntimeError(f"Invalid exited reason: {reason}")
        return mapped


class Operation:
    """What a method asks of the experiment (one of the subclasses below)."""

    def _to_json(self) -> Dict[str, Any]:
        raise NotImplementedError


class ValidateAfter(Operation):
    """Train the trial until its total trained length is ``length`` (in the searcher's unit),
    then validate and report the searcher metric."""

    def __init__(self, request_id: uuid.UUID, length: int) -> None:
        self.request_id = request_id
        self.length = length

    def _to_json(self) -> Dict[str, Any]:
        return {"type": "validate_after", "request_id": str(self.request_id), "length": int(self.length)}


class Close(Operation):
    """Close the trial once its current ValidateAfter is done."""

    def __init__(self, request_id: uuid.UUID) -> None:
        self.request_id = request_id

    def _to_json(self) -> Dict[str, Any]:
        return {"type": "close", "request_id": str(self.request_id)}


class Progress(Operation):
    """Set the experiment's progress (0 to 1): a custom search's progress is the last one set."""

    def __init__(self, progress: float) -> None:
        self.progress = progress

    def _to_json(self) -> Dict[str, Any]:
        raise TypeError("Progress is posted as the post's progress, not as an operation")


class Shutdown(Operation):
    """End the search (Determined 0.22+: ``cancel`` and ``failure`` say how it ends)."""

    def __init__(self, cancel: bool = False, failure: bool = False) -> None:
        self.cancel = cancel
        self.failure = failure

    def _to_json(self) -> Dict[str, Any]:
        return {"type": "shutdown", "cancel": bool(self.cancel), "failure": bool(self.failure)}


class Create(Operation):
    """Create a trial with these hyperparameters (``checkpoint`` is accepted, as Determined's is,
    and not sent: Determined's master ignored it too)."""

    def __init__(self, request_id: uuid.UUID, hparams: Dict[str, Any], checkpoint: Optional[Any] = None) -> None:
        self.request_id = request_id
        self.hparams = json.dumps(hparams)
        self.checkpoint = checkpoint

    def _to_json(self) -> Dict[str, Any]:
        return {"type": "create", "request_id": str(self.request_id), "trial_seed": _CUSTOM_TRIAL_SEED,
                "hparams": json.loads(self.hparams)}


class SearchMethod:
    """A custom hyperparameter search: override the handlers. Each returns the operations to post
    (``progress`` returns a number in [0, 1]). Do not change the ``searcher_state`` passed in."""

    def initial_operations(self, searcher_state: SearcherState) -> List[Operation]:
        """The first operations: typically Creates, each with its ValidateAfter."""
        raise NotImplementedError

    def on_trial_created(self, searcher_state: SearcherState, request_id: uuid.UUID) -> List[Operation]:
        """The trial a Create asked for exists."""
        raise NotImplementedError

    def on_validation_completed(self, searcher_state: SearcherState, request_id: uuid.UUID, metric: Any,
                                train_length: int) -> List[Operation]:
        """The trial completed the ValidateAfter of ``train_length`` and reported ``metric``."""
        raise NotImplementedError

    def on_trial_closed(self, searcher_state: SearcherState, request_id: uuid.UUID) -> List[Operation]:
        """The trial has finished for good."""
        raise NotImplementedError

    def progress(self, searcher_state: SearcherState) -> float:
        """The experiment's progress, between 0 and 1."""
        raise NotImplementedError

    def on_trial_exited_early(self, searcher_state: SearcherState, request_id: uuid.UUID,
                              exited_reason: ExitedReason) -> List[Operation]:
        """The trial stopped before completing its operations (on_trial_closed follows)."""
        raise NotImplementedError

    def save(self, searcher_state: SearcherState, path: pathlib.Path, *, experiment_id: int) -> None:
        """Saves the runner's state (``path/state``) and the method's (save_method_state); the
        runner calls it after every event, before posting the event's operations."""
        d = searcher_state.to_dict()
        d["experimentId"] = experiment_id
        with path.joinpath(STATE_FILE).open("w") as f:
            json.dump(d, f)
        self.save_method_state(path)

    def save_method_state(self, path: pathlib.Path) -> None:
        """Saves the method's own state in the directory ``path``."""

    def load(self, path: pathlib.Path) -> Tuple[SearcherState, int]:
        """Loads what save wrote: the runner's state and the experiment id; then load_method_state."""
        with path.joinpath(STATE_FILE).open() as f:
            d = json.load(f)
        state = SearcherState()
        state.from_dict(d)
        self.load_method_state(path)
        return state, int(d["experimentId"])

    def load_method_state(self, path: pathlib.Path) -> None:
        """Loads the method's own state from the directory ``path``."""
