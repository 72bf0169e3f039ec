"""The fix oracle: every fix hylint marks safe, evaluated eagerly on MXNet before and after, on every kind of
value its analysis does not exclude.

    python benchmarks/fix_oracle.py                 # zoo + corpus, safe fixes: fix_oracle/RESULTS.md, results.json
    python benchmarks/fix_oracle.py --unsafe        # the unsafe fixes too (--unsafe-fixes), reported apart
    python benchmarks/fix_oracle.py --python V/bin/python --hylint-root ../other-checkout
    python benchmarks/fix_oracle.py --source dir:path/to/gluon/code --output /tmp/oracle   # any folder
    python benchmarks/fix_oracle.py --unsafe --source 'dir:benchmarks/.unseen/src/*' --output /tmp/unseen-oracle

A safe fix must never change what the code computes eagerly (F = mxnet.nd). For each fix of hylint's JSON
output (`python -m hylint check --output-format json`, default rules) on the seven zoo libraries
(zoo/sources.py) and the PyPI corpus (corpus.py), or on any folders (`--source dir:<path>`), the oracle takes
the source each edit replaces and its new content. A single edit that replaces an expression (or whole
statements) by another is checkable, and so are several edits, on the fewest sibling statements holding them
all (every edit applied): its
operands (free names, `self.foo` attributes and calls of unknown callables such as `self.conv(x)`, opaque
values both sides share) are bound to every kind of value in KINDS, unless the fix's `relies_on` proves an
operand a tensor (then only the tensor kinds); F is mxnet.nd, module names (np, mx, nd, math and the file's
imports) are the modules themselves. A worker process with MXNet evaluates both sides per combination,
with the same random state (statements are exec'd: the names they bind are compared afterwards, and an alias
bound to each mutable operand beforehand). A HARM: the original runs and the fix raises, or both run and
differ (NDArray: shape, dtype and values exactly; lists elementwise; Python values by ==; operands mutated
differently). Where only the replaced expression's value differs (`[-1]` -> `[2]` of a 3-way split), the
enclosing statement, evaluated the same way, decides.

Every fix is counted: checked (at least one combination ran the original), `no combination ran` (the original
raised on all of them, so the check says nothing), or not checkable with its reason (edits that only a `def`
or `class` holds together, an insertion alone, a span that is neither an expression nor statements, an unknown
callable the fix changes, an import the worker cannot run, the time limit).
"""
from __future__ import annotations

import argparse
import ast
import builtins
import glob
import itertools
import json
import os
import random
import re
import select
import subprocess
import sys
import textwrap
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "fix_oracle"

# The kinds of value an operand may hold on an eager call (tensor(2,3,3): a batch of square matrices, for
# batch_dot and linalg). An operand the analysis proves a tensor (relies_on) gets only TENSOR_KINDS; every other
# operand gets them all.
KINDS = ("int", "float", "tensor(1,)", "tensor(2,3)", "tensor(2,1)", "tensor(3,)", "tensor(2,3,3)", "tensor(2,3,4)",
         "tensor(2,3,4,5)", "list(split)", "numpy(2,3)", "None")
TENSOR_KINDS = tuple(kind for kind in KINDS if kind.startswith("tensor"))
# relies_on facts the oracle uses (proven ones only): which kinds they leave, or that no alias exists.
# "tensor": TENSOR_KINDS; "tensor-or-number": those and the Python numbers; "rank N" (or "ndim N"): the tensor
# kinds of that rank; "shape (2, 3)": that shape.
TENSOR_FACTS = {"tensor", "ndarray", "NDArray"}
TENSOR_OR_NUMBER_FACTS = {"tensor-or-number"}
UNALIASED_FACTS = {"unaliased", "no-alias", "fresh"}
RANK_FACT = re.compile(r"^(?:rank|ndim)\s*=?\s*(\d+)$")
SHAPE_FACT = re.compile(r"^shape\s*=?\s*\(([\d,\s]*)\)$")
# Names bound to modules in the worker whatever the file imports (F and its aliases are bound to mxnet.nd)
DEFAULT_MODULES = ("np", "numpy", "mx", "mxnet", "nd", "math", "sym")
BUILTINS = frozenset(dir(builtins))
MAX_COMBOS = 500
EXHAUSTIVE = 5000  # when the original ran on none of the sampled combinations, all of them up to this many
FIX_SECONDS = 60.0
RETURN = "__return__"  # a `return X` statement is checked as `__return__ = X`
ALIAS = "__alias_"


# ------------------------------------------------------------------------------------------ preparing a check

@dataclass
class Operand:
    text: str                 # as the source spells it: `lam`, `self.eps`, `self.conv(x)`
    name: str                 # the name it is bound to in the checked code (a placeholder for non-names)
    kinds: Tuple[str, ...]
    facts: List[str] = field(default_factory=list)  # the proven relies_on facts the oracle used
    unaliased: bool = False


@dataclass
class Check:
    mode: str                 # "expr" (eval) or "stmt" (exec)
    original: str             # the code evaluated, operands renamed to their names
    fixed: str
    operands: List[Operand]
    imports: List[str]        # import statements binding the module names the code uses
    f_names: List[str]        # bound to mxnet.nd
    unused_facts: List[dict] = field(default_factory=list)

    def job(self, max_combos: int, seconds: float, seed: str) -> dict:
        return {"mode": self.mode, "original": self.original, "fixed": self.fixed,
                "operands": [{"text": o.text, "name": o.name, "kinds": list(o.kinds), "unaliased": o.unaliased}
                             for o in self.operands],
                "imports": self.imports, "f_names": self.f_names, "max_combos": max_combos,
                "seconds": seconds, "seed": seed}


