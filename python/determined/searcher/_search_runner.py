"""The runners' loop: fetch the experiment's events, hand each to the method, save the state,
post the operations with the event's id; and :class:`LocalSearchRunner`, which runs it in the
user's process. The experiment is reached only through ``searcher-run searcher ID`` (``--events``
long-polls the queue, ``--post`` sends operations and waits for the runner to apply them)."""

import json
import logging
import os
import pathlib
import time
import uuid
from typing import Any, Dict, Iterable, List, Optional, Union

from determined.experimental import _store
from determined.searcher._search_method import ExitedReason, Operation, Progress, SearcherState, SearchMethod

EXPERIMENT_ID_FILE = "experiment_id.txt"
OPS_FILE = "ops.json"
logger = logging.getLogger("determined.searcher")

#: How long one ``--events`` call waits for news (seconds).
_POLL_SECONDS = 10


def _post_body(event_id: int, operations: List[Operation]) -> Dict[str, Any]:
    """The post for an event's operations: a Progress becomes the post's progress."""
    body: Dict[str, Any] = {"triggered_by": event_id, "operations": [], "progress": None}
    for op in operations:
        if isinstance(op, Progress):
            body["progress"] = float(op.progress)
        else:
            body["operations"].append(op._to_json())
    return body


class SearchRunner:
    """Drives one experiment with a :class:`SearchMethod`; subclasses say where state is saved."""

    def __init__(self, search_method: SearchMethod) -> None:
        self.search_method = search_method
        self.state = SearcherState()

    def _get_operations(self, event: Dict[str, Any]) -> List[Operation]:
        kind = event["event"]
        method, state = self.search_method, self.state
        if kind == "initial_operations":
            logger.info("initial operations")
            return method.initial_operations(state)
        request_id = uuid.UUID(event["request_id"])
        if kind == "trial_created":
            state.trials_created.add(request_id)
            state.trial_progress[request_id] = 0.0
            return method.on_trial_created(state, request_id)
        if kind == "trial_closed":
            state.trials_closed.add(request_id)
            return method.on_trial_closed(state, request_id)
        if kind == "trial_exited_early":
            reason = ExitedReason._from_event(event["reason"])
            if reason == ExitedReason.INVALID_HP:
                state.trial_progress.pop(request_id, None)
            elif reason == ExitedReason.ERRORED:
                state.failures.add(request_id)
            return method.on_trial_exited_early(state, request_id, reason)
        if kind == "validation_completed":
            metric = event["metric"]
            # A number, as Determined's master gave it (a float, however the trial wrote it);
            # the protocol writes infinities and NaN as strings.
            if isinstance(metric, (int, str)) and not isinstance(metric, bool):
                metric = float(metric)
            return method.on_validation_completed(state, request_id, metric, int(event["length"]))
        if kind == "trial_progress":
            state.trial_progress[request_id] = float(event["units"])
            return [Progress(method.progress(state))]
        raise RuntimeError(f"Unsupported event {event}")

    def _events(self, experiment_id: int) -> Dict[str, Any]:
        return json.loads(_store._call("searcher", str(experiment_id), "--events", "--after",
                                       str(self.state.last_event_id), "--wait", str(_POLL_SECONDS)))

    def _post(self, experiment_id: int, body: Dict[str, Any]) -> None:
        try:
            _store._call("searcher", str(experiment_id), "--post", json.dumps(body))
        except _store.APIException as e:
            # The runner stopped (paused, killed) before answering: the post stays in its inbox
            # and is applied, once, when the experiment is activated; the loop waits till then.
            if "waits in its inbox" not in str(e):
                raise
            logger.warning(f"experiment {experiment_id}: {e}")

    def _queued(self, experiment_id: int, event_id: int) -> bool:
        """Whether the runner still holds event ``event_id`` (it drops an event once operations
        for it, or for a later one, are applied)."""
        answer = json.loads(_store._call("searcher", str(experiment_id), "--events"))
        return any(event["id"] == event_id for event in answer["events"])

    def _post_again(self, experiment_id: int, body: Dict[str, Any]) -> None:
        """A post saved before a restart, sent again because its event was still queued. The
        earlier process may have posted it already, into the runner's inbox, and the runner may
        apply that one between this process's look at the queue and this post: then the event
        has left the queue and the post is refused, and there is nothing left to do."""
        try:
            self._post(experiment_id, body)
        except _store.APIException:
            if self._queued(experiment_id, body["triggered_by"]):
                raise
            logger.info(f"the operations for event {body['triggered_by']} were applied before "
                        "the restart: not posted again")

    def run_experiment(self, experiment_id: int, prior_operations: Optional[Dict[str, Any]]) -> None:
        """Handles events until the experiment ends. ``prior_operations``: the post saved with the
        last event handled before a restart, posted again if that event is still queued (the post
        did not reach the runner)."""
        paused_said = False
        while True:
            answer = self._events(experiment_id)
            if answer["state"] in ("completed", "failed"):
                # The runner wrote its last events; once it has exited, the store has recorded
                # the experiment's end too (what describe and client.get_experiment show).
                while answer["alive"]:
                    time.sleep(0.1)
                    answer = self._events(experiment_id)
                self.state.experiment_completed = answer["state"] == "completed"
                logger.info(f"experiment {experiment_id} is inactive; state={answer['state']}")
                return
            if answer["state"] == "paused" or not answer["alive"]:
                if not paused_said:
                    logger.warning(f"experiment {experiment_id} is not running ({answer['experiment_state']}); "
                                   f"the search goes on once it is activated (searcher-run activate "
                                   f"{experiment_id})")
                    paused_said = True
                time.sleep(_POLL_SECONDS / 10)  # --events answers at once while no runner serves it
                continue
            paused_said = False
            for event in answer["events"]:
                if event["id"] <= self.state.last_event_id:
                    # Handled and saved before a restart, but its post never reached the runner.
                    if prior_operations is not None and prior_operations["triggered_by"] == event["id"]:
                        logger.info(f"posting again the operations for event {event['id']}")
                        self._post_again(experiment_id, prior_operations)
                    prior_operations = None
                    continue
                operations = self._get_operations(event)
                self.state.last_event_id = event["id"]
                body = _post_body(event["id"], operations)
                self.save_state(experiment_id, body)
                self._post(experiment_id, body)
            prior_operations = None

    def save_state(self, experiment_id: int, post: Dict[str, Any]) -> None:
        """Saves the runner's and the method's state with the post about to be sent."""


