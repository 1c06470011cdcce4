"""Determined's Core API, served by hpsearch's ``searcher-run`` (docs/runner.md).

A Determined training script runs unchanged under ``searcher-run``: ``import determined as det``
finds this package on the trial's PYTHONPATH. It talks to the runner over the trial channel
(the address in HPSEARCH_CHANNEL, authenticated by HPSEARCH_TRIAL_TOKEN), so any process of a
trial's tree can use it, whatever launched it. Outside searcher-run, ``det.get_cluster_info()``
is None and ``det.core.init()`` gives working local stand-ins, as Determined's does.

Standard library only: numpy and torch values are handled only if the script imported them.
"""

from determined._info import ClusterInfo, RendezvousInfo, ResourcesInfo, TrialInfo, get_cluster_info
from determined import util
from determined import core
from determined import common
from determined import errors
from determined._import import import_from_path

#: The Determined release whose APIs this package serves.
__version__ = "0.37.0"

#: Determined's log format (``logging.basicConfig(format=det.LOG_FORMAT)``).
LOG_FORMAT = "%(levelname)s: [%(process)s] %(name)s: %(message)s"


class InvalidHP(Exception):
    """Raise inside ``det.core.init()`` when the trial's hyperparameters cannot work: the
    searcher is told (invalid_hp) and replaces the trial where its method says so."""


__all__ = ["__version__", "ClusterInfo", "InvalidHP", "LOG_FORMAT", "RendezvousInfo", "ResourcesInfo",
           "TrialInfo", "common", "core", "errors", "get_cluster_info", "import_from_path", "util"]
