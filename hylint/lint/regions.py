"""Parse only what can hold a diagnostic: the source handed to libcst, with the rest blanked out.

libcst's parse is most of a cold run, and most of a file that mentions ``hybrid_forward`` is not
hybrid code: imports, docstrings, model-zoo factory functions, data pipelines. CPython's ``ast``
parses the same file several times faster; it locates the top-level statements, and every statement
that can neither hold a diagnostic nor inform the analysis of one is replaced by as many *empty*
lines as it spans (each line keeps its own line ending), so rows and columns of what is kept are
those of the file: no position mapping.

What is kept (``reduce_source``), given how the analysis and the rules read a module
(hylint/analysis ``analyze_module``, the rules, the engine's dispatcher), until nothing changes. What
every rule gets comes first; the parts marked with a region (``hylint.rule.Region``) are kept only when
a selected rule lists that region in its ``READS``: the rules say what they read, this module knows no
rule.

* every top-level statement that defines a *block class* (a class whose base list names a block
  base, ``HybridBlock``, ``Block``, ``HybridSequential``, ... or, transitively, another such class
  of the file) or a class with a ``hybrid_forward`` method: the hybrid contexts start there and the
  structure rules judge only such classes. Classes count where the analysis collects them: at top
  level, in module-level ``if``/``try``/``with`` blocks, nested in class bodies; a module-level
  function that defines a block class in its body is kept too (analysed as well);
* in a kept top-level class, ``__init__``, ``forward``, ``backward``, ``hybridize`` and ``hybrid_forward``
  always; any other
  method (a unit of its own) when kept code outside ``__init__`` names it, when it reaches attributes
  by name (``setattr``, ``getattr``, ``vars``) or defines a class; region *self-attribute-methods*:
  when it names an attribute of ``self`` that the class's kept code outside ``__init__`` names (a
  caller ``self.m()`` of a kept method ``m`` names it, which tells methods that build the block by
  their callers); region *block-constructions*: when it builds a block class;
* every function a trace of the package reaches in the file (``reached``: the qualified names of its
  reach summary, hylint/batch/reach.py), by the top-level statement that defines it and, for a method,
  its unit: they are hybrid code, like ``hybrid_forward``;
* every top-level statement that defines a class or a module-level function whose name is a *word*
  of kept code outside ``__init__`` (helpers called with ``F``, bases, classes of the same name);
  a word of ``__init__`` alone keeps the classes it names (the types of children), not the
  functions or methods it calls, which only build children. A word is any identifier-like run of
  characters, in code, strings or comments alike: more is kept than the analysis can look up;
* every statement that binds, by an import (at any depth) or a module-level assignment, a word of
  kept code, when that binding is of a region a selected rule reads (*random-bindings*:
  ``numpy``/``random`` modules and their functions, any binding of ``np`` or ``numpy``, assignments;
  *mxnet-imports*: any import from ``mxnet``): any other import reads to those rules as an unbound name;
  for every rule, an import that names ``mxnet`` or its ``nd``/``sym`` module by another name than one the
  mode guards know by spelling (``import mxnet as _mx``: the guard ``if F == _mx.sym:``);
* region *block-constructions*: of the top-level statements that build a block class ``Cls(...)``,
  the first that builds it inside a call of the region's adding methods (``.add(...)``) and the first
  that builds it elsewhere: that pair tells a class built only as a child (a statement defining
  classes is kept whole);
* region *block-calls*: every unit that calls a block class of the file (or a module-level name bound to one)
  and holds an NDArray literal (``nd.ones(``, ``nd.random.uniform(``, ...) or names a module-level name bound to
  one, and every module-level statement binding such a name: the calls that settle a parameter's missing
  batch axis (analysis/callsites.py);
* every statement that defines a name some kept statement defines too (the analysis keeps the
  first definition of a name: both must be there for it to choose the same one);
* every statement sharing a line with a kept one (``a = 1; b = 2``);
* every line outside the top-level statements (comments, blank lines).

Nothing else is read. Docstrings of the module and of kept classes are dropped.

What is not reduced, so whole files are parsed (``None``):

* a file CPython cannot parse: the syntax error (HY000) is reported where a whole-file parse puts
  it; likewise a file with a lone carriage return as a line break;
* selections with a rule that declares its own prefilter (``PREFILTER``): its needs are unknown
  (``applies``);
* ``HYLINT_WHOLE_FILE=1`` in the environment: the switch to compare with (tests/lint/test_regions.py);
* a file in which every statement is kept.

The engine (``Linter.lint_source``) lints the reduced module; when a diagnostic carries a fix that may
read the whole module (the names already taken, statements to insert next to: a rule without
``LOCAL_FIX``), or the reduction changed the module's default newline or indentation (with which a fix's
new code is written), it lints the whole file again and reports that run; when libcst rejects the reduced
source it parses the whole file. tests/lint/test_regions.py compares, on every file of the benchmark corpus with a hybrid
context, diagnostics and ``--diff`` output of both ways, byte for byte.
"""
from __future__ import annotations

