"""The server tests' LSP client fixture: a server over stdio per test, gone when the test ends."""
from __future__ import annotations

import pytest


@pytest.fixture
def client(tmp_path):
    pytest.importorskip("pygls")
    from lsp_client import LspClient  # tests/server/, on sys.path under pytest

    client = LspClient(cwd=str(tmp_path))
    yield client
    client.close()
    assert client.process.poll() is not None  # no server outlives its test
