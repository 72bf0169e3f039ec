"""`python -m hylint` in a folder holding a module named like one of the standard library's (gluonts ships a
`json.py` in its package folder): `-m` puts that folder first on sys.path, and hylint stopped with
"internal error: ImportError" (or KeyError: 'load'). hylint reads the files it checks and never imports them,
so the entry is dropped (hylint/__main__.py)."""
from __future__ import annotations

from clirun import check, codes_at

BLOCK = ("from mxnet.gluon import HybridBlock\n\n\nclass N(HybridBlock):\n"
         "    def hybrid_forward(self, F, x):\n        return x.shape[0] * x\n")


def test_a_json_module_in_the_current_folder_does_not_hide_the_standard_one(tmp_path):
    (tmp_path / "json.py").write_text('raise ImportError("this json.py is the project\'s own")\n')
    (tmp_path / "m.py").write_text(BLOCK)
    run = check(["m.py"], cwd=tmp_path)
    assert "internal error" not in run.err, run.err
    assert run.code == 1
    assert codes_at(run) == [("m.py", 6, "HY201")]
