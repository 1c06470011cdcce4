"""``determined.searcher.search_method``: the module path Determined's custom-search examples of
0.19 to 0.2x import ``SearchMethod`` and the operations from; the same classes as
``determined.searcher``."""

from determined.searcher._search_method import (Close, Create, ExitedReason, Operation, Progress, SearcherState,
                                                SearchMethod, Shutdown, ValidateAfter)

__all__ = ["Close", "Create", "ExitedReason", "Operation", "Progress", "SearchMethod", "SearcherState", "Shutdown",
           "ValidateAfter"]
