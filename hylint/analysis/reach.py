"""Trace reach: which code of a package runs while MXNet traces a HybridBlock's ``hybrid_forward``.

Given the parsed modules of one package (CPython ``ast``: this analysis needs names, calls and assignments,
not positions or comments, and ``ast.parse`` is about ten times faster than libcst), ``analyze_package``
starts from the ``hybrid_forward`` of every HybridBlock class of the package and follows what runs during the
trace, across the package's modules:

* helpers called with or without F (a parameter that receives F, or a tensor, is recorded as such);
* objects that hold F: ``self.F = F``, ``self.F = F if F else getF(x)`` where ``getF`` is an accessor (a
  function that returns ``mx.nd`` or ``mx.sym``), and the methods that read ``F = self.F``;
* nested functions, and lambdas, functions or methods handed to a call the package does not define
  (``HybridLambda(lambda F, x: ...)``, ``HybridLambda(self._inner)``, ``F.contrib.foreach(self._step, ...)``):
  they run in the trace with the parameter named F bound to F, a method's ``self`` to its object, and the
  others to tensors when MXNet is the one calling them (an ``F.`` operator, a name imported from
  ``mxnet``; what ``map`` or another library passes is not known);
* classes constructed in the trace: their ``__init__`` runs, and ``super().<method>`` calls of their bases;
* property getters, when the property is read (gluonts' ``F = self.F`` is ``getF(self.mu)``);
* calls of child blocks (``self.body(x)``, an object built from a block class of the package): their
  ``hybrid_forward`` (with F) or ``forward`` (without);
* objects given to a block's ``__init__`` through a parameter annotated with a non-block class of the package
  and kept on self (``distr_output: DistributionOutput``, ``self.distr_output = distr_output``): the attribute
  holds an object of that class or of any of its package subclasses, and a method called on it is followed
  for each (the caller may pass any of them); classes assigned in a class body (``distr_cls: type =
  GenPareto``), built by ``self.distr_cls(...)``;
* branches on ``isinstance(x, mx.nd.NDArray)`` / ``isinstance(x, mx.sym.Symbol)`` (and their negation), on
  ``F is nd``, ``F.__name__ == 'mxnet.ndarray'`` and on a guard helper of the package (a function whose body
  is ``return <one of these tests of its parameter>``: autogluon's ``mxnet_is_ndarray(F)``), alone or in an
  ``and`` (``x is not None and F is nd`` is true only eagerly): only
  the branch that runs with Symbols is followed; after a guard true only in a trace whose branch ends in
  ``raise`` or ``return`` (``if F is mx.sym: raise ValueError(...)``, ``if F is not nd: return ...``), the
  rest of the block runs eagerly only and is not followed;
* methods called on an object of a known class, and, when the class of the receiver is not known
  (``self.distr_output.distribution(args)`` with ``distr_output`` a constructor argument), every method of
  that name defined by a non-block class of the package, marked ``certain=False`` ("by name"); what such a
  guess calls, constructs or hands over is as uncertain;
* imports within the package, absolute and relative (``from .distribution import getF``), through
  re-exports of ``__init__`` modules.

A value that came from F (``F.op(...)``, an operator method of a tensor, arithmetic on a tensor) is a tensor
wherever it flows: through assignments, tuples, returns, attributes set on ``self`` and arguments.

For each reached function ``Reached`` says which parameters hold F and which hold tensors, whether the reach
is certain, and the first call chain that reached it (``reached from Model.hybrid_forward via
distr.log_prob``), breadth first, so the chain is a shortest one.

What it does NOT follow (each is a place where the reach may miss code; it adds code that does not run only
through the by-name methods above and through the merging described under call-site sensitivity):

* code outside the package (another installed library, MXNet itself): calls into it are opaque, except that
  functions handed to them are reached;
* classes chosen at run time (``self.distr_cls(*args)``, ``getattr(module, name)``), decorators other than
  ``property`` (a property's getter is followed when it is read), property setters, metaclasses,
  ``exec``/``eval``;
* classes nested in functions, star-imports, modules imported inside functions, conditional imports beyond
  the first binding;
* the values inside containers (a list or dict of tensors is known to hold tensors, not which index does);
  loop bodies are read once with the loop variable bound to what the iterable yields;
* flow sensitivity: a name holds the union of everything assigned to it in the function; the branches of
  ``if F is mx.nd:`` (other than the early exit above) or on the training mode are not pruned;
* call-site sensitivity: a method is read once per class of ``self``, any other function once for all its
  callers, so a helper called with two different functions (``_sample_multiple(sample_func)``) calls both
  from each call (a nested function or lambda stays as certain as the function that defines it);
* class-level attributes other than classes; attributes set on ``self`` outside ``__init__``
  and outside reached code; a block's ``__init__`` is read only for what it stores on ``self``.
"""
from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Set, Tuple, Union

from hylint.analysis.resizers import Resizer, resize_position
from hylint.facts.names import ND_MODULE_NAME, ND_NAMES, ND_TYPES, SYM_MODULE_NAME, SYM_NAMES, SYM_TYPES
from hylint.facts.tensor_methods import FLUENT_METHODS

__all__ = ["FunctionKey", "Reached", "PackageReach", "ReachedFunction", "FileReach", "analyze_package", "analyze_sources",
           "parse_package", "module_name", "summarize"]

# Values are sets of atoms (what a name may hold). Atoms are tuples whose first item is the kind:
F = ("F",)                  # the namespace: mx.nd eagerly, mx.sym hybridized
F_MEMBER = ("F.member",)    # F.random, F.linalg.potrf, ...: calling it gives a tensor
TENSOR = ("tensor",)
TENSOR_METHOD = ("tensor.method",)  # x.reshape, x.sum: calling it gives a tensor
# ("fn", FunctionKey); ("class", ClassKey); ("obj", ClassKey); ("obj?", ClassKey): an object whose class a
# by-name call guessed; ("bound", ClassKey, FunctionKey, sure): a method of an object;
# ("module", dotted name); ("external", dotted name); ("method?", name): an attribute of an unknown object;
# ("runs", FunctionKey[, ClassKey]): a block the package does not define, built around a function (a method
# bound to an object of that class); ("super", FunctionKey,
# name of self): super().method
Value = FrozenSet[tuple]
NOTHING: Value = frozenset()

# External names that are the F namespace (what getF-style accessors return)
_F_NAMESPACES = {"mxnet.nd", "mxnet.ndarray", "mxnet.sym", "mxnet.symbol"}
# Tensor attributes that are Python values, not tensors
_TENSOR_PY_ATTRS = {"shape", "dtype", "ndim", "size", "context", "ctx", "stype", "name", "T"}
# Tensor methods whose result leaves the graph: NumPy or Python values (`rpn_score.asnumpy()`)
_TENSOR_EXITS = {"asnumpy", "asscalar", "tolist", "item", "wait_to_read", "list_outputs", "tojson"}
# Methods of builtin containers and strings: a call of one of these on an unknown object is not resolved
# by name to a package method of the same name
_BUILTIN_METHODS = set(dir(list)) | set(dir(dict)) | set(dir(str)) | set(dir(set)) | {"forward", "hybrid_forward"}
# the base lists of a module's class statements, the words in them (``class Net(nn.HybridBlock):``), and
# the names of indented (method) definitions; each starts with a literal (ten times faster than ``\b`` or
# ``^`` first), and what else they match, in a comment or a string, only loads a module more
_CLASS_BASES = re.compile(rb"class\s+\w+\s*\(([^)]*)\)")
_WORDS = re.compile(rb"\w+")
_METHODS_DEFINED = (re.compile(rb" def\s+(\w+)"), re.compile(rb"\tdef\s+(\w+)"))  # indented: a method
_MAX_ROUNDS = 30  # the fixpoint converges in a few rounds; a bound so a pathological package cannot hang


class FunctionKey(NamedTuple):
    """A function, method, nested function or lambda: its module and a qualified name unique in the module
    (``Model.hybrid_forward``, ``helper.<locals>.step``, ``Model.__init__.<lambda@12>``)."""
    module: str
    qualname: str


ClassKey = FunctionKey  # a class: its module and qualified name


@dataclass
class Reached:
    key: FunctionKey
    path: Optional[str]
    lineno: int
    node: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
    f_params: Set[str] = field(default_factory=set)       # parameters that receive F
    tensor_params: Set[str] = field(default_factory=set)  # parameters that receive a tensor or Symbol
    f_names: Set[str] = field(default_factory=set)        # every local name that may hold F (`F = self.F`)
    tensor_names: Set[str] = field(default_factory=set)   # every local name that may hold a tensor
    certain: bool = True       # False when only a by-name method call reached it
    chain: Tuple[Tuple[FunctionKey, str], ...] = ()  # (caller, call text) from the root, empty for a root
    root: Optional[FunctionKey] = None

    @property
    def is_root(self) -> bool:
        return not self.chain

    def describe(self) -> str:
        """``reached from Model.hybrid_forward via distr.log_prob -> self._helper``; '' for a root."""
        if not self.chain:
            return ""
        return f"reached from {self.root.qualname} via " + " -> ".join(text for _, text in self.chain)


