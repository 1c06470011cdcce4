"""The programs `det` drives (searcher-run for the store's listing, searcher-sim for
preview-search) and the experiment config as data (for --config and --test)."""

import json
import os
import pathlib
import shutil
import subprocess


class CliError(Exception):
    """A failure `det` reports as `Error: MESSAGE` (exit 1)."""


def program(name, variable):
    """``$VARIABLE`` (the `det` launcher sets it to the programs beside it), else ``name`` on PATH,
    else the source tree's build/release (as the SDK finds searcher-run)."""
    if os.environ.get(variable):
        return os.environ[variable]
    found = shutil.which(name)
    if found:
        return found
    built = (pathlib.Path(__file__).resolve().parents[3] / "build" / "release"
             / ("runner" if name == "searcher-run" else "simulator") / name)
    if built.is_file():
        return str(built)
    raise CliError(f"{name} not found: set {variable} or put it on PATH")


def run(name, variable, args):
    """Runs the program; its stdout, or its message as a CliError."""
    done = subprocess.run([program(name, variable), *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise CliError(done.stderr.strip() or f"{name} {' '.join(args)} exited with {done.returncode}")
    return done.stdout


def list_experiments():
    """Every experiment of the store as `searcher-run ls --json` describes it."""
    return json.loads(run("searcher-run", "HPSEARCH_SEARCHER_RUN", ["ls", "--json"]))


def load_config(path):
    """The config file as a dict: JSON with the standard library, YAML through PyYAML (Debian's
    python3-yaml) when it is installed; without it only JSON configs can be rewritten."""
    try:
        text = pathlib.Path(path).read_text()
    except OSError as e:
        raise CliError(f"cannot read the config file {path}: {e.strerror}") from None
    try:
        config = json.loads(text)
    except ValueError:
        try:
            import yaml
        except ImportError:
            raise CliError(f"{path}: rewriting a YAML config (--config, --test, --local) needs PyYAML "
                           "(python3-yaml), which is not installed; give the config as JSON or install "
                           "python3-yaml") from None
        try:
            config = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise CliError(f"invalid experiment config file {path}: {e}") from None
    if not isinstance(config, dict):
        raise CliError(f"invalid experiment config file {path}: expected a mapping of config fields")
    return config


def _value(text):
    """An override's value as YAML would read it (JSON's forms, true/false/null, numbers), else the
    text itself."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "~", ""):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def apply_overrides(config, overrides):
    """Determined's `--config KEY=VALUE` (repeatable): KEY a dotted path into the config, created as
    needed; VALUE read as YAML reads a scalar or a JSON list/mapping."""
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key or any(not part for part in key.split(".")):
            raise CliError(f"--config {item!r}: expected KEY=VALUE, with KEY a dotted path such as "
                           "resources.slots_per_trial=2")
        node = config
        parts = key.split(".")
        for depth, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                raise CliError(f"--config {item!r}: {'.'.join(parts[:depth + 1])} is not a mapping "
                               f"(it is {json.dumps(child)})")
            node = child
        node[parts[-1]] = _value(value)
    return config