class LocalSearchRunner(SearchRunner):
    """Runs the search method in this process: creates the experiment (``run``), then hands it
    every event and posts the operations. Its state is saved in ``searcher_dir`` (default: the
    current directory) after every event, so a runner started again with the same
    ``searcher_dir`` continues the same experiment where the last one stopped."""

    def __init__(self, search_method: SearchMethod, searcher_dir: Optional[Union[str, pathlib.Path]] = None,
                 session: Any = None) -> None:
        super().__init__(search_method)
        self.session = session  # Determined's API session; the store needs none
        self.searcher_dir = pathlib.Path(searcher_dir) if searcher_dir is not None else pathlib.Path.cwd()
        if not self.searcher_dir.exists():
            self.searcher_dir.mkdir(parents=True)
        elif not self.searcher_dir.is_dir():
            raise FileExistsError(f"searcher_dir={self.searcher_dir} already exists and is not a directory")

    def run(self, exp_config: Union[Dict[str, Any], str], model_dir: Optional[str] = None,
            includes: Optional[Iterable[Union[str, pathlib.Path]]] = None, context_dir: Optional[str] = None) -> int:
        """Creates the experiment (``exp_config``: a dict or a YAML file name; its searcher is
        ``custom``) from ``model_dir`` (default: the current directory) and ``includes``, or
        resumes the one ``searcher_dir`` names, and drives it to its end. Returns its id."""
        from determined.experimental import client

        if context_dir is not None:  # the name Determined's examples of 0.19 to 0.2x pass
            if model_dir is not None:
                raise TypeError("run() takes model_dir or its older name context_dir, not both")
            model_dir = context_dir

        id_file = self.searcher_dir / EXPERIMENT_ID_FILE
        prior: Optional[Dict[str, Any]] = None
        if id_file.exists():
            experiment_id = int(id_file.read_text())
            logger.info(f"Resuming HP searcher for experiment {experiment_id}")
            prior = self.load_state(experiment_id)
        else:
            exp = client.create_experiment(exp_config, model_dir if model_dir is not None else os.getcwd(), includes)
            experiment_id = exp.id
            self._state_path(experiment_id).mkdir(parents=True, exist_ok=True)
            self.state.experiment_id = experiment_id
            self.state.last_event_id = 0
            self.save_state(experiment_id, _post_body(0, []))
            _write_atomically(id_file, str(experiment_id))
            logger.info(f"Starting HP searcher for experiment {experiment_id}")
        self.run_experiment(experiment_id, prior)
        return experiment_id

    def _state_path(self, experiment_id: int) -> pathlib.Path:
        return self.searcher_dir / f"exp_{experiment_id}"

    def load_state(self, experiment_id: int) -> Dict[str, Any]:
        """Loads the state saved with the last event handled; returns that event's post."""
        experiment_dir = self._state_path(experiment_id)
        last_event_id = int((experiment_dir / "event_id").read_text())
        path = experiment_dir / f"event_{last_event_id}"
        self.state, loaded_id = self.search_method.load(path)
        if loaded_id != experiment_id:
            raise RuntimeError(f"Experiment id mismatch. Expected {experiment_id}. Found {loaded_id}")
        return json.loads((path / OPS_FILE).read_text())

    def save_state(self, experiment_id: int, post: Dict[str, Any]) -> None:
        experiment_dir = self._state_path(experiment_id)
        path = experiment_dir / f"event_{self.state.last_event_id}"
        path.mkdir(parents=True, exist_ok=True)
        self.search_method.save(self.state, path, experiment_id=experiment_id)
        _write_atomically(path / OPS_FILE, json.dumps(post))
        # The commit: event_id names the directory saved in full.
        _write_atomically(experiment_dir / "event_id", str(self.state.last_event_id))


def _write_atomically(path: pathlib.Path, text: str) -> None:
    temporary = path.with_name(path.name + ".new")
    with temporary.open("w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