@dataclass
class PackageReach:
    reached: Dict[FunctionKey, Reached]
    paths: Dict[str, Optional[str]]   # module -> path
    # class -> attributes of self that may hold F / a tensor, in reached code (`self.F = getF(x)`,
    # `self.log_probs = log_probs`): what `self.<attr>` is in the methods of that class and its subclasses
    f_attrs: Dict[ClassKey, Set[str]] = field(default_factory=dict)
    tensor_attrs: Dict[ClassKey, Set[str]] = field(default_factory=dict)
    owners: Dict[FunctionKey, ClassKey] = field(default_factory=dict)  # method -> its class
    blocks: Set[ClassKey] = field(default_factory=set)  # the classes that are blocks
    # class -> (attributes of self that may hold F, that may hold a tensor) in its methods: what f_attrs and
    # tensor_attrs give for the class, its package bases and its subclasses (sorted)
    self_attrs: Dict[ClassKey, Tuple[Tuple[str, ...], Tuple[str, ...]]] = field(default_factory=dict)
    # module -> the block classes it names that resize their input to a size they are given (resizers.py)
    resizers: Dict[str, Tuple[Resizer, ...]] = field(default_factory=dict)
    # a reached lambda -> its name in the summary, ``Cls.__init__.<lambda#k>``: the k-th lambda (source order)
    # of the body of the function defining it, not inside another function or lambda (what the linter,
    # which has no CPython positions, can find again)
    lambdas: Dict[FunctionKey, str] = field(default_factory=dict)
    # module -> the names it binds (defines or imports) to guard helpers of the package, with the mode each
    # tests of its argument (``mxnet_is_ndarray`` -> 'nd')
    guards: Dict[str, Tuple[Tuple[str, str], ...]] = field(default_factory=dict)

    def in_module(self, module: str) -> List[Reached]:
        return sorted((r for r in self.reached.values() if r.key.module == module), key=lambda r: r.lineno)

    def depends_on(self, module: str) -> Set[str]:
        """Modules whose code decides what is reached in `module` (its callers along each chain, and the
        modules of the roots): the files a cache entry of `module` must be keyed on, besides itself."""
        found: Set[str] = set()
        for reached in self.reached.values():
            if reached.key.module == module:
                found.update(caller.module for caller, _ in reached.chain)
                if reached.root is not None:
                    found.add(reached.root.module)
        found.discard(module)
        return found


class ReachedFunction(NamedTuple):
    """What the linter needs of one function a trace certainly reaches (plain strings: picklable, JSON)."""
    qualname: str                  # ``Dist.log_prob``, ``helper.<locals>.step``
    f_params: Tuple[str, ...]      # parameters that receive F
    tensor_params: Tuple[str, ...]  # parameters that receive a tensor or Symbol
    f_names: Tuple[str, ...]       # local names that may hold F (``F = self.F``)
    chain: str                     # ``reached from Model.hybrid_forward via distr.log_prob``
    block_method: bool             # a method of a block class (of the package's or MXNet's), not of a plain object
    self_f_attrs: Tuple[str, ...] = ()       # for a method: attributes of self that may hold F (`self.F`)
    self_tensor_attrs: Tuple[str, ...] = ()  # and those that may hold a tensor (`self.log_probs`)


class FileReach(NamedTuple):
    """The functions of one file that a trace of its package certainly reaches, other than the
    ``hybrid_forward`` roots (a lambda under its ``PackageReach.lambdas`` name), and the block
    classes the file names that resize their input to a size they are given (from any module of the package)."""
    functions: Tuple[ReachedFunction, ...]
    resizers: Tuple[Resizer, ...] = ()
    guards: Tuple[Tuple[str, str], ...] = ()  # (name, mode) of the guard helpers the file sees

    @classmethod
    def from_plain(cls, data: Iterable) -> "FileReach":
        """From the plain nested tuples or lists it travels and is cached as (hylint/batch/reach.py): a
        function is 8 items, a resizer 4 (``"resizer"``, name, position, keywords), a guard helper 3
        (``"guard"``, name, mode)."""
        entries = list(data)
        return cls(tuple(ReachedFunction(str(q), tuple(fp), tuple(tp), tuple(fn), str(chain), bool(block),
                                         tuple(fa), tuple(ta))
                         for q, fp, tp, fn, chain, block, fa, ta in (e for e in entries if len(e) == 8)),
                   tuple(Resizer(str(name), int(position), str(keywords))
                         for _, name, position, keywords in (e for e in entries if len(e) == 4)),
                   tuple((str(name), str(mode)) for _, name, mode in (e for e in entries if len(e) == 3)))

    def plain(self) -> tuple:
        return tuple(self.functions) + tuple(("resizer", *r) for r in self.resizers) + \
            tuple(("guard", *g) for g in self.guards)


def summarize(result: PackageReach) -> Dict[str, FileReach]:
    """module -> the summary of its certainly reached functions (modules with none are left out).

    A guessed reach (a method found by name only) is left out: it must not raise alarms."""
    found: Dict[str, List[ReachedFunction]] = {}
    owners, blocks = result.owners, result.blocks
    for reached in result.reached.values():
        qualname = result.lambdas.get(reached.key) if isinstance(reached.node, ast.Lambda) else \
            None if "<lambda@" in reached.key.qualname else reached.key.qualname
        if not reached.certain or reached.is_root or qualname is None:
            continue
        found.setdefault(reached.key.module, []).append(ReachedFunction(
            qualname, tuple(sorted(reached.f_params)), tuple(sorted(reached.tensor_params)),
            tuple(sorted(reached.f_names)), reached.describe(),
            owners.get(reached.key) in blocks, *result.self_attrs.get(owners.get(reached.key), ((), ()))))
    return {module: FileReach(tuple(sorted(found.get(module, ()))), result.resizers.get(module, ()),
                              result.guards.get(module, ()))
            for module in set(found) | set(result.resizers) | set(result.guards)}


# ---------------------------------------------------------------------------------------------- modules


