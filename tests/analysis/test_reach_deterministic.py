"""The chain a diagnostic names ("reached from ... via ...") does not depend on Python's string hashing: two
calls of one expression may reach the same class, and the first one made names the chain."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PACKAGE = {
    "__init__.py": "",
    "dist.py": "class Categorical:\n    def __init__(self, F, probs):\n        self.F = F\n"
               "        self.num = probs.shape[-1]\n",
    "out.py": "from pkg.dist import Categorical\n\n\nclass Output:\n    def distribution(self, F, x):\n"
              "        return Categorical(F, x)\n\n\nclass OtherOutput(Output):\n    distr_cls: type = Categorical\n\n"
              "    def distribution(self, F, x):\n        return self.distr_cls(F, x)\n",
    "model.py": "from mxnet.gluon import HybridBlock\n\nfrom pkg.out import Output\n\n\nclass Model(HybridBlock):\n"
                "    def __init__(self, output: Output):\n        super().__init__()\n        self.output = output\n\n"
                "    def hybrid_forward(self, F, x):\n        distr = self.output.distribution(F, x)\n"
                "        return x * distr.num\n",
}


def test_the_reach_chain_is_the_same_under_every_hash_seed(tmp_path):
    for name, text in PACKAGE.items():
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text)
    outputs = set()
    for seed in range(8):  # measured before the fix: one seed in eight named the other chain
        run = subprocess.run([sys.executable, "-m", "hylint", "check", "--no-cache", "--output-format", "full",
                              str(tmp_path / "pkg")], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONHASHSEED": str(seed)})
        assert run.returncode == 1, run.stderr
        outputs.add(run.stdout)
    [output] = outputs
    assert "dist.py:4:20: HY201" in output and "Reached from Model.hybrid_forward via self.output.distribution" in output
