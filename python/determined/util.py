"""JSON as Determined encodes it (``det.util.json_encode``): numpy scalars become Python
numbers, numpy arrays lists, torch tensors their values, non-finite floats the strings
"NaN", "Infinity" and "-Infinity". numpy and torch are looked up only if already imported."""

import datetime
import json
import math
import pathlib
import sys
import uuid


def _non_finite(value):
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _plain(value):
    """A value as plain JSON types, recursively."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _non_finite(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(value, numpy.bool_):
            return bool(value)
        if isinstance(value, numpy.integer):
            return int(value)
        if isinstance(value, numpy.floating):
            return _plain(float(value))
        if isinstance(value, numpy.ndarray):
            return _plain(value.tolist())
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return _plain(value.detach().cpu().tolist())
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, pathlib.PurePath)):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_encode(obj, indent=None, sort_keys=False):
    """Encodes ``obj`` as JSON text, as Determined's ``det.util.json_encode`` does."""
    return json.dumps(_plain(obj), indent=indent, sort_keys=sort_keys, allow_nan=False)


def make_plain(obj):
    """``obj`` as plain JSON types (what json_encode would write)."""
    return _plain(obj)