class NotCheckable(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason, self.detail = reason, detail


def _parse(text: str) -> Tuple[str, ast.AST]:
    """("expr", Expression) or ("stmt", Module) for a replaced span or a fix's content."""
    try:
        return "expr", ast.parse("(\n" + text + "\n)", mode="eval")
    except SyntaxError:
        pass
    for candidate in (text, textwrap.dedent(text)):
        try:
            return "stmt", ast.parse(candidate, mode="exec")
        except SyntaxError:
            continue
    raise NotCheckable("not an expression or statements", text[:80])


def _key(node: ast.AST) -> str:
    """The same value read or written: `self.x` of `self.x += y` is one operand."""
    return re.sub(r"ctx=(Store|Del)\(\)", "ctx=Load()", ast.dump(node))


class _Scan(ast.NodeVisitor):
    """Names in evaluation order (load or store), comprehension and lambda scopes kept apart, and the opaque
    values: `self.<attr>` and calls of callables the oracle cannot bind (`self.conv(x)`, `helper(x)`)."""

    def __init__(self, known: frozenset):
        self.known = known                  # F names, module names, builtins: bound by the worker
        self.events: List[Tuple[str, str]] = []
        self.opaque: Dict[str, ast.AST] = {}
        self.scopes: List[set] = []
        self.problems: List[Tuple[str, str]] = []

    def _local(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def opaque_callee(self, func: ast.AST) -> bool:
        """`helper` (a name the worker does not bind), `self.conv`, `self.layers[0]`, `Function()`: what
        calling it computes is unknown. A method of an operand (`x.reshape`, `self._kwargs.get`: `self._kwargs`
        is the operand) or of a module is evaluated."""
        if isinstance(func, ast.Call):
            return self.opaque_callee(func.func)
        if isinstance(func, ast.Name):
            return func.id not in self.known and not self._local(func.id)
        while isinstance(func, ast.Subscript):  # self.layers[0]
            func = func.value
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self" and not self._local("self")

    def _opaque(self, node: ast.AST) -> None:
        if self.scopes:
            self.problems.append(("opaque value inside a comprehension or lambda", ast.unparse(node)))
        self.opaque.setdefault(_key(node), node)

    def visit_Name(self, node: ast.Name) -> None:
        if not self._local(node.id):
            self.events.append((node.id, "load" if isinstance(node.ctx, ast.Load) else "store"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == "self" and not self._local("self"):
            self._opaque(node)
        else:
            self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self.opaque_callee(node.func):
            self._opaque(node)
        else:
            self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.events.append((node.target.id, "load"))
        self.visit(node.value)
        self.visit(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        for child in node.body + node.orelse:
            self.visit(child)

    def _bind(self, target: ast.AST) -> None:
        self.scopes[-1].update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))

    def _comprehension(self, node, parts) -> None:
        self.visit(node.generators[0].iter)
        self.scopes.append(set())
        for index, generator in enumerate(node.generators):
            if index:
                self.visit(generator.iter)
            self._bind(generator.target)
            for condition in generator.ifs:
                self.visit(condition)
        for part in parts:
            self.visit(part)
        self.scopes.pop()

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self.scopes.append({a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)})
        self.visit(node.body)
        self.scopes.pop()

    def _unsupported(self, node):
        self.problems.append((f"`{type(node).__name__}` in the replaced code", ast.unparse(node)[:60]))

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Yield = visit_YieldFrom = _unsupported
    visit_Await = visit_Global = visit_Nonlocal = _unsupported


class _Rename(ast.NodeTransformer):
    def __init__(self, names: Dict[str, str]):
        self.names = names

    def visit(self, node):
        name = self.names.get(_key(node)) if isinstance(node, ast.expr) else None
        if name is not None:
            ctx = getattr(node, "ctx", ast.Load())
            return ast.copy_location(ast.Name(id=name, ctx=ctx), node)
        if isinstance(node, ast.Return):
            value = self.visit(node.value) if node.value is not None else ast.Constant(None)
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=RETURN, ctx=ast.Store())], value=value,
                                                lineno=node.lineno), node)
        return super().visit(node)


def _kinds_of_fact(fact: str) -> Optional[Tuple[str, ...]]:
    """The kinds a proven fact leaves an operand, or None for a fact that does not narrow its kinds."""
    if fact in TENSOR_FACTS:
        return TENSOR_KINDS
    if fact in TENSOR_OR_NUMBER_FACTS:
        return ("int", "float") + TENSOR_KINDS
    rank = RANK_FACT.match(fact)
    if rank:
        n = int(rank.group(1))
        same = tuple(k for k in TENSOR_KINDS if _shape(k) is not None and len(_shape(k)) == n)
        return same or (f"tensor({','.join(str(d) for d in (2, 3, 4, 5, 6, 7)[:n])})",)
    shape = SHAPE_FACT.match(fact)
    if shape:
        dims = [d.strip() for d in shape.group(1).split(",") if d.strip()]
        return (f"tensor({','.join(dims)}{',' if len(dims) == 1 else ''})",)
    return None


def _shape(kind: str) -> Optional[Tuple[int, ...]]:
    if not kind.startswith("tensor("):
        return None
    return tuple(int(d) for d in kind[len("tensor("):-1].split(",") if d.strip())


def _normal(text: str) -> str:
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return text.strip()


def prepare(original: str, fixed: str, relies_on: Sequence[dict] = (),
            imports: Optional[Dict[str, Optional[str]]] = None, f_names: Sequence[str] = ("F",)) -> Check:
    """The check of one replacement (`original` -> `fixed`), or NotCheckable. `imports`: the names the file
    binds by import, each with the statement that binds it (None for a relative import); `relies_on`: the fix's
    facts, `[{"expression", "fact", "proven", "evidence"}]`."""
    imports = dict(imports or {})
    mode, before = _parse(original)
    fixed_mode, after = _parse(fixed)
    if fixed_mode != mode:
        raise NotCheckable("an expression replaced by statements (or back)", fixed[:80])
    f_set = set(f_names) | {"F"}
    known = frozenset(f_set | set(DEFAULT_MODULES) | set(imports) | BUILTINS)
    scans = []
    for tree in (before, after):
        scan = _Scan(known)
        scan.visit(tree)
        if scan.problems:
            raise NotCheckable(*scan.problems[0])
        scans.append(scan)
    only = set(scans[0].opaque) ^ set(scans[1].opaque)
    calls = [key for key in only if isinstance((scans[0].opaque.get(key) or scans[1].opaque.get(key)), ast.Call)]
    if calls:
        node = scans[0].opaque.get(calls[0]) or scans[1].opaque.get(calls[0])
        raise NotCheckable("an unknown callable called on one side only", ast.unparse(node)[:80])
    # operands: the opaque values (renamed) and the free names, in order of appearance
    names: Dict[str, str] = {}
    texts: Dict[str, str] = {}
    for scan in scans:
        for key, node in scan.opaque.items():
            if key not in names:
                names[key] = f"__op{len(names)}"
                texts[names[key]] = ast.unparse(node)
    free: List[str] = []
    for scan in scans:
        seen = set()
        for name, event in scan.events:
            if name in seen:
                continue
            seen.add(name)
            if event == "load" and name not in free and name not in f_set:
                free.append(name)
    used_imports = []
    operands_text: List[Tuple[str, str]] = []
    for name in free:
        if name in imports:
            if imports[name] is None:
                raise NotCheckable("a name bound by a relative import", name)
            if imports[name] not in used_imports:
                used_imports.append(imports[name])
        elif name not in DEFAULT_MODULES and name not in BUILTINS:
            operands_text.append((name, name))
    operands_text += [(text, name) for name, text in texts.items()]
    facts = defaultdict(list)
    for item in relies_on or ():
        facts[_normal(str(item.get("expression", "")))].append(item)
    operands, used = [], set()
    for text, name in operands_text:
        kinds, used_facts, unaliased = KINDS, [], False
        for item in facts.get(_normal(text), ()):
            fact = str(item.get("fact", "")).strip()
            if item.get("proven") is not True:
                continue
            narrowed = _kinds_of_fact(fact)
            if narrowed is not None:
                kinds = tuple(k for k in kinds if k in narrowed) or narrowed
            elif fact in UNALIASED_FACTS:
                unaliased = True
            else:
                continue
            used.add(id(item))
            used_facts.append(fact)
        operands.append(Operand(text, name, kinds, sorted(set(used_facts)), unaliased))
    unused = [item for item in relies_on or () if id(item) not in used]
    rename = _Rename(names)
    code = [ast.unparse(ast.fix_missing_locations(rename.visit(tree))) for tree in (before, after)]
    for text in code:  # what exec will meet: `break` outside a loop and the like
        try:
            compile(text, "<fix>", "eval" if mode == "expr" else "exec")
        except SyntaxError as error:
            raise NotCheckable("does not compile on its own", f"{error.msg}") from None
    return Check(mode, code[0], code[1], operands, used_imports, sorted(f_set), unused)


