"""Fixture helpers for the HY6xx-HY9xx rules: `# expect:` markers, fixing, and running blocks on MXNet."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path
from typing import Dict, List, Set, Tuple

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TRAP_PREFIXES = ("HY6", "HY7", "HY8", "HY9")
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


def trap_folders() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.name.startswith(TRAP_PREFIXES) and (p / "before.py").is_file())


def code_of(folder: Path) -> str:
    return folder.name.split("_", 1)[0]


def expected(source: str) -> Set[Tuple[int, str]]:
    out = set()
    for row, line in enumerate(source.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out |= {(row, code.strip()) for code in match.group(1).split(",") if code.strip()}
    return out


def strip_expect(source: str) -> str:
    return "\n".join(EXPECT.sub("", line).rstrip() for line in source.splitlines())


def linter_for(code: str):
    from hylint.engine import Linter
    from hylint.registry import select_rules
    return Linter(select_rules(extend_select=[code]))


def found(source: str, code: str) -> Set[Tuple[int, str]]:
    return {(d.start[0], d.code) for d in linter_for(code).lint_source(source, "fixture.py").diagnostics}


def flagged_classes(source: str) -> Dict[str, bool]:
    """class name -> whether any line of the class carries an `# expect:` marker."""
    import ast
    tree = ast.parse(source)
    marks = {row for row, _ in expected(source)}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = any(node.lineno <= row <= node.end_lineno for row in marks)
    return out


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [leaf for item in out for leaf in _flatten(item)]
    return [out]


def _value(out):
    """An output as something comparable: a numpy array, or ("py", repr) for a Python value."""
    import numpy as np
    if hasattr(out, "asnumpy"):
        return out.asnumpy()
    if isinstance(out, np.ndarray) and out.dtype == object:
        # numpy applied to an NDArray: an object array of (1,)-NDArrays with 32 axes; keep the
        # values, drop the trailing size-1 axes numpy added
        values = np.array([float(e.asnumpy().reshape(-1)[0]) for e in out.flat], dtype="float32")
        shape = list(out.shape)
        while len(shape) > 1 and shape[-1] == 1:
            shape.pop()
        return values.reshape(shape)
    return ("py", repr(out))


def run_block(module, name: str, hybrid: bool):
    """Everything observable of a block: build, a call in predict mode, a recorded call and backward.

    Each phase's result, or the error it raised, is kept, so that a block failing only in training
    still shows its predict-mode outputs.
    """
    import mxnet as mx
    import numpy as np
    from mxnet import autograd

    shapes = module.EXAMPLES[name]
    between = getattr(module, "BETWEEN", {}).get(name)
    result = {"random": name in getattr(module, "RANDOM", set()), "stdout": "", "attrs": {}, "traced": None,
              "outputs": [], "grads": None}
    stdout = io.StringIO()

    def error(exc):
        return ("error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")

    with contextlib.redirect_stdout(stdout):
        mx.random.seed(0)
        inputs = [mx.nd.array(np.random.RandomState(i).uniform(-1, 1, shape).astype("float32"))
                  for i, shape in enumerate(shapes)]
        try:
            net = getattr(module, name)()
            net.initialize(mx.init.Constant(0.1))
            if hybrid:
                net.hybridize()
        except Exception as exc:  # noqa: BLE001 - the failure is the observation
            result["outputs"] = [error(exc)]
            return result
        try:
            result["outputs"].append([_value(o) for o in _flatten(net(*inputs))])
        except Exception as exc:  # noqa: BLE001
            result["outputs"].append(error(exc))
        if between is not None:
            between(net)
        for x in inputs:
            x.attach_grad()
        try:
            with autograd.record():
                second = _flatten(net(*inputs))
            result["outputs"].append([_value(o) for o in second])
            heads = [o for o in second if getattr(o, "dtype", None) in (np.float16, np.float32, np.float64)]
            try:
                autograd.backward(heads)
                result["grads"] = [x.grad.asnumpy() for x in inputs]
            except Exception as exc:  # noqa: BLE001
                result["grads"] = error(exc)
        except Exception as exc:  # noqa: BLE001
            result["outputs"].append(error(exc))
    result["stdout"] = stdout.getvalue()
    result["attrs"] = {k: v for k, v in vars(net).items() if not k.startswith("_") and isinstance(v, (int, float, str, bool))}
    if hybrid and isinstance(net, mx.gluon.HybridBlock):
        result["traced"] = getattr(net, "_cached_op", None) is not None
    return result


def failed(result) -> bool:
    """The block could not be built or a forward call raised (a failing backward does not count)."""
    return any(isinstance(phase, tuple) for phase in result["outputs"])


def _same_values(a, b, random: bool) -> Tuple[bool, str]:
    import numpy as np
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (a == b, f"{a} vs {b}") if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "py" \
            else (False, f"{a if isinstance(a, tuple) else b}")
    if a.shape != b.shape:
        return False, f"shape {a.shape} vs {b.shape}"
    if not random and not np.allclose(a, b, atol=1e-5, equal_nan=True):
        return False, "values differ"
    return True, ""


def same(a, b) -> Tuple[bool, str]:
    """Whether two run_block results agree (values to atol 1e-5; shapes only for RANDOM blocks)."""
    if len(a["outputs"]) != len(b["outputs"]):
        return False, f"phases: {a['outputs']} vs {b['outputs']}"
    for first, second in zip(a["outputs"], b["outputs"]):
        if isinstance(first, tuple) or isinstance(second, tuple):
            if first != second:
                return False, f"{first if isinstance(first, tuple) else second}"
            continue
        if len(first) != len(second):
            return False, f"number of outputs {len(first)} vs {len(second)}"
        for x, y in zip(first, second):
            ok, why = _same_values(x, y, a["random"])
            if not ok:
                return False, why
    if a["stdout"] != b["stdout"]:
        return False, "printed output differs"
    if a["attrs"] != b["attrs"]:
        return False, f"attributes differ: {a['attrs']} vs {b['attrs']}"
    ga, gb = a["grads"], b["grads"]
    if isinstance(ga, tuple) or isinstance(gb, tuple) or ga is None or gb is None:
        if ga is None or gb is None or isinstance(ga, tuple) != isinstance(gb, tuple) or \
                isinstance(ga, tuple) and ga[1].split(":")[0] != gb[1].split(":")[0]:
            return False, f"gradients: {ga if not isinstance(ga, list) else 'ok'} vs {gb if not isinstance(gb, list) else 'ok'}"
    else:
        for x, y in zip(ga, gb):
            ok, why = _same_values(x, y, a["random"])
            if not ok:
                return False, "gradients " + why
    if False in (a["traced"], b["traced"]):
        return False, "hybridize() built no graph"
    return True, ""
