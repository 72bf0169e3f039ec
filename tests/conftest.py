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