def module_name(root: Path, path: Path) -> str:
    """The dotted name of `path` in the package whose folder is `root` (root's own name first)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse_package(root: Path) -> Tuple[Dict[str, ast.Module], Dict[str, str]]:
    """Every module of the package folder `root`, parsed; files that do not parse are left out."""
    modules: Dict[str, ast.Module] = {}
    paths: Dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            continue
        name = module_name(root, path)
        modules[name] = tree
        paths[name] = str(path)
    return modules, paths


class _Module:
    def __init__(self, name: str, tree: ast.Module, is_package: bool) -> None:
        self.name = name
        self.tree = tree
        self.is_package = is_package
        self.defs: Dict[str, Union[ast.FunctionDef, ast.ClassDef]] = {}
        self.imports: Dict[str, Tuple[str, Optional[str]]] = {}  # local name -> (module, attribute or None)
        for stmt in _top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs.setdefault(stmt.name, stmt)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports.setdefault(alias.asname, (alias.name, None))
                    else:
                        top = alias.name.split(".")[0]
                        self.imports.setdefault(top, (top, None))
            elif isinstance(stmt, ast.ImportFrom):
                base = self._absolute(stmt)
                for alias in stmt.names:
                    if alias.name != "*":
                        self.imports.setdefault(alias.asname or alias.name, (base, alias.name))

    def _absolute(self, stmt: ast.ImportFrom) -> str:
        if not stmt.level:
            return stmt.module or ""
        parts = self.name.split(".")
        if not self.is_package:
            parts = parts[:-1]
        parts = parts[:len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
        return ".".join(parts + ([stmt.module] if stmt.module else []))


def _top_level(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Statements at module level, looking into if/try blocks (``try: import x except ImportError: ...``)."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
        else:
            yield stmt


class _Class:
    def __init__(self, key: ClassKey, node: ast.ClassDef) -> None:
        self.key = key
        self.node = node
        self.bases: List[tuple] = []   # resolved atoms of the bases
        self.methods: Dict[str, FunctionKey] = {}
        self.attrs: Dict[str, Value] = {}  # what `self.<name>` holds, from assignments in reached methods
        self.ready = False  # whether attrs holds what the class stores before a trace (_Package.attrs_of)


# ---------------------------------------------------------------------------------------------- analysis


class _Package:
    """The package's modules, parsed when the analysis first needs them.

    ``names``: every module of the package; ``parse(name)`` gives its tree (None: it does not parse);
    ``texts``: the modules' bytes, searched (as text, at C speed) for the modules that may define what the
    analysis looks for beyond the names it resolves: methods called on an object of unknown class, package
    subclasses of an annotated class or of a block. Without ``texts`` every module is loaded up
    front (``load(names)``) and nothing needs searching."""

    def __init__(self, names: Iterable[str], parse: Callable[[str], Optional[ast.Module]],
                 paths: Mapping[str, Optional[str]], texts: Optional[Mapping[str, bytes]] = None) -> None:
        self.paths = dict(paths)
        self.names = set(names)
        self._parse = parse
        self._texts = texts
        # the names another module's name starts with, up to a dot (`a` and `a.b` for `a.b.c`)
        self._parents = {other.rsplit(".", depth)[0] for other in self.names for depth in range(1, other.count(".") + 1)}
        self.modules: Dict[str, _Module] = {}
        self._unparsable: Set[str] = set()
        self.functions: Dict[FunctionKey, Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]] = {}
        self.owner: Dict[FunctionKey, ClassKey] = {}     # method -> its class
        self.classes: Dict[ClassKey, _Class] = {}
        # (nested function, receiver) -> the env of the enclosing function it sees
        self.closures: Dict[Tuple[FunctionKey, Optional[ClassKey]], Dict[str, Value]] = {}
        self._mro: Dict[ClassKey, List[_Class]] = {}
        self._blocks: Dict[ClassKey, bool] = {}
        self._guard_helpers: Dict[FunctionKey, Optional[str]] = {}
        # memos, valid while the number of loaded classes is the one recorded
        self._by_method_name: Dict[str, Tuple[int, List[ClassKey]]] = {}
        self._subclasses_known: Dict[ClassKey, Tuple[int, List[ClassKey]]] = {}
        # searches of the text of the modules not loaded: method name -> the modules that may define it, a
        # word -> the modules whose class statements name it among their bases
        self._definers: Optional[Dict[str, List[str]]] = None
        self._subclassers: Optional[Dict[str, List[str]]] = None

    # -- loading

    def load(self, names: Iterable[str]) -> None:
        """Parse `names` and collect their functions and classes (the modules of their bases first)."""
        for name in names:
            self._load(name)

    def _load(self, name: str) -> None:
        if name in self.modules or name in self._unparsable or name not in self.names:
            return
        tree = self._parse(name)
        if tree is None:
            self._unparsable.add(name)
            return
        path = self.paths.get(name) or ""
        module = self.modules[name] = _Module(name, tree, path.endswith("__init__.py") or name in self._parents)
        new: List[_Class] = []
        self._collect(module.name, tree.body, "", new)
        for cls in new:
            cls.bases = [atom for base in cls.node.bases for atom in self._resolve_expr(cls.key.module, base)]

    def attrs_of(self, cls: _Class) -> Dict[str, Value]:
        """``cls.attrs``, with what the class stores on self before a trace read in first (when first asked:
        what its ``__init__`` names would load modules no trace may need)."""
        if not cls.ready:
            cls.ready = True
            self._constructor_attrs(cls)
            self._class_level_attrs(cls)
            self._typed_constructor_args(cls)
        return cls.attrs

    def module(self, name: str) -> Optional[_Module]:
        if name not in self.modules:
            self.load([name])
        return self.modules.get(name)

    def load_defining(self, name: str) -> None:
        """Load the modules that may define a method `name` (an indented ``def name`` in their text)."""
        if self._texts is None:
            return
        if self._definers is None:
            self._definers = self._index(lambda text: {word for pattern in _METHODS_DEFINED
                                                       for word in pattern.findall(text)})
        self.load(self._definers.pop(name, ()))

    def load_subclassing(self, name: str) -> None:
        """Load the modules that may define a subclass of a class called `name` (a class statement whose base
        list names it: ``class S(Base)``, ``class S(mod.Base)``; a base imported under another name is not
        seen)."""
        if self._texts is None:
            return
        if self._subclassers is None:
            self._subclassers = self._index(lambda text: {word for bases in _CLASS_BASES.findall(text)
                                                          for word in _WORDS.findall(bases)})
        self.load(self._subclassers.pop(name, ()))

    def _index(self, words_of: Callable[[bytes], Iterable[bytes]]) -> Dict[str, List[str]]:
        """word -> the modules not loaded yet whose text gives it (`words_of`), in name order."""
        index: Dict[str, List[str]] = {}
        for module in sorted(self.names - self.modules.keys()):
            for word in words_of(self._texts[module]):
                index.setdefault(word.decode("latin-1"), []).append(module)
        return index

    def load_block_subclasses(self) -> None:
        """Load the modules defining a subclass of a loaded class that is a block with a ``hybrid_forward``
        (it inherits it: a root of its own), until none is left."""
        done: Set[str] = set()
        while True:
            rooted = {key.qualname.rsplit(".", 1)[-1] for key in list(self.classes)
                      if self.is_block(key) and self.method(key, "hybrid_forward") is not None} - done
            if not rooted:
                return
            done |= rooted
            for name in sorted(rooted):
                self.load_subclassing(name)

    def _collect(self, module: str, body: Iterable[ast.stmt], prefix: str, new: List[_Class]) -> None:
        for stmt in _top_level(body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[FunctionKey(module, prefix + stmt.name)] = stmt
            elif isinstance(stmt, ast.ClassDef) and not prefix.endswith(">."):
                key = ClassKey(module, prefix + stmt.name)
                cls = self.classes[key] = _Class(key, stmt)
                new.append(cls)
                for item in stmt.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        method = FunctionKey(module, f"{key.qualname}.{item.name}")
                        self.functions[method] = item
                        self.owner[method] = key
                        cls.methods[item.name] = method
                self._collect(module, [s for s in stmt.body if isinstance(s, ast.ClassDef)], key.qualname + ".", new)

    @property
    def blocks(self) -> Set[ClassKey]:
        """The loaded classes that are blocks."""
        return {key for key in self.classes if self.is_block(key)}

    def by_method_name(self, name: str) -> List[ClassKey]:
        """The classes that are not blocks and define method `name` (for calls on unknown receivers)."""
        self.load_defining(name)
        known = self._by_method_name.get(name)
        if known is None or known[0] != len(self.classes):
            known = self._by_method_name[name] = (len(self.classes), [
                key for key in sorted(self.classes) if name in self.classes[key].methods and not self.is_block(key)])
        return known[1]

    def _init_assignments(self, cls: _Class):
        """``(__init__, name of self, attribute, value)`` for each ``self.<attribute> = value`` in ``__init__``."""
        init = cls.methods.get("__init__")
        params = _params(self.functions[init]) if init is not None else []
        if not params:
            return
        me = params[0].arg
        for stmt in _statements(self.functions[init]):
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
                        yield init, me, target.attr, stmt.value

    def _constructor_attrs(self, cls: _Class) -> None:
        """What ``__init__`` stores on self before any trace: children (``self.body = Body()``), functions and
        lambdas (``self.act = lambda F, x: ...``), blocks built around a function (``self.f =
        HybridLambda(fn)``: calling it runs `fn`). The trace's own assignments are added as they are reached."""
        for init, me, attr, expr in self._init_assignments(cls):
            value = self._static_value(init, expr, {me: frozenset({("obj", cls.key)})})
            if value:
                cls.attrs[attr] = cls.attrs.get(attr, NOTHING) | value

    def _class_level_attrs(self, cls: _Class) -> None:
        """Classes assigned in the class body (``distr_cls: type = GenPareto``): ``self.distr_cls(...)`` builds
        one, in the trace when a reached method calls it (a subclass's own assignment comes first in its mro)."""
        for stmt in cls.node.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
            for target in targets:
                if isinstance(target, ast.Name):
                    value = frozenset(a for a in self._resolve_expr(cls.key.module, stmt.value) if a[0] == "class")
                    if value:
                        cls.attrs[target.id] = cls.attrs.get(target.id, NOTHING) | value

    def _typed_constructor_args(self, cls: _Class) -> None:
        """``self.distr_output = distr_output`` in ``__init__``, with the parameter annotated by a class of the
        package that is not a block (``distr_output: DistributionOutput``): the attribute holds an object of that
        class or of one of its package subclasses, each of which the caller may pass (a method called on it
        runs, for the object given, the method of that object's class: the reach follows each)."""
        init = cls.methods.get("__init__")
        if init is None:
            return
        node = self.functions[init]
        typed: Dict[str, Value] = {}
        for param in _params(node)[1:] + list(node.args.kwonlyargs):
            declared = self._annotated_class(cls.key.module, param.annotation)
            if declared is not None and not self.is_block(declared):
                typed[param.arg] = frozenset(("obj", key) for key in self._subclasses(declared)
                                             if not self.is_block(key))
        for _, _, attr, expr in self._init_assignments(cls) if typed else ():
            if isinstance(expr, ast.Name) and expr.id in typed:
                cls.attrs[attr] = cls.attrs.get(attr, NOTHING) | typed[expr.id]

    def _subclasses(self, declared: ClassKey) -> List[ClassKey]:
        """`declared` and its package subclasses, sorted; first loading the modules naming it or a subclass."""
        known = self._subclasses_known.get(declared)
        if known is not None and known[0] == len(self.classes):
            return known[1]
        words: Set[str] = set()
        while True:
            found = [key for key in sorted(self.classes) if any(base.key == declared for base in self.mro(key))]
            more = {key.qualname.rsplit(".", 1)[-1] for key in found} - words
            if not more:
                self._subclasses_known[declared] = (len(self.classes), found)
                return found
            words |= more
            for word in sorted(more):
                self.load_subclassing(word)

    def _annotated_class(self, module: str, annotation: Optional[ast.expr]) -> Optional[ClassKey]:
        """The package class an annotation names: ``Dist``, ``mod.Dist``, ``"Dist"``, ``Optional[Dist]``."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)) and \
                (annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr) == "Optional":
            annotation = annotation.slice
        if not isinstance(annotation, (ast.Name, ast.Attribute)):
            return None
        classes = [atom[1] for atom in self._resolve_expr(module, annotation) if atom[0] == "class"]
        return classes[0] if len(classes) == 1 else None

    def _static_value(self, owner: FunctionKey, expr: ast.expr, env: Dict[str, Value]) -> Value:
        if isinstance(expr, ast.Lambda):
            key = FunctionKey(owner.module, f"{owner.qualname}.<lambda@{expr.lineno}:{expr.col_offset}>")
            self.functions.setdefault(key, expr)
            self.closures[(key, None)] = env  # `lambda F, x: F.dot(x, self.basis)`: self is the object
            return frozenset({("fn", key)})
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in env:
            # a method of the object being built (``HybridLambda(self._inner)``): bound to it
            bound = set()
            for atom in env[expr.value.id]:
                method = self.method(atom[1], expr.attr) if atom[0] == "obj" else None
                if method is not None and not self.is_property(method):
                    bound.add(("bound", atom[1], method, True))
            return frozenset(bound)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return frozenset(a for a in self._resolve_expr(owner.module, expr) if a[0] == "fn")
        if isinstance(expr, ast.Call):
            callee = self._resolve_expr(owner.module, expr.func)
            built = {("obj", atom[1]) for atom in callee if atom[0] == "class"}
            if callee and not built:  # an external block made around a package function, method or lambda
                handed = [self._static_value(owner, arg, env) for arg in expr.args]
                built |= {("runs", atom[1]) for value in handed for atom in value if atom[0] == "fn"}
                built |= {("runs", atom[2], atom[1]) for value in handed for atom in value if atom[0] == "bound"}
            return frozenset(built)
        return NOTHING

    # -- names

    def resolve(self, module: str, name: str, seen: Optional[Set[Tuple[str, str]]] = None) -> Value:
        """What a global `name` of `module` is: a package function, class or module, or an external name."""
        mod = self.module(module)
        if mod is None:
            return NOTHING
        node = mod.defs.get(name)
        if node is not None:
            key = FunctionKey(module, name)
            return frozenset({("class", key) if isinstance(node, ast.ClassDef) else ("fn", key)})
        if name in mod.imports:
            target, attr = mod.imports[name]
            return self._resolve_import(target, attr, seen or set())
        return NOTHING

    def _resolve_import(self, target: str, attr: Optional[str], seen: Set[Tuple[str, str]]) -> Value:
        if attr is None:
            return frozenset({("module", target)}) if self._exists(target) else frozenset({("external", target)})
        if (target, attr) in seen:
            return NOTHING
        seen.add((target, attr))
        if self._exists(f"{target}.{attr}"):
            return frozenset({("module", f"{target}.{attr}")})
        if self._exists(target):
            return self.resolve(target, attr, seen)
        return frozenset({("external", f"{target}.{attr}")})

    def _exists(self, name: str) -> bool:
        """A module of the package (one not loaded yet counts until it fails to parse)."""
        return name in self.names and name not in self._unparsable

    def _resolve_expr(self, module: str, expr: ast.expr) -> Value:
        """A dotted expression at module level (a base class): resolved without any local variable."""
        if isinstance(expr, ast.Name):
            return self.resolve(module, expr.id)
        if isinstance(expr, ast.Attribute):
            return self.member(self._resolve_expr(module, expr.value), expr.attr)
        return NOTHING

    def member(self, value: Value, attr: str) -> Value:
        """`<value>.attr` for module and external atoms (the static part of attribute access)."""
        out: Set[tuple] = set()
        for atom in value:
            if atom[0] == "module":
                sub = f"{atom[1]}.{attr}"
                out |= {("module", sub)} if self._exists(sub) else self.resolve(atom[1], attr)
            elif atom[0] == "external":
                name = f"{atom[1]}.{attr}"
                out.add(F if name in _F_NAMESPACES else ("external", name))
        return frozenset(out)

    # -- classes

    def mro(self, key: ClassKey) -> List[_Class]:
        """The class and its package bases, depth first (no C3: single inheritance is what Gluon code uses)."""
        if key in self._mro:
            return self._mro[key]
        order: List[_Class] = []
        self._mro[key] = order
        stack = [key]
        while stack:
            cls = self.classes.get(stack.pop(0))
            if cls is None or cls in order:
                continue
            order.append(cls)
            stack.extend(atom[1] for atom in cls.bases if atom[0] == "class")
        return order

    def external_bases(self, key: ClassKey) -> List[str]:
        return [atom[1] for cls in self.mro(key) for atom in cls.bases if atom[0] == "external"]

    def is_block(self, key: ClassKey) -> bool:
        known = self._blocks.get(key)
        if known is None:
            known = self._blocks[key] = self._is_block(key)
        return known

    def _is_block(self, key: ClassKey) -> bool:
        if any(cls.methods.get("hybrid_forward") for cls in self.mro(key)):
            return True
        return any(name.rsplit(".", 1)[-1].endswith(("Block", "Sequential", "Concurrent", "HybridLambda"))
                   for name in self.external_bases(key))

    def guard_helper(self, key: FunctionKey) -> Optional[str]:
        """'nd' or 'sym' for a function whose body is ``return <a mode test of its first parameter>``
        (autogluon's ``mxnet_is_ndarray(F)``: ``return F.__name__ == 'mxnet.ndarray'``), else None."""
        if key not in self._guard_helpers:
            node = self.functions.get(key)
            mode = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _params(node):
                body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
                if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                    mode = _static_mode(body[0].value, _params(node)[0].arg)
            self._guard_helpers[key] = mode
        return self._guard_helpers[key]

    def is_property(self, key: FunctionKey) -> bool:
        node = self.functions[key]
        return not isinstance(node, ast.Lambda) and any(
            isinstance(d, ast.Name) and d.id in ("property", "cached_property")
            or isinstance(d, ast.Attribute) and d.attr == "cached_property" for d in node.decorator_list)

    def method(self, key: ClassKey, name: str) -> Optional[FunctionKey]:
        for cls in self.mro(key):
            if name in cls.methods:
                return cls.methods[name]
        return None

    def attr(self, key: ClassKey, name: str) -> Value:
        out: Set[tuple] = set()
        for cls in self.mro(key):
            out |= self.attrs_of(cls).get(name, NOTHING)
        return frozenset(out)


_STATEMENT_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _own_lambdas(node: ast.AST) -> List[ast.Lambda]:
    """The lambdas of a function's body, in source order, but those inside another function, class or
    lambda."""
    found: List[ast.Lambda] = []
    todo = list(node.body)
    while todo:
        item = todo.pop()
        if isinstance(item, ast.Lambda):
            found.append(item)
        elif not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(item))
    return sorted(found, key=lambda lam: (lam.lineno, lam.col_offset))


