""":class:`RemoteSearchRunner`: the search method as the entrypoint of a one-trial experiment
under ``searcher-run``; it creates the multi-trial (custom) experiment and drives it, its state
saved as the trial's checkpoints, so a restarted trial (or a resumed runner) continues."""

import json
import logging
import os
import pathlib
from typing import Any, Dict, Iterable, Optional, Union

import determined as det
from determined.searcher._search_method import SearchMethod
from determined.searcher._search_runner import OPS_FILE, SearchRunner, _post_body

logger = logging.getLogger("determined.searcher")


class RemoteSearchRunner(SearchRunner):
    """Runs inside a trial (``det.core.init()``'s ``context``): state is checkpointed there after
    every event, and the trial's latest checkpoint is where a restart resumes from."""

    def __init__(self, search_method: SearchMethod, context: Any) -> None:
        super().__init__(search_method)
        self.context = context
        info = det.get_cluster_info()
        assert info is not None, "RemoteSearchRunner only runs on-cluster"
        self.info = info
        self.latest_checkpoint = info.latest_checkpoint

    def run(self, exp_config: Union[Dict[str, Any], str], model_dir: Optional[str] = None,
            includes: Optional[Iterable[Union[str, pathlib.Path]]] = None, context_dir: Optional[str] = None) -> int:
        """Creates the custom experiment (or resumes the one the latest checkpoint names) and
        drives it to its end; returns its id."""
        from determined.experimental import client

        if context_dir is not None:  # the name Determined's examples of 0.19 to 0.2x pass
            if model_dir is not None:
                raise TypeError("run() takes model_dir or its older name context_dir, not both")
            model_dir = context_dir

        prior: Optional[Dict[str, Any]] = None
        if self.latest_checkpoint is not None:
            experiment_id, prior = self.load_state(self.latest_checkpoint)
            logger.info(f"Resuming HP searcher for experiment {experiment_id}")
        else:
            logger.info("No latest checkpoint. Starting new experiment.")
            exp = client.create_experiment(exp_config, model_dir if model_dir is not None else os.getcwd(), includes)
            experiment_id = exp.id
            self.state.experiment_id = experiment_id
            self.state.last_event_id = 0
            self.save_state(experiment_id, _post_body(0, []))
            logger.info(f"Created experiment {experiment_id}")
        self.run_experiment(experiment_id, prior)
        return experiment_id

    def load_state(self, storage_id: str):
        with self.context.checkpoint.restore_path(storage_id) as path:
            path = pathlib.Path(path)
            self.state, experiment_id = self.search_method.load(path)
            return experiment_id, json.loads((path / OPS_FILE).read_text())

    def save_state(self, experiment_id: int, post: Dict[str, Any]) -> None:
        metadata = {"steps_completed": self.state.last_event_id}
        with self.context.checkpoint.store_path(metadata) as (path, _storage_id):
            path = pathlib.Path(path)
            self.search_method.save(self.state, path, experiment_id=experiment_id)
            (path / OPS_FILE).write_text(json.dumps(post))
