import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests are reproducible by default: the same examples on every run (CI among them), no example
# database. HYLINT_FUZZ=long draws fresh random examples, many more of them, for a run by hand.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("long", derandomize=False, database=None)
settings.load_profile("long" if os.environ.get("HYLINT_FUZZ") == "long" else "ci")

# tests/ holds small helper modules (clirun, realcode, verifyrun) imported by the tests in its folders
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty folder as the current directory (a test module may define its own `project`)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def exact_replays():
    """The runtime's bit-for-bit replays of MXNet's kernels on for one test (the switch HYLINT_RUNTIME_EXACT=1
    sets; hylint/runtime/exact.py): the tests that check those bits against MXNet run with it."""
    from hylint.runtime import exact
    with exact.exactly():
        yield


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    """Hypothesis keys a parametrized property test's derandomized examples by its node id, which names the
    test's folder: key them by ``tests/<file>::<test>`` instead, so moving a test file between the folders of
    tests/ keeps its examples (they are the examples the flat tests/ of before the folders drew)."""
    inner = getattr(getattr(getattr(item, "obj", None), "hypothesis", None), "inner_test", None)
    if inner is not None and hasattr(inner, "_hypothesis_internal_add_digest"):
        path, _, rest = item.nodeid.partition("::")
        inner._hypothesis_internal_add_digest = f"tests/{path.rsplit('/', 1)[-1]}::{rest}".encode()
    yield


def pytest_collection_modifyitems(config, items):
    """A test marked ``mxnet`` needs real MXNet: where it is not installed (the numpy-2 run of .ci/run) the
    marker alone skips it, so a test cannot forget its own import guard."""
    import importlib.util

    if importlib.util.find_spec("mxnet") is not None:
        return
    skip = pytest.mark.skip(reason="needs real MXNet 1.9.1 (not installed)")
    for item in items:
        if item.get_closest_marker("mxnet") is not None:
            item.add_marker(skip)