import ast
import os
import re
from collections import defaultdict
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from hylint.facts.names import ND_NAMES, NUMPY_MODE_SWITCH, SYM_NAMES
from hylint.lint.prefilter import CLASS_KEYS, CLASS_NAMES, CONTEXT_KEYS, rule_keys
from hylint.rule import BLOCK_CALLS, MXNET_IMPORTS, RANDOM_BINDINGS, SELF_ATTRIBUTE_METHODS, Region
from hylint.syntax.python_tree import python_tree

WHOLE_FILE_ENV = "HYLINT_WHOLE_FILE"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_WORD = re.compile(r"\w+")
_KNOWN_KEYS = frozenset(CONTEXT_KEYS + CLASS_KEYS)
_HYBRID_FORWARD = "hybrid_forward"  # among a class's base words: the class has a hybrid_forward method


def reads_of(rule_types: Iterable[type]) -> FrozenSet[Region]:
    """The regions the rules read beyond their hybrid functions (each rule's ``READS``)."""
    return frozenset(region for rule in rule_types for region in rule.READS)


def applies(rule_types: Iterable[type]) -> bool:
    """True when every selected rule reports only where ``reduce_source`` keeps code."""
    if os.environ.get(WHOLE_FILE_ENV, "") not in ("", "0"):
        return False
    for rule in rule_types:
        keys = rule_keys(rule)
        if keys is None or not set(keys) <= _KNOWN_KEYS:
            return False
    return True


# backward: an autograd.Function's (HY809's fix); hybridize: a class that overrides it to do nothing opts
# out (lint/cascades.py)
_ALWAYS_KEPT_METHODS = frozenset({"__init__", "forward", "backward", "hybridize", _HYBRID_FORWARD})
# the attributes of self a method names (`self.x`): the rules that read the other methods of a class
# (region self-attribute-methods) read them only for attributes the class's hybrid code names
_SELF_ATTRIBUTE = re.compile(r"\bself\s*\.\s*(\w+)")
_BY_NAME = re.compile(r"\b(?:setattr|getattr|delattr|hasattr|vars|__dict__)\b")  # any attribute, by a string
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_RANDOM_MODULES = ("numpy", "numpy.random", "random")
_NONE: FrozenSet[Region] = frozenset()
_RANDOM, _MXNET = frozenset({RANDOM_BINDINGS}), frozenset({MXNET_IMPORTS})
_BINDING_REGIONS = _RANDOM | _MXNET
# an import naming mxnet or its eager or traced namespace otherwise than the mode guards know by spelling
# (`import mxnet as _mx`, `from mxnet import symbol as S`): read by every rule, through the mode guards
# (`if F == _mx.sym:`, analysis/guards.py)
_MXNET_ALIAS = frozenset({Region("mxnet-aliases")})
_SPELLED = frozenset(name.split(".", 1)[0] for name in ND_NAMES | SYM_NAMES)  # mx, mxnet, nd, sym, ...
_NAMESPACES = frozenset({"mxnet"} | {name for name in ND_NAMES | SYM_NAMES if name.startswith("mxnet.")})


