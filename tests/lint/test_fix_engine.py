"""The fix loop (engine.Linter.fix_source) and byte-faithful, atomic writing (runner + files)."""
import os
import stat

import libcst as cst
import pytest

from hylint.diagnostic import Applicability
from hylint.lint.engine import MAX_FIX_PASSES, FixLoopError, Linter
from hylint.batch.files import read_source
from hylint.selection import select_rules
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.batch.runner import FIX, process_path

# `x = F.relu(x)` proves `x` a tensor: HY301's fix is safe only then
HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        x = F.relu(x)\n"


def default() -> Linter:
    return Linter(select_rules())


def test_nested_operators_keep_precedence():
    source = HEAD + "        return x * F.ones((1, 3)) + F.zeros((1, 1)) * 2\n"
    result = default().fix_source(source)
    assert result.source == HEAD + "        return F.broadcast_add(F.broadcast_mul(x, F.ones((1, 3))), F.zeros((1, 1)) * 2)\n"
    assert result.diagnostics == [] and result.fixed == 2


def test_in_place_then_broadcast_in_one_run():
    source = HEAD + "        y = F.relu(x)\n        y *= F.ones((1, 4))\n        return y\n"
    result = default().fix_source(source)
    assert "        y = F.broadcast_mul(y, F.ones((1, 4)))\n" in result.source
    assert result.fixed_by_code == {"HY501": 1, "HY101": 1}


def test_non_overlapping_fixes_apply_in_one_pass():
    from hylint.lint.engine import apply_fixes

    source = HEAD + "        a = x[0]\n        b = x[:, 1]\n        return a + F.ones((1, 3)) + b\n"
    linter = default()
    diagnostics = [d for d in linter.lint_source(source).diagnostics if d.fix is not None]
    fixed, applied = apply_fixes(source, diagnostics)
    assert {d.code for d in applied} == {"HY301", "HY101"} and len(applied) == len(diagnostics) == 3
    cst.parse_module(fixed)


def test_overlapping_fixes_wait_for_the_next_pass():
    from hylint.lint.engine import apply_fixes

    source = HEAD + "        return x * F.ones((1, 3)) + F.zeros((1, 1))\n"
    diagnostics = [d for d in default().lint_source(source).diagnostics if d.fix is not None]
    assert len(diagnostics) == 2
    _, applied = apply_fixes(source, diagnostics)
    assert len(applied) == 1


def test_an_edit_two_fixes_share_is_made_once():
    """HY809's custom-operator fixes each carry the insertion of the module's helper: applied together in one
    pass (as verify applies the fixes a run exercises), the helper is inserted once."""
    from hylint.lint.engine import apply_fixes

    source = ("import mxnet as mx\nfrom mxnet.gluon import nn\n\n\nclass Square(mx.autograd.Function):\n"
              "    def forward(self, x):\n        self.save_for_backward(x)\n        return mx.nd.square(x)\n\n"
              "    def backward(self, dy):\n        x, = self.saved_tensors\n        return 2 * x * dy\n\n\n"
              "class N(nn.HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.a = Square()\n        self.b = Square()\n\n"
              "    def hybrid_forward(self, F, x):\n        return self.a(x) + self.b(x)\n")
    diagnostics = [d for d in Linter(select_rules(select=["HY809"])).lint_source(source).diagnostics
                   if d.fix is not None]
    assert len(diagnostics) == 2
    fixed, applied = apply_fixes(source, diagnostics)
    assert len(applied) == 2 and fixed.count("def _as_custom_op(") == 1
    assert "return _as_custom_op(F, self.a, x) + _as_custom_op(F, self.b, x)" in fixed
    cst.parse_module(fixed)


class _Grow(LintRule):
    """A broken rule whose fix always makes another fixable diagnostic (never converges)."""
    CODE, NAME, MESSAGE = "HY990", "grow", "grows"
    VALID, INVALID = [Valid("")], [Invalid("")]

    def visit_Return(self, node, ctx):
        ctx.report(node.value, fix=PendingFix(Applicability.SAFE, "grow", [replace(node.value, "(x)")]))


class _Breaks(LintRule):
    """A broken rule whose fix does not parse."""
    CODE, NAME, MESSAGE = "HY991", "breaks-syntax", "breaks"
    VALID, INVALID = [Valid("")], [Invalid("")]

    def visit_Return(self, node, ctx):
        ctx.report(node, fix=PendingFix(Applicability.SAFE, "break", [replace(node, "return (x")]))


def test_a_fix_loop_that_does_not_converge_is_an_error_not_a_hang():
    source = HEAD + "        return x\n"
    with pytest.raises(FixLoopError, match=f"did not converge after {MAX_FIX_PASSES} passes"):
        Linter([_Grow]).fix_source(source, "f.py")


