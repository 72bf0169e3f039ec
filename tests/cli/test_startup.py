"""Start-up: a run where every file hits the result cache imports neither libcst, numpy, rich, the runtime
nor multiprocessing (17 ms: no process is started) (measured with ``python -X importtime``, which lists
every module imported)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
HEAVY = ("libcst", "numpy", "rich", "hylint.runtime", "hylint.lint.engine", "hylint.analysis", "hylint.rules",
         "multiprocessing")


def imported(project: Path, *args: str):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "hylint", "check", *args, "."], cwd=project,
                          capture_output=True, text=True, env=env, timeout=120)
    modules = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc.returncode, modules


def heavy(modules):
    return sorted(m for m in modules if m.split(".")[0] in ("libcst", "numpy", "rich") or m.startswith(HEAVY))


def test_warm_run_imports_nothing_heavy(tmp_path):
    (tmp_path / "model.py").write_text(HEAD + "        return F.relu(x)\n")
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    code, cold = imported(tmp_path)
    assert code == 0 and "libcst" in cold  # the cold run analysed model.py
    code, warm = imported(tmp_path)
    assert code == 0
    assert heavy(warm) == []


def test_warm_run_with_diagnostics_imports_rich_only_to_show_them(tmp_path):
    (tmp_path / "model.py").write_text(HEAD + "        return x[0]\n")
    imported(tmp_path)
    code, warm = imported(tmp_path, "--output-format", "concise")
    assert code == 1 and heavy(warm) == []
    code, warm = imported(tmp_path)  # the full format writes plain code frames itself: no colour, no rich
    assert code == 1 and heavy(warm) == []
    # a control character rich would strip, in a line of the frame: rich writes it
    (tmp_path / "model.py").write_text(HEAD + "        return x[0]  # \b\n")
    imported(tmp_path)
    code, warm = imported(tmp_path)
    assert code == 1 and "rich" in warm and not any(m.startswith("libcst") for m in warm)


def test_changed_file_without_hybrid_code_needs_no_libcst(tmp_path):
    (tmp_path / "model.py").write_text(HEAD + "        return F.relu(x)\n")
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    imported(tmp_path)
    (tmp_path / "util.py").write_text("def add(a, b):\n    return b + a\n")
    code, warm = imported(tmp_path)
    assert code == 0 and heavy(warm) == []
    (tmp_path / "model.py").write_text(HEAD + "        return F.sigmoid(x)\n")
    code, warm = imported(tmp_path)
    assert code == 0 and "libcst" in warm


def test_warm_run_with_rule_codes_in_the_config_imports_nothing_heavy(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nextend-select = ["HY090"]\nignore = ["HY401"]\n')
    (tmp_path / "model.py").write_text(HEAD + "        return F.relu(x)\n")
    assert imported(tmp_path)[0] == 0
    code, warm = imported(tmp_path)
    assert code == 0 and heavy(warm) == []
    # a bad code in the config is still an error (another configuration: not served from the cache)
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY999"]\n')
    code, _ = imported(tmp_path)
    assert code == 2
