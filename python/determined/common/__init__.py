"""``determined.common``: the helpers Determined's scripts import from it (``util``)."""

from determined.common import util

__all__ = ["util"]
