"""``det``: Determined's command-line habits over hpsearch's local experiment store
(docs/cli.md). ``python3 -m determined.cli`` or the ``det`` launcher. Standard library only."""

from determined.cli._main import main

__all__ = ["main"]
