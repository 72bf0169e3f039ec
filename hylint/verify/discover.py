"""``hylint verify PATH``: the blocks a file or folder defines, found without importing anything.

A class is a candidate when it defines ``hybrid_forward`` or one of its bases (by the base's last name) is a
Gluon HybridBlock class or another candidate of the package (to a fixed point, across the package's files).
Each candidate is imported and checked in its own process (``issubclass(cls, HybridBlock)``); this module
only lists them, with how each is imported (a file, or a module of a package), and the literal calls of
each class found in the package (the constructor arguments ``hylint/verify/construct.py`` tries first)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple


# Gluon's HybridBlock classes a package subclasses most (mxnet.gluon.nn and rnn); a class of the package
# deriving from one of these, or from a class that does, is a candidate
GLUON_HYBRID = frozenset({
    "HybridBlock", "HybridSequential", "HybridConcurrent", "HybridLambda", "SymbolBlock", "Dense", "Dropout",
    "BatchNorm", "SyncBatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "Embedding", "Flatten", "Activation",
    "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose",
    "Conv2DTranspose", "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
    "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "GlobalAvgPool3D", "ReflectionPad2D", "HybridRecurrentCell", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell",
    "GRUCell", "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell",
    "ResidualCell", "BidirectionalCell", "Identity",
})


@dataclass(frozen=True)
class CallSite:
    """A call ``Name(...)`` in the package: its literal arguments (``None`` in ``args`` where a positional
    argument is not a literal; non-literal keywords are left out) and where it is."""
    file: str
    line: int
    args: Tuple[Any, ...]
    literal: Tuple[bool, ...]
    kwargs: Tuple[Tuple[str, Any], ...]
    # arguments that are blocks of the package: (position as a string, or keyword) -> the class called for it,
    # directly (``Head(Encoder(...))``) or through a name the same function assigned (``e = Encoder(...)``)
    blocks: Tuple[Tuple[str, str], ...] = ()
    given: Tuple[str, ...] = ()  # keywords given a value that is not a literal (``vocab_size=len(vocab)``)


@dataclass
class BlockJob:
    """One candidate block: its class name, its file, how to import it (``module`` with ``search`` first on
    sys.path for a package's module; else the file alone) and the package's literal calls of it."""
    path: Path
    name: str
    line: int
    module: Optional[str] = None
    search: Optional[Path] = None
    calls: List[CallSite] = field(default_factory=list)
    # every candidate class's calls in the package (shared by all jobs): for blocks built as arguments
    context: Dict[str, List[CallSite]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.path}::{self.name}"


def python_files(path: Path) -> List[Path]:
    """The ``.py`` files of a file or folder, sorted; hidden folders and ``__pycache__`` left out."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.py")
                  if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(path).parts[:-1]))


def package_root(path: Path) -> Tuple[Optional[str], Path]:
    """``(dotted module name, folder to put first on sys.path)`` for a file inside a package (folders with an
    ``__init__.py``), else ``(None, its folder)``."""
    path = Path(path).resolve()
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) <= (0 if path.name == "__init__.py" else 1):
        return None, path.parent
    return ".".join(parts), folder


def _parse(path: Path) -> Optional[ast.Module]:
    try:
        return ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    return ""


_NOT_LITERAL = object()


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _assigned_calls(tree: ast.Module) -> Dict[int, Dict[str, str]]:
    """Per function (by ``id`` of its node; 0 for the module): the names it assigns a call to, with the
    callee's last name (``encoder = BERTEncoder(...)`` -> ``{"encoder": "BERTEncoder"}``)."""
    scopes: Dict[int, Dict[str, str]] = {}
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        names = scopes.setdefault(id(scope) if scope is not tree else 0, {})
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names[target.id] = _base_name(node.value.func)
    return scopes


def _enclosing(tree: ast.Module) -> Dict[int, int]:
    """``id`` of each call -> ``id`` of the innermost function around it (0: the module)."""
    found: Dict[int, int] = {}

    def walk(node: ast.AST, scope: int) -> None:
        for child in ast.iter_child_nodes(node):
            inner = id(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
            if isinstance(child, ast.Call):
                found[id(child)] = scope
            walk(child, inner)

    walk(tree, 0)
    return found


def _call_sites(tree: ast.Module, file: str, names: Set[str]) -> Iterable[Tuple[str, CallSite]]:
    scopes, enclosing = _assigned_calls(tree), _enclosing(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _base_name(node.func)
        if name not in names or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        values = [_literal(a) for a in node.args]
        kwargs = tuple((k.arg, v) for k in node.keywords if k.arg is not None
                       for v in [_literal(k.value)] if v is not _NOT_LITERAL)
        assigned = scopes.get(enclosing.get(id(node), 0), {})

        def block_class(value: ast.expr) -> str:
            callee = _base_name(value.func) if isinstance(value, ast.Call) else \
                assigned.get(value.id, "") if isinstance(value, ast.Name) else ""
            return callee if callee in names else ""

        blocks = tuple((key, callee) for key, value in [(str(i), a) for i, a in enumerate(node.args)]
                       + [(k.arg, k.value) for k in node.keywords if k.arg is not None]
                       for callee in [block_class(value)] if callee)
        given = tuple(k.arg for k in node.keywords if k.arg is not None and _literal(k.value) is _NOT_LITERAL)
        yield name, CallSite(file, node.lineno, tuple(None if v is _NOT_LITERAL else v for v in values),
                             tuple(v is not _NOT_LITERAL for v in values), kwargs, blocks, given)


def discover(path: Path) -> List[BlockJob]:
    """The candidate HybridBlock classes defined (at a module's top level) in the files under ``path``, in file
    and line order. Bases and calls are read across the whole package each file belongs to."""
    files = python_files(path)
    trees: Dict[Path, Optional[ast.Module]] = {}
    roots: Dict[Path, Tuple[Optional[str], Path]] = {}
    for file in files:
        roots[file] = package_root(file)
        trees[file] = _parse(file)
    # the whole package of each file: its bases and its calls count
    package_files: Set[Path] = set()
    for file, (module, search) in roots.items():
        if module is not None:
            top = search / module.split(".")[0]
            package_files.update(python_files(top))
    for extra in sorted(package_files - set(trees)):
        trees[extra] = _parse(extra)
    classes: Dict[str, List[Tuple[Path, ast.ClassDef]]] = {}
    for file, tree in trees.items():
        for node in (tree.body if tree is not None else ()):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, []).append((file, node))
    hybrid: Set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, defs in classes.items():
            if name in hybrid:
                continue
            for _, node in defs:
                own = any(isinstance(s, ast.FunctionDef) and s.name == "hybrid_forward" for s in node.body)
                if own or any(_base_name(b) in GLUON_HYBRID or _base_name(b) in hybrid for b in node.bases):
                    hybrid.add(name)
                    changed = True
                    break
    calls: Dict[str, List[CallSite]] = {}
    for file, tree in sorted(trees.items()):
        if tree is not None:
            for name, site in _call_sites(tree, str(file), hybrid):
                calls.setdefault(name, []).append(site)
    jobs = []
    for file in files:
        tree = trees[file]
        module, search = roots[file]
        for node in (tree.body if tree is not None else ()):
            if isinstance(node, ast.ClassDef) and node.name in hybrid:
                jobs.append(BlockJob(file, node.name, node.lineno, module, search if module else None,
                                     calls.get(node.name, []), calls))
    return jobs