# ------------------------------------------------------------------------------------------ the worker (MXNet)

def _make_value(kind: str, index: int):
    import mxnet as mx
    import numpy as np

    if kind == "int":
        return 2
    if kind == "float":
        return 0.3
    if kind == "None":
        return None
    rng = np.random.RandomState(1009 * (index + 1))
    if kind == "tensor(1,)":
        return mx.nd.array([0.5 + 0.25 * index])
    if kind.startswith("tensor("):
        return mx.nd.array(rng.uniform(0.1, 2.0, _shape(kind)).astype("float32"))
    if kind == "list(split)":  # distinct values, so that a swapped or merged element shows
        base = mx.nd.array((np.arange(8, dtype="float32") + 10 * index).reshape(2, 4))
        return mx.nd.split(base, num_outputs=2, axis=1)
    if kind == "numpy(2,3)":
        return rng.uniform(0.1, 2.0, (2, 3)).astype("float32")
    raise ValueError(kind)


def _snapshot(value, depth=0):
    """What a value holds, read out now (an NDArray's values are copied: a later in-place write shows)."""
    import mxnet as mx
    import numpy as np

    if isinstance(value, mx.nd.NDArray):
        return ("NDArray", tuple(value.shape), np.dtype(value.dtype).name, value.asnumpy().copy())
    if isinstance(value, np.ndarray):
        return ("numpy", value.shape, str(value.dtype), value.copy())
    if isinstance(value, (list, tuple)) and depth < 5:
        return (type(value).__name__, [_snapshot(v, depth + 1) for v in value])
    if isinstance(value, dict) and depth < 5:
        return ("dict", {k: _snapshot(v, depth + 1) for k, v in value.items()})
    return ("value", type(value).__name__, value)


def _describe(snap) -> str:
    if snap[0] in ("NDArray", "numpy"):
        return f"{snap[0]} {snap[1]} {snap[2]}"
    if snap[0] in ("list", "tuple"):
        return f"{snap[0]} of {len(snap[1])}"
    if snap[0] == "dict":
        return f"dict of {len(snap[1])}"
    return f"{snap[1]} {_short(repr(snap[2]), 40)}"


class Incomparable(str):
    """Two values that are not data (classes, blocks, functions) and not the same object: what they compute
    shows only when they are used, which the oracle does not see."""


def _is_data(value) -> bool:
    import numpy as np

    return isinstance(value, (int, float, complex, str, bytes, type(None), slice, range, np.generic))


def _differ(a, b) -> Optional[str]:
    """None when the snapshots are equal, else what differs (an Incomparable for objects that are not data)."""
    import numpy as np

    if a[0] != b[0]:
        if "value" in (a[0], b[0]) and not _is_data((a if a[0] == "value" else b)[2]):
            return Incomparable(f"{_describe(a)} vs {_describe(b)}")
        return f"{_describe(a)} vs {_describe(b)}"
    if a[0] in ("NDArray", "numpy"):
        if a[1] != b[1] or a[2] != b[2]:
            return f"{_describe(a)} vs {_describe(b)}"
        x, y = a[3], b[3]
        nan = x.dtype.kind in "fc"
        if not np.array_equal(x, y, equal_nan=nan):
            where = np.argwhere(~((x == y) | (np.isnan(x) & np.isnan(y)) if nan else (x == y)))
            return f"values differ ({len(where)} of {x.size}, first at {tuple(int(i) for i in where[0])})"
        return None
    if a[0] in ("list", "tuple", "dict"):
        keys = range(len(a[1])) if a[0] != "dict" else a[1].keys()
        if len(a[1]) != len(b[1]) or (a[0] == "dict" and set(a[1]) != set(b[1])):
            return f"{_describe(a)} vs {_describe(b)}"
        incomparable = None
        for key in keys:
            inner = _differ(a[1][key], b[1][key])
            if inner and not isinstance(inner, Incomparable):
                return f"[{key!r}]: {inner}"
            incomparable = incomparable or inner
        return incomparable
    x, y = a[2], b[2]
    if x is y:
        return None
    if not (_is_data(x) and _is_data(y)):
        return Incomparable(f"{_describe(a)} vs {_describe(b)}")
    try:
        equal = x == y
        equal = bool(equal) if isinstance(equal, (bool, np.bool_)) else False
    except Exception:  # noqa: BLE001  (a value whose == raises is not equal)
        equal = False
    if not equal and isinstance(x, float) and isinstance(y, float) and x != x and y != y:
        equal = True
    return None if equal else f"{_describe(a)} vs {_describe(b)}"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _combos(kinds: List[Tuple[str, ...]], cap: int, seed: str) -> List[Tuple[str, ...]]:
    """Every combination when there are at most `cap`; else a structured part (every operand on the same kind,
    and each operand on another kind than all the others share) and a seeded sample to fill up to `cap`."""
    total = 1
    for k in kinds:
        total *= len(k)
    if total <= cap:
        return list(itertools.product(*kinds))
    rng = random.Random(seed)
    chosen, seen = [], set()

    def add(combo):
        if combo not in seen:
            seen.add(combo)
            chosen.append(combo)

    every = sorted({kind for k in kinds for kind in k}, key=KINDS.index)
    structured = []
    for base in every:
        shared = tuple(base if base in k else k[every.index(base) % len(k)] for k in kinds)
        structured.append(shared)
        for index, k in enumerate(kinds):
            for kind in k:
                structured.append(shared[:index] + (kind,) + shared[index + 1:])
    structured = list(dict.fromkeys(structured))
    if len(structured) > cap:
        structured = rng.sample(structured, cap)
    for combo in structured:
        add(combo)
    tries = 0
    while len(chosen) < cap and tries < cap * 20:
        tries += 1
        add(tuple(rng.choice(k) for k in kinds))
    return chosen


