from typing import Dict, Optional, Set

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.rule import Invalid, LintRule, RANDOM_BINDINGS, SELF_ATTRIBUTE_METHODS, Valid
from hylint.rules._hazards import CLS, self_attr
from hylint.syntax.walk import EXPRESSIONS, TRIVIA, iter_nodes, walk

# what the names of a module stand for, as far as random numbers go
NUMPY, NUMPY_RANDOM, STDLIB_RANDOM, OTHER = "numpy", "numpy.random", "random", "other"
# functions of the random modules that draw nothing (state and generators)
GENERATORS = {"RandomState", "default_rng", "Generator", "Random", "SystemRandom"}
GENERATOR = "generator"  # a name bound to a NumPy or standard-library random generator object
NOT_DRAWING = {"seed", "get_state", "set_state", "getstate", "setstate", "RandomState", "default_rng", "Generator",
               "SeedSequence", "BitGenerator", "PCG64", "MT19937", "Random", "SystemRandom"}
IMPORTS = "import random\nimport numpy as np\n\n"


class _Imports(cst.CSTVisitor):
    """The names a module's imports bind (``random_bindings``); one class, not one per call."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: Dict[str, str] = {}

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            module_name = dotted_name(alias.name) or ""
            target = {"numpy": NUMPY, "numpy.random": NUMPY_RANDOM, "random": STDLIB_RANDOM}.get(module_name)
            if alias.asname is not None:
                self.bound[alias.asname.name.value] = target or OTHER
            else:
                root = module_name.split(".", 1)[0]
                self.bound[root] = NUMPY if root == "numpy" else STDLIB_RANDOM if root == "random" else OTHER

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is None or isinstance(node.names, cst.ImportStar):
            return
        source = dotted_name(node.module) or ""
        for alias in node.names:
            name = alias.name.value
            local = alias.asname.name.value if alias.asname is not None else name
            if source == "numpy" and name == "random":
                self.bound[local] = NUMPY_RANDOM
            elif source in ("numpy.random", "random"):
                self.bound[local] = f"{'numpy.random' if source == 'numpy.random' else 'random'}.{name}"
            else:
                self.bound[local] = OTHER


def random_bindings(module: cst.Module) -> Dict[str, str]:
    """Name bound by an import of ``module`` -> NUMPY, NUMPY_RANDOM, STDLIB_RANDOM, or a function of one
    of the random modules as "numpy.random.<f>" / "random.<f>"; names imported from elsewhere -> OTHER
    (``from mxnet import random`` is MXNet's, not the standard library's)."""
    imports = _Imports()
    walk(module, imports, TRIVIA | EXPRESSIONS)  # imports are statements: never below an expression
    bound = imports.bound
    for stmt in module.body:  # module-level generators: rng = np.random.RandomState(0)
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Assign):
            assign = stmt.body[0]
            if _builds_generator(assign.value, bound):
                for target in assign.targets:
                    if isinstance(target.target, cst.Name):
                        bound[target.target.value] = GENERATOR
    return bound


def _builds_generator(value: cst.BaseExpression, bound: Dict[str, str]) -> bool:
    """``np.random.RandomState(0)``, ``np.random.default_rng()``, ``random.Random(1)``."""
    if not isinstance(value, cst.Call):
        return False
    callee = dotted_name(value.func) or ""
    parts = callee.split(".")
    head = bound.get(parts[0], NUMPY if parts[0] in ("np", "numpy") else None)
    if head == NUMPY and len(parts) == 3 and parts[1] == "random" or head in (NUMPY_RANDOM, STDLIB_RANDOM) and \
            len(parts) == 2:
        return parts[-1] in GENERATORS
    return head is not None and head.startswith(("numpy.random.", "random.")) and len(parts) == 1 and \
        head.rsplit(".", 1)[-1] in GENERATORS


def generator_attributes(cls, bound: Dict[str, str]) -> Set[str]:
    """Attributes of ``self`` that some method of the class sets to a random generator object."""
    found: Set[str] = set()
    for method in cls.methods.values():
        for node in iter_nodes(method.body, TRIVIA | EXPRESSIONS):  # assignments are statements
            if type(node) is cst.Assign and _builds_generator(node.value, bound):
                for target in node.targets:
                    attr = self_attr(target.target)
                    if attr:
                        found.add(attr)
    return found


def python_random_function(callee: str, bound: Dict[str, str], generators: Set[str] = frozenset()) -> Optional[str]:
    """The full name ("numpy.random.uniform", "random.random", "generator rng.normal") of a call of
    Python-side random numbers; ``generators``: attributes of self holding a generator."""
    parts = callee.split(".")
    head = bound.get(parts[0], NUMPY if parts[0] in ("np", "numpy") else None)
    if head == GENERATOR and len(parts) == 2 or parts[0] == "self" and len(parts) == 3 and parts[1] in generators:
        if parts[-1] in NOT_DRAWING:
            return None
        return f"a random generator's {parts[-1]}"
    elif head == NUMPY and len(parts) == 3 and parts[1] == "random":
        full = "numpy.random." + parts[2]
    elif head == NUMPY_RANDOM and len(parts) == 2:
        full = "numpy.random." + parts[1]
    elif head == STDLIB_RANDOM and len(parts) == 2:
        full = "random." + parts[1]
    elif head is not None and head.startswith(("numpy.random.", "random.")) and len(parts) == 1:
        full = head
    else:
        return None
    return None if full.rsplit(".", 1)[-1] in NOT_DRAWING else full


class PythonRandomInHybrid(LintRule):
    CODE = "HY808"
    READS = frozenset({RANDOM_BINDINGS, SELF_ATTRIBUTE_METHODS})  # what np/random/RNG name; generator attributes
    NAME = "python-random-in-hybrid"
    MESSAGE = "Python-side random number drawn in a hybrid context is frozen at trace time"
    DOC = """
