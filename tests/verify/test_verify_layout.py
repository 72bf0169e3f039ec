"""hylint/verify/ is one module per job with imports pointing down, computed from the source: no circle inside
the package, nothing imported from the CLI, and MXNet never imported when verify is imported."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "hylint" / "verify"
# each module may import only modules before it (its package's __init__ re-exports, and is last)
ORDER = ["openblas", "outcomes", "sandbox", "locate", "backends", "compare", "inputs", "phases", "harness", "examples",
         "targets", "results", "prove", "run", "discover", "construct", "feed", "survey", "render"]


def imports(path: Path):
    """``(module imported, at module level)`` for every hylint import of ``path``, lazy ones included."""
    tree = ast.parse(path.read_text())
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hylint"):
            yield node.module, id(node) in top
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("hylint"):
                    yield alias.name, id(node) in top


def test_every_module_is_listed():
    assert sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__") == sorted(ORDER)


def test_verify_imports_point_down_the_list():
    for index, name in enumerate(ORDER):
        for module, _ in imports(PACKAGE / f"{name}.py"):
            if module.startswith("hylint.verify"):
                inner = module.split(".")[2] if module.count(".") >= 2 else "__init__"
                assert inner in ORDER[:index], f"{name} imports {module}, which is not below it"
            assert not module.startswith("hylint.cli"), f"{name} imports the CLI ({module})"


def test_importing_verify_imports_no_mxnet():
    program = ("import sys, hylint.verify, hylint.verify.run, hylint.verify.render\n"
               "print(sorted(n for n in sys.modules if n == 'mxnet' or n.startswith('mxnet.')))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"