class _Unit:
    """A top-level statement, or a method of a top-level class that may be dropped on its own."""

    __slots__ = ("first", "last", "classes", "functions", "bindings", "name", "parent", "members", "blanked",
                 "attributes", "hidden", "scan")

    def __init__(self, node: ast.stmt, parent: Optional[int] = None, scan: Optional["_Scan"] = None) -> None:
        self.first, self.last = _span(node)
        self.parent = parent
        self.classes: Dict[str, List[Set[str]]] = {}  # class name -> base words of each definition
        self.functions: Set[str] = set()
        self.name = getattr(node, "name", "")  # a method's name
        self.members: List[int] = []  # units of the methods that may be dropped
        self.blanked: List[Tuple[int, int]] = []  # rows of the class's docstrings (dropped when kept)
        self.bindings: Dict[str, FrozenSet[Region]] = {}  # names bound by imports (any depth), module-level assignments
        self.attributes: Optional[Set[str]] = set()  # a method's `self.<attribute>`s (None: any, by name)
        self.hidden: List[Tuple[int, int]] = []  # a class's rows left out of its hybrid words (__init__)
        self.scan = scan if scan is not None else _Scan(node)
        if parent is None:
            _collect([node], self, module_level=True)
            self.bindings = _bindings(node, self.scan)

    def names(self) -> List[str]:
        return list(self.classes) + list(self.functions)


def _reachable(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of the blocks of its compound statements, not entering
    function or class bodies."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _reachable(inner)
        for block in [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]:
            yield from _reachable(block.body)


def _class_words(node: ast.ClassDef) -> Set[str]:
    """The words of a class's bases, and ``hybrid_forward`` when it defines that method."""
    words = {sub.id if isinstance(sub, ast.Name) else sub.attr
             for base in node.bases for sub in ast.walk(base) if isinstance(sub, (ast.Name, ast.Attribute))}
    if any(isinstance(method, _FUNCTIONS) and method.name == _HYBRID_FORWARD for method in _reachable(node.body)):
        words.add(_HYBRID_FORWARD)
    return words


def _collect(body: Sequence[ast.stmt], unit: _Unit, module_level: bool) -> None:
    """Classes (with their base words) and module-level functions, where ``analyze_module``
    collects them or more: module-level blocks and class bodies, never function bodies."""
    for node in _reachable(body):
        if isinstance(node, ast.ClassDef):
            unit.classes.setdefault(node.name, []).append(_class_words(node))
            _collect(node.body, unit, module_level=False)
        elif module_level and isinstance(node, _FUNCTIONS):
            unit.functions.add(node.name)


def _span(node: ast.stmt) -> Tuple[int, int]:
    """First row (its decorators included) and last row of a statement."""
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno] + [d.lineno for d in decorators]), node.end_lineno or node.lineno


# what a scan need not enter: nodes with no call, class or import below them (names, constants, an import's
# aliases, which the scan reads from the import itself), and fields that hold no such node
_SCAN_LEAVES = frozenset({ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global,
                          ast.Nonlocal})
_SCALAR_FIELDS = frozenset({"ctx", "op", "id", "attr", "arg", "kind", "type_comment", "level", "module", "asname",
                            "conversion", "is_async", "simple", "names"})
_SCAN_FIELDS: Dict[type, Tuple[str, ...]] = {}


class _Scan:
    """What one pass over a statement's syntax tree finds: the names called as ``Name(...)`` (the
    constructions of a class, region block-constructions: looked up among the module's class names),
    the classes defined in it (itself included), and its imports (name -> the regions its bindings
    belong to, see ``_bindings``: random-bindings for a random module, mxnet-imports for any mxnet
    import, by which ``mx.autograd.Function`` subclasses are found)."""

    __slots__ = ("calls", "classes", "imports")

    def __init__(self, node: Optional[ast.AST] = None) -> None:
        self.calls: Set[str] = set()
        self.classes: List[ast.ClassDef] = []
        self.imports: Dict[str, FrozenSet[Region]] = {}
        stack = [node] if node is not None else []
        push = stack.append
        while stack:
            inner = stack.pop()
            kind = type(inner)
            if kind is ast.Call:
                if type(inner.func) is ast.Name:
                    self.calls.add(inner.func.id)
            elif kind is ast.ClassDef:
                self.classes.append(inner)
            elif kind is ast.Import:
                for alias in inner.names:
                    root = alias.name.split(".", 1)[0]
                    self.bind(alias.asname or root, _alias(alias.name if alias.asname else root, alias.asname or root)
                              if root == "mxnet" else _RANDOM if (
                        alias.name in _RANDOM_MODULES if alias.asname else root in ("numpy", "random")) else _NONE)
            elif kind is ast.ImportFrom and inner.module is not None:
                for alias in inner.names:
                    local = alias.asname or alias.name
                    self.bind(local, _alias(f"{inner.module}.{alias.name}", local)
                              if inner.module.split(".", 1)[0] == "mxnet" else
                              _RANDOM if inner.module in _RANDOM_MODULES[1:] or
                              inner.module == "numpy" and alias.name == "random" else _NONE)
            fields = _SCAN_FIELDS.get(kind)
            if fields is None:
                fields = _SCAN_FIELDS[kind] = tuple(name for name in kind._fields if name not in _SCALAR_FIELDS)
            for field in fields:
                value = getattr(inner, field, None)
                if type(value) is list:
                    for item in value:
                        if type(item) not in _SCAN_LEAVES and isinstance(item, ast.AST):
                            push(item)
                elif type(value) not in _SCAN_LEAVES and isinstance(value, ast.AST):
                    push(value)

    def bind(self, name: str, regions: FrozenSet[Region]) -> None:
        # a name some binding of a read region binds keeps all its bindings (which one is last in the
        # file is the reading rule's business)
        self.imports[name] = self.imports.get(name, _NONE) | regions