def _lambda_names(package: "_Package", reached: Iterable[Reached]) -> Dict[FunctionKey, str]:
    """Each reached lambda defined directly in a function's body -> ``<function>.<lambda#k>``."""
    names: Dict[FunctionKey, str] = {}
    for entry in reached:
        if not isinstance(entry.node, ast.Lambda):
            continue
        definer = entry.key.qualname.rpartition(".<lambda@")[0]
        node = package.functions.get(FunctionKey(entry.key.module, definer))
        if node is None or isinstance(node, ast.Lambda):
            continue
        own = _own_lambdas(node)
        if entry.node in own:
            names[entry.key] = f"{definer}.<lambda#{own.index(entry.node)}>"
    return names


def _statements(node: ast.AST) -> Iterable[ast.AST]:
    """What ``ast.walk(node)`` yields, in its order, less the expressions and what is under them: an
    expression holds no statement (walking the expressions of every ``__init__`` was a fifth of the time of
    a package's reach)."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            if name in _STATEMENT_FIELDS:
                todo.extend(getattr(node, name))
        yield node


def _params(node) -> List[ast.arg]:
    args = node.args
    return list(args.posonlyargs) + list(args.args)


def _all_param_names(node) -> List[str]:
    args = node.args
    names = [a.arg for a in _params(node)] + [a.arg for a in args.kwonlyargs]
    return names + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def _module_name_mode(holder: ast.expr, other: ast.expr, op: ast.cmpop) -> Optional[str]:
    """The mode `<holder> <op> <other>` tests when `holder` is `<name>.__name__` and `other` the namespace's
    module name as a string (None otherwise; whether `<name>` holds F is the caller's to say)."""
    if not (isinstance(holder, ast.Attribute) and holder.attr == "__name__" and isinstance(other, ast.Constant)):
        return None
    mode = "nd" if other.value == ND_MODULE_NAME else "sym" if other.value == SYM_MODULE_NAME else None
    if mode is None or not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        return None
    return {"nd": "sym", "sym": "nd"}[mode] if isinstance(op, (ast.NotEq, ast.IsNot)) else mode


def _static_mode(test: ast.expr, name: str) -> Optional[str]:
    """The mode `test` tests of the namespace held by the parameter `name` (a guard helper's body)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {"nd": "sym", "sym": "nd"}.get(_static_mode(test.operand, name) or "")
    return _compare_mode(test, lambda holder: isinstance(holder, ast.Name) and holder.id == name)


def _compare_mode(test: ast.expr, holds_f: Callable[[ast.expr], bool]) -> Optional[str]:
    """The mode a comparison tests of F (``F is nd``, ``F is not mx.sym``, ``F.__name__ ==
    'mxnet.ndarray'``): `holds_f` says whether an expression holds F."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    sides = [test.left, test.comparators[0]]
    for holder, namespace in (sides, sides[::-1]):
        text = _text(namespace)
        mode = "nd" if text in ND_NAMES else "sym" if text in SYM_NAMES else None
        if mode is not None and isinstance(holder, ast.Name) and holds_f(holder):
            return {"nd": "sym", "sym": "nd"}[mode] if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) else mode
        mode = _module_name_mode(holder, namespace, test.ops[0])  # `F.__name__ == 'mxnet.ndarray'`
        if mode is not None and holds_f(holder.value):
            return mode
    return None


