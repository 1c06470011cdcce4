"""What a trial knows about itself: ``det.get_cluster_info()``. Under searcher-run it is built
from the environment the runner gave the trial; elsewhere it is None (as off-cluster in
Determined), and scripts fall back to their local behaviour."""

import json
import os
import socket


class TrialInfo:
    """The trial's identity, hyperparameters and config."""

    def __init__(self, trial_id, experiment_id, trial_seed, hparams, config, steps_completed,
                 trial_run_id, debug=False, inter_node_network_interface=None):
        self.trial_id = trial_id
        self.experiment_id = experiment_id
        self.trial_seed = trial_seed
        self.hparams = hparams
        self._config = config
        self.steps_completed = steps_completed
        self.trial_run_id = trial_run_id
        self.debug = debug
        self.inter_node_network_interface = inter_node_network_interface

    def __repr__(self):
        return f"TrialInfo(trial_id={self.trial_id}, experiment_id={self.experiment_id}, hparams={self.hparams!r})"


class RendezvousInfo:
    """Where the containers of a multi-container trial are: one here, on this machine."""

    def __init__(self, container_addrs, container_rank, container_slot_counts):
        self.container_addrs = container_addrs
        self.container_rank = container_rank
        self.container_slot_counts = container_slot_counts


class ResourcesInfo:
    def __init__(self, gpu_uuids):
        self.gpu_uuids = gpu_uuids


class ClusterInfo:
    """What Determined tells a task about itself, for a trial of a local searcher-run."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        slots = int(env.get("HPSEARCH_SLOTS_PER_TRIAL", "1"))
        config = None
        if env.get("HPSEARCH_CONFIG_JSON"):
            with open(env["HPSEARCH_CONFIG_JSON"], encoding="utf-8") as f:
                config = json.load(f)
        if config is None:
            config = {"searcher": {"metric": env.get("HPSEARCH_METRIC"),
                                   "smaller_is_better": env.get("HPSEARCH_SMALLER_IS_BETTER", "1") == "1"}}
        self.master_url = "searcher-run:local"
        self.cluster_id = "hpsearch-local"
        self.agent_id = socket.gethostname()
        self.slot_ids = list(range(slots))
        self.task_id = f"trial-{env.get('HPSEARCH_TRIAL_ID', '0')}"
        self.allocation_id = f"{self.task_id}.{env.get('HPSEARCH_TRIAL_RUN_ID', '0')}"
        self.session_token = ""
        self.task_type = "TRIAL"
        self.gpu_uuids = []
        self.container_addrs = ["127.0.0.1"]
        self.container_rank = 0
        self.container_slot_counts = [slots]
        self.rendezvous_info = RendezvousInfo(self.container_addrs, self.container_rank, self.container_slot_counts)
        self.resources_info = ResourcesInfo(self.gpu_uuids)
        self.user_data = config.get("data", {}) or {}
        self.latest_checkpoint = env.get("HPSEARCH_LATEST_CHECKPOINT_ID") or env.get("HPSEARCH_LATEST_CHECKPOINT") or None
        self.trial = TrialInfo(
            trial_id=int(env.get("HPSEARCH_TRIAL_ID", "1")),
            experiment_id=int(env.get("HPSEARCH_EXPERIMENT_ID", "1")),
            trial_seed=int(env.get("HPSEARCH_TRIAL_SEED", "0")),
            hparams=json.loads(env.get("HPSEARCH_HPARAMS", "{}")),
            config=config,
            steps_completed=int(env.get("HPSEARCH_LATEST_CHECKPOINT_LENGTH", "0")),
            trial_run_id=int(env.get("HPSEARCH_TRIAL_RUN_ID", "1")),
        )

    @property
    def _trial_info(self):
        return self.trial


_cached = None


def get_cluster_info():
    """The running trial's ClusterInfo, or None outside searcher-run (like off-cluster)."""
    global _cached
    if "HPSEARCH_TRIAL_ID" not in os.environ:
        return None
    if _cached is None:
        _cached = ClusterInfo()
    return _cached