def _run_side(code, mode: str, namespace: dict, watch: Sequence[str]):
    """("ok", result snapshot, {name: snapshot}) or ("raised", "Type: message")."""
    import mxnet as mx

    try:
        if mode == "expr":
            result = eval(code, namespace)
        else:
            exec(code, namespace)
            result = None
        mx.nd.waitall()
        snap = _snapshot(result)
        names = {name: _snapshot(namespace[name]) for name in watch if name in namespace}
        return ("ok", snap, names)
    except Exception as error:  # noqa: BLE001  (any exception of the evaluated code is an outcome)
        return ("raised", _error_text(error))


def _error_text(error: Exception) -> str:
    """`Type: message`, one line; for MXNet's errors the line that says what failed, not its traceback."""
    name = type(error).__name__
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    line = (lines[-1] if lines[0].startswith("Traceback") else lines[0]) if lines else ""
    if line.startswith(name + ":"):
        line = line[len(name) + 1:].strip()
    return _short(f"{name}: {line}")


def _seed(seed: int) -> None:
    """The same random state before each side: a fix may keep a random draw (F.random.*, Dropout)."""
    import mxnet as mx
    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    mx.random.seed(seed)


def _compare(sides, mode: str, operands, fresh: frozenset = frozenset()) -> Optional[str]:
    """What differs between the two sides of one combination (both ran), or None. `fresh`: names only the fixed
    code spells (a helper variable the fix introduces: `in_size_like = x`), not compared when only it binds them."""
    incomparable = None
    if mode == "expr":
        inner = _differ(sides[0][1], sides[1][1])
        if inner and not isinstance(inner, Incomparable):
            return f"results differ: {inner}"
        incomparable = inner
    before, after = sides[0][2], sides[1][2]
    for name in sorted(set(before) | set(after)):
        label = _label(name, operands)
        if name in fresh and name not in before:
            continue
        if name not in before or name not in after:
            return f"{label} bound on one side only"
        inner = _differ(before[name], after[name])
        if inner and not isinstance(inner, Incomparable):
            return f"afterwards {label} differs: {inner}"
        incomparable = incomparable or inner
    return incomparable


def evaluate(job: dict) -> dict:
    """Both sides of one check on every chosen combination of operand kinds (in the worker)."""
    import mxnet as mx

    started = time.monotonic()
    base = {"np": __import__("numpy"), "numpy": __import__("numpy"), "mx": mx, "mxnet": mx, "nd": mx.nd,
            "math": __import__("math"), "sym": mx.sym}
    for statement in job["imports"]:
        try:
            exec(statement, base)
        except Exception as error:  # noqa: BLE001
            return {"not_checkable": "an import the worker cannot run", "detail": _short(f"{statement}: {error}", 120)}
    for name in job["f_names"]:
        base[name] = mx.nd
    mode = job["mode"]
    codes = [compile(job[side], f"<{side}>", "eval" if mode == "expr" else "exec") for side in ("original", "fixed")]
    spelled = [{node.id for node in ast.walk(ast.parse(job[side])) if isinstance(node, ast.Name)}
               for side in ("original", "fixed")]
    fresh = frozenset(spelled[1] - spelled[0])
    operands = job["operands"]
    kinds_of = [tuple(o["kinds"]) for o in operands]
    combos = _combos(kinds_of, job["max_combos"], job["seed"])
    total = 1
    for k in kinds_of:
        total *= len(k)

    def schedule():
        """The chosen combinations; when the original ran on none of a sample, the rest of them too (up to
        EXHAUSTIVE combinations in all, within the time limit): a rare combination may be the one that runs."""
        yield from combos
        if ran == 0 and len(combos) < total <= EXHAUSTIVE:
            chosen = set(combos)
            yield from (combo for combo in itertools.product(*kinds_of) if combo not in chosen)

    tried = ran = incomparable = 0
    harms, kinds = [], Counter()
    stopped = False
    for number, combo in enumerate(schedule()):
        if time.monotonic() - started > job["seconds"]:
            stopped = True
            break
        tried += 1
        sides = []
        for code in codes:
            namespace = dict(base)
            for index, (operand, kind) in enumerate(zip(operands, combo)):
                value = _make_value(kind, index)
                namespace[operand["name"]] = value
                if mode == "stmt" and not operand["unaliased"] and not isinstance(value, (int, float, type(None))):
                    namespace[ALIAS + operand["name"]] = value
            watch = [n for n in namespace if n not in base and not n.startswith("__builtins")]
            _seed(number)
            side = _run_side(code, mode, namespace, watch)
            if side[0] == "ok" and mode == "stmt":  # the names the statement bound (either side)
                side = side[:2] + ({**side[2], **{n: _snapshot(v) for n, v in namespace.items()
                                                   if n not in base and n not in side[2] and n != "__builtins__"}},)
            sides.append(side)
            if side[0] == "raised":
                break
        if sides[0][0] == "raised":
            continue
        ran += 1
        if sides[1][0] == "raised":
            what, kind = (f"original: {_describe(sides[0][1]) if mode == 'expr' else 'ran'}; "
                          f"fixed raised {sides[1][1]}"), "fixed raised"
        else:
            what, kind = _compare(sides, mode, operands, fresh), "differs"
        if isinstance(what, Incomparable):
            incomparable += 1
        elif what:
            kinds[kind] += 1
            harms.append({"combo": {o["text"]: k for o, k in zip(operands, combo)}, "what": what})
    # the examples shown: those with the most tensor operands first (closest to what hybrid_forward sees)
    harms.sort(key=lambda harm: -sum(k.startswith("tensor") for k in harm["combo"].values()))
    by_operand = {o["text"]: sorted({harm["combo"][o["text"]] for harm in harms}, key=KINDS.index)
                  for o in operands}
    all_tensors = sum(all(k.startswith("tensor") for k in harm["combo"].values()) for harm in harms)
    return {"combos": len(combos), "tried": tried, "original_ran": ran, "harmful": len(harms),
            "harmful_all_tensors": all_tensors, "harm_operand_kinds": by_operand if harms else {},
            "harm_kinds": dict(kinds), "incomparable": incomparable, "harms": harms[:3], "stopped": stopped,
            "seconds": round(time.monotonic() - started, 3)}