def _isinstance_mode(test: ast.expr) -> Optional[str]:
    """'nd' when ``test`` is true only eagerly (``isinstance(x, mx.nd.NDArray)``, ``not isinstance(x,
    mx.sym.Symbol)``), 'sym' when only in a trace, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {"nd": "sym", "sym": "nd"}.get(_isinstance_mode(test.operand) or "")
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = {kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "") for kind in kinds}
    if names and names <= ND_TYPES:
        return "nd"
    if names and names <= SYM_TYPES:
        return "sym"
    return None


# annotations of parameters that hold a Python value, never a tensor
_SCALAR_TYPES = {"int", "float", "bool", "str"}


def _scalar_annotation(annotation: Optional[ast.expr]) -> bool:
    """``int``, ``float``, ``bool``, ``str`` or ``Optional[`` one of them ``]``."""
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) and \
            annotation.value.id == "Optional":
        annotation = annotation.slice
    return isinstance(annotation, ast.Name) and annotation.id in _SCALAR_TYPES


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 -- a label for messages, never worth failing the analysis
        return "<call>"


# A function in one context: methods are read once per class of `self` (a base's method called on a
# GaussianOutput sees GaussianOutput's attributes, not the union of every subclass's), other functions once.
Ctx = Tuple[FunctionKey, Optional[ClassKey]]


class _Entry:
    """The analysis state of one function in one context: what its parameters hold, what it returns."""

    def __init__(self, reached: Reached, owner: Optional[ClassKey], certain: bool) -> None:
        self.reached = reached  # shared by the contexts of one function
        self.owner = owner      # the class that defines the method (for super())
        self.certain = certain
        self.params: Dict[str, Value] = {}
        self.returns: Value = NOTHING
        self.callers: Set[Ctx] = set()  # read again when what this function returns grows
        self.dirty = True


class _Analysis:
    def __init__(self, package: _Package) -> None:
        self.package = package
        self.entries: Dict[Ctx, _Entry] = {}
        self.reached: Dict[FunctionKey, Reached] = {}
        self.order: List[Ctx] = []
        # (class, attribute) -> the contexts that read `self.<attribute>` of an object of that class
        self.readers: Dict[Tuple[ClassKey, str], Set[Ctx]] = {}
        # guesses by method name wait until what is known has settled: a receiver is often empty only
        # because the return value that fills it has not been computed yet
        self.guessing = False

    def touch(self, ctxs: Iterable[Ctx]) -> None:
        """What `ctxs` read has grown: read them again."""
        for ctx in ctxs:
            entry = self.entries.get(ctx)
            if entry is not None:
                entry.dirty = True

    # -- reaching

    def reach(self, key: FunctionKey, bound: Dict[str, Value], caller: Optional[Ctx],
              text: Union[str, ast.AST], certain: bool, owner: Optional[ClassKey] = None,
              recv: Optional[ClassKey] = None) -> Value:
        """Record that `key` runs in the trace with parameters holding `bound`; returns what it returns.
        A method whose `self` may be objects of several classes is reached once per class."""
        node = self.package.functions[key]
        owner = owner if owner is not None else self.package.owner.get(key)
        if recv is None and owner is not None and not isinstance(node, ast.Lambda):
            params = _params(node)
            receivers = sorted({atom[1] for atom in bound.get(params[0].arg, NOTHING) if atom[0] in ("obj", "obj?")}
                               if params else set())
            if receivers:
                out: Set[tuple] = set()
                for cls in receivers:
                    one = dict(bound)
                    one[params[0].arg] = frozenset({("obj", cls)})
                    out |= self.reach(key, one, caller, text, certain, owner, cls)
                return frozenset(out)
        ctx = (key, recv)
        entry = self.entries.get(ctx)
        parent = self.entries.get(caller) if caller is not None else None
        definer = self._definer(key)
        if definer is not None:
            # a nested function or lambda, called where a helper was handed it: it is as certain as the
            # function that defines it, and its chain goes through that function
            certain = certain and definer.certain
            parent_reached, caller_key = definer, definer.key
        else:
            parent_reached = parent.reached if parent is not None else None
            caller_key = caller[0] if caller is not None else None
        if entry is None:
            reached = self.reached.get(key)
            if reached is None:
                text = text if isinstance(text, str) else _text(text)
                chain = (parent_reached.chain + ((caller_key, text),)) if parent_reached is not None else ()
                root = (parent_reached.root if parent_reached is not None else key)
                reached = self.reached[key] = Reached(key, self.package.paths.get(key.module), node.lineno, node,
                                                      certain=certain, chain=chain, root=root)
            entry = self.entries[ctx] = _Entry(reached, owner, certain)
            self.order.append(ctx)
            for name in _all_param_names(node):  # the project's convention: a parameter named F is F
                if name == "F":
                    entry.params[name] = frozenset({F})
        if caller is not None:
            entry.callers.add(caller)
        if certain and not entry.certain:
            entry.certain = True
            entry.dirty = True
        if certain and not entry.reached.certain:
            entry.reached.certain = True
            if parent_reached is not None and parent_reached.certain:  # the chain shown is a certain one
                text = text if isinstance(text, str) else _text(text)
                entry.reached.chain = parent_reached.chain + ((caller_key, text),)
                entry.reached.root = parent_reached.root
        for name, value in bound.items():
            old = entry.params.get(name, NOTHING)
            if not value <= old:
                entry.params[name] = old | value
                entry.dirty = True
        return entry.returns

    def _definer(self, key: FunctionKey) -> Optional[Reached]:
        """The reached function that defines the nested function or lambda `key` (None for other functions
        and for lambdas of a block's __init__, which runs before the trace)."""
        qualname = key.qualname
        cut = max(qualname.rfind(".<locals>."), qualname.rfind(".<lambda@"))
        return self.reached.get(FunctionKey(key.module, qualname[:cut])) if cut > 0 else None

    def bind(self, key: FunctionKey, call: Optional[ast.Call], args: List[Value], kwargs: Dict[str, Value],
             self_value: Optional[Value]) -> Dict[str, Value]:
        node = self.package.functions[key]
        params = [p.arg for p in _params(node)]
        bound: Dict[str, Value] = {}
        if self_value is not None and params:
            bound[params[0]] = self_value
            params = params[1:]
        star = next((i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred)), None) if call else None
        if star is not None and star < len(args):
            # f(a, *rest): from the star on, any parameter may receive what `rest` holds, but one annotated
            # with a Python scalar type (`label_smoothing: Optional[float] = None`) receives no tensor
            spread = frozenset().union(*args[star:])
            scalars = {p.arg for p in _params(node) if _scalar_annotation(p.annotation)}
            args = args[:star] + [spread - {TENSOR} if name in scalars else spread
                                  for name in params[star:] or [None]]
        for name, value in zip(params, args):
            bound[name] = value
        if len(args) > len(params) and node.args.vararg is not None:
            bound[node.args.vararg.arg] = frozenset().union(*args[len(params):])
        names = set(_all_param_names(node))
        for name, value in kwargs.items():
            if name in names:
                bound[name] = value
            elif node.args.kwarg is not None:
                bound[node.args.kwarg.arg] = bound.get(node.args.kwarg.arg, NOTHING) | value
        return bound

    def handed(self, key: FunctionKey, caller: Ctx, text: str, recv: Optional[ClassKey] = None,
               obj: Optional[ClassKey] = None, certain: bool = True, tensors: bool = True) -> None:
        """A function given to code outside the package runs in the trace (as certainly as the code handing
        it over): F to a parameter named F, tensors to the others when MXNet calls it (``HybridLambda(lambda F, x: ...)``, ``F.contrib.foreach(step, data,
        states)``), nothing known otherwise. `obj`: the function is a method bound to an object of that class
        (``F.contrib.foreach(self._step, ...)``)."""
        node = self.package.functions[key]
        names = _all_param_names(node)
        own = names[:1] if obj is not None else []
        bound = {name: frozenset({TENSOR}) for name in names
                 if tensors and name not in ("F", "self") and name not in own}
        if own:
            bound[own[0]] = frozenset({("obj", obj)})
        self.reach(key, bound, caller, text, certain, recv=recv)

    # -- the fixpoint

    def run(self, roots: List[Tuple[FunctionKey, ClassKey]]) -> None:
        for key, cls in roots:
            node = self.package.functions[key]
            params = [p.arg for p in _params(node)]
            bound: Dict[str, Value] = {}
            if len(params) >= 2:
                bound[params[0]] = frozenset({("obj", cls)})
                bound[params[1]] = frozenset({F})
                for name in _all_param_names(node)[2:]:
                    bound[name] = frozenset({TENSOR})
            self.reach(key, bound, None, "", True, owner=self.package.owner.get(key, cls))
        self._settle()
        self.guessing = True
        self.touch(self.order)
        self._settle()

    def _settle(self) -> None:
        for _ in range(_MAX_ROUNDS):
            dirty = [ctx for ctx in self.order if self.entries[ctx].dirty]
            if not dirty:
                break
            for ctx in dirty:
                entry = self.entries[ctx]
                entry.dirty = False
                _Function(self, ctx, entry).run()


