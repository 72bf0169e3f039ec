"""Loading a Python file (a fixture's before.py or after_unsafe.py, a test's generated source) as a module."""
import importlib.util
from pathlib import Path


def load_module(path: Path, name: str):
    """The module executed from ``path``, named ``name`` (distinct names keep two versions apart)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