## What it does
Flags calls of NumPy's or the standard library's random functions inside a hybrid context:
`np.random.uniform()`, `numpy.random.randint(...)`, `random.random()`, `random.choice(...)`, and
the same functions imported by name (`from random import random`), and the methods of a generator
object held in a module-level name or an attribute of `self` (`self.rng = np.random.RandomState(0)`,
then `self.rng.normal()`). `F.random.*` (MXNet's operators,
part of the graph) is not flagged, nor `mx.random`/`nd.random` (other rules flag NDArray-only calls),
nor seeding and generator construction (`np.random.seed`, `np.random.RandomState(...)`).

## Why is this bad?
The number is a Python value: after `hybridize()` the body runs once, when the graph is traced, so
the number drawn then becomes a constant of the graph and every later call reuses it. Measured on
MXNet 1.9.1, six calls: `x + np.random.uniform(0, 1)` gives six different values eagerly and one
value six times hybridized; `x * np.random.randint(1, 1000)` likewise; `if random.random() < 0.5:`
takes both branches eagerly and always the branch of the trace hybridized. No error is raised.
`x + F.random.uniform(0, 1, shape=...)` draws new numbers on every call in both modes (and, seeded
with `mx.random.seed`, the same numbers eagerly and hybridized).

## Example
```python
def hybrid_forward(self, F, x):
    noise = np.random.normal(0, 0.1)
    return x + noise
```

## Use instead
```python
def hybrid_forward(self, F, x):
    noise = F.random.normal(0, 0.1, shape=(1,))
    return F.broadcast_add(x, noise)
```

## Fix safety
No fix: the random numbers of `F.random` come from MXNet's generator, not NumPy's or Python's, so
the rewrite would draw other numbers even eagerly.
"""
    VALID = [
        Valid(IMPORTS + CLS.format("        return x + F.random.uniform(0, 1, shape=(2, 3))\n")),
        Valid(IMPORTS + CLS.format("        if F is nd:\n            return x + np.random.uniform()\n        return x\n")),
        Valid("from mxnet import random\n\n" + CLS.format("        return x + random.uniform(0, 1, shape=(2, 3))\n")),
        Valid(IMPORTS + CLS.format("        np.random.seed(0)\n        return x\n")),
        Valid(IMPORTS + "RNG = np.random.RandomState(0)\n\n\n" + CLS.format("        RNG.seed(1)\n        return x\n")),
        Valid(IMPORTS + "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.rng = np.random.RandomState(0)\n        self.scale = self.rng.uniform()\n\n"
              "    def hybrid_forward(self, F, x):\n        return x * self.scale\n"),
        Valid(IMPORTS + "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.scale = np.random.uniform()\n\n    def hybrid_forward(self, F, x):\n"
              "        return x * self.scale\n"),
    ]
    INVALID = [
        Invalid(IMPORTS + CLS.format("        return x + np.random.uniform(0, 1)\n")),
        Invalid(IMPORTS + CLS.format("        if random.random() < 0.5:\n            return x * 2\n        return x\n")),
        Invalid("import numpy\n\n" + CLS.format("        return x * numpy.random.randint(1, 10)\n")),
        Invalid("from random import choice\n\n" + CLS.format("        return x * choice([1, 2])\n")),
        Invalid("from numpy import random as npr\n\n" + CLS.format("        return x + npr.rand()\n")),
        Invalid(IMPORTS + "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.rng = np.random.RandomState(0)\n\n    def hybrid_forward(self, F, x):\n"
                "        return x * self.rng.uniform()\n"),
        Invalid(IMPORTS + "RNG = random.Random(0)\n\n\n" + CLS.format("        return x * RNG.random()\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func)
        if not callee:
            return
        # memos of the module being linted (kept on the rule, they would keep its tree alive after the lint)
        info = ctx.module_info
        bound = info.memo("random-bindings", ctx.module, random_bindings)
        cls = ctx.cls
        generators = info.memo("random-generators", cls.node, lambda _: generator_attributes(cls, bound)) \
            if callee.startswith("self.") and cls is not None else set()
        function = python_random_function(callee, bound, generators)
        if function is None:
            return
        ctx.report(node, f"`{callee}()` is drawn once, for every call, after hybridize()",
                   help=f"It calls {function}: after hybridize() it is drawn once, when the graph is traced, and every "
                        f"call reuses it; use `{ctx.f_name}.random.*` operators")