class _Function:
    """One reading of one reached function's body, with what its names may hold."""

    def __init__(self, analysis: _Analysis, ctx: Ctx, entry: _Entry) -> None:
        self.analysis = analysis
        self.package = analysis.package
        self.ctx = ctx
        self.key, self.recv = ctx
        self.entry = entry
        self.node = self.package.functions[self.key]
        self.env: Dict[str, Value] = dict(self.package.closures.get(ctx, {}))
        self.env.update(entry.params)

    def run(self) -> None:
        reached = self.entry.reached
        for name, value in self.entry.params.items():
            if F in value:
                reached.f_params.add(name)
            if TENSOR in value:
                reached.tensor_params.add(name)
        if isinstance(self.node, ast.Lambda):
            self._return(self.eval(self.node.body))
        else:
            self.block(self.node.body)
        for name, value in self.env.items():
            if F in value:
                reached.f_names.add(name)
            if TENSOR in value:
                reached.tensor_names.add(name)

    def _return(self, value: Value) -> None:
        if not value <= self.entry.returns:
            self.entry.returns |= value
            self.analysis.touch(self.entry.callers)

    # -- statements

    def block(self, body: Iterable[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)
            if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body and \
                    isinstance(stmt.body[-1], (ast.Raise, ast.Return)) and self._mode(stmt.test) == "sym":
                return  # `if F is mx.sym: raise ...`: what follows runs eagerly only, never in a trace

    def _mode(self, test: ast.expr, exact: bool = False) -> Optional[str]:
        """'sym' when ``test`` is true only in a trace (``F is mx.sym``, ``F is not nd``, ``not isinstance(x,
        mx.nd.NDArray)``), 'nd' when only eagerly (``x is not None and F is nd`` too, unless `exact`: its
        negation is no test of the mode), else None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return {"nd": "sym", "sym": "nd"}.get(self._mode(test.operand, exact=True) or "")
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and not exact:
            modes = {self._mode(value) for value in test.values}
            return "nd" if "nd" in modes and "sym" not in modes else None
        if isinstance(test, ast.Compare):
            return _compare_mode(test, lambda holder: F in self.eval(holder))
        if isinstance(test, ast.Call) and test.args and not test.keywords:
            # a guard helper of the package: `if mxnet_is_ndarray(F):`, `def mxnet_is_ndarray(F): return
            # F.__name__ == 'mxnet.ndarray'`
            for atom in self.eval(test.func):
                mode = self.package.guard_helper(atom[1]) if atom[0] == "fn" else None
                if mode is not None and F in self.eval(test.args[0]):
                    return mode
            return None
        return _isinstance_mode(test)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key = FunctionKey(self.key.module, f"{self.key.qualname}.<locals>.{stmt.name}")
            self.package.functions.setdefault(key, stmt)
            self.package.closures[(key, self.recv)] = self.env  # the live env: later bindings are seen too
            self.analysis.touch([(key, self.recv)])
            self.assign_name(stmt.name, frozenset({("fn", key, self.recv)}))
            for decorator in stmt.decorator_list:
                self.eval(decorator)
        elif isinstance(stmt, ast.ClassDef):
            return  # not followed (see the module docstring)
        elif isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value)
            for target in stmt.targets:
                self.assign(target, value)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            if stmt.value is not None:
                value = self.eval(stmt.value)
                if isinstance(stmt, ast.AugAssign):
                    value = self._arith([value, self.eval(stmt.target)])
                self.assign(stmt.target, value)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self._return(self.eval(stmt.value))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.assign(stmt.target, self._element(self.eval(stmt.iter)))
            self.block(stmt.body)
            self.block(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                value = self.eval(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.block(stmt.body)
        elif isinstance(stmt, ast.Try):
            self.block(stmt.body)
            for handler in stmt.handlers:
                self.block(handler.body)
            self.block(stmt.orelse)
            self.block(stmt.finalbody)
        elif isinstance(stmt, (ast.If, ast.While)):
            self.eval(stmt.test)
            mode = _isinstance_mode(stmt.test) if isinstance(stmt, ast.If) else None
            if mode != "nd":  # `if isinstance(x, mx.nd.NDArray):` runs eagerly only, never in a trace
                self.block(stmt.body)
            if mode != "sym":
                self.block(stmt.orelse)
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.stmt):
                    self.statement(child)

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            element = self._element(value)
            for item in target.elts:
                self.assign(item.value if isinstance(item, ast.Starred) else item, element)
        elif isinstance(target, ast.Attribute):
            for atom in self.eval(target.value):
                if atom[0] in ("obj", "obj?"):
                    cls = self.package.classes.get(atom[1])
                    if cls is not None and not value <= self.package.attrs_of(cls).get(target.attr, NOTHING):
                        cls.attrs[target.attr] = cls.attrs.get(target.attr, NOTHING) | value
                        for base in self.package.mro(atom[1]):  # readers through the class or a base
                            self.analysis.touch(self.analysis.readers.get((base.key, target.attr), ()))
                        self.analysis.touch(self.analysis.readers.get((atom[1], target.attr), ()))
        elif isinstance(target, ast.Subscript):
            self.eval(target.value)
            self.eval(target.slice)

    def assign_name(self, name: str, value: Value) -> None:
        # flow-insensitive: a name holds everything ever assigned to it in the function
        self.env[name] = self.env.get(name, NOTHING) | value

    # -- expressions

    def eval(self, expr: Optional[ast.expr]) -> Value:
        if expr is None:
            return NOTHING
        method = getattr(self, "_" + type(expr).__name__, None)
        if method is not None:
            return method(expr)
        parts = [self.eval(child) for child in ast.iter_child_nodes(expr) if isinstance(child, ast.expr)]
        return self._arith(parts) if isinstance(expr, (ast.BinOp, ast.UnaryOp)) else NOTHING

    def _Name(self, expr: ast.Name) -> Value:
        if expr.id in self.env:
            return self.env[expr.id]
        return self.package.resolve(self.key.module, expr.id)

    def _Constant(self, expr: ast.Constant) -> Value:
        return NOTHING

    def _Attribute(self, expr: ast.Attribute) -> Value:
        base = self.eval(expr.value)
        out: Set[tuple] = set(self.package.member(base, expr.attr))
        for atom in _ordered(base):
            kind = atom[0]
            if kind in ("F", "F.member"):
                out.add(F_MEMBER)
            elif kind == "tensor":
                if expr.attr not in _TENSOR_PY_ATTRS and expr.attr not in _TENSOR_EXITS:
                    out.add(TENSOR_METHOD)
            elif kind in ("obj", "obj?", "class"):
                method = self.package.method(atom[1], expr.attr)
                if method is not None and kind != "class" and self.package.is_property(method):
                    # reading a property runs its getter (gluonts' `F = self.F` is `getF(self.mu)`)
                    obj = frozenset({("obj", atom[1])})
                    bound = self.analysis.bind(method, None, [], {}, obj)
                    out |= self.analysis.reach(method, bound, self.ctx, expr, kind == "obj" and self.entry.certain)
                elif method is not None:
                    # ("bound", class, method, sure): a method of an object whose class a by-name call guessed
                    # is as uncertain as that guess
                    out.add(("fn", method) if kind == "class" else ("bound", atom[1], method, kind == "obj"))
                else:
                    for cls in self.package.mro(atom[1]):
                        self.analysis.readers.setdefault((cls.key, expr.attr), set()).add(self.ctx)
                    out |= self.package.attr(atom[1], expr.attr)
        if not out and expr.attr not in _BUILTIN_METHODS and not expr.attr.startswith("__"):
            out.add(("method?", expr.attr))
        return frozenset(out)

    def _arith(self, parts: List[Value]) -> Value:
        return frozenset({TENSOR}) if any(TENSOR in part or F in part for part in parts) else NOTHING

    def _BinOp(self, expr: ast.BinOp) -> Value:
        return self._arith([self.eval(expr.left), self.eval(expr.right)])

    def _UnaryOp(self, expr: ast.UnaryOp) -> Value:
        return self._arith([self.eval(expr.operand)])

    def _Compare(self, expr: ast.Compare) -> Value:
        parts = [self.eval(expr.left)] + [self.eval(c) for c in expr.comparators]
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return NOTHING
        return frozenset({TENSOR}) if any(TENSOR in part for part in parts) else NOTHING

    def _BoolOp(self, expr: ast.BoolOp) -> Value:
        return frozenset().union(*(self.eval(value) for value in expr.values))

    def _IfExp(self, expr: ast.IfExp) -> Value:
        self.eval(expr.test)
        return self.eval(expr.body) | self.eval(expr.orelse)

    def _Tuple(self, expr) -> Value:
        return frozenset().union(NOTHING, *(self.eval(item) for item in expr.elts))

    _List = _Set = _Tuple

    def _Dict(self, expr: ast.Dict) -> Value:
        for key in expr.keys:
            self.eval(key)
        return frozenset().union(NOTHING, *(self.eval(value) for value in expr.values))

    def _Starred(self, expr: ast.Starred) -> Value:
        return self.eval(expr.value)

    def _Subscript(self, expr: ast.Subscript) -> Value:
        base = self.eval(expr.value)
        self.eval(expr.slice)
        return self._element(base) | (frozenset({TENSOR}) if TENSOR in base else NOTHING)

    def _element(self, value: Value) -> Value:
        """An element of a container (or a row of a tensor): what the container may hold."""
        return frozenset(atom for atom in value if atom[0] not in ("module", "external", "method?", "class"))

    def _comprehension(self, expr) -> Value:
        for generator in expr.generators:
            self.assign(generator.target, self._element(self.eval(generator.iter)))
            for condition in generator.ifs:
                self.eval(condition)
        if isinstance(expr, ast.DictComp):
            self.eval(expr.key)
            return self.eval(expr.value)
        return self.eval(expr.elt)

    _ListComp = _SetComp = _GeneratorExp = _DictComp = _comprehension

    def _Lambda(self, expr: ast.Lambda) -> Value:
        key = FunctionKey(self.key.module, f"{self.key.qualname}.<lambda@{expr.lineno}:{expr.col_offset}>")
        self.package.functions.setdefault(key, expr)
        self.package.closures[(key, self.recv)] = self.env
        self.analysis.touch([(key, self.recv)])
        return frozenset({("fn", key, self.recv)})

    def _NamedExpr(self, expr: ast.NamedExpr) -> Value:
        value = self.eval(expr.value)
        self.assign(expr.target, value)
        return value

    def _super(self, attr: str) -> Value:
        """``super().<attr>``: the method of the first package base of the function's class that has it."""
        owner = self.entry.owner
        params = [p.arg for p in _params(self.node)] if not isinstance(self.node, ast.Lambda) else []
        if owner is None or not params:
            return NOTHING
        for base in self.package.mro(owner)[1:]:
            if attr in base.methods:
                return frozenset({("super", base.methods[attr], params[0])})
        return NOTHING

    def _Call(self, expr: ast.Call) -> Value:
        if (isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Call)
                and isinstance(expr.func.value.func, ast.Name) and expr.func.value.func.id == "super"):
            callee = self._super(expr.func.attr)
        else:
            callee = self.eval(expr.func)
        args = [self.eval(arg) for arg in expr.args]
        kwargs = {kw.arg: self.eval(kw.value) for kw in expr.keywords if kw.arg is not None}
        for kw in expr.keywords:
            if kw.arg is None:
                self.eval(kw.value)
        text = expr.func  # unparsed only for the call that first reaches a function (a chain's label)
        result: Set[tuple] = set()
        resolved = False
        for atom in _ordered(callee):
            kind = atom[0]
            if kind in ("F.member", "tensor.method"):
                result.add(TENSOR)
            elif kind == "fn":
                resolved = True
                result |= self._call_function(atom[1], expr, args, kwargs, None, text,
                                              recv=atom[2] if len(atom) > 2 else None)
            elif kind == "bound":
                resolved = True
                result |= self._call_function(atom[2], expr, args, kwargs, frozenset({("obj", atom[1])}), text,
                                              sure=atom[3])
            elif kind == "super":
                resolved = True
                owner_self = self.env.get(atom[2], NOTHING)
                result |= self._call_function(atom[1], expr, args, kwargs, owner_self, text)
            elif kind == "class":
                resolved = True
                result |= self._construct(atom[1], expr, args, kwargs, text)
            elif kind in ("obj", "obj?"):
                resolved = True
                result |= self._call_object(atom[1], expr, args, kwargs, text, sure=kind == "obj")
            elif kind == "method?":
                result |= self._by_name(atom[1], expr, args, kwargs, text)
            elif kind == "runs":  # a block built around a function: calling the block runs the function
                resolved = True
                self.analysis.handed(atom[1], self.ctx, _text(text), obj=atom[2] if len(atom) > 2 else None,
                                     certain=self.entry.certain)
                result.add(TENSOR)
        if not resolved:  # a function handed to code the package does not define runs in the trace
            # MXNet calls it with tensors (`F.contrib.foreach(step, data, states)`); what Python's builtins or
            # another library pass it (`map(lambda ixs: args[ixs[0]:ixs[1]], zip(...))`) is not known
            tensors = any(atom == F_MEMBER or atom[0] == "external" and atom[1].partition(".")[0] == "mxnet"
                          for atom in callee)
            for value in args + list(kwargs.values()):
                for atom in _ordered(value):
                    if atom[0] == "fn":
                        name = atom[1].qualname.rsplit(".", 1)[-1]
                        label = f"{_text(text)}(<{'lambda' if name.startswith('<lambda@') else name}>)"
                        self.analysis.handed(atom[1], self.ctx, label, atom[2] if len(atom) > 2 else None,
                                             certain=self.entry.certain, tensors=tensors)
                    elif atom[0] == "bound":  # a method: `F.contrib.foreach(self._step, data, states)`
                        label = f"{_text(text)}(<{atom[2].qualname.rsplit('.', 1)[-1]}>)"
                        self.analysis.handed(atom[2], self.ctx, label, obj=atom[1], certain=atom[3] and self.entry.certain,
                                             tensors=tensors)
        if self._returns_namespace(callee):
            result.add(F)
        return frozenset(result)

    def _returns_namespace(self, callee: Value) -> bool:
        """A getF-style accessor: a package function that returns mx.nd or mx.sym."""
        for atom in callee:
            if atom[0] == "fn":
                entry = self.analysis.entries.get(atom[1])
                if entry is not None and F in entry.returns:
                    return True
        return False

    def _call_function(self, key: FunctionKey, call: ast.Call, args, kwargs, self_value, text,
                       sure: bool = True, recv: Optional[ClassKey] = None) -> Value:
        bound = self.analysis.bind(key, call, args, kwargs, self_value)
        return self.analysis.reach(key, bound, self.ctx, text, sure and self.entry.certain, recv=recv)

    def _construct(self, cls: ClassKey, call: ast.Call, args, kwargs, text) -> Value:
        """A class built in the trace: its __init__ runs in it (a base's __init__ through super().__init__)."""
        obj = frozenset({("obj", cls)})
        init = self.package.method(cls, "__init__")
        if init is not None:
            self._call_function(init, call, args, kwargs, obj, text)
        return obj

    def _call_object(self, cls: ClassKey, call: ast.Call, args, kwargs, text, sure: bool) -> Value:
        """Calling an object: a child block runs its hybrid_forward (with F) or forward; another object its
        __call__."""
        obj = frozenset({("obj", cls)})
        if self.package.is_block(cls):
            hybrid = self.package.method(cls, "hybrid_forward")
            if hybrid is not None:
                node = self.package.functions[hybrid]
                params = [p.arg for p in _params(node)]
                bound = self.analysis.bind(hybrid, call, [frozenset({F})] + args, kwargs, obj)
                for name in params[2 + len(args):]:
                    bound.setdefault(name, frozenset({TENSOR}))  # the block's parameters arrive as tensors
                return self.analysis.reach(hybrid, bound, self.ctx, text, sure and self.entry.certain)
            forward = self.package.method(cls, "forward")
            if forward is not None:
                return self._call_function(forward, call, args, kwargs, obj, text, sure)
            return frozenset({TENSOR})
        method = self.package.method(cls, "__call__")
        if method is not None:
            return self._call_function(method, call, args, kwargs, obj, text, sure)
        return NOTHING

    def _by_name(self, name: str, call: ast.Call, args, kwargs, text) -> Value:
        """A method call on an object whose class is not known: every non-block class of the package that
        defines the method may be the receiver. Uncertain, and only when the call passes F or a tensor, or
        the caller holds F (so the object plausibly belongs to the trace). Not for a fluent tensor method
        (`x.reshape(...)`): the receiver is most likely a tensor, and the classes defining it by that name are
        the tensor classes themselves (in mxnet's own package, NDArray and Symbol: their modules, 0.9 MB, were
        parsed for `reshape` alone; no summary of the corpus or the zoo depends on it)."""
        if not self.analysis.guessing or name in FLUENT_METHODS:
            return NOTHING
        passes = any(TENSOR in value or F in value for value in args + list(kwargs.values()))
        if not passes and not self.entry.reached.f_params and "F" not in self.env:
            return NOTHING
        result: Set[tuple] = set()
        for owner in self.package.by_method_name(name):
            obj = frozenset({("obj", owner)})
            key = self.package.classes[owner].methods[name]
            bound = self.analysis.bind(key, call, args, kwargs, obj)
            returned = self.analysis.reach(key, bound, self.ctx, text, False)
            result |= {("obj?", atom[1]) if atom[0] == "obj" else atom for atom in returned}
            init = self.package.method(owner, "__init__")
            if init is not None:
                # the object exists, so its __init__ ran, in the trace or before it: read for what it sets on
                # self (`self.F = getF(x)`), and uncertain like the method
                self.analysis.reach(init, {_params(self.package.functions[init])[0].arg: obj}, self.ctx,
                                    f"{owner.qualname}()", False)
        return frozenset(result)


