"""README's real before/after (gluoncv2's wrn20_10_1bit_cifar10) stays true: the diff it shows is what
`--fix --unsafe-fixes` writes on the installed gluoncv2 0.0.64, and on MXNet the fixed model hybridizes to
its eager output, which is the original's."""
import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from clirun import check

ROOT = Path(__file__).resolve().parents[2]


def _library_file():
    gluoncv2 = pytest.importorskip("gluoncv2")
    return Path(gluoncv2.__file__).parent / "models" / "wrn1bit_cifar.py"


def _readme_diff():
    text = (ROOT / "README.md").read_text()
    block = text.split("A real model:", 1)[1].split("```diff\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if re.match(r"[-+] ", line)]


def _fixed_copy(tmp_path):
    copy = tmp_path / "wrn1bit_cifar.py"
    shutil.copy(_library_file(), copy)
    return copy


def test_the_readme_diff_is_what_the_fix_writes(tmp_path):
    copy = _fixed_copy(tmp_path)
    run = check([str(copy)], "--no-cache", "--diff", "--unsafe-fixes", cwd=tmp_path)
    hunks = run.out.split("\n@@ ")
    shown = [hunk for hunk in hunks if "def hybrid_forward(self, F, x, weight, bias=None):" in hunk]
    assert len(shown) == 1  # the other hunk inserts the helper functions the README names
    assert [line for line in shown[0].splitlines() if re.match(r"[-+] ", line)] == _readme_diff()
    assert "\n+def _as_custom_op(F, function, *inputs):" in run.out


@pytest.mark.slow
@pytest.mark.mxnet
def test_the_fixed_model_hybridizes_to_the_original_eager_output(tmp_path):
    mx = pytest.importorskip("mxnet")
    original = _fixed_copy(tmp_path)
    fixed = tmp_path / "fixed.py"
    shutil.copy(original, fixed)
    check([str(fixed)], "--no-cache", "--fix", "--unsafe-fixes", cwd=tmp_path)
    x = mx.nd.array(np.random.RandomState(0).normal(size=(1, 3, 32, 32)))

    def run(path, hybridize):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        mx.random.seed(0)
        net = module.wrn20_10_1bit_cifar10()
        net.initialize(mx.init.Xavier())
        eager = net(x).asnumpy()
        if hybridize:
            net.hybridize()
            return eager, net(x).asnumpy()
        return eager, None

    before, _ = run(original, False)
    with pytest.raises(AttributeError, match="'Symbol' object has no attribute 'shape'"):
        run(original, True)
    eager, hybridized = run(fixed, True)
    np.testing.assert_array_equal(eager, before)
    np.testing.assert_array_equal(hybridized, eager)
