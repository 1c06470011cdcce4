"""Loading a model definition: ``det.import_from_path`` and the ``module:object`` entrypoint."""

import contextlib
import importlib
import pathlib
import re
import sys

# Determined's legacy entrypoint: a module path (possibly empty) and a dotted object reference.
ENTRYPOINT_RE = re.compile(r"^([A-Za-z_][\w.]*)?:([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")


def _top_level_names(path):
    """The modules and packages a directory offers at its top level."""
    names = set()
    if path.is_dir():
        for entry in path.iterdir():
            if entry.suffix == ".py":
                names.add(entry.stem)
            elif (entry / "__init__.py").exists():
                names.add(entry.name)
    return names


@contextlib.contextmanager
def import_from_path(path):
    """Within the block, modules are imported from ``path`` first (e.g. a checkpoint's code/),
    even a name already imported from elsewhere; afterwards sys.path and sys.modules are as they
    were (the modules imported in the block are forgotten), so that two checkpoints' model
    definitions of the same name can both be loaded."""
    path = pathlib.Path(path).resolve()
    saved_path = list(sys.path)
    saved_modules = dict(sys.modules)
    shadowed = _top_level_names(path)
    for name in list(sys.modules):
        if name.split(".")[0] in shadowed:
            del sys.modules[name]
    sys.path.insert(0, str(path))
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name in list(sys.modules):
            if name not in saved_modules:
                del sys.modules[name]
        sys.modules.update(saved_modules)


def is_entrypoint_spec(entrypoint):
    return isinstance(entrypoint, str) and ENTRYPOINT_RE.match(entrypoint.strip()) is not None


def load_object(spec, context_dir="."):
    """The object a ``module:object.path`` spec names, imported from context_dir. An empty module
    is the context directory's package (its __init__.py), named after the directory."""
    match = ENTRYPOINT_RE.match(spec.strip())
    if match is None:
        raise ValueError(f"entrypoint {spec!r}: expected '<module>:<object reference>' (e.g. "
                         "'model_def:MyTrial'; the module may be empty, the object may be dotted)")
    module_name, reference = match.group(1) or "", match.group(2)
    context_dir = pathlib.Path(context_dir).resolve()
    if module_name:
        sys.path.insert(0, str(context_dir))
    else:
        if not (context_dir / "__init__.py").exists():
            raise ImportError(f"entrypoint {spec!r}: an empty module names the context directory's package, "
                              f"but {context_dir} has no __init__.py")
        sys.path.insert(0, str(context_dir.parent))
        module_name = context_dir.name
    module = importlib.import_module(module_name)
    obj = module
    for part in reference.split("."):
        if not hasattr(obj, part):
            raise AttributeError(f"entrypoint {spec!r}: {module_name} has no {reference!r} "
                                 f"({type(obj).__name__} {getattr(obj, '__name__', obj)!s} has no '{part}')")
        obj = getattr(obj, part)
    return obj