def _ordered(value: Value):
    """A value's atoms in an order that does not depend on string hashing: the first call that reaches a
    function names its chain, so the calls of one expression are made in the same order on every run."""
    return value if len(value) < 2 else sorted(value, key=repr)


def _listlike_attrs(node: ast.ClassDef) -> Set[str]:
    """Attributes of self the class indexes with a variable or iterates over (`self.coeff[t]`, `for s in
    self.states`): lists of tensors, as far as the reach can tell (it does not tell them from tensors)."""
    found: Set[str] = set()
    stack = [node]  # every node under it, as ast.walk (whose generators were most of this time)
    while stack:
        sub = stack.pop()
        kind = type(sub)
        target = None
        if kind is ast.Subscript and not isinstance(sub.slice, (ast.Constant, ast.Slice, ast.Tuple)):
            target = sub.value
        elif kind is ast.For or kind is ast.comprehension:
            target = sub.iter
        if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
            found.add(target.attr)
        for name in sub._fields:
            value = getattr(sub, name)
            if type(value) is list:
                stack += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                stack.append(value)
    return found


def analyze_package(modules: Mapping[str, ast.Module], paths: Optional[Mapping[str, Optional[str]]] = None
                    ) -> PackageReach:
    """The reach of every HybridBlock ``hybrid_forward`` of the package made of `modules` (dotted name ->
    parsed module; `paths` gives each module's file, for the results)."""
    package = _Package(modules, modules.get, paths or {})
    package.load(modules)
    return _analyze(package, None)


