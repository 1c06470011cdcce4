"""``determined.common.util`` as Determined's scripts use it: the legacy metric group names,
``safe_load_yaml_with_exceptions`` and the small helpers beside them. Members that only make
sense against a Determined master raise NotImplementedError naming themselves (docs/runner.md).

Standard library only; YAML is read through PyYAML (Debian's python3-yaml) when installed."""

import datetime
import functools
import json
import os
import pathlib
import random
import sys

#: The metric groups Determined's Trial APIs report to (``report_metrics(group=...)``).
_LEGACY_TRAINING = "training"
_LEGACY_VALIDATION = "validation"


def chunks(sequence, chunk_size):
    """``sequence`` in consecutive pieces of ``chunk_size`` (the last may be shorter)."""
    if chunk_size < 1:
        raise ValueError(f"chunks(): chunk_size must be >= 1, got {chunk_size}")
    for start in range(0, len(sequence), chunk_size):
        yield sequence[start:start + chunk_size]


def sizeof_fmt(size):
    """A byte count for people: ``1536`` -> ``1.5KB``."""
    value = float(size)
    for unit in ("", "K", "M", "G", "T", "P", "E", "Z"):
        if abs(value) < 1024.0:
            return f"{value:3.1f}{unit}B"
        value /= 1024.0
    return f"{value:.1f}YB"


def get_default_master_address():
    """$DET_MASTER (or $DET_MASTER_ADDR), else localhost:8080; nothing here connects to it."""
    return os.environ.get("DET_MASTER", os.environ.get("DET_MASTER_ADDR", "localhost:8080"))


def get_det_username_from_env():
    return os.environ.get("DET_USER")


def get_det_user_token_from_env():
    return os.environ.get("DET_USER_TOKEN")


def get_det_password_from_env():
    return os.environ.get("DET_PASS")


def debug_mode():
    return os.environ.get("DET_DEBUG", "").lower() in ("true", "1", "yes")


def strtobool(value):
    """``"yes"``/``"no"`` and their kin as a bool (distutils' rule, which Python 3.12 dropped)."""
    lowered = str(value).lower()
    if lowered in ("y", "yes", "t", "true", "on", "1"):
        return True
    if lowered in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {value!r}")


def preserve_random_state(fn):
    """Runs ``fn`` without disturbing the ``random`` module's state."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        state = random.getstate()
        try:
            return fn(*args, **kwargs)
        finally:
            random.setstate(state)
    return wrapped


def is_overridden(method, parent_class):
    """Whether the bound or plain ``method`` is defined by a subclass rather than ``parent_class``."""
    function = getattr(method, "__func__", method)
    return function is not getattr(parent_class, function.__name__, None)


def parse_protobuf_timestamp(text):
    """An RFC 3339 time (``...Z`` included) as an aware datetime."""
    return datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


def get_config_path():
    if os.environ.get("DET_DEBUG_CONFIG_PATH"):
        return pathlib.Path(os.environ["DET_DEBUG_CONFIG_PATH"])
    base = os.environ.get("XDG_CONFIG_HOME")
    return (pathlib.Path(base) if base else pathlib.Path.home() / ".config") / "determined"


def _yaml_module(member):
    try:
        import yaml
    except ImportError:
        raise NotImplementedError(f"determined.common.util.{member}(): reading YAML needs PyYAML "
                                  "(python3-yaml), which is not installed; JSON input works without it") from None
    return yaml


def safe_load_yaml_with_exceptions(yaml_file):
    """The YAML document in ``yaml_file`` (an open file or the text itself). As Determined's, a
    document that is not valid YAML prints ``Error: invalid experiment config file.`` with the
    problem and its position, and exits 1."""
    text = yaml_file if isinstance(yaml_file, str) else yaml_file.read()
    if isinstance(text, bytes):
        text = text.decode()
    try:
        return json.loads(text)  # JSON is YAML: no parser needed for it
    except ValueError:
        pass
    yaml = _yaml_module("safe_load_yaml_with_exceptions")
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        print(f"Error: invalid experiment config file.\n{type(e).__name__}: {e.problem}\n{e.problem_mark}")
        sys.exit(1)


def yaml_safe_dump(data, stream=None, **kwargs):
    return _yaml_module("yaml_safe_dump").safe_dump(data, stream, **kwargs)


def _needs_a_master(member):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"determined.common.util.{member}(): configures the connection to a "
                                  "Determined master; hpsearch's store is local and has none")
    refuse.__name__ = member
    return refuse


get_max_retries_config = _needs_a_master("get_max_retries_config")