def _label(name: str, operands) -> str:
    texts = {o["name"]: o["text"] for o in operands}
    if name.startswith(ALIAS):
        return f"an alias of `{texts.get(name[len(ALIAS):], name[len(ALIAS):])}` (bound to it before)"
    if name == RETURN:
        return "the returned value"
    return f"`{texts.get(name, name)}`"


def worker_main() -> int:
    """Read jobs (JSON lines) on stdin, answer each on the original stdout; everything else goes to stderr."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import mxnet  # noqa: F401  (imported once, before the first job's clock starts)

    for line in sys.stdin:
        job = json.loads(line)
        try:
            answer = evaluate(job)
        except Exception as error:  # noqa: BLE001  (a defect of the oracle itself: said, not hidden)
            answer = {"error": _short(f"{type(error).__name__}: {error}", 300)}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()
    return 0


class Worker:
    """One worker process (MXNet's NaiveEngine, one thread), restarted after a crash or a time-out."""

    def __init__(self, python: str = sys.executable, log=None):
        self.python, self.log, self.proc = python, log, None

    def _start(self):
        env = dict(os.environ, MXNET_ENGINE_TYPE="NaiveEngine", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        self.proc = subprocess.Popen([self.python, str(Path(__file__).resolve()), "--worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log or subprocess.DEVNULL, text=True, bufsize=1)

    def run(self, job: dict, timeout: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            died = self.proc.poll() is not None
            self.close()
            return {"not_checkable": "the worker died" if died else "the time limit", "detail": ""}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None


def _check_once(original: str, fixed: str, relies_on, imports, f_names, worker: Worker, max_combos: int,
                seconds: float) -> dict:
    try:
        check = prepare(original, fixed, relies_on, imports, f_names)
    except NotCheckable as why:
        return {"status": "not checkable", "reason": why.reason, "detail": why.detail}
    answer = worker.run(check.job(max_combos, seconds, f"{original}\0{fixed}"), seconds + 60)
    result = {"mode": check.mode, "operands": [{"text": o.text, "kinds": len(o.kinds), "facts": o.facts}
                                               for o in check.operands],
              "all_proven": all(k.startswith("tensor") for o in check.operands for k in o.kinds)}
    if check.unused_facts:
        result["facts_not_used"] = check.unused_facts
    if "error" in answer:
        raise RuntimeError(f"fix oracle worker: {answer['error']}")
    if "not_checkable" in answer:
        return {**result, "status": "not checkable", "reason": answer["not_checkable"], "detail": answer["detail"]}
    result.update(answer)
    total = 1
    for operand in check.operands:
        total *= len(operand.kinds)
    result["exhaustive"] = answer["tried"] == total
    if answer["harmful"]:
        result["status"] = "harm"
    elif answer["original_ran"] > answer["incomparable"]:
        result["status"] = "no harm"
    elif answer["original_ran"]:
        result.update(status="not checkable", reason="values that are not data (classes, blocks, functions)",
                      detail=f"{answer['incomparable']} combinations")
    else:
        result["status"] = "no combination ran"
    return result


def check_pair(original: str, fixed: str, relies_on: Sequence[dict] = (), *, context=None, imports=None,
               f_names=("F",), worker: Optional[Worker] = None, max_combos: int = MAX_COMBOS,
               seconds: float = FIX_SECONDS) -> dict:
    """The oracle's verdict on one replacement: {"status": "harm" | "no harm" | "no combination ran" |
    "not checkable", ...}. Starts (and stops) its own worker unless given one.

    `context`: (the enclosing statement, the same with the fix applied). When the replaced expression's value
    differs (and the fix never raises where the original ran), or is no data to compare, the statement decides:
    a fix may rewrite a part whose meaning is in its surroundings (`[-1]` -> `[2]` of a 3-way split). Its
    verdict replaces the expression's only when it is a harm, or no harm on every combination of its operands."""
    own = worker is None
    worker = worker or Worker()
    try:
        result = _check_once(original, fixed, relies_on, imports, f_names, worker, max_combos, seconds)
        differs_only = result["status"] == "harm" and not result["harm_kinds"].get("fixed raised")
        incomparable = result["status"] == "not checkable" and result["reason"].startswith("values that are not")
        if context and (differs_only or incomparable):
            outer = _check_once(context[0], context[1], relies_on, imports, f_names, worker, max_combos, seconds)
            result["statement"] = {key: outer[key] for key in ("status", "reason", "detail", "tried", "original_ran",
                                                                 "harmful", "harmful_all_tensors", "harms",
                                                                 "exhaustive") if key in outer}
            if outer["status"] == "harm" or (outer["status"] == "no harm" and outer["exhaustive"]):
                result["status"] = outer["status"]
                result.pop("reason", None), result.pop("detail", None)
    finally:
        if own:
            worker.close()
    return result


# ------------------------------------------------------------------------------------------ fixes from hylint

def run_hylint(root: Path, hylint_root: Path, unsafe: bool = False, jobs: int = 1, paths=(".",)) -> list:
    command = [sys.executable, "-m", "hylint", "check", "--output-format", "json", "--exit-zero", "--no-cache",
               "-j", str(jobs), *paths]
    if unsafe:
        command.insert(4, "--unsafe-fixes")
    env = dict(os.environ, PYTHONPATH=str(hylint_root))
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"fix_oracle: hylint failed (exit {done.returncode}) in {root}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout or "[]")


def _span(lines: List[str], start: dict, end: dict) -> str:
    (r0, c0), (r1, c1) = (start["row"], start["column"] - 1), (end["row"], end["column"] - 1)
    if r0 == r1:
        return lines[r0 - 1][c0:c1]
    return "\n".join([lines[r0 - 1][c0:]] + lines[r0:r1 - 1] + [lines[r1 - 1][:c1]])


def _file_facts(text: str, row: int):
    """The names the file binds by import (with the statement; None for a relative import) and the F names
    of the function holding `row` (F, and the second parameter of a hybrid_forward)."""
    tree = ast.parse(text)
    imports: Dict[str, Optional[str]] = {}
    f_names = ["F"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                statement = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                imports.setdefault(name, statement)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    continue
                name = alias.asname or alias.name
                statement = None if node.level else \
                    f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                imports.setdefault(name, statement)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "hybrid_forward" \
                and node.lineno <= row <= (node.end_lineno or node.lineno) and len(node.args.args) > 1:
            f_names.append(node.args.args[1].arg)
    return imports, sorted(set(f_names))


def _package_path(relative: Path) -> str:
    """The path inside site-packages: an sdist's `gluonnlp-0.10.0/src/gluonnlp/x.py` is `gluonnlp/x.py`."""
    parts = list(relative.parts)
    if len(parts) > 2 and "-" in parts[0] and parts[0].split("-")[-1][:1].isdigit():
        parts = parts[1:]
        if parts[0] == "src":
            parts = parts[1:]
    return "/".join(parts)


def fixes_of(diagnostics: list, root: Path, source: str, applicability: str) -> List[dict]:
    """One record per fix of `applicability`: where, what each edit replaces and with what, relies_on."""
    records, cache = [], {}
    for item in diagnostics:
        fix = item.get("fix")
        if not fix or fix.get("applicability") != applicability:
            continue
        path = (root / item["filename"]).resolve()
        if path not in cache:
            cache[path] = path.read_text(encoding="utf-8", errors="replace")
        lines = cache[path].split("\n")
        record = {"source": source, "path": _package_path(path.relative_to(root.resolve())), "code": item["code"],
                  "row": item["location"]["row"], "column": item["location"]["column"],
                  "edits": [], "relies_on": fix.get("relies_on", item.get("relies_on")),
                  "why_unsafe": fix.get("why_unsafe", item.get("why_unsafe")), "cell": item.get("cell")}
        for edit in fix["edits"]:
            original = "" if item.get("cell") else _span(lines, edit["location"], edit["end_location"])
            record["edits"].append({"original": original, "content": edit["content"],
                                    "row": edit["location"]["row"], "column": edit["location"]["column"],
                                    "end_row": edit["end_location"]["row"],
                                    "end_column": edit["end_location"]["column"]})
        records.append((record, cache[path]))
    return records


def collect(root: Path, hylint_root: Path, mode: str = "safe", jobs: int = 1, paths=(".",), source: str = ""):
    """(record, file text) of every `mode` fix hylint reports on `paths` (relative to `root`)."""
    diagnostics = run_hylint(root, hylint_root, unsafe=mode == "unsafe", jobs=jobs, paths=paths)
    return fixes_of(diagnostics, root, source or root.name, mode)


def check_fix(record: dict, text: str, worker: Worker, max_combos: int = MAX_COMBOS,
              seconds: float = FIX_SECONDS) -> dict:
    """The verdict on one fix record (from fixes_of) in its file."""
    if record["cell"]:
        return {"status": "not checkable", "reason": "a notebook cell", "detail": ""}
    if len(record["edits"]) != 1:
        statements = statements_edited(text, record["edits"])
        if statements is None:
            return {"status": "not checkable", "reason": "several edits", "detail": f"{len(record['edits'])} edits"}
        imports, f_names = _file_facts(text, record["edits"][0]["row"])
        result = check_pair(*statements, record["relies_on"] or (), imports=imports, f_names=f_names,
                            worker=worker, max_combos=max_combos, seconds=seconds)
        return {**result, "statements": {"original": statements[0], "fixed": statements[1]}}
    edit = record["edits"][0]
    if not edit["original"].strip():
        return {"status": "not checkable", "reason": "an insertion", "detail": ""}
    imports, f_names = _file_facts(text, edit["row"])
    original, content = edit_texts(edit)
    return check_pair(original, content, record["relies_on"] or (), imports=imports,
                      f_names=f_names, context=_statement_context(text, edit), worker=worker,
                      max_combos=max_combos, seconds=seconds)


def statements_edited(text: str, edits: Sequence[dict]) -> Optional[Tuple[str, str]]:
    """The fewest whole lines of sibling statements (one block's) that hold every edit of a fix, as they are and
    with every edit applied; None when no block's statements hold them all (edits in two functions)."""
    tree, starts = _parsed(text)

    def at(row: int, column: int) -> int:
        return starts[row - 1] + column - 1

    spans = sorted(((at(e["row"], e["column"]), at(e["end_row"], e["end_column"]), e["content"]) for e in edits),
                   reverse=True)
    lo, hi = min(span[0] for span in spans), max(span[1] for span in spans)
    end_of = {}  # a statement's lines: from the start of its first line to the end of its last
    best = None
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            for i, first in enumerate(block):
                begin = starts[first.lineno - 1]
                if begin > lo:
                    break
                for last in block[i:]:
                    finish = end_of.setdefault(id(last), starts[last.end_lineno] if last.end_lineno < len(starts)
                                               else len(text))
                    if finish >= hi:
                        if best is None or finish - begin < best[1] - best[0]:
                            best = (begin, finish)
                        break
    if best is None:
        return None
    begin, finish = best
    fixed = text[begin:finish]
    for start, end, content in spans:  # from the last edit back: earlier offsets stay valid
        fixed = fixed[:start - begin] + content + fixed[end - begin:]
    return text[begin:finish], fixed


def edit_texts(edit: dict) -> Tuple[str, str]:
    """What an edit replaces and its content, as code that parses on its own: statements over several lines cut
    at their first line's indentation (`if ...:` and its body, from column 9) get that indentation back."""
    original, content = edit["original"], edit["content"]
    if "\n" in original and edit["column"] > 1:
        indent = " " * (edit["column"] - 1)
        original, content = indent + original, indent + content
    return original, content


def _statement_context(text: str, edit: dict) -> Optional[Tuple[str, str]]:
    """The innermost statement holding the edit (or, in a compound statement's header, the header's expression),
    as it is and with the edit applied; None when the edit replaces all of it."""
    tree, starts = _parsed(text)

    def offset(row: int, column: int) -> int:  # ast's columns count UTF-8 bytes
        line = text[starts[row - 1]:starts[row] if row < len(starts) else len(text)]
        return starts[row - 1] + len(line.encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    begin = starts[edit["row"] - 1] + edit["column"] - 1
    finish = starts[edit["end_row"] - 1] + edit["end_column"] - 1
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        span = (offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset))
        if span[0] <= begin and finish <= span[1] and (best is None or span[1] - span[0] < best[1] - best[0]):
            best = (span[0], span[1], node)
    if best is None:
        return None
    lo, hi, node = best
    if hasattr(node, "body"):  # a compound statement: the header's expression that holds the edit
        headers = [getattr(node, name) for name in ("test", "iter", "value")
                   if isinstance(getattr(node, name, None), ast.expr)]
        headers += [item.context_expr for item in getattr(node, "items", ())]
        inside = [(offset(h.lineno, h.col_offset), offset(h.end_lineno, h.end_col_offset)) for h in headers]
        inside = [span for span in inside if span[0] <= begin and finish <= span[1]]
        if not inside:
            return None
        lo, hi = inside[0]
    if (lo, hi) == (begin, finish):
        return None
    return text[lo:hi], text[lo:begin] + edit["content"] + text[finish:hi]


_PARSED: Dict[int, tuple] = {}


def _parsed(text: str):
    key = hash(text)
    if key not in _PARSED:
        starts = [0]
        for line in text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        _PARSED.clear()
        _PARSED[key] = (ast.parse(text), starts[:-1] if len(starts) > 1 else starts)
    return _PARSED[key]


# ------------------------------------------------------------------------------------------ sources and report

def sources(names: Optional[Sequence[str]] = None) -> List[Tuple[str, Path]]:
    """(name, root) of the six zoo libraries (zoo/sources.py) and the corpus packages (corpus.py), downloaded
    on first use; with `dir:<path>` names, those folders instead (any Gluon code: the unseen releases)."""
    folders = [name for name in names or () if name.startswith("dir:")]
    if folders:
        return dir_sources(folders) + (sources([n for n in names if n not in folders])
                                       if len(folders) < len(names) else [])
    sys.path.insert(0, str(HERE / "zoo"))
    sys.path.insert(0, str(HERE))
    from corpus import PACKAGES, ensure_corpus
    from models import LIBRARIES
    from sources import library_source

    roots = [(f"zoo:{library}", library_source(library)) for library in LIBRARIES
             if not names or f"zoo:{library}" in names]
    wanted = [requirement.split("==")[0] for requirement, _, _ in PACKAGES
              if not names or f"corpus:{requirement.split('==')[0]}" in names]
    if wanted:
        corpus = ensure_corpus()
        roots += [(f"corpus:{name}", corpus / name) for name in wanted]
    return roots


def dir_sources(names: Sequence[str]) -> List[Tuple[str, Path]]:
    """`dir:<path>` -> ("dir:<folder name>", the folder): sources that are not downloaded, read where they are;
    `dir:<path>/*` -> each folder the pattern matches. Two folders of one name (two releases of d2l) are told
    apart by their parent's name."""
    roots = []
    for name in names:
        pattern = os.path.expanduser(name[len("dir:"):])
        found = sorted(Path(p).resolve() for p in glob.glob(pattern) if Path(p).is_dir()) \
            if glob.has_magic(pattern) else [Path(pattern).resolve()]
        if not found or not all(root.is_dir() for root in found):
            raise SystemExit(f"fix_oracle: {name}: not a folder")
        roots += found
    short = Counter(root.name for root in roots)
    return [(f"dir:{root.name if short[root.name] == 1 else root.parent.name + '/' + root.name}", root)
            for root in roots]


def summarize(fixes: List[dict]) -> dict:
    """Per rule, over distinct fixes (the corpus repeats zoo libraries' files): seen, checked, harms, no
    combination ran, not checkable by reason."""
    by_rule: Dict[str, dict] = {}
    for fix in fixes:
        entry = by_rule.setdefault(fix["code"], {"fixes": 0, "checked": 0, "harms": 0, "no_combination_ran": 0,
                                                 "not_checkable": {}, "all_operands_proven": 0,
                                                 "harms_with_tensors_only": 0})
        entry["fixes"] += 1
        status = fix["result"]["status"]
        if status in ("harm", "no harm"):
            entry["checked"] += 1
        if status == "harm":
            entry["harms"] += 1
            entry["harms_with_tensors_only"] += bool(fix["result"].get("harmful_all_tensors"))
        elif status == "no combination ran":
            entry["no_combination_ran"] += 1
        elif status == "not checkable":
            reason = fix["result"]["reason"]
            entry["not_checkable"][reason] = entry["not_checkable"].get(reason, 0) + 1
        if fix["result"].get("all_proven"):
            entry["all_operands_proven"] += 1
    return dict(sorted(by_rule.items()))


def distinct(records: List[dict]) -> List[dict]:
    """One fix per (path, position, rule, edits): the corpus's gluoncv, gluonnlp and mxnet repeat zoo files."""
    merged: Dict[str, dict] = {}
    for record in records:
        key = json.dumps([record["path"], record["row"], record["column"], record["code"], record["edits"]])
        if key in merged:
            merged[key]["sources"].append(record["source"])
        else:
            merged[key] = {**record, "sources": [record["source"]]}
    return list(merged.values())


def _code(text: str) -> str:
    text = " ".join(text.split())
    return "`" + (text if len(text) <= 140 else text[:137] + "...") + "`"


def render(meta: dict, modes: Dict[str, dict]) -> str:
    lines = [f"`{meta['command']}` · hylint {meta['commit']} · {meta['date']}", "",
             "# The fix oracle: hylint's fixes evaluated on MXNet before and after", "",
             f"MXNet {meta['mxnet']}, F = mxnet.nd (eager). Every fix of the given applicability on the sources "
             "below; each operand bound to every kind of value its `relies_on` does not "
             f"exclude ({', '.join(KINDS)}), at most {meta['max_combos']} combinations a fix (all of them when "
             "there are fewer, else a structured and seeded choice). A harm: the original runs and the fix "
             "raises, or both run and differ. What it checks and cannot see: [README.md](README.md). "
             f"The run took {meta['seconds']:.0f} s.", ""]
    lines += ["Sources: " + ", ".join(f"{s['name']} ({s['files']} files, {s['fixes']['safe']} safe fixes)"
                                      for s in meta["sources"])
              + ". The tables count distinct fixes (same file, place, rule and edits: the corpus repeats "
              "gluoncv, gluonnlp and mxnet's gluon folders of the zoo), the harms name every source they were "
              "seen in.", ""]
    for mode, data in modes.items():
        fixes = data["fixes"]
        proven = sum(1 for f in fixes if f.get("relies_on") is not None)
        lines += [f"## {mode.capitalize()} fixes", "",
                  f"{len(fixes)} distinct {mode} fixes; `relies_on` present on {proven} of them"
                  + (" (absent: every operand is tried with every kind)." if not proven else "."), "",
                  "`harms, tensors only`: the harms that remain on combinations where every operand is a tensor "
                  "(what a `tensor` fact in relies_on would leave).", "",
                  "| rule | fixes | checked | harms | harms, tensors only | no combination ran | "
                  "not checkable (reason: count) |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        total = Counter()
        for code, entry in data["by_rule"].items():
            reasons = ", ".join(f"{r}: {n}" for r, n in sorted(entry["not_checkable"].items())) or "0"
            lines.append(f"| {code} | {entry['fixes']} | {entry['checked']} | {entry['harms']} | "
                         f"{entry['harms_with_tensors_only']} | {entry['no_combination_ran']} | {reasons} |")
            for key in ("fixes", "checked", "harms", "harms_with_tensors_only", "no_combination_ran"):
                total[key] += entry[key]
            total["not_checkable"] += sum(entry["not_checkable"].values())
        lines += [f"| all | {total['fixes']} | {total['checked']} | {total['harms']} | "
                  f"{total['harms_with_tensors_only']} | {total['no_combination_ran']} | "
                  f"{total['not_checkable']} |", ""]
        harms = [f for f in fixes if f["result"]["status"] == "harm"]
        lines += [f"### Harms ({len(harms)})", ""]
        for fix in harms:
            result = fix["result"]
            edit = fix["edits"][0]
            before, after = (result["statements"]["original"], result["statements"]["fixed"]) \
                if "statements" in result else (edit["original"], edit["content"])
            together = " (its edits applied together)" if "statements" in result else ""
            lines.append(f"- **{fix['code']}** `{fix['path']}:{fix['row']}` ({', '.join(fix['sources'])}): "
                         f"{_code(before)} -> {_code(after)}{together}: harmful on {result['harmful']} "
                         f"of the {result['original_ran']} combinations where the original ran "
                         f"({result['tried']} tried); {result['harmful_all_tensors']} with every operand a tensor. "
                         "Harmful kinds: " + "; ".join(f"`{text}` {', '.join(kinds)}" for text, kinds
                                                      in result["harm_operand_kinds"].items()) + ".")
            for harm in result["harms"][:2]:
                combo = ", ".join(f"`{k}` = {v}" for k, v in harm["combo"].items()) or "no operands"
                lines.append(f"  - {combo}: {harm['what']}")
            if "statement" in result:
                outer = result["statement"]
                lines.append(f"  - the enclosing statement: {outer['status']}"
                             + (f", harmful on {outer['harmful']} of {outer['original_ran']}"
                                if outer["status"] == "harm" else f" ({outer.get('reason', '')})".replace(" ()", "")))
        if not harms:
            lines.append("None.")
        lines.append("")
        others = [f for f in fixes if f["result"]["status"] in ("not checkable", "no combination ran")]
        lines += [f"### Not checked ({len(others)})", "", "| rule | where | replaced | why |", "|---|---|---|---|"]
        for fix in others:
            result = fix["result"]
            why = result.get("reason", "the original raised on every combination tried") \
                if result["status"] == "not checkable" else \
                f"no combination ran: the original raised on all {result['tried']}"
            detail = f" ({_short(result.get('detail', ''), 60)})" if result.get("detail") else ""
            lines.append(f"| {fix['code']} | `{fix['path']}:{fix['row']}` | "
                         f"{_code(fix['edits'][0]['original']) if fix['edits'][0]['original'] else '(insertion)'} | "
                         f"{why}{detail.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--python", default=sys.executable, help="the interpreter with MXNet 1.9.1 (the worker)")
    parser.add_argument("--hylint-root", type=Path, default=REPO)
    parser.add_argument("--unsafe", action="store_true", help="also the unsafe fixes (--unsafe-fixes), apart")
    parser.add_argument("--source", action="append", metavar="NAME",
                        help="zoo:<library>, corpus:<package>, or dir:<path> (any folder of Gluon code; "
                             "dir:<path>/* for each folder in it)")
    parser.add_argument("--max-combos", type=int, default=MAX_COMBOS)
    parser.add_argument("--seconds", type=float, default=FIX_SECONDS, help="time limit per fix")
    parser.add_argument("--jobs", type=int, default=1, help="hylint's worker processes")
    parser.add_argument("--output", type=Path, default=OUT)
    parser.add_argument("--worker-log", type=Path, help="the worker's stderr (MXNet's messages) goes here")
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    started = time.monotonic()
    hylint_root = args.hylint_root.resolve()
    modes = ["safe"] + (["unsafe"] if args.unsafe else [])
    records = {mode: [] for mode in modes}
    meta_sources = []
    for name, root in sources(args.source):
        entry = {"name": name, "files": len(list(root.rglob("*.py"))), "fixes": {}}
        for mode in modes:
            found = collect(root, hylint_root, mode, args.jobs, source=name)
            entry["fixes"][mode] = len(found)
            records[mode] += found
            print(f"fix_oracle: {name}: {len(found)} {mode} fixes", file=sys.stderr)
        meta_sources.append(entry)
    log = open(args.worker_log, "w") if args.worker_log else None
    worker = Worker(args.python, log)
    data = {}
    try:
        for mode in modes:
            texts = {}
            for record, text in records[mode]:
                texts[json.dumps([record["source"], record["path"]])] = text
            fixes = distinct([record for record, _ in records[mode]])
            for index, fix in enumerate(fixes):
                text = texts[json.dumps([fix["sources"][0], fix["path"]])]
                fix["result"] = check_fix(fix, text, worker, args.max_combos, args.seconds)
                print(f"fix_oracle: {mode} {index + 1}/{len(fixes)} {fix['code']} {fix['path']}:{fix['row']}: "
                      f"{fix['result']['status']}", file=sys.stderr)
            data[mode] = {"by_rule": summarize(fixes), "fixes": fixes}
    finally:
        worker.close()
        if log:
            log.close()
    version = subprocess.run([args.python, "-c", "import mxnet; print(mxnet.__version__)"], capture_output=True,
                             text=True).stdout.strip().splitlines()
    sys.path.insert(0, str(HERE / "zoo"))
    from score import _git  # noqa: E402  (the zoo scorer's: no MXNet)

    commit = _git(hylint_root, "rev-parse", "--short", "HEAD")
    if _git(hylint_root, "status", "--porcelain", "--untracked-files=no", "hylint"):
        commit += " (with uncommitted changes to hylint/)"
    command = "python benchmarks/fix_oracle.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    meta = {"command": command, "commit": commit, "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "mxnet": version[-1] if version else "unknown", "max_combos": args.max_combos,
            "seconds": time.monotonic() - started, "sources": meta_sources, "kinds": list(KINDS)}
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "RESULTS.md").write_text(render(meta, data))
    for mode in modes:  # the figures and a line of each fix, not the libraries' code
        for fix in data[mode]["fixes"]:
            for edit in fix["edits"] + ([fix["result"]["statements"]] if "statements" in fix["result"] else []):
                for key in ("original", "content", "fixed"):
                    if key in edit:
                        edit[key] = _short(edit[key], 200)
    (args.output / "results.json").write_text(json.dumps({"meta": meta, **data}, indent=1, sort_keys=True,
                                                         default=str) + "\n")
    for mode in modes:
        for code, entry in data[mode]["by_rule"].items():
            print(f"{mode} {code}: {entry['fixes']} fixes, {entry['checked']} checked, {entry['harms']} harms, "
                  f"{entry['no_combination_ran']} vacuous, not checkable {entry['not_checkable']}")
    print(f"fix_oracle: {time.monotonic() - started:.0f} s; {args.output / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
