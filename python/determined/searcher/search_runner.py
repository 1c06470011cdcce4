"""``determined.searcher.search_runner``: the module path Determined's custom-search examples
of 0.19 to 0.2x import the runners from (``from determined.searcher.search_runner import
LocalSearchRunner``); the same classes as ``determined.searcher``."""

from determined.searcher._remote_search_runner import RemoteSearchRunner
from determined.searcher._search_runner import LocalSearchRunner, SearchRunner

__all__ = ["LocalSearchRunner", "RemoteSearchRunner", "SearchRunner"]
