"""The runner's rooms (docs/architecture.md): each folder of runner/src may include only the
rooms listed before it (channel, launchers, engine, store, ui, commands), by their private headers
("engine/report.hpp") or their public ones ("hpsearch/runner/journal.hpp"). errors.hpp and
trial_environment.hpp (header-only) are below them all. Prints each include that points back up; exits 1 if there is one."""
import pathlib
import re
import sys

ROOMS = ["channel", "launchers", "engine", "store", "ui", "commands"]
PUBLIC = {  # public header -> the room that implements it
    "errors.hpp": None, "trial_environment.hpp": None,
    "trial_channel.hpp": "channel", "trial_protocol.hpp": "channel",
    "launcher.hpp": "launchers", "slurm_launcher.hpp": "launchers", "supervisor.hpp": "launchers",
    "journal.hpp": "engine", "experiment.hpp": "engine",
    "cli.hpp": "commands",
}
root = pathlib.Path(__file__).resolve().parent.parent / "runner"
found = []
for room in ROOMS:
    for path in sorted((root / "src" / room).glob("*.[ch]pp")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'#include "(?:hpsearch/runner/([a-z_]+\.hpp)|([a-z_]+)/[a-z_]+\.hpp)"', line)
            if not m:
                continue
            target = PUBLIC.get(m.group(1), "unknown") if m.group(1) else m.group(2)
            if m.group(1) and m.group(1) not in PUBLIC:
                found.append(f"{path.relative_to(root.parent)}:{number}: {m.group(1)} is not in "
                             "scripts/check_rooms.py's table of public headers")
            elif target is not None and target in ROOMS and ROOMS.index(target) > ROOMS.index(room):
                found.append(f"{path.relative_to(root.parent)}:{number}: the {room} room includes "
                             f"the {target} room above it")
for line in found:
    print(line)
sys.exit(1 if found else 0)
