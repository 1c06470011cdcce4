"""Custom search methods, as Determined 0.19.6 to 0.37 had them (``determined.searcher``).

Subclass :class:`SearchMethod` and hand an instance to a runner:

- :class:`LocalSearchRunner` runs the method in your own process: it creates an experiment whose
  config says ``searcher: {name: custom}`` and drives it, surviving its own restart (its state is
  saved in ``searcher_dir`` after every event);
- :class:`RemoteSearchRunner` runs it as the entrypoint of a one-trial experiment under
  ``searcher-run``, its state saved as that trial's checkpoints.

Both reach the experiment only through ``searcher-run searcher ID --events/--post``
(docs/custom-searcher.md); the runner journals every event and operation, so a killed runner
resumes losing nothing.
"""

from determined.searcher._search_method import (Close, Create, ExitedReason, Operation, Progress, SearcherState,
                                                SearchMethod, Shutdown, ValidateAfter)
from determined.searcher._search_runner import LocalSearchRunner, SearchRunner
from determined.searcher._remote_search_runner import RemoteSearchRunner

__all__ = ["Close", "Create", "ExitedReason", "LocalSearchRunner", "Operation", "Progress", "RemoteSearchRunner",
           "SearchMethod", "SearchRunner", "SearcherState", "Shutdown", "ValidateAfter"]