def analyze_sources(sources: Mapping[str, bytes], paths: Mapping[str, Optional[str]], start: Iterable[str],
                    parse: Callable[[str], Optional[ast.Module]]) -> PackageReach:
    """The same for a package given as text (module -> bytes): only the modules a trace can go to are parsed.

    `start` (the modules that mention ``hybrid_forward``) are loaded first, then the modules defining a class
    whose base is named like one of their blocks; the others when the analysis resolves a name into them or
    searches their text (``_Package``)."""
    start = list(start)
    package = _Package(sources, parse, paths, texts=sources)
    package.load(start)
    package.load_block_subclasses()
    return _analyze(package, set(start))


def _analyze(package: _Package, hybrid_modules: Optional[Set[str]]) -> PackageReach:
    """`hybrid_modules`: the modules whose resizers the linter can read (None: every loaded module)."""
    roots: List[Tuple[FunctionKey, ClassKey]] = []
    for key in package.blocks:
        # an inherited hybrid_forward runs with `self` of each subclass (their __init__ set what it calls)
        method = package.method(key, "hybrid_forward")
        if method is not None:
            roots.append((method, key))
    analysis = _Analysis(package)
    analysis.run(sorted(roots))
    f_attrs: Dict[ClassKey, Set[str]] = {}
    tensor_attrs: Dict[ClassKey, Set[str]] = {}
    for key, cls in package.classes.items():
        for name, value in cls.attrs.items():
            if F in value:
                f_attrs.setdefault(key, set()).add(name)
            if TENSOR in value:
                tensor_attrs.setdefault(key, set()).add(name)
    related: Dict[ClassKey, Set[ClassKey]] = {key: set() for key in package.classes}
    for key in list(package.classes):
        for base in package.mro(key):
            related[key].add(base.key)
            related[base.key].add(key)
    self_attrs = {}
    listlike: Dict[ClassKey, Set[str]] = {}  # read only for the classes whose attributes hold tensors
    for key, others in related.items():
        fs = set().union(*(f_attrs.get(other, ()) for other in others))
        ts = set().union(*(tensor_attrs.get(other, ()) for other in others))
        if ts:
            for other in others:
                if other not in listlike:
                    listlike[other] = _listlike_attrs(package.classes[other].node)
                ts -= listlike[other]
        if fs or ts:
            self_attrs[key] = (tuple(sorted(fs)), tuple(sorted(ts - fs)))
    if hybrid_modules is not None:
        # the linter reads resizers in hybrid code only: the modules mentioning hybrid_forward and those a
        # trace reaches
        hybrid_modules = hybrid_modules | {reached.key.module for reached in analysis.reached.values()}
    resizers = _resizers(package, hybrid_modules)
    return PackageReach(dict(analysis.reached), dict(package.paths), f_attrs, tensor_attrs, dict(package.owner),
                        package.blocks, self_attrs, resizers, _lambda_names(package, analysis.reached.values()),
                        _guards(package, hybrid_modules))


def _guards(package: _Package, modules: Optional[Set[str]]) -> Dict[str, Tuple[Tuple[str, str], ...]]:
    """module -> the names it binds to the package's guard helpers (``_Package.guard_helper``), with their
    mode: functions of the loaded modules (a helper a trace calls was loaded by the call), by the name they
    are defined or imported under (an import that renames one is followed)."""
    helpers = {key.qualname for key in list(package.functions)
               if "." not in key.qualname and package.guard_helper(key) is not None}
    found: Dict[str, Tuple[Tuple[str, str], ...]] = {}
    for name, module in list(package.modules.items()):
        if modules is not None and name not in modules:
            continue
        entries = []
        for local in sorted(set(module.defs) | set(module.imports)):
            if local in module.defs:
                mode = package.guard_helper(FunctionKey(name, local)) if local in helpers else None
            elif module.imports[local][1] in helpers:
                keys = [atom[1] for atom in package.resolve(name, local) if atom[0] == "fn"]
                mode = package.guard_helper(keys[0]) if len(keys) == 1 else None
            else:
                mode = None
            if mode is not None:
                entries.append((local, mode))
        if entries:
            found[name] = tuple(entries)
    return found


def _resizers(package: _Package, modules: Optional[Set[str]]) -> Dict[str, Tuple[Resizer, ...]]:
    """module -> the names it binds (defines or imports) to block classes of the package whose call resizes
    their input to a size they are given (analysis/resizers.py)."""
    by_class: Dict[ClassKey, Optional[tuple]] = {}

    def of(key: ClassKey) -> Optional[tuple]:
        if key not in by_class:
            method = package.method(key, "hybrid_forward")
            by_class[key] = None if method is None or package.method(key, "forward") is not None or \
                not package.is_block(key) else resize_position(package.functions[method])
        return by_class[key]

    # a resizer has a hybrid_forward: its class is loaded (a subclass of a loaded block, or in a module that
    # mentions hybrid_forward), so only an import of one of these names can bind one (resolving the other
    # imports would load their modules; an import that renames a resizer is not followed)
    named = {key.qualname.rsplit(".", 1)[-1] for key in list(package.classes) if of(key) is not None}
    found: Dict[str, Tuple[Resizer, ...]] = {}
    for name, module in list(package.modules.items()):  # resolving a name may load more modules
        if modules is not None and name not in modules:
            continue
        entries = []
        for local in sorted(set(module.defs) | set(module.imports)):
            if local in module.defs and not isinstance(module.defs[local], ast.ClassDef):
                continue
            if local not in module.defs and module.imports[local][1] not in named:
                continue
            classes = [atom[1] for atom in package.resolve(name, local) if atom[0] == "class"]
            if len(classes) == 1 and of(classes[0]) is not None:
                entries.append(Resizer(local, *of(classes[0])))
        if entries:
            found[name] = tuple(entries)
    return found