def _alias(imported: str, local: str) -> FrozenSet[Region]:
    """The regions of a binding of ``local`` to ``imported`` (a dotted name in mxnet)."""
    return _MXNET | _MXNET_ALIAS if imported in _NAMESPACES and local not in _SPELLED else _MXNET


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` -> "a.b.c"; "" for anything but a plain dotted name (as analysis/syntax.py dotted_name)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _constructions(node: ast.AST, adding_methods: FrozenSet[str], adding: int = 0,
                   found: Optional[Dict[str, Set[bool]]] = None) -> Dict[str, Set[bool]]:
    """Name -> whether its ``Name(...)`` calls in ``node`` sit inside a call of one of ``adding_methods``
    (``.add(...)``: True, a child) or not (False), as region block-constructions tells them apart."""
    found = {} if found is None else found
    if isinstance(node, ast.Call):
        if _dotted(node.func).rsplit(".", 1)[-1] in adding_methods:
            adding += 1
        if isinstance(node.func, ast.Name):
            found.setdefault(node.func.id, set()).add(adding > 0)
    for child in ast.iter_child_nodes(node):
        _constructions(child, adding_methods, adding, found)
    return found


def _bindings(node: ast.stmt, scan: _Scan) -> Dict[str, FrozenSet[Region]]:
    """Names a top-level statement binds, with the regions those bindings belong to: every import, at
    any depth, and the targets of module-level assignments. random-bindings: a binding that can tell
    a reader of random generators anything (a random module, NumPy, a generator object) rather than
    "some other module", which is what an unbound name means to it too (but for ``np`` and ``numpy``);
    mxnet-imports: an import from mxnet."""
    names = dict(scan.imports)
    for inner in _reachable([node]):
        if isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in inner.targets if isinstance(inner, ast.Assign) else [inner.target]:
                names.update((sub.id, names.get(sub.id, _NONE) | _RANDOM)
                             for sub in ast.walk(target) if isinstance(sub, ast.Name))
    for name in ("np", "numpy"):
        if name in names:
            names[name] = names[name] | _RANDOM
    return names


def _is_block_class(bases: Set[str], block_classes: Set[str]) -> bool:
    """A base word naming a block base (the prefilter's words, which every block base name of the
    analysis contains), another block class of the file, or a hybrid_forward method."""
    return any(word in block_classes or any(name in word for name in CLASS_NAMES) for word in bases)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _split_class(node: ast.ClassDef, index: int, units: List[_Unit], lines: List[str],
                 scans: List[_Scan]) -> None:
    """Make the methods of top-level class ``units[index]`` that may be dropped units of their own
    (not ``__init__``, ``forward``, ``hybrid_forward``) and note its docstring-like strings, when its
    body is an indented block that keeps at least one other statement."""
    body = node.body
    spans = [_span(child) for child in body]
    head = body[0]
    column = min([head.col_offset] + [d.col_offset for d in getattr(head, "decorator_list", ())])
    if lines[spans[0][0] - 1][:column].strip():
        return  # `class A: x = 1`: a one-line body
    droppable = []
    for position, child in enumerate(body):
        first, last = spans[position]
        alone = (position == 0 or spans[position - 1][1] < first) and \
            (position + 1 == len(body) or spans[position + 1][0] > last)
        is_method = isinstance(child, _FUNCTIONS) and child.name not in _ALWAYS_KEPT_METHODS
        droppable.append(alone and (is_method or _is_docstring(child)))
    if all(droppable):
        return
    parent = units[index]
    for position, child in enumerate(body):
        if not droppable[position]:
            continue
        if _is_docstring(child):
            parent.blanked.append(spans[position])
            continue
        member = _Unit(child, index, scans[position])
        text = "".join(lines[member.first - 1:member.last])
        # None: kept whenever its class is (attributes named by strings; a class defined inside, which
        # the analysis collects)
        member.attributes = None if _BY_NAME.search(text) or member.scan.classes \
            else set(_SELF_ATTRIBUTE.findall(text))
        parent.members.append(len(units))
        units.append(member)
    for position, child in enumerate(body):
        if isinstance(child, _FUNCTIONS) and child.name == "__init__" and not droppable[position]:
            parent.hidden.append(spans[position])  # the attributes it sets are not hybrid words


def _sets_numpy_mode(node: ast.stmt) -> bool:
    """``npx.set_np()`` (any spelling ending in ``set_np``) as a statement of its own."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == NUMPY_MODE_SWITCH


def reduce_source(source: str, reads: FrozenSet[Region], tree: Optional[ast.Module] = None,
                  reached: Iterable[str] = ()) -> Optional[str]:
    """``source`` with the top-level statements that cannot matter to rules reading ``reads`` (beyond their
    hybrid functions) replaced by empty lines, or None when the whole file is to be parsed (see the
    module docstring). ``tree``: CPython's tree of ``source`` (``python_tree``), if the caller has it.
    ``reached``: the qualified names of the functions a trace of the package reaches in the file
    (``analysis.reach.FileReach``): kept, with what they name, as hybrid code is."""
    read_attributes = SELF_ATTRIBUTE_METHODS in reads
    read_bindings = (_BINDING_REGIONS & reads) | _MXNET_ALIAS
    adding_methods = frozenset(name for region in reads for name in region.adding_methods)
    read_constructions = any(region.name == "block-constructions" for region in reads)
    if "\r" in source and source.count("\r") != source.count("\r\n"):
        return None
    if tree is None:
        tree = python_tree(source)
    if tree is None:
        return None
    lines = _LINE.findall(source)
    if lines and lines[-1] == "":
        lines.pop()
    units = []
    member_scans: Dict[int, List[_Scan]] = {}  # a top-level class -> the scan of each statement of its body
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef) and node.body:
            # one pass per statement of the body: the methods that may be dropped reuse theirs
            scans = member_scans[index] = [_Scan(child) for child in node.body]
            whole = _Scan()
            header = _Scan(ast.Module(body=[*node.bases, *node.keywords, *node.decorator_list], type_ignores=[]))
            whole.classes.append(node)
            for part in [header, *scans]:
                whole.calls |= part.calls
                whole.classes += part.classes
                for name, tells in part.imports.items():
                    whole.bind(name, tells)
            units.append(_Unit(node, scan=whole))
        else:
            units.append(_Unit(node))
    top = len(units)
    if not top:
        return None
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef):
            _split_class(node, index, units, lines, member_scans[index])
    # top-level statements sharing a line are kept or dropped together
    groups: List[List[int]] = []
    group_of: List[int] = []
    for index in range(top):
        if not groups or units[index].first > units[index - 1].last:
            groups.append([])
        groups[-1].append(index)
        group_of.append(len(groups) - 1)

    # block classes (and classes with hybrid_forward), transitively through the file's own classes
    block_classes: Set[str] = {_HYBRID_FORWARD}
    changed = True
    while changed:
        changed = False
        for unit in units[:top]:
            for name, defs in unit.classes.items():
                if name not in block_classes and any(_is_block_class(bases, block_classes) for bases in defs):
                    block_classes.add(name)
                    changed = True
    definers: Dict[str, List[int]] = {}
    class_definers: Dict[str, List[int]] = {}
    binders: Dict[str, List[int]] = {}
    methods: Dict[str, List[int]] = {}
    for index, unit in enumerate(units):
        if unit.parent is None:
            for name in unit.names():
                definers.setdefault(name, []).append(index)
            for name in unit.classes:
                class_definers.setdefault(name, []).append(index)
            for name in unit.bindings:
                binders.setdefault(name, []).append(index)
        else:
            methods.setdefault(unit.name, []).append(index)
            for name in unit.scan.imports:  # an import inside a method: its class binds it too
                binders.setdefault(name, []).append(index)
    # a name none of whose bindings belongs to a read region reads as unbound to its readers: none needs keeping
    telling = {name for unit in units[:top] for name, regions in unit.bindings.items() if regions & read_bindings}
    binders = {name: where for name, where in binders.items() if name in telling}

    kept = [False] * len(units)
    queue: List[int] = []

    def keep(index: int) -> None:
        for other in (groups[group_of[index]] if units[index].parent is None else (index,)):
            if not kept[other]:
                kept[other] = True
                queue.append(other)

    def words_of(unit: _Unit, left_out: Iterable[Tuple[int, int]] = ()) -> Set[str]:
        rows = set()
        for first, last in left_out:
            rows.update(range(first, last + 1))
        return set(_WORD.findall("".join(lines[row - 1] for row in range(unit.first, unit.last + 1)
                                         if row not in rows)))

    block_names = block_classes - {_HYBRID_FORWARD}
    builders: Dict[Tuple[str, bool], int] = {}  # (block class, built as a child) -> the first unit doing so
    for index, node in enumerate(tree.body):
        if any(name in block_classes for name in units[index].classes) or _sets_numpy_mode(node):
            keep(index)  # (`npx.set_np()` at module level: the analysis reads the module's blocks as numpy mode)
        elif isinstance(node, _FUNCTIONS) and any(_is_block_class(_class_words(inner), block_classes)
                                                  for inner in units[index].scan.classes):
            keep(index)  # a block class defined inside a function is analysed too
        elif read_constructions and block_names & units[index].scan.calls:
            if units[index].scan.classes:
                keep(index)  # calls in the methods of a class inside: child or not by that class
                continue
            # a child-only class (built as a child somewhere, never elsewhere) is told by where it is
            # built: one statement building it as a child and one building it otherwise tell that
            for name, kinds in _constructions(node, adding_methods).items():
                if name in block_names:
                    for kind in kinds:
                        builders.setdefault((name, kind), index)
    # a module-level function kept only as such a builder (a model factory, whose words would keep
    # everything it names) is handed to libcst as its constructions alone: `Cls()` for one built
    # otherwise, `_.add(Cls())` for one built as a child, on its first row (see ``_stub``)
    if BLOCK_CALLS in reads:
        for index in _block_call_units(tree, units, top, block_names, lines):
            keep(index)
    stubs: Dict[int, List[Tuple[str, bool]]] = defaultdict(list)
    for (name, as_child), index in builders.items():
        if isinstance(tree.body[index], _FUNCTIONS) and len(groups[group_of[index]]) == 1:
            stubs[index].append((name, as_child))
        else:
            keep(index)
    for qualname in reached:
        # `fn`, `fn.<locals>.inner`, `Cls.method`, `Cls.method.<locals>.inner`, `Outer.Inner.method`
        first, _, rest = qualname.partition(".")
        method = rest.partition(".")[0]
        for index in definers.get(first, ()):
            keep(index)
            for member in units[index].members:
                if units[member].name == method:
                    keep(member)
    seen: Set[str] = set()
    seen_in_init: Set[str] = set()
    hybrid_words: Dict[int, Set[str]] = defaultdict(set)  # a kept class -> the words of its kept code but __init__
    while queue:
        index = queue.pop()
        unit = units[index]
        for name in unit.names():  # every definition of a kept name
            for other in definers[name]:
                keep(other)
        own = [(units[member].first, units[member].last) for member in unit.members] + unit.blanked
        words = words_of(unit, own + unit.hidden)
        if unit.members:
            hybrid_words[index] |= words
        elif unit.parent is not None:
            hybrid_words[unit.parent] |= words
        if unit.hidden:
            # a word of __init__ alone: a class there (a child's type) matters to the analysis and the
            # structure rules, and so do imports (random-bindings: generators made there); the functions and
            # methods it calls build children, which only the code they build matters for
            for word in words_of(unit, own) - words - seen_in_init:
                seen_in_init.add(word)
                for other in class_definers.get(word, ()):
                    keep(other)
                for other in binders.get(word, ()):
                    keep(other)
        for word in words - seen:
            seen.add(word)
            for other in definers.get(word, ()):
                keep(other)
            for other in binders.get(word, ()):
                keep(other)  # random-bindings, mxnet-imports: what `np`, `random`, `RNG`, `mx` name
            for other in methods.get(word, ()):
                if kept[units[other].parent]:
                    keep(other)
        cls = index if unit.members else unit.parent
        if cls is None:
            continue
        for member in units[cls].members:
            if kept[member]:
                continue
            method = units[member]
            # named, or it reads or writes an attribute the class's hybrid code names; that includes every
            # caller (`self.m()`) of a kept method m (its `def m` is a hybrid word): a reader of
            # self-attribute-methods tells the methods that build the block (called from __init__ only)
            # by their callers
            if method.name in seen or method.attributes is None or \
                    read_attributes and method.attributes & hybrid_words[cls]:
                keep(member)
            elif read_constructions and block_names & method.scan.calls:
                keep(member)  # it builds a block class (block-constructions)
    stubbed = {index: built for index, built in stubs.items() if not kept[index]}
    dropped: List[Tuple[int, int]] = []
    for index, unit in enumerate(units):
        if not kept[index] and (unit.parent is None or kept[unit.parent]):
            dropped.append((unit.first, unit.last))
        elif kept[index]:
            dropped.extend(unit.blanked)
    if not dropped:
        return None
    for first, last in dropped:
        for row in range(first - 1, last):
            line = lines[row]
            lines[row] = line[len(line.rstrip("\r\n")):]
    for index, built in stubbed.items():
        lines[units[index].first - 1] = _stub(built, min(adding_methods)) + lines[units[index].first - 1]
    return "".join(lines)


# an NDArray made from a literal (what analysis/callsites.py reads the rank of): `nd.ones(`, `mx.nd.random.uniform(`
_ND_LITERAL = re.compile(r"\bnd(?:array)?\s*\.\s*(?:random\s*\.\s*)?(?:ones|zeros|empty|full|uniform|normal|randint|"
                         r"gamma|exponential|poisson|negative_binomial|generalized_negative_binomial|array|arange)\s*\(")


def _block_call_units(tree: ast.Module, units: List[_Unit], top: int, block_names: Set[str],
                      lines: List[str]) -> List[int]:
    """Region block-calls: the units that may call a block class of the file on an NDArray literal (a unit
    that calls a block class, or a module-level name bound to one, and holds a literal or names a
    module-level name bound to one), and every module-level statement binding such a name (the last binding
    before a call is the one analysis/callsites.py reads)."""
    def text(unit: _Unit) -> str:
        return "".join(lines[unit.first - 1:unit.last])

    bound: Set[str] = set()  # module-level names that may hold a block or an NDArray literal
    binders: List[int] = []
    for index in range(top):
        if isinstance(tree.body[index], (ast.ClassDef, *_FUNCTIONS)):
            continue
        unit = units[index]
        if block_names & unit.scan.calls or _ND_LITERAL.search(text(unit)):
            bound.update(name for inner in _reachable([tree.body[index]]) if isinstance(inner, ast.Assign)
                         for target in inner.targets for name in _assigned(target))
    for index in range(top):
        if not isinstance(tree.body[index], (ast.ClassDef, *_FUNCTIONS)) and bound & set(units[index].bindings):
            binders.append(index)
    callable_names = block_names | bound
    found = []
    for index, unit in enumerate(units):
        if not callable_names & unit.scan.calls:
            continue
        body = text(unit)
        if _ND_LITERAL.search(body) or bound & set(_WORD.findall(body)):
            found.append(index)
            if unit.parent is not None:
                found.append(unit.parent)
    return binders + found


def _assigned(target: ast.expr) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _assigned(element)]
    return []


def _stub(built: Sequence[Tuple[str, bool]], adding_method: str) -> str:
    """One statement line building each class as region block-constructions tells constructions apart
    outside class bodies: ``Cls()`` (built otherwise) and ``_.add(Cls())`` (built as a child, with the
    region's first adding method)."""
    return "; ".join(f"_.{adding_method}({name}())" if as_child else f"{name}()" for name, as_child in sorted(built))
