"""Loading a model definition: ``det.import_from_path`` and the ``module:object`` entrypoint."""

import contextlib
import importlib
import pathlib
import re
import sys

# Determined's legacy entrypoint: a module path (possibly empty) and a dotted object reference.
ENTRYPOINT_RE = re.compile(r"^([A-Za-z_][\w.]*)?:([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")


@contextlib.contextmanager
def import_from_path(path):
    """Within the block, modules are imported from ``path`` first (e.g. a checkpoint's code/);
    afterwards sys.path is restored and the modules imported in the block are forgotten, so that
    two checkpoints' model definitions of the same name can both be loaded."""
    path = str(pathlib.Path(path).resolve())
    saved_path = list(sys.path)
    saved_modules = dict(sys.modules)
    sys.path.insert(0, path)
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