def test_a_fix_that_does_not_parse_is_discarded_and_named():
    source = HEAD + "        return x[0]\n"
    result = Linter(select_rules() + [_Breaks]).fix_source(source, "f.py")
    # the HY301 fix still applies; the broken one is dropped once, with a message naming the rule
    assert result.source == HEAD + "        return F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)\n"
    assert len(result.messages) == 1 and "HY991 (breaks-syntax)" in result.messages[0]
    alone = Linter([_Breaks]).fix_source(source, "f.py")
    assert alone.source == source and alone.fixed == 0 and "HY991" in alone.messages[0]


@pytest.mark.parametrize("source", [
    HEAD + "        return x - x.mean(axis=1, keepdims=True)\n",
    HEAD + "        y = F.relu(x)\n        y *= F.ones((1, 4))\n        return y[0] + nd.array([[1, 1, 1, 1]])\n",
    HEAD + "        return x.reshape((x.shape[0], -1))[:, 1:]\n",
])
def test_fixing_is_idempotent(source):
    linter = default()
    once = linter.fix_source(source, unsafe=True).source
    assert once != source
    assert linter.fix_source(once, unsafe=True).source == once


# ---------------------------------------------------------------------------------------------
# writing files


BODY = "        return x[0]  # first row\n"
FIXED = "        return F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)  # first row\n"


@pytest.mark.parametrize("name, encode", [
    ("bom", lambda text: b"\xef\xbb\xbf" + text.encode("utf-8")),
    ("crlf", lambda text: text.replace("\n", "\r\n").encode("utf-8")),
    ("latin1", lambda text: ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + text).encode("latin-1")),
    ("cr", lambda text: text.replace("\n", "\r").encode("utf-8")),
])
def test_files_keep_encoding_bom_and_line_endings(tmp_path, name, encode):
    path = tmp_path / f"{name}.py"
    path.write_bytes(encode(HEAD + BODY))
    os.chmod(path, 0o640)
    outcome = process_path(path, default(), FIX, unsafe=False)
    assert outcome.fixed_by_code == {"HY301": 1}
    assert path.read_bytes() == encode(HEAD + FIXED)  # byte for byte outside the edit
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind


def test_an_unchanged_file_is_not_rewritten(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text(HEAD + "        return F.relu(x)\n")
    os.utime(path, (1_000_000_000, 1_000_000_000))
    outcome = process_path(path, default(), FIX, unsafe=False)
    assert outcome.fixed_text is None
    assert os.stat(path).st_mtime == 1_000_000_000


def test_a_file_with_only_unfixable_diagnostics_is_not_rewritten(tmp_path):
    path = tmp_path / "nofix.py"
    path.write_text(HEAD + "        return x.asnumpy()\n")
    os.utime(path, (1_000_000_000, 1_000_000_000))
    outcome = process_path(path, default(), FIX, unsafe=True)
    assert [d.code for d in outcome.diagnostics] == ["HY401"]
    assert os.stat(path).st_mtime == 1_000_000_000


def test_a_file_that_changed_on_disk_is_not_overwritten(tmp_path, monkeypatch):
    import hylint.batch.runner as runner

    path = tmp_path / "race.py"
    path.write_text(HEAD + BODY)
    real_read = runner.read_source

    def read_then_change(p):
        source = real_read(p)
        p.write_text(HEAD + "        return x  # edited meanwhile\n")
        return source

    monkeypatch.setattr(runner, "read_source", read_then_change)
    outcome = process_path(path, default(), FIX, unsafe=False)
    assert outcome.failed and "changed on disk" in outcome.messages[0]
    assert path.read_text() == HEAD + "        return x  # edited meanwhile\n"


def test_read_source_round_trip_latin1(tmp_path):
    path = tmp_path / "l.py"
    raw = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")
    path.write_bytes(raw)
    source = read_source(path)
    assert source.encoding == "iso-8859-1" and source.text.encode(source.encoding) == raw


def test_a_multi_line_fix_keeps_the_indentation_of_the_lines_around_it():
    """Issue 42 (gluonts gmm_base.py:103): the new lines a fix makes inside brackets are indented like their
    neighbours, the comma ends the first line, and the operand's own parentheses are not doubled."""
    source = HEAD + ("        z = (\n            x\n            - x.mean(axis=1, keepdims=True)\n        )\n"
                     "        y = (x - x.mean(axis=1, keepdims=True)).sum()\n        return (y[0]).sum() + z\n")
    fixed = default().fix_source(source).source
    assert fixed == HEAD + ("        z = (\n            F.broadcast_sub(x,\n            x.mean(axis=1, keepdims=True))\n"
                            "        )\n        y = (F.broadcast_sub(x, x.mean(axis=1, keepdims=True))).sum()\n"
                            "        return F.broadcast_add((F.squeeze(F.slice_axis(y, axis=0, begin=0, end=1), axis=0)).sum(), z)\n")
    assert default().fix_source(fixed).source == fixed  # idempotent
